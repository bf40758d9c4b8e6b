"""Compact letter display: letters such that systems sharing a letter do not differ
significantly (Piepho 2004), for `rankscope.stats.multiple.PairwiseResult.letters` and the
labels of `rankscope.report.latex.latex_table`.

Reference: H.-P. Piepho, "An algorithm for a letter-based representation of all-pairwise
comparisons", J. Comput. Graph. Statist. 13(2), 2004.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..errors import UsageError

__all__ = ["compact_letters", "letter_labels"]


def letter_labels(count: int) -> list[str]:
    """``count`` distinct labels: ``a``-``z``, then ``A``-``Z``, then ``aa``, ``ab``, ..."""
    single = string.ascii_lowercase + string.ascii_uppercase
    labels = list(single[:count])
    width = 2
    while len(labels) < count:
        for index in range(26**width):
            if len(labels) == count:
                break
            digits = []
            for _ in range(width):
                index, digit = divmod(index, 26)
                digits.append(string.ascii_lowercase[digit])
            labels.append("".join(reversed(digits)))
        width += 1
    return labels


def compact_letters(
    names: Sequence[str], means: ArrayLike, significant: ArrayLike
) -> dict[str, str]:
    """Compact letter display: systems that share a letter do not differ significantly.

    ``significant`` is a ``k x k`` boolean matrix (symmetrised; the diagonal ignored).
    Insert-and-absorb (Piepho 2004): start with one letter shared by all systems; for each
    significant pair, split every letter that contains both into one without the first and
    one without the second, then drop ("absorb") letters whose systems are a subset of
    another letter's.  The letters that remain are exactly the maximal groups of systems
    with no significant pair among them, so every non-significant pair shares a letter and
    no significant pair does.  (Piepho's optional sweeping step, which removes redundant
    letters, is not applied.)

    Letters are assigned in order of the groups' best systems by mean (descending): ``a``
    goes to the group of the best system.  Returns ``{name: letters}`` in input order; beyond
    52 groups the labels have several characters and are separated by commas.

    >>> compact_letters(["A", "B", "C", "D"], [4, 3, 2, 1],
    ...                 [[0, 0, 1, 1], [0, 0, 0, 1], [1, 0, 0, 0], [1, 1, 0, 0]])
    {'A': 'a', 'B': 'ab', 'C': 'bc', 'D': 'c'}
    """
    names = [str(name) for name in names]
    k = len(names)
    means = np.asarray(means, dtype=np.float64)
    matrix = np.asarray(significant, dtype=bool)
    if means.shape != (k,) or matrix.shape != (k, k):
        raise UsageError(f"need {k} means and a {k} x {k} significance matrix")
    matrix = (matrix | matrix.T) & ~np.eye(k, dtype=bool)
    groups = [(1 << k) - 1] if k else []  # bit i set: system i in the group
    for a, b in zip(*np.nonzero(np.triu(matrix, 1)), strict=True):
        both = (1 << int(a)) | (1 << int(b))
        kept = [group for group in groups if group & both != both]
        split = [group for group in groups if group & both == both]
        if not split:
            continue
        fresh = {group & ~(1 << int(a)) for group in split}
        fresh |= {group & ~(1 << int(b)) for group in split}
        fresh -= set(kept)
        # absorb: only a new group can be a subset of another (a kept group is no subset
        # of the group it was split from, so of none of its parts)
        pool = kept + sorted(fresh)
        groups = kept + [
            group
            for group in sorted(fresh)
            if not any(other != group and group & other == group for other in pool)
        ]
    order = np.argsort(-means, kind="stable")
    rank = np.empty(k, dtype=np.int64)
    rank[order] = np.arange(k)

    def members_by_rank(group: int) -> list[int]:
        return sorted(int(rank[i]) for i in range(k) if group >> i & 1)

    groups.sort(key=members_by_rank)
    labels = letter_labels(len(groups))
    separator = "," if len(groups) > 52 else ""
    return {
        name: separator.join(
            label for label, group in zip(labels, groups, strict=True) if group >> i & 1
        )
        for i, name in enumerate(names)
    }
