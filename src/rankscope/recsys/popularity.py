"""Popularity bias and fairness of exposure: how much of what a recommender shows is popular,
and how evenly it treats item groups (by default the popular short head and the long tail).

Popularity is item popularity as for Novelty and LongTail: the number of distinct users who
interacted with the item in the popularity log (``popularity=``, by default the training
interactions).  The item groups of PopRSP, PopREO and ExposureRatio are the short head and
the long tail of the catalog, split by `head_items` (the rule LongTail uses, with the same
``head`` and ``share`` parameters); `group_statistics` gives the same figures per group for
any grouping of the items, the default one or the user's.
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..measures.base import Param
from .base import Context, K, RecsysMeasure, Same, Values, finished, user_mean
from .beyond import _per_list, _spell, head_items

HEAD = Param(
    "head",
    str,
    "items",
    "items: the short head is a share of the catalog's items (default); interactions: the "
    "most popular items holding a share of the interactions",
    choices=("items", "interactions"),
)
SHARE = Param("share", float, 0.2, "the short head's share (default 0.2)", minimum=0.0)
DISCOUNT = Param(
    "discount",
    str,
    "log",
    "log: an item at rank r is exposed 1/log2(r + 1) (default); none: every position 1",
    choices=("log", "none"),
)

#: Group codes of the default grouping.
SHORT_HEAD, LONG_TAIL = 0, 1
DEFAULT_GROUPS = ("short head", "long tail")


def popularity_groups(ctx: Context, head: str = "items", share: float = 0.2) -> np.ndarray:
    """Group code per item code: `SHORT_HEAD` (0) for the head by `head_items`, `LONG_TAIL`
    (1) for the other catalog items, -1 for items outside the catalog."""
    ctx.need_popularity("the short head / long tail split")
    is_head = head_items(ctx, head, share)
    groups = np.full(ctx.num_items, -1, dtype=np.int64)
    groups[ctx.in_catalog] = LONG_TAIL
    groups[ctx.in_catalog & is_head] = SHORT_HEAD
    return groups


# -- per list --------------------------------------------------------------------------------


def _arp(ctx: Context, k: int) -> Values:
    ctx.need_popularity("ARP")
    lists = ctx.lists(k)
    popularity = ctx.popularity[lists.items].astype(np.float64)
    return user_mean(_per_list(ctx, lists, popularity, mean=True))


def _aclt(ctx: Context, k: int, head: str = "items", share: float = 0.2) -> Values:
    ctx.need_popularity("ACLT")
    lists = ctx.lists(k)
    tail = popularity_groups(ctx, head, share)[lists.items] == LONG_TAIL
    return user_mean(_per_list(ctx, lists, tail.astype(np.float64), mean=False))


# -- per group -------------------------------------------------------------------------------


def group_tally(ctx: Context, k: int, groups: np.ndarray, num_groups: int) -> dict:
    """Per group, what adds over users: appearances in the top-k lists by rank (``exposure``,
    groups × k), recommended items the user had not seen in training (RSP's numerator),
    unseen catalog items summed over users (RSP's denominator), relevant unseen recommended
    items (REO's numerator) and relevant unseen test items (REO's denominator); and the
    catalog's items per group (``items``, the same for every set of users).

    ``groups``: a group code per item code (-1: in no group, not counted)."""
    lists = ctx.lists(k)
    n_items = ctx.num_items
    catalog = ctx.catalog_codes
    member = groups[catalog]
    member = member[member >= 0]
    items = np.bincount(member, minlength=num_groups).astype(np.int64)

    entry_group = groups[lists.items]
    grouped = entry_group >= 0
    rank = np.arange(len(lists.items)) - lists.offsets[:-1][lists.owner]  # 0 .. k - 1
    by_rank = np.bincount(
        entry_group[grouped] * k + rank[grouped], minlength=num_groups * k
    ).reshape(num_groups, k)

    seen = ctx.seen_keys
    user_codes = ctx.user_codes
    keys = user_codes[lists.owner] * n_items + lists.items
    unseen = ~_isin_sorted(keys, seen)
    recommended = np.bincount(entry_group[grouped & unseen], minlength=num_groups)
    hits = np.bincount(entry_group[grouped & unseen & lists.relevant], minlength=num_groups)

    # unseen catalog items per group, summed over the evaluated users
    evaluated = np.zeros(len(ctx.qrels.queries), dtype=bool)
    evaluated[user_codes] = True
    seen_users, seen_items = seen // n_items, seen % n_items
    seen_group = groups[seen_items]
    counted = evaluated[seen_users] & (seen_group >= 0) & ctx.in_catalog[seen_items]
    seen_per_group = np.bincount(seen_group[counted], minlength=num_groups)
    candidates = items * ctx.num_users - seen_per_group

    # relevant unseen test items per group
    qrels = ctx.qrels
    relevant_rows = qrels.grade >= 1
    test_keys = qrels.query.astype(np.int64) * n_items + qrels.doc
    rel = relevant_rows & evaluated[qrels.query] & ~_isin_sorted(test_keys, seen)
    rel_group = groups[qrels.doc[rel]]
    relevant = np.bincount(rel_group[rel_group >= 0], minlength=num_groups)
    return {
        "items": Same(items), "exposure": by_rank, "recommended": recommended,
        "candidates": candidates, "hits": hits, "relevant": relevant, "users": ctx.num_users,
    }  # fmt: skip


def group_counts_of(tally: dict, discount: str = "log") -> tuple[np.ndarray, ...]:
    """Per group (float arrays): catalog items, exposure of the top-k lists (each appearance
    at rank r weighs 1/log2(r + 1), or 1 with ``discount="none"``), recommended, candidates,
    hits and relevant, from a `group_tally` (of any set of users)."""
    by_rank = tally["exposure"]
    rank = np.arange(1, by_rank.shape[1] + 1, dtype=np.float64)
    weight = 1.0 / np.log2(rank + 1.0) if discount == "log" else np.ones(len(rank))
    exposure = (by_rank * weight[None, :]).sum(axis=1)
    return tuple(
        np.asarray(tally[key], dtype=np.float64) if key != "exposure" else exposure
        for key in ("items", "exposure", "recommended", "candidates", "hits", "relevant")
    )


def group_counts(ctx: Context, k: int, groups: np.ndarray, num_groups: int, discount: str = "log"):
    """Per group (arrays of ``num_groups``): catalog items, exposure of the top-k lists,
    recommended items the user had not seen in training (RSP's numerator), unseen catalog
    items summed over users (RSP's denominator), relevant unseen recommended items (REO's
    numerator) and relevant unseen test items (REO's denominator): `group_counts_of` of
    `group_tally`.

    ``groups``: a group code per item code (-1: in no group, not counted)."""
    return group_counts_of(group_tally(ctx, k, groups, num_groups), discount)


def _isin_sorted(keys: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    if not len(sorted_keys):
        return np.zeros(len(keys), dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[pos] == keys


def relative_std(rates: np.ndarray) -> float:
    """std / mean over the groups with a rate (population std): 0 when equal."""
    rates = rates[~np.isnan(rates)]
    if len(rates) < 2:
        return float("nan")
    mean = float(rates.mean())
    if mean == 0:
        return float("nan")
    return float(np.sqrt(((rates - mean) ** 2).mean()) / mean)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.full(len(numerator), np.nan)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _default_tally(ctx: Context, k: int, head: str, share: float) -> dict:
    return ctx.cached(
        ("popularity-groups", k, head, share),
        lambda: group_tally(ctx, k, popularity_groups(ctx, head, share), 2),
    )


def _pop_rsp(ctx: Context, k: int, head: str = "items", share: float = 0.2) -> Values:
    return finished(None, _default_tally(ctx, k, head, share), _finish_rsp, k=k, head=head,
                    share=share)  # fmt: skip


def _finish_rsp(tally: dict, **params: object) -> tuple[float, int]:
    _, _, recommended, candidates, _, _ = group_counts_of(tally)
    return relative_std(_ratio(recommended, candidates)), tally["users"]


def _pop_reo(ctx: Context, k: int, head: str = "items", share: float = 0.2) -> Values:
    return finished(None, _default_tally(ctx, k, head, share), _finish_reo, k=k, head=head,
                    share=share)  # fmt: skip


def _finish_reo(tally: dict, **params: object) -> tuple[float, int]:
    _, _, _, _, hits, relevant = group_counts_of(tally)
    return relative_std(_ratio(hits, relevant)), tally["users"]


def exposure_ratio(items: np.ndarray, exposure: np.ndarray) -> float:
    """min over max of the groups' mean exposure per item (groups with items only)."""
    per_item = _ratio(exposure, items)
    per_item = per_item[~np.isnan(per_item)]
    if len(per_item) < 2 or per_item.max() == 0:
        return float("nan")
    return float(per_item.min() / per_item.max())


def _exposure_ratio(
    ctx: Context, k: int, head: str = "items", share: float = 0.2, discount: str = "log"
) -> Values:
    return finished(None, _default_tally(ctx, k, head, share), _finish_exposure_ratio, k=k,
                    head=head, share=share, discount=discount)  # fmt: skip


def _finish_exposure_ratio(tally: dict, discount: str = "log", **params: object
                           ) -> tuple[float, int]:  # fmt: skip
    items, exposure, *_ = group_counts_of(tally, discount)
    return exposure_ratio(items, exposure), tally["users"]


def group_codes(ctx: Context, groups: dict[str, str]) -> tuple[np.ndarray, list[str]]:
    """Group code per item code for a ``{item id: group}`` mapping (-1 for items not in it
    and items outside the catalog), and the group names (sorted) the codes index."""
    if not groups:
        raise UsageError("item groups are empty")
    names = sorted({str(g) for g in groups.values()})
    index = {name: i for i, name in enumerate(names)}
    codes = np.full(ctx.num_items, -1, dtype=np.int64)
    found = ctx.qrels.docs.lookup_many([str(item) for item in groups])
    group_index = np.array([index[str(g)] for g in groups.values()], dtype=np.int64)
    known = (found >= 0) & (found < ctx.num_items)
    codes[found[known]] = group_index[known]
    codes[~ctx.in_catalog] = -1
    return codes, names


# -- the measures ----------------------------------------------------------------------------

_POPULARITY = (
    "φ(i) is the item's popularity: the number of distinct users who interacted with it in "
    "the popularity log (default: the training interactions)"
)
_SPLIT = (
    "The short head: by default (head=items) the ⌈0.2·n⌉ most popular of the n catalog "
    "items, Abdollahpouri et al.'s short head; head=interactions: the most popular items that "
    "together hold `share` of the interactions (head=interactions, share=0.8 is Elliot's "
    "split). Items as popular as the last head item join it; the long tail Γ is every other "
    "catalog item (LongTail's rule)"
)
_ZHU = (
    "Zhu, Wang & Caverlee, Measuring and mitigating item under-recommendation bias in "
    "personalized ranking systems, SIGIR 2020; Anelli et al., Elliot: a comprehensive and "
    "rigorous framework for reproducible recommender systems evaluation, SIGIR 2021."
)
_GROUP_PARAMS = (K, HEAD, SHARE)

ARP = RecsysMeasure(
    "ARP", _arp, params=(K,), ir=_spell("ARP"), kind="list", needs=("popularity",),
    reference="Yin, Cui, Li, Yao & Chen, Challenging the long tail recommendation, PVLDB 5(9), "
        "2012; Abdollahpouri, Burke & Mobasher, Managing popularity bias in recommender "
        "systems with personalized re-ranking, FLAIRS 2019.",
    doc=f"""\
    Average recommendation popularity at k: ARP = (1/|U|) Σ_u (1/|L_u|) Σ_{{i in L_u}} φ(i),
    L_u the user's top k. {_POPULARITY}.

    Meaning: how popular the recommended items are on average, in users; a most-popular
    recommender scores high, one that reaches into the long tail low. Lower means less
    popularity bias.
    """,
)

ACLT = RecsysMeasure(
    "ACLT", _aclt, params=_GROUP_PARAMS, ir=_spell("ACLT"), kind="list", needs=("popularity",),
    reference="Abdollahpouri, Burke & Mobasher, Managing popularity bias in recommender "
        "systems with personalized re-ranking, FLAIRS 2019.",
    doc=f"""\
    Average coverage of long-tail items at k: ACLT = (1/|U|) Σ_u Σ_{{i in L_u}} 1(i in Γ),
    the number (not the share: that is APLT, the LongTail measure) of long-tail items in the
    user's top k. {_SPLIT}.

    Meaning: how many long-tail items each user is shown; between 0 and k. Higher means more
    long-tail exposure.
    """,
)

PopRSP = RecsysMeasure(
    "PopRSP", _pop_rsp, params=_GROUP_PARAMS, ir=_spell("PopRSP"), kind="catalog",
    needs=("popularity",), finish=_finish_rsp,
    reference=_ZHU,
    doc=f"""\
    Popularity-based ranking-based statistical parity at k: RSP = std(P(R@k | g)) /
    mean(P(R@k | g)) over the groups g = short head, long tail, with P(R@k | g) = Σ_u |L_u ∩
    g \\ I_u| / Σ_u |g \\ I_u|, I_u the user's training items: the share of each group's
    candidate (unseen) items that reach a top k. std is the population standard deviation,
    so for two groups RSP = |P_head − P_tail| / (P_head + P_tail). {_SPLIT}.

    Meaning: 0 when a short-head and a long-tail item are equally likely to be recommended,
    towards 1 when one group takes the lists. Lower is fairer.
    """,
)

PopREO = RecsysMeasure(
    "PopREO", _pop_reo, params=_GROUP_PARAMS, ir=_spell("PopREO"), kind="catalog",
    needs=("popularity",), finish=_finish_reo,
    reference=_ZHU,
    doc=f"""\
    Popularity-based ranking-based equal opportunity at k: REO = std(P(R@k | g, y=1)) /
    mean(P(R@k | g, y=1)) over the groups g = short head, long tail, with P(R@k | g, y=1) =
    Σ_u |L_u ∩ g ∩ T_u| / Σ_u |g ∩ T_u|, T_u the user's relevant test items not in their
    training data: the recall of each group's relevant items. Population std, as PopRSP.
    {_SPLIT}.

    Meaning: 0 when relevant short-head and long-tail items are equally likely to be found,
    higher when the system finds the relevant items of one group more often. Lower is fairer.
    """,
)

ExposureRatio = RecsysMeasure(
    "ExposureRatio", _exposure_ratio, params=(*_GROUP_PARAMS, DISCOUNT), ir=_spell("ExposureRatio"),
    kind="catalog", needs=("popularity",), finish=_finish_exposure_ratio,
    reference="Singh & Joachims, Fairness of exposure in rankings, KDD 2018; Biega, Gummadi & "
        "Weikum, Equity of attention, SIGIR 2018; Abdollahpouri et al., FLAIRS 2019.",
    doc=f"""\
    Exposure disparity ratio at k: min_g ē_g / max_g ē_g over the groups g = short head, long
    tail, where ē_g = (1/|g|) Σ_u Σ_{{r <= k: L_u(r) in g}} 1/log2(r + 1) is the mean exposure
    of the group's catalog items (position-discounted as in DCG; discount=none counts each
    appearance 1). {_SPLIT}.

    Meaning: 1 when an item of either group gets the same attention on average (demographic
    parity of exposure), towards 0 when one group is hardly shown. Higher is fairer.
    """,
)

POPULARITY_MEASURES = [ARP, ACLT, PopRSP, PopREO, ExposureRatio]

