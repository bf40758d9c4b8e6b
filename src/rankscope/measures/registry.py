"""The measure registry and the name algebra.

Two spellings parse to the same `Request` objects:

* trec_eval's: ``P`` (default cutoffs), ``P.5,10``, ``ndcg_cut.10``, ``ndcg.1=3,2=9``,
  ``rbp.p=0.8``, ``utility.2,-1,0,0``, nicknames ``official``, ``all_trec``, ``set``;
* the names trec_eval prints for one cutoff, accepted as input: ``P_10``, ``ndcg_cut_10``,
  ``recall_100``, ``iprec_at_recall_0.10`` (the same as ``P.10``, ...);
* ir_measures': ``P@5``, ``P(rel=2)@5``, ``nDCG@10``, ``AP``, ``RR``, ``RR@10``, ``R@100``,
  ``Rprec``, ``Bpref``, ``infAP``, ``Success@5``, ``RBP(p=0.8)``, ``IPrec@0.1``; and, for any
  measure, ``judged_only=True`` (``nDCG(judged_only=True)@10``): the measure on the condensed list,
  the ranking without its unjudged documents (Sakai 2007).

Both are read off the measures' declarations (`TrecSpelling`, `IrSpelling`, `Param`); there
is no table of names here.  Names are case-sensitive (``ndcg`` is trec_eval's, ``nDCG``
ir_measures'); a name that matches only when case is ignored is an error whose suggestion is
the exact spelling, parameters and cutoff kept (``ndcg@10``: did you mean ``nDCG@10``?).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import UsageError, shown
from .base import Measure, Request

_IR_PATTERN = re.compile(
    r"^(?P<name>[A-Za-z_][A-Za-z0-9_-]*)(?:\((?P<args>[^()]*)\))?(?:@(?P<cutoff>[^@()]+))?$"
)
_HEAD = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*")


def _folded(name: str) -> str:
    """``name`` compared without case or punctuation (``nDCG-k`` ~ ``ndcgk``)."""
    return re.sub(r"[^0-9a-z]", "", name.casefold())
_PRINTED_VALUE = {"cutoffs": re.compile(r"\d+"), "fractions": re.compile(r"\d*\.?\d+")}
_INT_PREFIX = re.compile(r"\s*([+-]?\d+)")
_FLOAT_PREFIX = re.compile(r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)")


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
        return self._parse(spec, suggest=True)

    def _parse(self, spec: str, suggest: bool) -> list[Request]:
        spec = spec.strip()
        if not spec:
            raise UsageError("empty measure name")
        if spec in self.nicknames:
            return [r for name in self.nicknames[spec] for r in self._parse(name, suggest)]
        if "(" in spec or "@" in spec:
            return [self._parse_ir(spec, suggest)]
        if spec in self._index:
            return self._trec_requests(self[spec], None)
        if "." in spec:
            name, _, params = spec.partition(".")
            if name in self._index:
                if not params:
                    raise UsageError(f"measure '{spec}': empty parameter list after '.'")
                return self._trec_requests(self[name], params)
        if (spec, False) in self._ir:
            return [self._parse_ir(spec, suggest)]
        printed = self._printed(spec)
        if printed is not None:
            return self._trec_requests(*printed)
        raise UsageError(self._unknown(spec, suggest))

    def _printed(self, spec: str) -> tuple[Measure, str] | None:
        """A name as trec_eval prints it for one cutoff (``P_10``, ``ndcg_cut_10``,
        ``iprec_at_recall_0.10``): the measure and its parameter, else None."""
        name, sep, value = spec.rpartition("_")
        if not sep or name not in self._index:
            return None
        pattern = _PRINTED_VALUE.get(self[name].trec.style)
        if pattern is None or not pattern.fullmatch(value):
            return None
        return self[name], value

    def parse_many(self, specs: Iterable[str | Request]) -> list[Request]:
        """Requests for several specs (names, or requests already parsed), each once, in the
        order asked: spec after spec, a nickname's and a cutoff list's in trec_eval's order
        (`trec_position`).

        Explicit parameters replace a measure's trec_eval defaults: ``-m all_trec -m P.5``
        gives ``P_5`` only, as in trec_eval.
        """
        requests: list[tuple[tuple, Request]] = []  # (where it prints, the request)
        explicit: set[str] = set()
        defaults: list[tuple[tuple, Request]] = []
        for asked, spec in enumerate(specs):
            if isinstance(spec, Request):  # one spec of its own (its measure may be of
                requests.append(((asked,), spec))  # another registry)
                continue
            for r in self.parse(spec):
                # a measure without trec_eval parameters has no defaults to replace:
                # ``-m RPP -m 'RPP(rel=2)'`` and ``-m all_trec -m 'AP(rel=2)'`` keep both
                if r.order and r.order[0] == "default" and r.measure.trec.style != "none":
                    defaults.append(((asked, self.trec_position(r)), r))
                else:
                    if not r.judged_only:  # a condensed-list request is a measure of its own
                        explicit.add(r.measure.name)
                    requests.append(((asked, self.trec_position(r)), r))
        requests += [(at, r) for at, r in defaults if r.measure.name not in explicit]
        requests.sort(key=lambda pair: pair[0])
        return list(dict.fromkeys(r for _, r in requests))  # the first of equal requests

    def trec_position(self, request: Request) -> tuple:
        """Where trec_eval prints a request: its measure's place in the registry, then its
        cutoff (``P_5`` before ``P_10``).  trec_eval's text is written in this order, however
        the measures were asked."""
        return (self.index(request.measure), request.order[1:])

    def _unknown(self, spec: str, suggest: bool = True) -> str:
        hint = ""
        if suggest:
            close = self._suggestions(spec)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
        return f"unknown measure '{spec}'{hint} (see `rankscope measures`)"

    def _suggestions(self, spec: str) -> list[str]:
        """What the user probably meant: first the names equal to the one given but for case,
        in their exact spelling with the given parameters and cutoff (``ndcg@10`` ->
        ``nDCG@10``, ``ndcg_cut@10`` -> ``ndcg_cut.10``, ``nDCG@10``), trying an ``@`` before
        trailing digits (``P10`` -> ``P@10``), each checked to parse; else the closest names
        (case and punctuation ignored), with the parameters and cutoff given kept where the
        result parses (``nDGC@10`` -> ``nDCG@10``)."""
        import difflib  # only for a mistake: keeps it out of every start-up

        match = _HEAD.match(spec)
        head = match.group(0) if match else spec
        rest = spec[len(head) :]
        heads = [(head, rest)]
        name, sep, value = head.rpartition("_")
        if sep and not rest and re.fullmatch(r"\d*\.?\d+", value):
            heads.append((name, f"_{value}"))  # trec_eval's printed name, P_10
        digits = re.fullmatch(r"(.*?[A-Za-z])(\d+)", head)
        if digits and not rest:
            heads.append((digits.group(1), f"@{digits.group(2)}"))  # a cutoff without @
        names = [*self._index, *(n for n, _ in self._ir), *self.nicknames]
        exact: dict[str, list[str]] = {}
        for n in names:
            exact.setdefault(n.casefold(), [])
            if n not in exact[n.casefold()]:
                exact[n.casefold()].append(n)
        candidates = []
        for h, tail in heads:
            cutoff = tail[1:] if tail.startswith("@") else None
            for n in exact.get(h.casefold(), []):
                candidates.append(n + tail)
                if cutoff is not None and n in self._index:
                    m = self[n]
                    if m.trec.style == "cutoffs":
                        candidates.append(f"{n}.{cutoff}")
                    candidates += [f"{s.name}@{cutoff}" for s in m.ir if s.cutoff]
        close = [c for c in dict.fromkeys(candidates) if c != spec and self._parses(c)]
        if close:
            return close
        folded: dict[str, list[str]] = {}  # names without case or punctuation
        for key, spelled in exact.items():
            folded.setdefault(_folded(key), []).extend(spelled)
        near = [
            n
            for h, _ in heads
            for f in difflib.get_close_matches(_folded(h), list(folded))
            for n in folded[f]
        ]
        kept = [n + tail for n in near for _, tail in heads if tail and self._parses(n + tail)]
        return list(dict.fromkeys(kept[:1] + near))

    def _parses(self, spec: str) -> bool:
        try:
            self._parse(spec, suggest=False)
        except UsageError:
            return False
        return True

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

    def _parse_ir(self, spec: str, suggest: bool = True) -> Request:
        match = _IR_PATTERN.match(spec)
        if not match:
            raise UsageError(f"cannot parse measure '{spec}' (expected Name(param=value)@k)")
        name, args, cutoff = match.group("name"), match.group("args"), match.group("cutoff")
        entry = self._ir.get((name, cutoff is not None))
        if entry is None:
            if (name, cutoff is None) in self._ir:
                need = "needs a" if cutoff is None else "takes no"
                raise UsageError(f"measure '{spec}': {name} {need} cutoff @k")
            raise UsageError(self._unknown(spec, suggest))
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
    raise UsageError(f"measure '{spec}': judged_only must be True or False (got {shown(value)})")


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
