"""Every measure, in trec_eval's output order, the registry that parses their names, and the
preference methods looked up by name in it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..errors import UsageError
from ..judge import RelevanceTable
from ..preference import METHODS, PreferenceResult, unknown_method
from ..preference.rpp import Weights, rpp, rpp_together
from .base import Measure, Request
from .counts import num_nonrel_judged_ret, num_q, num_rel, num_rel_ret, num_ret, relstring, runid
from .diversity import DIVERSITY_MEASURES
from .gains import G, Rndcg, dcg, ideal_dcg, ndcg, ndcg_cut, ndcg_rel, rbp
from .incomplete import bpref, gm_bpref, infAP, judged, rbp_resid, unj
from .judgment_groups import JUDGMENT_GROUP_MEASURES
from .lengths import LENGTH_MEASURES
from .preferences import PREFERENCE_MEASURES, method_of
from .ranks import (
    P,
    Rprec,
    Rprec_mult,
    binG,
    eleven_pt_avg,
    gm_map,
    iprec_at_recall,
    map_,
    map_cut,
    recall,
    recip_rank,
    relative_P,
    success,
)
from .registry import Registry
from .sets import set_F, set_map, set_P, set_recall, set_relative_P, utility
from .trec_prefs import TREC_PREFS_MEASURES
from .user_models import USER_MODEL_MEASURES

#: trec_eval's measures in the order it prints them (measures.c), then rankscope's own.
MEASURES: list[Measure] = [
    runid, num_q, num_ret, num_rel, num_rel_ret, map_, gm_map, Rprec, bpref, recip_rank,
    iprec_at_recall, P, relstring, recall, infAP, gm_bpref, Rprec_mult, utility, eleven_pt_avg,
    binG, G, dcg, ideal_dcg, ndcg, ndcg_rel, Rndcg, ndcg_cut, map_cut, relative_P, success,
    set_P, set_relative_P, set_recall, set_map, set_F, num_nonrel_judged_ret, rbp, rbp_resid,
    unj, judged,
    *USER_MODEL_MEASURES,
    *LENGTH_MEASURES,
    *DIVERSITY_MEASURES,
    *PREFERENCE_MEASURES,
    *TREC_PREFS_MEASURES,
    *JUDGMENT_GROUP_MEASURES,
]  # fmt: skip

NICKNAMES = {
    "official": [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
        "bpref", "recip_rank", "iprec_at_recall", "P",
    ],
    "set": [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
        "set_relative_P", "set_map", "set_F",
    ],
    "all_trec": [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
        "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp",
        "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P",
        "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G",
        "set_P", "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret",
    ],
    "all_prefs": [
        "runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
        "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
        "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
        "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
    ],
    "prefs": [
        "runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
        "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
    ],
    "qrels_jg": ["runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"],
}  # fmt: skip

REGISTRY = Registry(MEASURES, NICKNAMES)


def parse_measures(specs: str | Sequence[str | Request]) -> list[Request]:
    """Requests for measure names in either spelling (see `Registry.parse`), or requests
    already parsed, each once, in the order asked (see `Registry.parse_many`)."""
    if isinstance(specs, str):
        specs = [specs]
    return REGISTRY.parse_many(specs)


def parse_method(spec: str | Request) -> Request:
    """The registry request for one preference method, named in the measure registry's
    grammar: ``RPP``, ``RPP(rel=2)``, ``gRPP(p=dcg)``,
    ``OI(interleaving=balanced,browsing=dcg)``.  Its ``label`` is what results print."""
    if isinstance(spec, Request):
        method_of(spec)
        return spec
    try:
        requests = REGISTRY.parse(spec)
    except ValueError as error:
        head = spec.strip().split("(")[0].split("@")[0].split(".")[0]
        if head in METHODS:
            raise UsageError(str(error)) from None
        raise unknown_method(spec) from None
    if len(requests) != 1:
        raise unknown_method(spec)
    method_of(requests[0])
    return requests[0]

def reads_subtopics(specs: Iterable[str | Request]) -> bool:
    """Whether any of the named measures or methods needs per-subtopic judgments (``qid
    subtopic docno grade``), so that a qrels file should be read as diversity judgments."""
    return any(r.measure.reads_subtopics for r in parse_measures(list(specs)))


def compute_request(table: RelevanceTable, request: str | Request) -> PreferenceResult:
    """The preferences a request (or a method's name) asks for, between every pair of the
    table's runs, labelled as the request."""
    request = parse_method(request)
    return method_of(request).compute(table, request.kwargs, request.label)


def compute_requests(
    table: RelevanceTable, requests: Sequence[str | Request], *, methods_last: bool = False
) -> list[PreferenceResult]:
    """`compute_request` of each of ``requests``, in their order, with the same values; the
    binary RPP methods at one relevance level (RPP, dcgRPP and invRPP, say) are computed
    together (`rankscope.preference.rpp.rpp_together`: each query's pairs compared once;
    ``methods_last``: their preferences are views of one array in its layout)."""
    parsed = [parse_method(request) for request in requests]
    together: dict[int | None, list[tuple[int, Weights]]] = {}
    for k, request in enumerate(parsed):
        method = method_of(request)
        if method.function is rpp:
            arguments = method.arguments(request.kwargs)
            together.setdefault(arguments["level"], []).append((k, arguments["weights"]))
    found: dict[int, PreferenceResult] = {}
    for level, members in together.items():
        stacked = rpp_together(
            table, [weights for _, weights in members], level, methods_last=methods_last
        )
        for (k, _), prefs in zip(members, stacked, strict=True):
            found[k] = PreferenceResult(
                parsed[k].label, list(table.run_names), list(table.query_ids), prefs
            )
    return [found[k] if k in found else compute_request(table, r) for k, r in enumerate(parsed)]

def needs_rankings(methods: Iterable[str | Request]) -> bool:
    """Whether any of ``methods`` reads whole rankings (offline interleaving), so the
    `RelevanceTable` must keep them (``relevance_table(keep_rankings=True)``)."""
    return any(method_of(parse_method(m)).rankings for m in methods)
