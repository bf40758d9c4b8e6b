"""Public functions are fully annotated: the package ships ``py.typed``, and mypy checks src/
in CI (``.ci/run``)."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Packages whose ``__all__`` (or lazy ``_EXPORTS``) is the public surface.
PUBLIC = [
    "rankscope",
    "rankscope.errors",
    "rankscope.model",
    "rankscope.read",
    "rankscope.judge",
    "rankscope.measures",
    "rankscope.preference",
    "rankscope.table",
    "rankscope.stats",
    "rankscope.recsys",
    "rankscope.fusion",
    "rankscope.clicks",
    "rankscope.api",
    "rankscope.api.agreement",
    "rankscope.read.results_frames",
]
try:  # the ir-measures extra (in the test extra)
    import ir_measures  # noqa: F401

    PUBLIC.append("rankscope.integrations.ir_measures")
except ImportError:  # pragma: no cover
    pass


def _public_objects():
    seen = set()
    for name in PUBLIC:
        module = importlib.import_module(name)
        names = getattr(module, "__all__", None) or []
        for attr in names:
            obj = getattr(module, attr)
            if id(obj) in seen or inspect.ismodule(obj):
                continue
            seen.add(id(obj))
            yield f"{name}.{attr}", obj


def _functions():
    for label, obj in _public_objects():
        if inspect.isclass(obj):
            if not obj.__module__.startswith("rankscope"):
                continue
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr not in ("__init__", "__call__"):
                    continue
                if isinstance(member, staticmethod | classmethod):
                    member = member.__func__
                if isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member) and not _generated(member):
                    yield f"{label}.{attr}", member
        elif inspect.isfunction(obj) and obj.__module__.startswith("rankscope"):
            yield label, obj


def _generated(function) -> bool:
    """Methods written by dataclasses (``__init__``, ``__eq__``) carry annotations already;
    a `typing.Protocol`'s ``__init__`` is typing's own."""
    return function.__code__.co_filename == "<string>" or not function.__module__.startswith(
        "rankscope"
    )


def test_public_functions_are_annotated():
    missing = []
    for label, function in _functions():
        signature = inspect.signature(function)
        unannotated = [
            p.name
            for p in signature.parameters.values()
            if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty
        ]
        if unannotated or (
            signature.return_annotation is inspect.Signature.empty
            and function.__name__ != "__init__"
        ):
            missing.append(f"{label}({', '.join(unannotated)})")
    assert not missing, "public functions without full annotations:\n" + "\n".join(missing)


def test_py_typed_marker_is_shipped():
    assert (ROOT / "src" / "rankscope" / "py.typed").is_file()
