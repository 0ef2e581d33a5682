"""What a run answered beside the gold, question by question: the pure logic of the drill-down.

Each function takes records already read (:mod:`scorer.formats`) and returns plain records
that :mod:`scorer.site.answers_html` only renders; nothing here reads a file or makes HTML.
Participant text stays text: a highlight is a list of :class:`Segment` (text, marked or
not) escaped piece by piece when rendered.

* :func:`documents`: the returned documents in rank order, each relevant or not (same
  PubMed id as a gold document, as the reference flavor compares them);
* :func:`snippets`: the returned snippets of each document beside its gold snippets, the
  characters they share with the gold marked, and whether the official evaluator credits it with no
  overlap (section 3.8 of ``docs/official-evaluator.md``: rel(r) = 1 when a gold snippet
  has the identical document string, whatever the offsets);
* :func:`exact_answer`: the exact answer as the flavor reads it, each entry with the gold
  synonym it matched (or none), the rank of the first match of a factoid answer;
* :func:`ideal_values`: the per-question ROUGE values of the ideal answer;
* :func:`label_distances` / :func:`labels`: Task A predicted against gold labels and the
  hierarchical distance of each miss;
* :func:`choice`: a multiple-choice answer against the correct candidate;
* :func:`most_different`: the questions where two runs differ most.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from scorer.formats import answers as ans
from scorer.formats.taskb import Snippet
from scorer.measures.dag import ROOT, Hierarchy
from scorer.measures.snippets import official_overlap, official_snippets, pubmed_id, reference_section


class Segment(NamedTuple):
    """A run of characters of a text, marked (shared with the other side) or not."""

    text: str
    marked: bool


def marked_segments(text: str, begin: int, spans: Sequence[tuple[int, int]]) -> list[Segment]:
    """``text`` cut into runs of marked and unmarked characters.

    Character ``i`` of ``text`` is taken to sit at section offset ``begin + i`` (the
    ``text`` of a BioASQ snippet is the characters ``begin <= c < end``); it is marked when
    that offset lies in one of ``spans`` (half-open ``(low, high)`` offsets).
    Example: ``marked_segments("abcdef", 10, [(12, 14)])`` -> ``ab``, ``cd`` (marked), ``ef``.
    """
    if not spans:
        return [Segment(text, False)]
    merged: list[list[int]] = []  # disjoint, non-adjacent marked runs of text indices
    for low, high in sorted((max(low - begin, 0), min(high - begin, len(text))) for low, high in spans):
        if high <= low:
            continue
        if merged and low <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    out: list[Segment] = []
    at = 0
    for low, high in merged:
        if low > at:
            out.append(Segment(text[at:low], False))
        out.append(Segment(text[low:high], True))
        at = high
    if at < len(text) or not out:
        out.append(Segment(text[at:], False))
    return out


# --- Phase A: documents and snippets ------------------------------------------------------

class ReturnedDocument(NamedTuple):
    rank: int
    document: str       # as the run wrote it
    pmid: str
    relevant: bool      # a gold document has the same PubMed id
    repeat: bool        # the same PubMed id was returned at an earlier rank


def documents(returned: Sequence[str], gold: Sequence[str]) -> list[ReturnedDocument]:
    """The returned documents in rank order, each relevant (its PubMed id is a gold
    document's, :func:`~scorer.measures.snippets.pubmed_id`) or not, repeats flagged."""
    gold_ids = {pubmed_id(d) for d in gold}
    seen: set[str] = set()
    out = []
    for rank, document in enumerate(returned, 1):
        pmid = pubmed_id(document)
        out.append(ReturnedDocument(rank, document, pmid, pmid in gold_ids, pmid in seen))
        seen.add(pmid)
    return out


class ShownSnippet(NamedTuple):
    """A snippet with its place and its text cut into :class:`Segment`; ``rank``: its
    place in the run (from 1; 0 for a gold snippet); ``shared``: the characters it shares
    with the gold (each counted once); ``credited_without_overlap``: the official evaluator
    counts this returned snippet relevant for AP although it shares no character with a
    gold snippet."""

    rank: int
    sections: str       # "abstract" or "abstract-title"
    begin: int
    end: int
    segments: tuple[Segment, ...]
    shared: int = 0
    credited_without_overlap: bool = False


class GoldDocument(NamedTuple):
    """The gold snippets of one PubMed id of a question: as read, their reference sections,
    and as shown (unmarked: one gold text serves every run of the table)."""

    snippets: tuple[Snippet, ...]
    sections: tuple[tuple[str, str], ...]
    shown: tuple[ShownSnippet, ...]


class DocumentSnippets(NamedTuple):
    """The returned snippets of one PubMed id beside the gold snippets of that id."""

    pmid: str
    returned: tuple[ShownSnippet, ...]
    gold: tuple[ShownSnippet, ...]


def _sections(s: Snippet) -> tuple[str, str]:
    return reference_section(s.begin_section), reference_section(s.end_section)


def _section_text(sections: tuple[str, str]) -> str:
    return sections[0] if sections[0] == sections[1] else f"{sections[0]}-{sections[1]}"


def gold_documents(gold: Sequence[Snippet]) -> dict[str, GoldDocument]:
    """A question's gold snippets by PubMed id (gold order within each); computed once per
    table and shared by :func:`snippets` for every run."""
    by: dict[str, list[Snippet]] = {}
    for g in gold:
        by.setdefault(pubmed_id(g.document), []).append(g)
    out = {}
    for pmid, group in by.items():
        sections = tuple(map(_sections, group))
        out[pmid] = GoldDocument(tuple(group), sections, tuple(
            ShownSnippet(0, _section_text(k), g.begin, g.end, (Segment(g.text, False),)) for g, k in zip(group, sections)))
    return out


def _union_size(spans: list[tuple[int, int]]) -> int:
    """How many offsets the half-open spans cover together."""
    total, reach = 0, None
    for low, high in sorted(spans):
        low = low if reach is None else max(low, reach)
        if high > low:
            total += high - low
            reach = high
    return total


def _returned(rank: int, s: Snippet, gold: GoldDocument | None) -> ShownSnippet:
    """A returned snippet with the offsets it shares with the gold snippets of its PubMed id
    (same sections, half-open) marked."""
    sections = _sections(s)
    if gold is None:
        return ShownSnippet(rank, _section_text(sections), s.begin, s.end, (Segment(s.text, False),))
    spans = [(max(s.begin, g.begin), min(s.end, g.end)) for g, k in zip(gold.snippets, gold.sections)
             if k == sections and min(s.end, g.end) > max(s.begin, g.begin)]
    return ShownSnippet(rank, _section_text(sections), s.begin, s.end, tuple(marked_segments(s.text, s.begin, spans)),
                        _union_size(spans), credited_without_overlap(s, gold.snippets))


def credited_without_overlap(returned: Snippet, gold: Sequence[Snippet]) -> bool:
    """True when the official evaluator's snippet AP counts ``returned`` relevant (a gold
    snippet has the identical document string) although its official overlap (inclusive
    offsets, sections after the first ``.``) with every such gold snippet is 0."""
    same = [g for g in gold if g.document == returned.document]
    if not same:
        return False
    (r,) = official_snippets([returned])
    return all(official_overlap(r, g) == 0 for g in official_snippets(same))


def snippets(returned: Sequence[Snippet], gold: dict[str, GoldDocument]) -> list[DocumentSnippets]:
    """The returned snippets grouped by PubMed id (groups in the order of their first
    snippet, snippets in rank order) beside the gold snippets of that id (``gold``: the
    question's :func:`gold_documents`); the characters a returned snippet shares with a
    gold snippet (same sections, half-open offsets as the reference flavor counts them)
    are marked."""
    groups: dict[str, list[ShownSnippet]] = {}
    for rank, s in enumerate(returned, 1):
        pmid = pubmed_id(s.document)
        groups.setdefault(pmid, []).append(_returned(rank, s, gold.get(pmid)))
    return [DocumentSnippets(pmid, tuple(shown), gold[pmid].shown if pmid in gold else ())
            for pmid, shown in groups.items()]


# --- Phase B: exact and ideal answers ---------------------------------------------------

class EntryMatch(NamedTuple):
    """One answer entry as the scorer reads it (its strings) and the gold synonym it
    matched, as the gold file writes it (None: no match)."""

    strings: tuple[str, ...]
    matched: str | None


@dataclass(frozen=True)
class ExactExplained:
    """An exact answer against the gold.

    yes/no: ``given`` and ``gold_label`` (``None``: no answer), ``correct``.
    factoid/list: ``entries`` in the run's order, ``rank`` of the first matching entry
    (factoid), ``gold_entries`` (each with its synonyms, as written).
    """

    type: str
    answered: bool
    given: str | None = None
    gold_label: str | None = None
    correct: bool = False
    entries: tuple[EntryMatch, ...] = ()
    rank: int | None = None
    gold_entries: tuple[tuple[str, ...], ...] = ()


def _official_entries(value, edition: int) -> list[tuple[str, ...]]:
    """The entries of a run's factoid/list answer as the official reader reads them
    (normalised); [] when there is none or the reader refuses it."""
    answer, problem = ans.official_answer(value, edition=edition, gold=False)
    if answer is None or problem is not None:
        return []
    return [tuple(e) for e in answer.entries] or [(s,) for s in answer.flat]


def _reference_entries(value, _edition: int) -> list[tuple[str, ...]]:
    """The entries of a run's factoid/list answer as the reference reader reads them, each
    sorted (the edition does not change it)."""
    return [tuple(sorted(entry)) for entry in ans.reference_entries(value)]


def _official_yesno(value) -> str | None:
    """The official tool's substring rule on a string answer (None for any other value)."""
    return ans.official_yesno_label(value) if type(value) is str else None


class _Reading(NamedTuple):
    """How a flavor reads exact answers: ``normal`` compares answer strings, ``entries``
    gives a run's factoid/list entries (normalised) from its value and the edition,
    ``yesno`` a yes/no label (None: no label)."""

    normal: Callable[[str], str]
    entries: Callable[[object, int], list[tuple[str, ...]]]
    yesno: Callable[[object], str | None]


#: The flavor rule of the explanations, one entry per flavor of the measure registry: the
#: official reader (lower-cased strings, :func:`~scorer.formats.answers.official_answer`,
#: the substring rule of yes/no) or the reference one (``reference_text``,
#: ``reference_entries`` with each entry sorted, ``reference_label``).
_READINGS: dict[str, _Reading] = {
    "official": _Reading(str.lower, _official_entries, _official_yesno),
    "reference": _Reading(ans.reference_text, _reference_entries, ans.reference_label),
}


def _gold_entries(value) -> list[tuple[str, ...]]:
    """The gold entities with their synonyms as written (strings and numbers as text)."""
    if type(value) is not list:
        text = ans.literal_text(value)
        return [(text,)] if text else []
    out = []
    for item in value:
        strings = [t for v in (item if type(item) is list else [item]) if (t := ans.literal_text(v))]
        if strings:
            out.append(tuple(strings))
    return out


def exact_answer(qtype: str | None, given, has_given: bool, gold, flavor: str, edition: int) -> ExactExplained | None:
    """The exact answer of a yes/no, factoid or list question against the gold answer
    (None for other types).  ``given``/``gold``: the ``exact_answer`` values as parsed;
    ``has_given``: the run wrote one.  An entry matches when one of its strings equals a
    gold synonym after the flavor's normalisation; the synonym shown is the first such one
    in gold order."""
    reading = _READINGS[flavor]
    if qtype == ans.YESNO:
        label = reading.yesno(given) if has_given else None
        gold_label = reading.yesno(gold)
        return ExactExplained(qtype, label is not None, given=label, gold_label=gold_label,
                              correct=label is not None and label == gold_label)
    if qtype not in (ans.FACTOID, ans.LIST):
        return None
    normal = reading.normal
    gold_entries = _gold_entries(gold)
    synonyms = [(normal(s), s) for entry in gold_entries for s in entry]
    entries = []
    for strings in (reading.entries(given, edition) if has_given else []):
        wanted = set(strings)
        entries.append(EntryMatch(strings, next((raw for norm, raw in synonyms if norm in wanted), None)))
    rank = next((i for i, e in enumerate(entries, 1) if e.matched is not None), None)
    return ExactExplained(qtype, bool(entries), entries=tuple(entries), rank=rank,
                          gold_entries=tuple(gold_entries))


#: The per-question values of an ideal answer shown beside it, in this order.
IDEAL_MEASURES = ("ideal.rouge2.f1", "ideal.rougesu4.f1", "ideal.rouge2.recall", "ideal.rougesu4.recall",
                  "ideal.rougel", "ideal.rougel_adapted")


def ideal_values(values: dict) -> list[tuple[str, float]]:
    """(measure, value) of the ROUGE values of a question's per-question values, in
    :data:`IDEAL_MEASURES` order (those it has)."""
    return [(m, values[m]) for m in IDEAL_MEASURES if values.get(m) is not None]


# --- Task A: labels and hierarchical distance ---------------------------------------------

@lru_cache(maxsize=4)
def _ancestry(hierarchy: Hierarchy) -> dict[int, dict[int, int]]:
    """The memo of :func:`_up` for one hierarchy (kept while the hierarchy is)."""
    return {}


def _up(hierarchy: Hierarchy, node: int) -> dict[int, int]:
    """``node`` and each of its ancestors -> the fewest parent links from ``node`` up to it
    (the artificial root left out); memoised per hierarchy."""
    memo = _ancestry(hierarchy)
    found = memo.get(node)
    if found is None:
        found = {node: 0}
        for parent in hierarchy.parents(node):
            if parent != ROOT:
                for ancestor, steps in _up(hierarchy, parent).items():
                    if found.get(ancestor, steps + 2) > steps + 1:
                        found[ancestor] = steps + 1
        memo[node] = found
    return found


@lru_cache(maxsize=1024)
def _down(hierarchy: Hierarchy, targets: tuple[str, ...]) -> dict[int, int]:
    """Each ancestor of the known ``targets`` -> the fewest links down from it to one of
    them (kept for the next run showing the same gold labels)."""
    ids = hierarchy.ids
    down: dict[int, int] = {}
    for target in targets:
        if target in ids:
            for ancestor, steps in _up(hierarchy, ids[target]).items():
                if down.get(ancestor, steps + 1) > steps:
                    down[ancestor] = steps
    return down


def label_distances(hierarchy: Hierarchy, labels: Iterable[str], targets: Iterable[str]) -> dict[str, int | None]:
    """Label -> the fewest parent-child links on a path that goes up from it to a common
    ancestor and down to the nearest of ``targets`` (through their lowest common
    ancestor; 0 for a target itself).  None when the label or every target is unknown to
    the hierarchy, or the label shares no ancestor with any target (the artificial root
    above the parentless nodes does not count).
    Example: with edges A-B, A-C, the distance of B to {C} is 2 (B up to A, down to C)."""
    ids = hierarchy.ids
    down = _down(hierarchy, tuple(targets))
    out: dict[str, int | None] = {}
    for label in labels:
        ups = _up(hierarchy, ids[label]) if label in ids else {}
        out[label] = min((steps + down[a] for a, steps in ups.items() if a in down), default=None)
    return out


@dataclass(frozen=True)
class LabelsExplained:
    """A Task A document: the labels both have, the predicted labels not in the gold and
    the gold labels not predicted, each miss with its :func:`label_distances` distance."""

    pmid: str
    correct: tuple[str, ...]
    wrong: tuple[tuple[str, int | None], ...]
    missed: tuple[tuple[str, int | None], ...]


def labels(pmid: str, predicted: Sequence[str], gold: Sequence[str], hierarchy: Hierarchy | None) -> LabelsExplained:
    """Predicted against gold labels (order of each list, repeats once); a wrong label's
    distance is to the nearest gold label, a missed one's to the nearest predicted label
    (None without a hierarchy)."""
    predicted, gold = list(dict.fromkeys(predicted)), list(dict.fromkeys(gold))
    gold_set, predicted_set = set(gold), set(predicted)
    wrong = [p for p in predicted if p not in gold_set]
    missed = [g for g in gold if g not in predicted_set]

    def measured(misses: list[str], targets: list[str]) -> tuple[tuple[str, int | None], ...]:
        far = label_distances(hierarchy, misses, targets) if hierarchy is not None and misses else {}
        return tuple((m, far.get(m)) for m in misses)
    return LabelsExplained(pmid, tuple(p for p in predicted if p in gold_set), measured(wrong, gold),
                           measured(missed, predicted))


# --- multiple choice --------------------------------------------------------------------

class Candidate(NamedTuple):
    id: str
    text: str
    chosen: bool
    correct: bool


@dataclass(frozen=True)
class ChoiceExplained:
    """A multiple-choice question: its candidates with the run's choice and the correct
    one; ``unanswered``: the run gave no answer (NoA), ``chosen`` then is the candidate it
    named, if any."""

    question: str
    candidates: tuple[Candidate, ...]
    unanswered: bool
    right: bool


def choice(question: str, candidates: Sequence[tuple[str, str]], correct: str, answer: str | None,
           candidate: str | None) -> ChoiceExplained:
    """``candidates``: (id, text) in test-set order; ``answer``: the chosen id (None: NoA,
    with ``candidate`` the one it would have given)."""
    chosen = answer if answer is not None else candidate
    return ChoiceExplained(question, tuple(Candidate(cid, text, cid == chosen, cid == correct)
                                           for cid, text in candidates),
                           answer is None, answer is not None and answer == correct)


# --- head to head -----------------------------------------------------------------------

def most_different(values_a: dict, values_b: dict, measures: Sequence[str]) -> list[tuple[str, float]]:
    """(question, difference) of every question of either run, the largest difference
    first (ties by id): the sum over ``measures`` of |A - B|, a value only one of them has
    counting as its distance from 0."""
    out = []
    for q in sorted(values_a.keys() | values_b.keys()):
        a, b = values_a.get(q, {}), values_b.get(q, {})
        diff = math.fsum(abs(_number(a.get(m)) - _number(b.get(m))) for m in measures
                         if a.get(m) is not None or b.get(m) is not None)
        out.append((q, diff))
    out.sort(key=lambda item: (-item[1], item[0]))
    return out


def _number(value) -> float:
    return value if isinstance(value, (int, float)) and not math.isnan(value) else 0.0


# --- a question of a run, assembled -------------------------------------------------------

@dataclass
class QuestionView:
    """What the drill-down shows of one question (Task A: document) of a run; the parts
    that do not apply to its task are None or empty.  ``values``: its per-question values."""

    id: str
    body: str | None = None
    type: str | None = None
    values: dict | None = None
    documents: tuple[ReturnedDocument, ...] | None = None
    gold_documents: int = 0
    snippets: tuple[DocumentSnippets, ...] | None = None
    gold_snippets: int = 0
    exact: ExactExplained | None = None
    ideal: str | None = None
    gold_ideal: tuple[str, ...] = ()
    ideal_values: tuple[tuple[str, float], ...] = ()
    labels: LabelsExplained | None = None
    choice: ChoiceExplained | None = None
    own: OwnAnswer | None = None  # sealed gold: the run's own answer, no gold and no mark

    @property
    def has_ideal(self) -> bool:
        """An ideal answer to show: the run's or the gold's."""
        return self.ideal is not None or bool(self.gold_ideal)

    @property
    def labelled(self) -> bool:
        """A document with labels (Task A), against the gold or the run's own."""
        return self.labels is not None or (self.own is not None and self.own.labels is not None)


class OwnAnswer(NamedTuple):
    """What a run returned for a question (Task A: document) whose gold is sealed
    (``[gold] sealed``), as the run wrote it: Task B its documents, snippets, exact answer
    entries (each entry's strings) and ideal answer; Task A the labels it predicted; a
    multiple-choice question its candidates with the one it chose.  Nothing of the gold,
    so no item is marked relevant, right or wrong; a part that does not apply is None
    (``exact``: empty)."""

    documents: tuple[str, ...] | None = None  # None: not scored on this phase (no retrieval)
    snippets: tuple[Snippet, ...] | None = None
    exact: tuple[tuple[str, ...], ...] = ()
    ideal: str | None = None
    labels: tuple[str, ...] | None = None  # Task A: the predicted labels, in the run's order, repeats once
    candidates: tuple[tuple[str, bool], ...] | None = None  # multiple choice: (text, chosen), test-set order
    unanswered: bool = False  # multiple choice: no answer (NoA); a candidate it named is the chosen one


def own_labels(predicted: Sequence[str]) -> OwnAnswer:
    """The :class:`OwnAnswer` of a Task A document: the run's labels ``predicted`` (none:
    the run has no such document), in its order, each once."""
    return OwnAnswer(labels=tuple(dict.fromkeys(predicted)))


def own_choice(candidates: Sequence[tuple[str, str]], answer: str | None, candidate: str | None) -> OwnAnswer:
    """The :class:`OwnAnswer` of a multiple-choice question, as :func:`choice` takes it
    but without the correct candidate: ``candidates`` (id, text) in test-set order (a
    text empty: its id is shown), ``answer`` the chosen id (None: NoA, ``candidate`` the
    one it named, if any)."""
    chosen = answer if answer is not None else candidate
    return OwnAnswer(candidates=tuple((text or cid, cid == chosen) for cid, text in candidates),
                     unanswered=answer is None)


def own_answer(run, *, retrieval: bool, answers: bool) -> OwnAnswer:
    """The :class:`OwnAnswer` of the run's question record ``run`` (None: the run has none,
    nothing returned): ``retrieval``: documents and snippets, ``answers``: exact and ideal answers.  An exact
    answer is a string (yes/no, one entry), or a list whose items are strings or lists of
    strings (one entry each); anything else is left out."""
    exact = run.exact_answer if run is not None and answers and run.has_exact_answer else None
    items = [exact] if type(exact) is str else exact if type(exact) is list else []
    entries = tuple(e for e in ((v,) if type(v) is str else tuple(x for x in v if type(x) is str)
                                if type(v) is list else () for v in items) if e)
    return OwnAnswer(tuple(run.documents if run else ()) if retrieval else None,
                     tuple(run.snippets if run else ()) if retrieval else None, entries,
                     ans.ideal_text(run.ideal_answer) if answers and run is not None else None)


def taskb_question(qid: str, shown, gold, run, values: dict | None, *, retrieval: bool, answers: bool,
                   flavor: str, edition: int, gold_snippets: dict[str, GoldDocument] | None = None) -> QuestionView:
    """One Task B (or Synergy) question: ``shown`` the test-set question (body, type),
    ``gold`` and ``run`` the :class:`~scorer.formats.taskb.Question` records (None when the
    file has none); ``retrieval``: documents and snippets, ``answers``: exact and ideal
    answers; ``gold_snippets``: the gold's :func:`gold_documents` when computed before."""
    qtype = (shown.type if shown is not None else None) or (gold.type if gold is not None else None)
    body = (shown.body if shown is not None else None) or (gold.body if gold is not None else None)
    parts: dict = {}
    if retrieval and gold is not None:
        parts.update(documents=tuple(documents(run.documents if run else [], gold.documents)),
                     gold_documents=len({pubmed_id(d) for d in gold.documents}),
                     snippets=tuple(snippets(run.snippets if run else [], gold_snippets if gold_snippets is not None
                                             else gold_documents(gold.snippets))),
                     gold_snippets=len(gold.snippets))
    if answers and gold is not None:
        parts["exact"] = exact_answer(qtype, run.exact_answer if run else None, bool(run and run.has_exact_answer),
                                      gold.exact_answer, flavor, edition) if gold.has_exact_answer else None
        parts.update(ideal=ans.ideal_text(run.ideal_answer) if run is not None else None,
                     gold_ideal=tuple(ans.gold_ideal_texts(gold.ideal_answer)),
                     ideal_values=tuple(ideal_values(values or {})))
    return QuestionView(qid, body, qtype, values, **parts)
