"""The assessment pool of a closed Task B batch and phase (``python -m scorer pool``).

For each gold question, every item some run returned that the gold does not hold:

* Phase A: **documents** (by PubMed id, whatever the URL form) and **snippets** (by PubMed
  id and section pair; returned snippets whose character ranges overlap or touch are one
  item, their hull, so an expert judges each stretch of text once).  A snippet lying
  wholly inside the gold snippets of its document and sections is held by the gold.
* Phase B (and Phase A+, whose runs are scored against the same gold): **exact answers**
  of factoid and list questions (each run entry's first string, as the official
  evaluator scores it from edition 5 on, de-duplicated by its lower-cased form; one the
  gold already lists as a synonym is held), and **every ideal answer** (de-duplicated
  after collapsing white space: all of them get expert scores, as in BioASQ).

The pool is *blind*: items carry no system, run or order of arrival; they are numbered
per question in the order of their content (``d1``, ``s1``, ``a1``, ``i1``...), and which
systems returned each item is written to a separate key file
(``{"items": {"<question>/<item>": ["team/system", ...]}}``) that assessors do not see.
The same runs and gold give the same bytes.  Its size is bounded by the runs' own
per-question limits (at most systems x limit items per question and kind).

Half-open character ranges are used throughout: a snippet covers ``begin <= c < end``
of its sections (the reference reading of BioASQ offsets, ``docs/measures.md``).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from scorer.formats.answers import answer_strings, gold_entries, gold_ideal_texts, ideal_text
from scorer.formats.taskb import Question, TaskBFile
from scorer.measures.snippets import pubmed_id, snippet_place
from scorer.tasks import Scoring

POOL_VERSION = 1
#: The item kinds of a pool, the phase they belong to and their id prefix.
RETRIEVAL_KINDS = (("documents", "d"), ("snippets", "s"))
ANSWER_KINDS = (("exact_answers", "a"), ("ideal_answers", "i"))
#: Question types whose exact answers are judged (a yes/no answer is right or wrong by the gold).
JUDGED_EXACT_TYPES = ("factoid", "list")


@dataclass(frozen=True)
class Pool:
    """A pool (``questions``: the items per question) and its key (item -> systems)."""

    document: dict
    key: dict

    @property
    def size(self) -> dict[str, int]:
        """Items per kind, over all questions."""
        sizes: dict[str, int] = {}
        for question in self.document["questions"]:
            for kind, _ in RETRIEVAL_KINDS + ANSWER_KINDS:
                sizes[kind] = sizes.get(kind, 0) + len(question.get(kind, ()))
        return sizes


def pool_kinds(scoring: Scoring) -> tuple[str, ...]:
    """The item kinds a scoring task's runs are judged on, from the task registry: the
    retrieval kinds when it scores documents, the answer kinds when it scores ideal
    answers (Synergy: both); none for the other tasks."""
    kinds: tuple[tuple[str, str], ...] = ()
    if "documents" in scoring.categories:
        kinds += RETRIEVAL_KINDS
    if "ideal" in (scoring.summary or ()):
        kinds += ANSWER_KINDS
    return tuple(kind for kind, _ in kinds)


def build_pool(gold: TaskBFile, runs: Mapping[str, TaskBFile], *, kinds: tuple[str, ...],
               meta: Mapping[str, object]) -> Pool:
    """The pool of ``runs`` (system id -> run) against ``gold``, for the item ``kinds``
    (:func:`pool_kinds`).  ``meta``: task, batch, phase and the gold's digest, copied
    into the pool and its key.
    Run questions that are not in the gold are ignored; a run's repeated question id
    counts once (the first, as the official evaluator pairs them)."""
    answers = "ideal_answers" in kinds
    by_system = {system: _first_by_id(run.questions) for system, run in sorted(runs.items())}
    questions, key = [], {}
    seen: set[str] = set()
    for gold_question in gold.questions:
        qid = gold_question.id
        if qid is None or qid in seen:
            continue
        seen.add(qid)
        returned = {system: questions_[qid] for system, questions_ in by_system.items() if qid in questions_}
        entry: dict = {"id": qid, "type": gold_question.type, "body": gold_question.body}
        if answers:  # what the assessors compare with: "synonym of" names a gold entry
            entry["gold_exact_answer"] = gold_entries(gold_question.exact_answer)
            entry["gold_ideal_answer"] = gold_ideal_texts(gold_question.ideal_answer)
        for kind, prefix in RETRIEVAL_KINDS + ANSWER_KINDS:
            if kind not in kinds:
                continue
            items = _ITEMS[kind](gold_question, returned)
            entry[kind] = []
            for number, (content, systems) in enumerate(items, 1):
                item = f"{prefix}{number}"
                entry[kind].append({"item": item, **content})
                key[f"{qid}/{item}"] = sorted(systems)
        questions.append(entry)
    document = {"version": POOL_VERSION, **dict(meta), "kinds": list(kinds), "questions": questions}
    return Pool(document, {"version": POOL_VERSION, **dict(meta), "items": key})


def _first_by_id(questions: Iterable[Question]) -> dict[str, Question]:
    found: dict[str, Question] = {}
    for question in questions:
        if question.id is not None and question.id not in found:
            found[question.id] = question
    return found


def _pooled_documents(gold: Question, returned: Mapping[str, Question]) -> list[tuple[dict, set[str]]]:
    held = {pubmed_id(d) for d in gold.documents}
    systems: dict[str, set[str]] = {}
    for system, question in returned.items():
        for document in question.documents:
            pmid = pubmed_id(document)
            if pmid and pmid not in held:
                systems.setdefault(pmid, set()).add(system)
    return [({"pmid": pmid}, systems[pmid]) for pmid in sorted(systems, key=_natural)]


def _natural(text: str) -> tuple:
    """Digits compared as numbers (``9`` before ``10``), so PubMed ids sort as readers expect."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.findall(r"\d+|\D+", text))


def _pooled_snippets(gold: Question, returned: Mapping[str, Question]) -> list[tuple[dict, set[str]]]:
    """Returned snippets grouped by place and merged into hulls where their ranges overlap
    or touch; a hull covered by the gold's ranges of its place is held."""
    covered: dict[tuple[str, str, str], list[tuple[int, int]]] = {}
    for snippet in gold.snippets:
        covered.setdefault(snippet_place(snippet), []).append((snippet.begin, snippet.end))
    members: dict[tuple[str, str, str], list[tuple[int, int, str, str]]] = {}
    for system, question in returned.items():
        for snippet in question.snippets:
            if snippet.end > snippet.begin:
                members.setdefault(snippet_place(snippet), []).append((snippet.begin, snippet.end, snippet.text, system))
    pooled = []
    for place in sorted(members, key=lambda p: (_natural(p[0]), p[1], p[2])):
        gold_ranges = merged_ranges(covered.get(place, []))
        for hull in _hulls(members[place]):
            begin, end = hull[0][0], max(m[1] for m in hull)
            if any(b <= begin and end <= e for b, e in gold_ranges):
                continue
            text, complete = stitched_text(begin, end, [(b, e, t) for b, e, t, _ in hull])
            pmid, begin_section, end_section = place
            content = {"pmid": pmid, "beginSection": begin_section, "endSection": end_section,
                       "offsetInBeginSection": begin, "offsetInEndSection": end, "text": text}
            if not complete:
                content["text_complete"] = False
            pooled.append((content, {m[3] for m in hull}))
    return pooled


def _hulls(members: list[tuple[int, int, str, str]]) -> list[list[tuple[int, int, str, str]]]:
    """Members sorted by range and split where a gap separates them (overlapping or touching
    ranges stay together)."""
    groups: list[list[tuple[int, int, str, str]]] = []
    end = None
    for member in sorted(members):
        if end is None or member[0] > end:
            groups.append([member])
            end = member[1]
        else:
            groups[-1].append(member)
            end = max(end, member[1])
    return groups


def merged_ranges(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Half-open ranges merged where they overlap or touch, in order."""
    out: list[tuple[int, int]] = []
    for begin, end in sorted(ranges):
        if out and begin <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((begin, end))
    return out


def stitched_text(begin: int, end: int, members: list[tuple[int, int, str]]) -> tuple[str, bool]:
    """The text of ``[begin, end)`` put together from the members whose text has exactly
    the length of their range (a run's ``text`` is its characters); ``(text, True)`` when
    every character is known, else the longest member text and False.  Memory is bounded
    by the members' texts, not by their offsets: a hull wider than all the texts together
    (a run's snippet [0, 2^31)) cannot be covered and is not laid out."""
    longest = max((m[2] for m in members), key=lambda t: (len(t), t), default="")
    exact = [(b, e, text) for b, e, text in members if len(text) == e - b]
    if sum(len(text) for _, _, text in exact) < end - begin:  # cannot cover it: no array of its width
        return longest, False
    chars: list[str | None] = [None] * (end - begin)
    for b, _, text in sorted(exact, key=lambda m: (m[0], -m[1], m[2])):
        for offset, char in enumerate(text):
            if chars[b - begin + offset] is None:
                chars[b - begin + offset] = char
    if all(c is not None for c in chars):
        return "".join(c for c in chars if c is not None), True
    return longest, False


def _gold_synonyms(question: Question) -> set[str]:
    return {text.lower() for entry in gold_entries(question.exact_answer) for text in entry}


def _pooled_exact(gold: Question, returned: Mapping[str, Question]) -> list[tuple[dict, set[str]]]:
    if gold.type not in JUDGED_EXACT_TYPES:
        return []
    held = _gold_synonyms(gold)
    forms: dict[str, set[str]] = {}
    systems: dict[str, set[str]] = {}
    for system, question in returned.items():
        for text in answer_strings(question.exact_answer):
            folded = text.lower()
            if folded not in held:
                forms.setdefault(folded, set()).add(text)
                systems.setdefault(folded, set()).add(system)
    return [({"text": min(forms[f]), "normalized": f}, systems[f]) for f in sorted(forms)]


def _pooled_ideal(gold: Question, returned: Mapping[str, Question]) -> list[tuple[dict, set[str]]]:
    forms: dict[str, set[str]] = {}
    systems: dict[str, set[str]] = {}
    for system, question in returned.items():
        text = ideal_text(question.ideal_answer)
        if text and text.strip():
            collapsed = " ".join(text.split())
            forms.setdefault(collapsed, set()).add(text)
            systems.setdefault(collapsed, set()).add(system)
    return [({"text": c}, systems[c]) for c in sorted(forms)]


_ITEMS = {"documents": _pooled_documents, "snippets": _pooled_snippets,
          "exact_answers": _pooled_exact, "ideal_answers": _pooled_ideal}
