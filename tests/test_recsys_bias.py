"""Popularity bias and fairness of exposure: ARP, APLT (LongTail), ACLT, PopRSP, PopREO,
ExposureRatio and `rankscope.recsys.group_exposure`, on hand-computed cases, properties and
MovieLens 100K (u1) with a most-popular recommender built here."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from rankscope import InputError, RankscopeWarning, UsageError, evaluate_recsys_systems
from rankscope.read.groups import read_item_groups
from rankscope.recsys import group_exposure
from tests.conftest import DATA, need, run_cli

# Training popularity (distinct users): a 2 (v, w), b 1 (w), e 3 (u, v, w), f 1 (w), c and
# d 0.  Catalog = train + test items = a b c d e f (n = 6).  Short head (head=items, share
# 0.2): the ⌈1.2⌉ = 2 most popular, e (3) and a (2); long tail b c d f.
TRAIN = {"u": ["e"], "v": ["a", "e"], "w": ["a", "b", "e", "f"]}
# Relevant (rating >= 4): u: a, c; v: b.
TEST = {"u": {"a": 5, "b": 2, "c": 4}, "v": {"b": 5, "d": 1}}
# u: a d b; v: b d f
RECS = {"u": {"a": 0.9, "d": 0.6, "b": 0.2}, "v": {"b": 0.7, "d": 0.4, "f": 0.1}}


def summary(measures, recs=RECS, k=3, test=TEST, **options):
    options.setdefault("train", TRAIN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        (result,) = evaluate_recsys_systems(test, recs, measures, k=k, **options)
    return result


def test_arp_aplt_aclt_by_hand():
    r = summary(["ARP@3", "APLT@3", "ACLT@3"])
    # ARP: u (2 + 0 + 1) / 3 = 1, v (1 + 0 + 1) / 3 = 2/3; mean 5/6
    assert r.per_user("ARP@3") == pytest.approx({"u": 1.0, "v": 2 / 3})
    assert r.summary["ARP@3"] == pytest.approx(5 / 6)
    # APLT (= LongTail): u d, b of 3 in the tail: 2/3; v b, d, f: 1; mean 5/6
    assert r.per_user("APLT@3") == pytest.approx({"u": 2 / 3, "v": 1.0})
    # ACLT counts: u 2, v 3; mean 2.5
    assert r.per_user("ACLT@3") == {"u": 2.0, "v": 3.0}
    assert r.summary["ACLT@3"] == 2.5
    # APLT is LongTail's other name: same value
    assert summary(["LongTail@3"]).summary["LongTail@3"] == r.summary["APLT@3"]


def test_aclt_head_by_interactions():
    # 7 training interactions, popularity sorted e 3, a 2, b 1, f 1: head=interactions with
    # share 0.5 takes the most popular items holding >= 3.5: e (3), a (5 >= 3.5): e, a —
    # with share 0.4 (>= 2.8): e alone, so a joins the tail: u's list a d b has 3 tail items
    r = summary(["ACLT(head=interactions,share=0.5)@3", "ACLT(head=interactions,share=0.4)@3"])
    assert r.per_user("ACLT(head=interactions,share=0.5)@3") == {"u": 2.0, "v": 3.0}
    assert r.per_user("ACLT(head=interactions,share=0.4)@3") == {"u": 3.0, "v": 3.0}


def test_parity_and_exposure_by_hand():
    r = summary(["PopRSP@3", "PopREO@3", "ExposureRatio@3", "ExposureRatio(discount=none)@3"])
    # RSP: unseen recommended head items: u a (1), v none -> 1; candidates: 2 head items x 2
    # users - seen head (u e; v a, e) = 1 -> P_head = 1.  Tail: u d b, v b d f -> 5 of 4 x 2
    # = 8 -> 5/8.  std/mean of (1, 5/8) = |1 - 5/8| / (1 + 5/8) = 3/13
    assert r.summary["PopRSP@3"] == pytest.approx(3 / 13)
    # REO: relevant unseen head: a (u) -> 1, found 1 (a in u's list): 1; tail: c (u), b (v)
    # -> 2, found b (v's list): 1/2.  |1 - 1/2| / (3/2) = 1/3
    assert r.summary["PopREO@3"] == pytest.approx(1 / 3)
    # exposure, log discount: head a at rank 1 of u: 1, per item 1/2; tail: u d (1/log2 3),
    # b (1/2), v b (1), d (1/log2 3), f (1/2): 2 + 2/log2 3, per item / 4
    head, tail = 1 / 2, (2 + 2 / math.log2(3)) / 4
    assert r.summary["ExposureRatio@3"] == pytest.approx(min(head, tail) / max(head, tail))
    # counts: head 1 / 2 items, tail 5 / 4 items
    assert r.summary["ExposureRatio(discount=none)@3"] == pytest.approx(0.5 / 1.25)
    assert r.per_user("PopRSP@3") == {}  # catalog-level: no per-user value


def test_equal_groups_give_zero_rsp_and_ratio_one():
    train = {"x": ["a"], "y": ["a"], "z": ["b"]}  # a 2, b 1; catalog a b c d
    test = {"t": {"c": 5, "d": 5}}
    # head = ⌈0.2·4⌉ = 1 item: a; tail b c d. t: candidates head 1, tail 3; list a b c d
    recs = {"t": ["a", "b", "c", "d"]}
    names = ["PopRSP@4", "ExposureRatio(discount=none)@4"]
    r = summary(names, recs=recs, k=4, test=test, train=train)
    # every candidate recommended: rates 1 and 1; every item shown once
    assert r.summary["PopRSP@4"] == 0.0
    assert r.summary["ExposureRatio(discount=none)@4"] == 1.0


def test_most_popular_is_more_popular_than_long_tail():
    # popularity: i0 5 users, i1 4, ..., i5 0 (catalog i0..i7)
    train = {f"u{n}": [f"i{j}" for j in range(5) if j < 5 - n] for n in range(5)}
    test = {"t1": {"i6": 5, "i0": 5}, "t2": {"i7": 5}}
    pop = {"t1": ["i0", "i1", "i2"], "t2": ["i0", "i1", "i2"]}
    tail = {"t1": ["i5", "i6", "i7"], "t2": ["i5", "i6", "i4"]}
    names = ["ARP@3", "APLT@3", "ACLT@3", "ExposureRatio@3"]
    p = summary(names, recs=pop, test=test, train=train).summary
    t = summary(names, recs=tail, test=test, train=train).summary
    assert p["ARP@3"] >= t["ARP@3"]
    assert p["APLT@3"] <= t["APLT@3"] and p["ACLT@3"] <= t["ACLT@3"]
    assert p["ARP@3"] == pytest.approx((5 + 4 + 3) / 3)


def test_needs_popularity():
    with pytest.raises(UsageError, match="ARP@3 needs item popularity"):
        summary(["ARP@3"], train=None)
    with pytest.raises(UsageError, match="PopREO@3 needs item popularity"):
        summary(["PopREO@3"], train=None)


def test_empty_list_has_no_arp():
    # t2 has no recommendations: no ARP / ACLT value (left out), as Novelty
    r = summary(["ARP@3", "ACLT@3"], recs={"u": ["a"]})
    assert set(r.per_user("ARP@3")) == {"u"} and set(r.per_user("ACLT@3")) == {"u"}


# -- group_exposure --------------------------------------------------------------------------


def exposure_table(recs=RECS, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        return group_exposure(TEST, recs, k=3, output="dict", **options)


def test_group_exposure_default_groups_match_the_measures():
    table = exposure_table(train=TRAIN)
    assert table["group"] == ["short head", "long tail"]
    assert table["items"] == [2, 4]
    assert table["recommended"] == [1, 5] and table["candidates"] == [1, 8]
    assert table["found"] == [1, 1] and table["relevant"] == [1, 2]
    r = summary(["PopRSP@3", "PopREO@3", "ExposureRatio@3"])

    def rel_std(x):
        x = np.array(x)
        return float(x.std() / x.mean())

    assert r.summary["PopRSP@3"] == pytest.approx(rel_std(table["rsp_rate"]))
    assert r.summary["PopREO@3"] == pytest.approx(rel_std(table["reo_rate"]))
    per_item = table["exposure_per_item"]
    assert r.summary["ExposureRatio@3"] == pytest.approx(min(per_item) / max(per_item))
    assert sum(table["exposure_share"]) == pytest.approx(1.0)


def test_group_exposure_user_groups(tmp_path):
    # groups by hand: x = a b, y = c d e f; no discount
    path = tmp_path / "groups.tsv"
    path.write_text("item\tgroup\na\tx\nb\tx\n# comment\n\nc\ty\nd\ty\ne\ty\nf\ty\n")
    table = exposure_table(groups=str(path), train=TRAIN, discount="none")
    assert table["group"] == ["x", "y"]
    # x: u a, b; v b -> 3 appearances over 2 items; y: u d; v d, f -> 3 over 4 items
    assert table["exposure"] == [3.0, 3.0]
    assert table["exposure_per_item"] == [1.5, 0.75]
    # the same from a dict and a DataFrame
    mapping = {"a": "x", "b": "x", "c": "y", "d": "y", "e": "y", "f": "y"}
    assert exposure_table(groups=mapping, train=TRAIN, discount="none") == table
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"item": list(mapping), "group": list(mapping.values())})
    assert exposure_table(groups=frame, train=TRAIN, discount="none") == table


def test_group_exposure_needs_popularity_or_groups():
    with pytest.raises(UsageError, match="popularity"):
        exposure_table()


def test_item_group_file_errors(tmp_path):
    path = tmp_path / "g.tsv"
    path.write_text("a x\nb y\na z\n")
    with pytest.raises(InputError, match=r"g.tsv: line 3: item 'a' is in group 'x' and 'z'"):
        read_item_groups(str(path))
    path.write_text("a x\nb\n")
    with pytest.raises(InputError, match=r"g.tsv: line 2: expected 2 fields"):
        read_item_groups(str(path))
    path.write_text("# nothing\n")
    with pytest.raises(InputError, match="no item groups"):
        read_item_groups(str(path))
    assert read_item_groups({1: "x"}) == {"1": "x"}


# -- command line ----------------------------------------------------------------------------


def test_cli_popularity_measures(tmp_path, capsys):
    def lines(log):
        return "".join(f"{u}\t{i}\t{v}\n" for u, items in log.items() for i, v in items.items())

    test, train, recs = tmp_path / "test", tmp_path / "train", tmp_path / "recs"
    test.write_text(lines(TEST))
    train.write_text(lines({u: dict.fromkeys(items, 5) for u, items in TRAIN.items()}))
    recs.write_text(lines(RECS))
    code, out, err = run_cli(
        ["recsys", str(test), str(recs), "--train", str(train), "-k", "3", "-m", "ARP@3",
         "-m", "PopREO@3", "--format", "csv"], capsys,
    )  # fmt: skip
    assert code == 0, err
    rows = {line.split(",")[2]: line.split(",")[3] for line in out.splitlines()[1:]}
    assert float(rows["ARP@3"]) == pytest.approx(5 / 6)
    assert float(rows["PopREO@3"]) == pytest.approx(1 / 3)


# -- MovieLens 100K --------------------------------------------------------------------------


def test_movielens_most_popular_bias():
    folder = need(DATA / "movielens-100k")
    base = np.loadtxt(need(folder / "u1.base"), dtype=np.int64)
    test = np.loadtxt(need(folder / "u1.test"), dtype=np.int64)
    n_users = int(max(base[:, 0].max(), test[:, 0].max())) + 1
    n_items = int(max(base[:, 1].max(), test[:, 1].max())) + 1
    seen = np.zeros((n_users, n_items), dtype=bool)
    seen[base[:, 0], base[:, 1]] = True
    popularity = seen.sum(axis=0)
    catalog = np.unique(np.concatenate([base[:, 1], test[:, 1]]))
    test_users = np.unique(test[:, 0])
    # most popular unseen items, ties by item id as strings; and a random recommender
    rng = np.random.default_rng(1)
    lists, random_lists = {}, {}
    for u in test_users:
        candidates = catalog[~seen[u, catalog]]
        ranked = candidates[np.lexsort((candidates.astype(str), -popularity[candidates]))]
        lists[u] = ranked[:10]
        random_lists[u] = rng.choice(candidates, 10, replace=False)
    systems = {
        "pop": {str(u): [str(i) for i in items] for u, items in lists.items()},
        "random": {str(u): [str(i) for i in items] for u, items in random_lists.items()},
    }
    names = ["ARP@10", "APLT@10", "ACLT@10", "PopRSP@10", "PopREO@10", "ExposureRatio@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankscopeWarning)
        results = evaluate_recsys_systems(
            str(folder / "u1.test"), systems, names, train=str(folder / "u1.base")
        )
    s = {r.name: r.summary for r in results}

    # plain numpy: the head is the ⌈0.2·1682⌉ = 337 most popular catalog items, ties joining
    ranked_pop = np.sort(popularity[catalog])[::-1]
    cut = ranked_pop[math.ceil(0.2 * len(catalog)) - 1]
    head = np.zeros(n_items, dtype=bool)
    head[catalog] = popularity[catalog] >= cut
    tail = np.zeros(n_items, dtype=bool)
    tail[catalog] = ~head[catalog]
    relevant = np.zeros((n_users, n_items), dtype=bool)
    good = test[test[:, 2] >= 4]
    relevant[good[:, 0], good[:, 1]] = True

    def expected(lists):
        matrix = np.array([lists[u] for u in test_users])
        arp = popularity[matrix].mean(axis=1).mean()
        aplt = tail[matrix].mean(axis=1).mean()
        aclt = tail[matrix].sum(axis=1).mean()
        rates_rsp, rates_reo, per_item = [], [], []
        weights = 1 / np.log2(np.arange(2, 12))
        for group in (head, tail):
            shown = group[matrix]  # every list item is unseen
            candidates = sum(int((group & ~seen[u]).sum()) for u in test_users)
            rates_rsp.append(shown.sum() / candidates)
            hits = (shown & relevant[test_users[:, None], matrix]).sum()
            rel = (relevant[test_users] & group[None, :] & ~seen[test_users]).sum()
            rates_reo.append(hits / rel)
            per_item.append((shown * weights).sum() / group.sum())

        def rel_std(x):
            return float(np.std(x) / np.mean(x))

        return {
            "ARP@10": arp, "APLT@10": aplt, "ACLT@10": aclt, "PopRSP@10": rel_std(rates_rsp),
            "PopREO@10": rel_std(rates_reo), "ExposureRatio@10": min(per_item) / max(per_item),
        }  # fmt: skip

    for name, recs in (("pop", lists), ("random", random_lists)):
        for label, value in expected(recs).items():
            assert s[name][label] == pytest.approx(value, rel=1e-12), (name, label)
    pop, rand = s["pop"], s["random"]
    # plausible ranges: the most popular lists hold blockbusters rated by hundreds of the
    # 943 users, no long-tail item; random lists mostly long tail, both far from parity
    assert 250 < pop["ARP@10"] < 943 and pop["APLT@10"] == 0.0 and pop["ACLT@10"] == 0.0
    assert rand["ARP@10"] < 100 and 0.6 < rand["APLT@10"] < 0.95
    assert pop["PopRSP@10"] > 0.9 and rand["PopRSP@10"] < 0.2
    assert pop["ExposureRatio@10"] == 0.0 and rand["ExposureRatio@10"] > 0.5
