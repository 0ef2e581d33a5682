"""BioASQ's own question files (test sets and golden files of a batch), as
``import-bioasq`` reads them: their shape, the test sets a golden file implies and how the
files of one batch must agree.

BioASQ hands participants a test set per phase (Phase A: each question's ``id``, ``type``
and ``body``; Phase B: plus the gold ``documents`` and ``snippets``; a Synergy round: plus
``answerReady``) and publishes the golden file after the batch.  A golden file may lack a
few questions of the test sets (BioASQ drops questions it could not settle after the
challenge; 11b batch 1 dropped 2 of 75) and, being revised after the challenge, its
documents and snippets may differ from those of the Phase B test set (see
``docs/organizers.md``, "Real BioASQ files").  Pure functions over parsed JSON; reading
the files is the caller's.
"""
from __future__ import annotations

from scorer.core.errors import Problem
from scorer.formats.jsontext import JsonValue

#: How many example ids a message about missing questions names.
EXAMPLES = 3


def question_list_problems(value: JsonValue) -> list[Problem]:
    """The problems of a BioASQ question file's outline: an object whose ``questions`` is a
    list of objects, each with a non-empty string ``id`` seen once (pointers set, files not)."""
    fix = 'a BioASQ question file is {"questions": [{"id": ..., "type": ..., "body": ...}, ...]}'
    if not isinstance(value, dict) or not isinstance(value.get("questions"), list):
        return [Problem(code="not-a-question-file", pointer="", message="not an object with a list \"questions\"",
                        fix=fix)]
    problems, seen = [], set()
    for i, question in enumerate(value["questions"]):
        qid = question.get("id") if isinstance(question, dict) else None
        if not isinstance(qid, str) or not qid:
            problems.append(Problem(code="question-without-id", pointer=f"/questions/{i}",
                                    message="a question without a string id", fix=fix))
        elif qid in seen:
            problems.append(Problem(code="duplicate-question", pointer=f"/questions/{i}/id", question_id=qid,
                                    message=f"question {qid} appears twice", fix="keep one of them"))
        seen.add(qid)
    return problems


def question_ids(value: JsonValue) -> list[str]:
    """The ids of a question file whose outline has no problems, in order."""
    return [q["id"] for q in value["questions"]]


def derive_testset(golden: JsonValue, fields: tuple[str, ...]) -> dict:
    """The test set a golden file implies: each question with only ``fields`` (those it has),
    in the golden file's order and member order of ``fields``."""
    return {"questions": [{f: q[f] for f in fields if f in q} for q in golden["questions"]]}


def golden_vs_testset(golden: JsonValue, testset: JsonValue, testset_name: str) -> list[Problem]:
    """How a golden file and a test set of its batch disagree on their questions.

    Golden questions missing from the test set are one error, located at the first of them
    in the golden file: participants never saw them, so the files are of different batches.
    Test set questions missing from the golden file are one warning on the test set
    (BioASQ drops questions after the challenge; runs' answers to them are not scored)."""
    in_testset, golden_ids = set(question_ids(testset)), question_ids(golden)
    unseen = [(i, qid) for i, qid in enumerate(golden_ids) if qid not in in_testset]
    if unseen:
        first, qid = unseen[0]
        examples = ", ".join(q for _, q in unseen[:EXAMPLES])
        return [Problem(code="not-in-testset", pointer=f"/questions/{first}/id", question_id=qid,
                        message=f"{len(unseen)} of the golden file's {len(golden_ids)} "
                                f"questions are not in the test set {testset_name} (e.g. {examples})",
                        fix="give the golden file and the test sets of the same batch")]
    in_golden = set(golden_ids)
    dropped = [qid for qid in question_ids(testset) if qid not in in_golden]
    if not dropped:
        return []
    return [Problem(code="dropped-questions", severity="warning", file=testset_name,
                    message=f"{len(dropped)} question(s) of this test set are not in the golden file "
                            f"(e.g. {', '.join(dropped[:EXAMPLES])}): runs' answers to them are not scored",
                    fix="nothing to do if BioASQ dropped them after the challenge; else check the golden file")]


def testsets_disagree(first: JsonValue, second: JsonValue, first_name: str, second_name: str) -> list[Problem]:
    """An error when two test sets of one batch (Phase A and Phase B) list different questions."""
    a, b = question_ids(first), question_ids(second)
    if set(a) == set(b):
        return []
    only = sorted(set(a) ^ set(b))
    return [Problem(code="testsets-differ", file=second_name,
                    message=f"the test sets {first_name} and {second_name} list different questions "
                            f"({len(only)} in one only, e.g. {', '.join(only[:EXAMPLES])})",
                    fix="give the test sets of the same batch")]
