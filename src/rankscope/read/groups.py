"""Item groups (``item group`` per line) for the exposure and parity figures of recommenders.

A file holds one ``item group`` pair per line, separated by a tab, a comma or spaces (blank
lines and ``#`` comments skipped; a first line ``item group`` — any first field, second field
``group`` — is a header).  Also accepted: a ``{item: group}`` mapping and a DataFrame whose
columns ``item`` and ``group`` (else its first two columns) hold them.  An item given two
different groups, or a line without exactly two fields, is an `InputError` naming the file
and line (the row, for frames).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from ..model.frames import column_names, is_frame
from .fields import nul_error, nul_line, text_start
from .trec import read_bytes, source_name


def read_item_groups(source: Any) -> dict[str, str]:
    """``{item id: group}`` from a file, a mapping or a DataFrame (see the module)."""
    if isinstance(source, Mapping):
        return _checked(((str(i), str(g), f"key {i!r}") for i, g in source.items()), "<groups>")
    if is_frame(source):
        return _from_frame(source)
    if isinstance(source, str | os.PathLike):
        return _from_file(source)
    raise InputError(f"cannot read item groups from {type(source).__name__}")


def _from_file(path: str | os.PathLike) -> dict[str, str]:
    data, name = read_bytes(path), source_name(path)
    start = text_start(data, name)
    data = data[start:]
    nul = nul_line(data)
    if nul:
        raise nul_error(name, nul)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    rows: list[tuple[str, str, str]] = []
    first = True
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in re.split(r"\t|,|\s+", line)]
        if len(fields) != 2 or not all(fields):
            raise InputError(
                f"{name}: line {number}: expected 2 fields, 'item group', got "
                f"{len(fields)}: {line[:60]!r}"
            )
        if first and fields[1].lower() == "group":  # the header
            first = False
            continue
        first = False
        rows.append((fields[0], fields[1], f"line {number}"))
    groups = _checked(rows, name)
    if not groups:
        raise InputError(f"{name}: no item groups in the file")
    return groups


def _from_frame(frame: Any) -> dict[str, str]:
    names = column_names(frame)
    lower = [n.lower() for n in names]
    if "item" in lower and "group" in lower:
        item, group = names[lower.index("item")], names[lower.index("group")]
    elif len(names) >= 2:
        item, group = names[0], names[1]
    else:
        raise InputError("<groups frame>: item groups need two columns, item and group")
    items = [str(x) for x in list(frame[item])]
    groups = [str(x) for x in list(frame[group])]
    return _checked(
        ((i, g, f"row {n}") for n, (i, g) in enumerate(zip(items, groups, strict=True))),
        "<groups frame>",
    )


def _checked(rows, source: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item, group, where in rows:
        if out.setdefault(item, group) != group:
            raise InputError(
                f"{source}: {where}: item {item!r} is in group {out[item]!r} and {group!r}; "
                "an item belongs to one group"
            )
    return out
