"""BioASQ Synergy: one run per round holds, for each question of the round, documents,
snippets and (for questions ready to answer) exact and ideal answers.

A round is scored as two Task B phases over its gold (the experts' feedback of the round,
``docs/synergy.md``):

* documents and snippets as Phase A (:func:`scorer.evaluation.phase_a.phase_a_scores`;
  concepts and triples are not part of Synergy and are ignored).  With the edition 9 rules
  a question without gold documents (snippets) is left out of the documents' (snippets')
  means, which is what a round needs: the feedback judges only some questions;
* exact and ideal answers as Phase B (:func:`scorer.evaluation.phase_b.phase_b_scores`),
  over the gold questions that are ready to answer (``"answerReady"`` not ``false``) and
  have a gold answer (an ``exact_answer``, or a summary question).

``judged``: the gold (feedback) files of earlier rounds.  What they list for a question
(documents; snippets with the same document, sections and offsets) is removed from this
round's run and gold before scoring: only new evidence counts.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from scorer.evaluation.phase_a import phase_a_scores
from scorer.evaluation.phase_b import phase_b_scores
from scorer.evaluation.result import Result
from scorer.formats.jsontext import JsonSource, JsonValue, Loaded, load_input
from scorer.formats.taskb import Question, Snippet, TaskBFile, read_taskb

#: The Phase A categories a Synergy run is scored on.
RETRIEVAL = ("documents", "snippets")
_Judged = dict[str, tuple[set[str], set[Snippet]]]


def evaluate_synergy(gold_loaded: Loaded, run_loaded: Loaded, *, edition: int, flavor: str,
                     judged: Iterable[JsonSource] = (), ideal: bool = True,
                     manual: JsonSource | None = None, system: str | None = None) -> Result:
    """Score a Synergy run of one round (see the module doc); ``judged``: paths (or
    parsed values) of the earlier rounds' gold; ``ideal``, ``manual``, ``system`` as for Phase B."""
    gold = read_taskb(*gold_loaded)
    run = read_taskb(*run_loaded)
    seen = judged_items(judged)
    retrieval = phase_a_scores(_retrieval_only(gold, seen), _retrieval_only(run, seen), edition, flavor)
    answers = phase_b_scores(_ready(gold, gold_loaded[0]), run, edition, flavor, ideal=ideal, manual=manual,
                             system=system)
    measures = {m: v for m, v in retrieval["measures"].items() if m.split(".")[0] in RETRIEVAL}
    measures.update(answers["measures"])
    per_question: dict[str, dict] = {}
    for part in (retrieval, answers):
        for qid, values in part["per_question"].items():
            kept = {m: v for m, v in values.items() if part is answers or m.split(".")[0] in RETRIEVAL}
            if kept:
                per_question.setdefault(qid, {}).update(kept)
    counts = {c: n for c, n in retrieval["counts"].items() if c in RETRIEVAL} | answers["counts"]
    return Result(task="synergy", edition=edition, flavor=flavor, measures=measures, per_question=per_question,
                  counts=counts, warnings=retrieval["warnings"] + answers["warnings"])


def judged_items(judged: Iterable[JsonSource]) -> _Judged:
    """Question id -> (documents, snippets) listed by the earlier rounds' gold files."""
    seen: _Judged = {}
    for source in judged:
        for q in read_taskb(*load_input(source, name="judged")).questions:
            if q.id is not None:
                documents, snippets = seen.setdefault(q.id, (set(), set()))
                documents.update(q.documents)
                snippets.update(_identity(s) for s in q.snippets)
    return seen


def _identity(snippet: Snippet) -> Snippet:
    """A snippet without its text: the same place is the same snippet."""
    return snippet._replace(text="")


def _retrieval_only(file: TaskBFile, seen: _Judged) -> TaskBFile:
    """The questions with their documents and snippets only, less what earlier rounds judged."""
    def strip(q: Question) -> Question:
        documents, snippets = seen.get(q.id or "", (set(), set()))
        return replace(q, concepts=[], triples=[], documents=[d for d in q.documents if d not in documents],
                       snippets=[s for s in q.snippets if _identity(s) not in snippets])
    return TaskBFile(file.name, [strip(q) for q in file.questions], file.doc)


def _ready(gold: TaskBFile, value: JsonValue) -> TaskBFile:
    """The gold questions scored on answers: ready to answer (``"answerReady"`` is not
    false in the gold file) with a gold answer (an exact answer, or a summary question)."""
    raw = value.get("questions") if isinstance(value, dict) else None

    def ready(q: Question) -> bool:
        member = raw[q.index] if isinstance(raw, list) and q.index < len(raw) else None
        flag = member.get("answerReady", True) if isinstance(member, dict) else True
        return flag is not False and (q.has_exact_answer or q.type == "summary")
    return TaskBFile(gold.name, [q for q in gold.questions if ready(q)], gold.doc)
