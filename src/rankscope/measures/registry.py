"""The measure registry and the name algebra.

Two spellings parse to the same `Request` objects:

* trec_eval's: ``P`` (default cutoffs), ``P.5,10``, ``ndcg_cut.10``, ``ndcg.1=3,2=9``,
  ``rbp.p=0.8``, ``utility.2,-1,0,0``, nicknames ``official``, ``all_trec``, ``set``;
* ir_measures': ``P@5``, ``P(rel=2)@5``, ``nDCG@10``, ``AP``, ``RR``, ``R@100``, ``Rprec``,
  ``Bpref``, ``infAP``, ``Success@5``, ``RBP(p=0.8)``, ``IPrec@0.1``; and, for any measure,
  ``judged_only=True`` (``nDCG(judged_only=True)@10``): the measure on the condensed list,
  the ranking without its unjudged documents (Sakai 2007).

Both are read off the measures' declarations (`TrecSpelling`, `IrSpelling`, `Param`); there
is no table of names here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import UsageError
from .base import Measure, Request

_IR_PATTERN = re.compile(
    r"^(?P<name>[A-Za-z_][A-Za-z0-9_-]*)(?:\((?P<args>[^()]*)\))?(?:@(?P<cutoff>[^@()]+))?$"
)
_INT_PREFIX = re.compile(r"\s*([+-]?\d+)")
_FLOAT_PREFIX = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")


def c_atol(text: str) -> int:
    """C's atol: the integer prefix of ``text``, 0 if none (trec_eval parses cutoffs so)."""
    m = _INT_PREFIX.match(text)
    return int(m.group(1)) if m else 0


def c_atof(text: str) -> float:
    """C's atof for decimal text: the number prefix of ``text``, 0.0 if none."""
    m = _FLOAT_PREFIX.match(text)
    return float(m.group(1)) if m else 0.0


def _is_int(text: str) -> bool:
    return re.fullmatch(r"[+-]?\d+", text) is not None


class Registry:
    """All measures, in trec_eval's output order, with both name spellings."""

    def __init__(self, measures: Sequence[Measure], nicknames: Mapping[str, Sequence[str]]):
        self.measures = list(measures)
        self.nicknames = {k: list(v) for k, v in nicknames.items()}
        self._index = {m.name: i for i, m in enumerate(self.measures)}
        self._ir: dict[tuple[str, bool], tuple[Measure, Any]] = {}
        for m in self.measures:
            for spelling in m.ir:
                key = (spelling.name, spelling.cutoff is not None)
                if key in self._ir:
                    raise ValueError(f"ir name {key} declared twice")
                self._ir[key] = (m, spelling)

    def __getitem__(self, name: str) -> Measure:
        return self.measures[self._index[name]]

    def __contains__(self, name: str) -> bool:
        return name in self._index

    def index(self, measure: Measure) -> int:
        return self._index[measure.name]

    # -- parsing -----------------------------------------------------------------------------

    def parse(self, spec: str) -> list[Request]:
        """Requests named by one measure spec (a nickname gives several)."""
        spec = spec.strip()
        if not spec:
            raise UsageError("empty measure name")
        if spec in self.nicknames:
            return [r for name in self.nicknames[spec] for r in self.parse(name)]
        if "(" in spec or "@" in spec:
            return [self._parse_ir(spec)]
        if spec in self._index:
            return self._trec_requests(self[spec], None)
        if "." in spec:
            name, _, params = spec.partition(".")
            if name in self._index:
                if not params:
                    raise UsageError(f"measure '{spec}': empty parameter list after '.'")
                return self._trec_requests(self[name], params)
        if (spec, False) in self._ir:
            return [self._parse_ir(spec)]
        raise UsageError(self._unknown(spec))

    def parse_many(self, specs: Iterable[str]) -> list[Request]:
        """Requests for several specs, without duplicates, in output order.

        Explicit parameters replace a measure's trec_eval defaults: ``-m all_trec -m P.5``
        gives ``P_5`` only, as in trec_eval.
        """
        requests: list[Request] = []
        explicit: set[str] = set()
        defaults: list[Request] = []
        for spec in specs:
            for r in self.parse(spec):
                # a measure without trec_eval parameters has no defaults to replace:
                # ``-m RPP -m 'RPP(rel=2)'`` and ``-m all_trec -m 'AP(rel=2)'`` keep both
                if r.order and r.order[0] == "default" and r.measure.trec.style != "none":
                    defaults.append(r)
                else:
                    if not r.judged_only:  # a condensed-list request is a measure of its own
                        explicit.add(r.measure.name)
                    requests.append(r)
        requests += [r for r in defaults if r.measure.name not in explicit]
        seen: set = set()
        unique = []
        for r in requests:
            if r.key() not in seen:
                seen.add(r.key())
                unique.append(r)
        return sorted(unique, key=lambda r: (self.index(r.measure), r.order[1:]))

    def _unknown(self, spec: str) -> str:
        import difflib

        names = list(dict.fromkeys([*self._index, *(n for n, _ in self._ir), *self.nicknames]))
        close = difflib.get_close_matches(spec.split("(")[0].split("@")[0].split(".")[0], names)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        return f"unknown measure '{spec}'{hint} (see `rankscope measures`)"

    def _trec_requests(self, m: Measure, params: str | None) -> list[Request]:
        style = m.trec.style
        tag = "default" if params is None else "explicit"
        if style == "none":
            if params is not None:
                raise UsageError(f"measure '{m.name}' takes no parameters (got '{params}')")
            return [Request(m, _freeze(m.validate({})), m.name, (tag,))]
        if style in ("cutoffs", "fractions"):
            if params is None:
                values = list(m.trec.defaults)
            elif style == "cutoffs":
                values = sorted(c_atol(t) for t in params.split(","))
                if values[0] <= 0:
                    raise UsageError(f"measure '{m.name}.{params}': cutoffs must be positive")
            else:
                values = sorted(c_atof(t) for t in params.split(","))
            if len(set(values)) != len(values):
                raise UsageError(f"measure '{m.name}.{params}': duplicate cutoffs")
            # a measure with one-value-each parameters names the parameter they set
            assert m.trec.param is not None
            out = []
            for v in values:
                label = f"{m.name}_{v}" if style == "cutoffs" else f"{m.name}_{v:3.2f}"
                frozen = _freeze(m.validate({m.trec.param: v}))
                out.append(Request(m, frozen, label, (tag, v)))
            return out
        if style == "values":
            if params is None:
                return [Request(m, _freeze(m.validate({})), m.name, (tag,))]
            values = [c_atof(t) for t in params.split(",")]
            kwargs = m.trec.from_values(values) if m.trec.from_values else {}
            return [Request(m, _freeze(m.validate(kwargs)), f"{m.name}_{params}", (tag,))]
        if style == "pairs":
            if params is None:
                return [Request(m, _freeze(m.validate({})), m.name, (tag,))]
            return [
                Request(m, _freeze(m.validate(_pairs(m, params))), f"{m.name}_{params}", (tag,))
            ]
        raise AssertionError(style)

    def _parse_ir(self, spec: str) -> Request:
        match = _IR_PATTERN.match(spec)
        if not match:
            raise UsageError(f"cannot parse measure '{spec}' (expected Name(param=value)@k)")
        name, args, cutoff = match.group("name"), match.group("args"), match.group("cutoff")
        entry = self._ir.get((name, cutoff is not None))
        if entry is None:
            if (name, cutoff is None) in self._ir:
                need = "needs" if cutoff is None else "takes no"
                raise UsageError(f"measure '{spec}': {name} {need} a cutoff @k")
            raise UsageError(self._unknown(spec))
        m, spelling = entry
        params: dict[str, Any] = dict(spelling.fixed)
        shown = []
        condensed = False
        if args:
            for item in args.split(","):
                key, eq, value = item.partition("=")
                key, value = key.strip(), value.strip()
                if not eq or not key:
                    raise UsageError(f"measure '{spec}': parameters are written name=value")
                shown.append(f"{key}={value}")
                if key == "judged_only" and "judged_only" not in {p.name for p in m.params}:
                    condensed = _boolean(value, spec)
                    continue
                params[key] = value
        if cutoff is not None:
            params[spelling.cutoff] = cutoff.strip()
        kwargs = m.validate(params)
        label = name + (f"({','.join(sorted(shown))})" if shown else "")
        if cutoff is not None:
            label += f"@{cutoff.strip()}"
        order = kwargs.get(spelling.cutoff) if spelling.cutoff else None
        sort = ("ir", -1 if order is None else order, label)
        return Request(m, _freeze(kwargs), label, sort, judged_only=condensed)

    # -- documentation -------------------------------------------------------------------------

    def spellings(self, m: Measure) -> list[str]:
        out = []
        t = m.trec
        if t.style == "none":
            out.append(m.name)
        elif t.style in ("cutoffs", "fractions"):
            default = ",".join(str(d) for d in t.defaults)
            out.append(f"{m.name}.{default}")
        else:
            out.append(f"{m.name}[.params]")
        for s in m.ir:
            out.append(s.name + ("@k" if s.cutoff else ""))
        return list(dict.fromkeys(out))


def _boolean(value: str, spec: str) -> bool:
    """``judged_only=True``: any measure on the condensed list (Sakai 2007)."""
    text = value.lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise UsageError(f"measure '{spec}': judged_only must be True or False (got {value!r})")


def _pairs(m: Measure, text: str) -> dict[str, Any]:
    gains: dict[int, float] = {}
    named: dict[str, Any] = {}
    for item in text.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UsageError(f"measure '{m.name}.{text}': parameters are written name=value")
        if _is_int(key):
            gains[int(key)] = c_atof(value)
        else:
            named[key] = c_atof(value)
    if gains:
        named["gains"] = gains
    return named


def _freeze(kwargs: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(kwargs.items()))
