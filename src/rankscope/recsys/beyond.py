"""Beyond accuracy: coverage, diversity, novelty, serendipity and the concentration of
exposure over the catalog.

Inputs beyond the lists: item popularity (the number of distinct users who interacted with
an item in the popularity log, by default the training interactions), item features (for
ILD) and the catalog (by default every item of the training and test data).  A user whose
list is empty has no value for the per-list measures (ILD, Novelty, LongTail), which average
over the users with a list; UserCoverage counts those users.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import UsageError
from ..judge import judge
from ..measures.base import IrSpelling, Param
from .base import Context, K, Lists, Note, RecsysMeasure, Values, finished, user_mean


def _spell(name: str) -> tuple[IrSpelling, ...]:
    return (IrSpelling(name, cutoff="k"), IrSpelling(name))


def _per_list(
    ctx: Context, lists: Lists, entry_values: np.ndarray, mean: bool = True
) -> np.ndarray:
    """Mean (or, with ``mean=False``, sum) of ``entry_values`` over each user's list (NaN
    for an empty list)."""
    sums = np.bincount(lists.owner, weights=entry_values, minlength=ctx.num_users)
    lengths = lists.lengths
    out = np.full(ctx.num_users, np.nan)
    np.divide(sums, lengths if mean else 1.0, out=out, where=lengths > 0)
    return out


# -- coverage --------------------------------------------------------------------------------


def _user_coverage(ctx: Context) -> Values:
    has_list = ctx.judged(ctx.k).num_ret > 0
    return user_mean(has_list.astype(np.float64))


def _exposure(ctx: Context, k: int) -> dict:
    """The catalog measures' tally: times each catalog item (in `catalog_codes` order)
    appears in the top-k lists, and the users evaluated."""

    def make() -> dict:
        items = ctx.lists(k).items
        outside = ~ctx.in_catalog[items]
        ctx.note("outside-catalog", _items_note(
            ctx, items[outside], f"{{outside}} recommendations (top {k}) are of {{items}} items "
            "outside the catalog; coverage, Gini and entropy count catalog items only",
            "outside",
        ))  # fmt: skip
        counts = np.bincount(items[~outside], minlength=ctx.num_items)
        return {"exposure": counts[ctx.catalog_codes].astype(np.int64), "users": ctx.num_users}

    return ctx.cached(("exposure", k), make)


def _items_note(ctx: Context, codes: np.ndarray, template: str, count: str) -> Note:
    """A note counting the recommendations of some items (``codes``) and the distinct
    items, told when there are any."""
    ids = frozenset(ctx.qrels.docs.strings_of(np.unique(codes).astype(np.int32)))
    return Note(template, ((count, len(codes)),), ids, when=count)


def _catalog_coverage(ctx: Context, k: int) -> Values:
    return finished(None, _exposure(ctx, k), _finish_coverage, k=k)


def _finish_coverage(tally: dict, k: int) -> tuple[float, int]:
    exposure = tally["exposure"]
    n = len(exposure)
    return (float((exposure > 0).sum() / n) if n else float("nan")), tally["users"]


def _gini(ctx: Context, k: int) -> Values:
    return finished(None, _exposure(ctx, k), _finish_gini, k=k)


def _finish_gini(tally: dict, k: int) -> tuple[float, int]:
    exposure = np.sort(tally["exposure"]).astype(np.float64)
    n, total = len(exposure), exposure.sum()
    if total == 0 or n == 0:
        return float("nan"), tally["users"]
    if n == 1:
        return 0.0, tally["users"]
    share = exposure / total
    j = np.arange(1, n + 1)
    return float(((2 * j - n - 1) * share).sum() / (n - 1)), tally["users"]


def _entropy(ctx: Context, k: int, normalize: bool = False) -> Values:
    return finished(None, _exposure(ctx, k), _finish_entropy, k=k, normalize=normalize)


def _finish_entropy(tally: dict, k: int, normalize: bool = False) -> tuple[float, int]:
    exposure = tally["exposure"].astype(np.float64)
    total = exposure.sum()
    if total == 0:
        return float("nan"), tally["users"]
    share = exposure[exposure > 0] / total
    h = float(-(share * np.log2(share)).sum())
    if normalize:
        n = len(exposure)
        h = h / math.log2(n) if n > 1 else 0.0
    return h, tally["users"]


# -- novelty, long tail ----------------------------------------------------------------------


def self_information(ctx: Context) -> np.ndarray:
    """−log2 p(i) per item code, p(i) = users who interacted with i / users in the
    popularity log; an item nobody interacted with counts as seen by one user."""
    pop = np.maximum(ctx.popularity, 1).astype(np.float64)
    return np.log2(ctx.popularity_users) - np.log2(pop)


def _novelty(ctx: Context, k: int) -> Values:
    ctx.need_popularity("Novelty")
    lists = ctx.lists(k)
    return user_mean(_per_list(ctx, lists, self_information(ctx)[lists.items]))


def head_items(ctx: Context, head: str, share: float) -> np.ndarray:
    """Mask over item codes of the popular head.

    ``head="items"``: the ⌈share·n⌉ most popular of the n catalog items; ``"interactions"``:
    the most popular items that together hold ``share`` of the interactions.  Items as
    popular as the last one of the head join it (ties); items nobody interacted with never
    do.
    """
    pop = ctx.popularity
    catalog = ctx.catalog_codes
    ranked = np.sort(pop[catalog])[::-1]
    mask = np.zeros(ctx.num_items, dtype=bool)
    if not len(ranked) or ranked[0] == 0:
        return mask
    if head == "items":
        last = max(math.ceil(share * len(ranked)), 1) - 1
    else:
        cumulative = np.cumsum(ranked)
        last = int(np.searchsorted(cumulative, share * cumulative[-1] - 1e-9))
    cut = max(ranked[min(last, len(ranked) - 1)], 1)
    mask[catalog] = pop[catalog] >= cut
    return mask


def _long_tail(ctx: Context, k: int, head: str = "items", share: float = 0.2) -> Values:
    ctx.need_popularity("LongTail")
    lists = ctx.lists(k)
    tail = ~head_items(ctx, head, share)
    return user_mean(_per_list(ctx, lists, tail[lists.items].astype(np.float64)))


# -- serendipity -----------------------------------------------------------------------------


def popularity_baseline(ctx: Context, k: int) -> np.ndarray:
    """Sorted (user, item) keys of each evaluated user's top k of the most-popular list:
    catalog items by decreasing popularity (ties by item id, ascending), without the items
    of the user's training data."""
    n = ctx.num_items
    catalog = ctx.catalog_codes
    pop = ctx.popularity[catalog]
    ids = np.asarray(ctx.qrels.docs.strings_of(catalog.astype(np.int32)))
    ranked = catalog[np.lexsort((ids, -pop))]
    seen = ctx.seen_keys
    seen_per_user = np.bincount(seen // n, minlength=len(ctx.qrels.queries))
    width = min(len(ranked), k + int(seen_per_user[ctx.user_codes].max(initial=0)))
    prefix = ranked[:width]
    out = []
    chunk = max(1, (1 << 22) // max(width, 1))
    for start in range(0, ctx.num_users, chunk):
        users = ctx.user_codes[start : start + chunk]
        keys = users[:, None] * n + prefix[None, :]
        pos = np.minimum(np.searchsorted(seen, keys), max(len(seen) - 1, 0))
        unseen = seen[pos] != keys if len(seen) else np.ones(keys.shape, dtype=bool)
        take = unseen & (np.cumsum(unseen, axis=1) <= k)
        out.append(keys[take])
    return np.sort(np.concatenate(out)) if out else np.zeros(0, dtype=np.int64)


def _baseline_keys(ctx: Context, k: int) -> np.ndarray:
    def make():
        if ctx.baseline is None:
            ctx.need_popularity("Serendipity (its popularity baseline)")
            return popularity_baseline(ctx, k)
        judged = judge(ctx.qrels, ctx.baseline, ties=ctx.ties, max_docs=k, complete=True)
        owner = np.repeat(np.arange(judged.num_queries), judged.num_ret)
        users = ctx.qrels.queries.lookup_many(judged.query_ids).astype(np.int64)
        return np.sort(users[owner] * ctx.num_items + judged.doc)

    return ctx.cached(("baseline", k), make)


def _serendipity(ctx: Context, k: int) -> Values:
    lists = ctx.lists(k)
    expected = _baseline_keys(ctx, k)
    keys = ctx.user_codes[lists.owner] * ctx.num_items + lists.items
    pos = np.minimum(np.searchsorted(expected, keys), max(len(expected) - 1, 0))
    in_baseline = expected[pos] == keys if len(expected) else np.zeros(len(keys), dtype=bool)
    hits = lists.relevant & ~in_baseline
    counts = np.bincount(lists.owner, weights=hits.astype(np.float64), minlength=ctx.num_users)
    return user_mean(ctx.relevance_policy(counts / k))


# -- diversity -------------------------------------------------------------------------------


def _ild(ctx: Context, k: int, distance: str = "cosine") -> Values:
    features = ctx.features
    if features is None:
        said = "ILD needs item features ({})"
        raise UsageError(said.format("features=..."), cli=said.format("--features u.item"))
    if distance == "jaccard" and not features.binary:
        raise UsageError("ILD(distance=jaccard) needs binary (0/1) features")
    lists = ctx.lists(k)
    rows = features.rows_of(ctx.num_items)[lists.items]
    known = rows >= 0
    ctx.note("no-features", _items_note(
        ctx, lists.items[~known], f"{{undescribed}} recommendations (top {k}) are of {{items}} "
        "items without features; ILD leaves them out", "undescribed",
    ))  # fmt: skip
    matrix = features.matrix
    if distance == "cosine":
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    owner = lists.owner[known]
    counts = np.bincount(owner, minlength=ctx.num_users)
    width = max(int(counts.max(initial=0)), 1)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    column = np.arange(len(owner)) - starts[owner]
    out = np.full(ctx.num_users, np.nan)
    chunk = max(1, (1 << 21) // (width * max(matrix.shape[1], 1)))
    for a in range(0, ctx.num_users, chunk):
        b = min(a + chunk, ctx.num_users)
        sel = (owner >= a) & (owner < b)
        block = np.zeros((b - a, width, matrix.shape[1]))
        block[owner[sel] - a, column[sel]] = matrix[rows[known][sel]]
        inner = np.einsum("uid,ujd->uij", block, block)
        if distance == "cosine":
            dist = 1.0 - inner
        else:
            size = block.sum(axis=2)
            union = size[:, :, None] + size[:, None, :] - inner
            sim = np.divide(inner, union, out=np.zeros_like(inner), where=union > 0)
            dist = 1.0 - sim
        m = counts[a:b]
        valid = np.arange(width)[None, :] < m[:, None]
        pairs = valid[:, :, None] & valid[:, None, :] & np.triu(np.ones((width, width), bool), 1)
        total = (dist * pairs).sum(axis=(1, 2))
        npairs = m * (m - 1) / 2
        out[a:b] = np.where(npairs > 0, total / np.maximum(npairs, 1), np.nan)
    return user_mean(out)


# -- the measures ----------------------------------------------------------------------------

_EXPOSURE = (
    "The exposure of an item is the number of evaluated users whose top k contains it; "
    "p_i is its share of all recommendations, over the n catalog items"
)

UserCoverage = RecsysMeasure(
    "UserCoverage", _user_coverage, ir=(IrSpelling("UserCoverage"),), kind="list",
    summary_doc="mean over all test users",
    reference="Ge, Delgado-Battenfeld & Jannach, Beyond accuracy: evaluating recommender systems "
        "by coverage and serendipity, RecSys 2010; Herlocker et al., ACM TOIS 2004.",
    doc="""\
    User coverage: the share of the test users who receive at least one recommendation. Per
    user: 1 or 0.

    Meaning: for how many users the system can recommend at all (cold users, sparse data).
    Higher is better.
    """,
)

CatalogCoverage = RecsysMeasure(
    "CatalogCoverage", _catalog_coverage,
    reference="Ge, Delgado-Battenfeld & Jannach, RecSys 2010.", params=(K,),
    ir=_spell("CatalogCoverage"), kind="catalog", finish=_finish_coverage,
    doc="""\
    Catalog coverage at k: the share of the catalog's items that appear in at least one user's
    top k, |∪_u top-k(u) ∩ I| / |I|. The catalog I is every item of the training and test data
    unless given (catalog=...).

    Meaning: how much of the assortment the system ever shows. Higher is better.
    """,
)

Gini = RecsysMeasure(
    "Gini", _gini, params=(K,), ir=_spell("Gini"), kind="catalog", finish=_finish_gini,
    reference="Fleder & Hosanagar, Blockbuster culture's next rise or fall, Management Science "
        "55(5), 2009; Shani & Gunawardana, Evaluating recommendation systems, Recommender "
        "Systems Handbook, 2011.",
    doc=f"""\
    Gini index of exposure at k: G = Σ_{{j=1..n}} (2j − n − 1) p_(j) / (n − 1), with p_(1) <=
    ... <= p_(n) the exposure shares sorted increasingly. {_EXPOSURE}; items never recommended
    count with p = 0. The n − 1 normalisation (Shani & Gunawardana) makes 1 the value when one
    item gets every recommendation.

    Meaning: 0 when every catalog item is recommended equally often, towards 1 when a few items
    take all the exposure (popularity concentration). Lower is more even.
    """,
)

Entropy = RecsysMeasure(
    "Entropy", _entropy, reference="Shani & Gunawardana, Recommender Systems Handbook, 2011.",
    params=(K, Param("normalize", bool, False, "divide by log2 of the catalog size")),
    ir=_spell("Entropy"), kind="catalog", finish=_finish_entropy,
    doc=f"""\
    Shannon entropy of exposure at k: H = −Σ_i p_i log2 p_i, in bits, over the recommended
    items. {_EXPOSURE}. normalize=true divides by log2 n (1 = even).

    Meaning: the effective spread of the recommendations over the catalog; 2^H is the number of
    equally exposed items that would spread as much. Higher is more even.
    """,
)

Novelty = RecsysMeasure(
    "Novelty", _novelty, params=(K,), ir=_spell("Novelty"), kind="list", needs=("popularity",),
    reference="Zhou et al., Solving the apparent diversity-accuracy dilemma of recommender "
        "systems, PNAS 107(10), 2010; Vargas & Castells, Rank and relevance in novelty and "
        "diversity metrics for recommender systems, RecSys 2011.",
    doc="""\
    Novelty at k: the mean self-information of the recommended items, (1/|L|) Σ_{i in L} −log2
    p(i), L the user's top k and p(i) = |users who interacted with i| / |users| in the
    popularity log (default: the training interactions). An item nobody interacted with counts
    as seen by one user (p = 1/|users|, the largest finite value).

    Meaning: how surprising the list is to a user who knows what is popular; recommending
    blockbusters gives low novelty. Higher is more novel.
    """,
)

LongTail = RecsysMeasure(
    "LongTail", _long_tail, ir=(*_spell("LongTail"), *_spell("APLT")), kind="list",
    needs=("popularity",),
    reference="Abdollahpouri, Burke & Mobasher, Controlling popularity bias in learning-to-rank "
        "recommendation, RecSys 2017; Managing popularity bias in recommender systems with "
        "personalized re-ranking, FLAIRS 2019.",
    params=(
        K,
        Param(
            "head",
            str,
            "items",
            "items: the head is a share of the catalog's items (default); interactions: a "
            "share of the interactions",
            choices=("items", "interactions"),
        ),
        Param("share", float, 0.2, "the head's share (default 0.2)", minimum=0.0),
    ),
    doc="""\
    Long-tail share at k (APLT): the share of the user's top k that lies outside the popular
    head, averaged over users. Default head (head=items): the ⌈0.2·n⌉ most popular catalog
    items (Abdollahpouri et al.'s short head, the top 20% of items by popularity);
    head=interactions: the most popular items that together hold `share` of the interactions
    (the Pareto reading). Items as popular as the last head item join the head; popularity as
    for Novelty.

    Meaning: how much of what the system shows comes from the long tail. Higher means more
    long-tail exposure.
    """,
)

Serendipity = RecsysMeasure(
    "Serendipity", _serendipity, params=(K,), ir=_spell("Serendipity"), kind="topn",
    relevance=True, needs=("baseline",),
    reference="Ge, Delgado-Battenfeld & Jannach, RecSys 2010; Murakami, Mori & Orihara, "
        "Metrics for evaluating the serendipity of recommendation lists, JSAI 2007 (LNCS "
        "4914, 2008).",
    doc="""\
    Serendipity at k: |{i in top-k(u): i relevant and i not in PM_k(u)}| / k, the relevant
    recommendations that a primitive model would not have made. The default primitive model PM
    is the most-popular recommender (catalog items by decreasing popularity in the training
    data, ties by item id, without the user's training items), cut at the same k; baseline=...
    gives another.

    Meaning: recommendations that are both useful and unexpected; an obvious hit (one the
    popularity list also makes) earns nothing.
    """,
)

ILD = RecsysMeasure(
    "ILD", _ild, ir=_spell("ILD"), kind="list", needs=("features",),
    summary_doc="mean over the users with at least two described items",
    reference="Ziegler, McNee, Konstan & Lausen, Improving recommendation lists through topic "
        "diversification, WWW 2005; Smyth & McClave, Similarity vs. diversity, ICCBR 2001.",
    params=(
        K,
        Param(
            "distance",
            str,
            "cosine",
            "cosine (default) or jaccard (binary features)",
            choices=("cosine", "jaccard"),
        ),
    ),
    doc="""\
    Intra-list diversity at k: the mean pairwise distance between the items of the user's top
    k, 2 / (m(m − 1)) Σ_{i<j} d(i, j), over the m listed items with features. d = 1 − cosine
    similarity of the feature vectors (default; a zero vector has similarity 0 with everything)
    or distance=jaccard: 1 − |F_i ∩ F_j| / |F_i ∪ F_j| for binary features such as MovieLens
    genres. Lists with fewer than two described items have no value.

    Meaning: how different the recommended items are from each other (0: all alike). Higher is
    more diverse.
    """,
)

BEYOND_MEASURES = [
    UserCoverage, CatalogCoverage, ILD, Novelty, Serendipity, Gini, Entropy, LongTail,
]  # fmt: skip
