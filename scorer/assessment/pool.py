"""The assessment pool of a closed Task B batch and phase (``python -m scorer pool``).

For each gold question, every item some run returned that the gold does not hold:

* Phase A: **documents** (by PubMed id, whatever the URL form) and **snippets** (by PubMed
  id and section pair; returned snippets whose character ranges overlap or touch and
  whose texts agree are one item, their hull, so an expert judges each stretch of text
  once).  A snippet lying wholly inside the gold snippets of its document and sections
  is held by the gold.  The text shown is the runs' own, and no run's text is trusted
  over another's: where runs claim different characters at one position, each text is
  an item of its own and the items name each other in ``conflicts_with``, so the expert
  sees every text given for those characters and accepts the one the document holds.
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

from scorer.core.tasks import Scoring
from scorer.formats.answers import answer_strings, gold_entries, gold_ideal_texts, ideal_text
from scorer.formats.taskb import Question, TaskBFile
from scorer.measures.snippets import pubmed_id, snippet_place

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


#: A returned snippet inside a place: (begin, end, text, system).
Member = tuple[int, int, str, str]


def _pooled_snippets(gold: Question, returned: Mapping[str, Question]) -> list[tuple[dict, set[str]]]:
    """Returned snippets grouped by place, split into :func:`readings` (the runs' texts
    never trusted over one another), each reading merged into hulls where its ranges
    overlap or touch; a hull covered by the gold's ranges of its place is held.  Items of
    one place from different readings whose ranges overlap name each other in
    ``conflicts_with``: the runs disagree on the text there."""
    covered: dict[tuple[str, str, str], list[tuple[int, int]]] = {}
    for snippet in gold.snippets:
        covered.setdefault(snippet_place(snippet), []).append((snippet.begin, snippet.end))
    members: dict[tuple[str, str, str], list[Member]] = {}
    for system, question in returned.items():
        for snippet in question.snippets:
            if snippet.end > snippet.begin:
                members.setdefault(snippet_place(snippet), []).append((snippet.begin, snippet.end, snippet.text, system))
    pooled: list[tuple[dict, set[str]]] = []
    for place in sorted(members, key=lambda p: (_natural(p[0]), p[1], p[2])):
        gold_ranges = merged_ranges(covered.get(place, []))
        found = []  # (begin, end, reading, content, systems)
        for number, reading in enumerate(readings(members[place])):
            for hull in _hulls(reading):
                begin, end = hull[0][0], max(m[1] for m in hull)
                if any(b <= begin and end <= e for b, e in gold_ranges):
                    continue
                text, complete = reading_text(begin, end, hull)
                pmid, begin_section, end_section = place
                content: dict = {"pmid": pmid, "beginSection": begin_section, "endSection": end_section,
                                 "offsetInBeginSection": begin, "offsetInEndSection": end, "text": text}
                if not complete:
                    content["text_complete"] = False
                found.append((begin, end, number, content, {m[3] for m in hull}))
        found.sort(key=lambda f: (f[0], f[1], f[3]["text"]))
        first = len(pooled) + 1  # the item number of found[0] (numbered by build_pool in this order)
        for begin, end, number, content, systems in found:
            others = [f"s{first + k}" for k, (b, e, n, _, _) in enumerate(found)
                      if n != number and b < end and begin < e]
            pooled.append(({**content, "conflicts_with": others} if others else content, systems))
    return pooled


def readings(members: Iterable[Member]) -> list[list[Member]]:
    """The members of one place split into readings that never contradict themselves:
    taken in order of (begin, end, text), a member joins the first reading it agrees
    with, else starts one.  A member whose text has exactly the length of its range (its
    characters, as BioASQ's texts are) agrees with a reading of such members when they
    claim the same character at every position both cover; any other member (its text
    cannot be laid on its range) agrees only with members of the very same text.  So one
    run's text is never shown for another's: where runs claim different characters at
    one position, each text is its own reading.  Memory is bounded by the texts."""
    found: list[tuple[dict[int, str] | None, str, list[Member]]] = []
    for member in sorted(members, key=lambda m: (m[0], m[1], m[2], m[3])):
        begin, end, text, _ = member
        exact = len(text) == end - begin
        for chars, shared, group in found:
            if (chars is None and not exact and shared == text) or (
                    chars is not None and exact
                    and all(chars.get(begin + k, c) == c for k, c in enumerate(text))):
                if chars is not None:
                    chars.update((begin + k, c) for k, c in enumerate(text))
                group.append(member)
                break
        else:
            found.append((dict((begin + k, c) for k, c in enumerate(text)) if exact else None, text, [member]))
    return [group for _, _, group in found]


def _hulls(members: list[Member]) -> list[list[Member]]:
    """Members sorted by range and split where a gap separates them (overlapping or touching
    ranges stay together)."""
    groups: list[list[Member]] = []
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


def reading_text(begin: int, end: int, hull: list[Member]) -> tuple[str, bool]:
    """The text of a hull ``[begin, end)`` of one reading: ``(text, True)`` when its
    members' texts are their characters (they agree and, overlapping or touching, cover
    every position), else the members' one shared text and False."""
    if any(len(m[2]) != m[1] - m[0] for m in hull):
        return hull[0][2], False
    chars: dict[int, str] = {}
    for b, _, text, _ in hull:
        chars.update((b + k, c) for k, c in enumerate(text))
    return "".join(chars[c] for c in range(begin, end)), True


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
