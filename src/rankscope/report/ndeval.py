"""ndeval 4.5's CSV: one row per topic and an ``amean`` row, six decimals."""

from __future__ import annotations

import numpy as np

from ..table.ndeval import COLUMNS


def format_ndeval(runid: str, topics: list[str], table: np.ndarray, mean: np.ndarray) -> str:
    lines = ["runid,topic," + ",".join(COLUMNS)]
    for qid, row in zip(topics, table, strict=True):
        lines.append(f"{runid},{qid}," + ",".join(f"{v:.6f}" for v in row))
    lines.append(f"{runid},amean," + ",".join(f"{v:.6f}" for v in mean))
    return "\n".join(lines) + "\n"
