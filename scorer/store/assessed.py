"""What the experts' assessment added for one run (``docs/assessment.md``).

When a batch's gold is final, every run is scored against the final gold (its result)
and against the preliminary gold (the ``gold preliminary`` variant, with its per-question
values).  :func:`assessment_added` lists, question by question, the items of the run
that the assessment made relevant or correct, and the effect on that question's values:

* **documents**: the run's documents whose PubMed id (whatever the URL form) is in the
  final gold and not in the preliminary gold;
* **snippets**: the run's snippets that overlap (share at least one character, half-open
  ranges ``begin <= c < end``) a snippet of the same document and sections that is in
  the final gold and not in the preliminary gold (the assessors may have kept only part
  of a returned snippet, so overlap, not equality, is what makes it count);
* **exact answers** (factoid and list questions): the run's answers (the first string of
  each entry, as the official evaluator scores them from edition 5 on) whose lower-cased
  form is a synonym of the final gold and not of the preliminary gold.

A question is listed only when the run returned at least one such item; its ``values``
are the per-question measures that differ between the two scorings (``[before, after]``;
two NaN are the same value).  ``others_changed`` counts the questions whose values changed
although the run returned nothing the assessment added (the gold grew with items of other
systems: a recall, for example, falls).  Pure: parsed files and per-question values in,
plain data out; bounded by the run's own per-question limits.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

from scorer.formats.answers import answer_strings, gold_entries
from scorer.formats.taskb import Question, Snippet, TaskBFile
from scorer.measures.snippets import pubmed_id, snippet_place

PerQuestion = Mapping[str, Mapping[str, object]]


def assessment_added(preliminary: TaskBFile, final: TaskBFile, run: TaskBFile, before: PerQuestion,
                     after: PerQuestion) -> dict:
    """``{"questions": [{"id", "documents", "snippets", "exact_answers", "values"}, ...],
    "others_changed": n}``: the questions (in the final gold's order) where ``run``
    returned an item of ``final`` that ``preliminary`` does not hold, with the items as
    the run wrote them (a kind with none is left out) and the per-question values that
    changed from ``before`` (against ``preliminary``) to ``after`` (against ``final``)."""
    earlier = preliminary.first_by_id()
    returned = run.first_by_id()
    listed, others = [], 0
    for qid, gold in final.first_by_id().items():
        changed = changed_values(before.get(qid, {}), after.get(qid, {}))
        items = _added_items(earlier.get(qid), gold, returned[qid]) if qid in returned else {}
        if items:
            listed.append({"id": qid, **items, "values": changed})
        elif changed:
            others += 1
    return {"questions": listed, "others_changed": others}


def changed_values(before: Mapping[str, object], after: Mapping[str, object]) -> dict[str, list]:
    """``measure -> [before, after]`` of the measures both have whose values differ
    (NaN and NaN are the same), sorted by measure."""
    return {m: [before[m], after[m]] for m in sorted(before.keys() & after.keys())
            if not _same(before[m], after[m])}


def _same(a: object, b: object) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def _added_items(preliminary: Question | None, final: Question, run: Question) -> dict[str, list]:
    """The run's items of one question that the assessment added (kinds with none left out)."""
    items: dict[str, list] = {"documents": _added_documents(preliminary, final, run),
             "snippets": _added_snippets(preliminary, final, run),
             "exact_answers": _added_answers(preliminary, final, run)}
    return {kind: found for kind, found in items.items() if found}


def _added_documents(preliminary: Question | None, final: Question, run: Question) -> list[str]:
    added = {pubmed_id(d) for d in final.documents} - {pubmed_id(d) for d in (preliminary.documents if preliminary else ())}
    out, seen = [], set()
    for document in run.documents:
        pmid = pubmed_id(document)
        if pmid in added and pmid not in seen:
            seen.add(pmid)
            out.append(document)
    return out


def _added_snippets(preliminary: Question | None, final: Question, run: Question) -> list[dict]:
    held = {_where(s) for s in (preliminary.snippets if preliminary else ())}
    added: dict[tuple, list[tuple[int, int]]] = {}
    for snippet in final.snippets:
        if _where(snippet) not in held:
            added.setdefault(snippet_place(snippet), []).append((snippet.begin, snippet.end))
    out: list[dict] = []
    for s in run.snippets:
        ranges = added.get(snippet_place(s), ())
        if any(min(s.end, end) > max(s.begin, begin) for begin, end in ranges):
            shown = {"document": s.document, "beginSection": s.begin_section, "endSection": s.end_section,
                     "offsetInBeginSection": s.begin, "offsetInEndSection": s.end, "text": s.text}
            if shown not in out:
                out.append(shown)
    return out


def _where(snippet: Snippet) -> tuple:
    return (*snippet_place(snippet), snippet.begin, snippet.end)


def _added_answers(preliminary: Question | None, final: Question, run: Question) -> list[str]:
    def synonyms(question: Question | None) -> set[str]:
        return {t.lower() for entry in gold_entries(question.exact_answer) for t in entry} if question else set()
    added = synonyms(final) - synonyms(preliminary)
    return list(dict.fromkeys(t for t in answer_strings(run.exact_answer) if t.lower() in added))
