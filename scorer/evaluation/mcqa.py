"""Multiple-choice reading tests (QA4MRE style): gold + run -> c@1 and the QA4MRE numbers.

One definition (``docs/measures-mcqa.md``): there is no official tool to reproduce, so
the flavors ``official`` and ``reference`` give the same numbers; the edition has no
effect.  Measures (formulas in :mod:`scorer.measures.mcqa`):

- ``mcqa.c_at_1`` (ranking measure), ``mcqa.accuracy``, ``mcqa.accuracy_with_candidates``;
- counts ``mcqa.answered_right``, ``mcqa.answered_wrong``, ``mcqa.unanswered_right``,
  ``mcqa.unanswered_wrong``, ``mcqa.unanswered_empty``; ``mcqa.correctly_discarded``;
- reading perspective: ``mcqa.reading.median``, ``.mean``, ``.std`` of the c@1 of each
  reading test (sample standard deviation), and per topic
  ``mcqa.topic.<topic>.c_at_1`` (over the topic's questions) and
  ``mcqa.topic.<topic>.reading.median/mean/std``; each test's
  ``mcqa.reading_test.<test>.c_at_1``;
- ``mcqa.random_baseline``: the expected c@1 of a uniform random guesser that answers
  everything (mean of 1/number of candidates; 0.2 with five candidates).

``per_question`` (every gold question): ``mcqa.correct`` (1 answered right, else 0),
``mcqa.unanswered`` (1/0) and ``mcqa.correct_with_candidates`` (1 if answered right or
unanswered with the right candidate).  A gold question missing from the run is
unanswered with no candidate (warning); unknown questions, repeated answers and answers
that are not candidates are located errors.
"""
from __future__ import annotations

from collections.abc import Iterable

from scorer.evaluation.kernels import Bound, bound
from scorer.evaluation.result import Result, Scores
from scorer.formats.jsontext import Loaded
from scorer.formats.mcqa import McqaGold, McqaRun, read_mcqa_gold, read_mcqa_run
from scorer.measures import mcqa as m
from scorer.measures import registry

#: The run's measures before the per-topic and per-reading-test ones (from the measure registry).
SUMMARY = registry.names("mcqa")
#: The outcome counts (:func:`m.count_outcomes` in the registry) and the measures of those counts.
COUNTS = tuple(f"mcqa.{name}" for name in m.OUTCOMES)
OF_COUNTS = ("mcqa.c_at_1", "mcqa.accuracy", "mcqa.accuracy_with_candidates", "mcqa.correctly_discarded")
READING = tuple(name for name in SUMMARY if name.startswith("mcqa.reading."))


def evaluate_mcqa(gold_loaded: Loaded, run_loaded: Loaded, *, edition: int = 9, flavor: str = "official") -> Result:
    """Score a run; see the module doc.  ``gold_loaded``/``run_loaded`` are
    ``(value, JsonText)`` pairs from :func:`scorer.formats.jsontext.load_input`."""
    gold = read_mcqa_gold(*gold_loaded)
    run_value, run_doc = run_loaded
    run = read_mcqa_run(run_value, run_doc, gold=gold)
    measures, per_question, counts = score_mcqa(gold, run, edition=edition, flavor=flavor)
    warnings = list(gold.warnings) + list(run.warnings)  # n = 0 is one of the gold's warnings
    return Result(task="mcqa", edition=edition, flavor=flavor, measures=measures,
                  per_question=per_question, counts=counts, warnings=warnings)


class _Kernels:
    """The calls of the measure registry that compute the measures (one definition: the
    flavor and edition choose nothing, see the module doc)."""

    def __init__(self, edition: int, flavor: str) -> None:
        self.counts = bound(COUNTS, flavor, edition)
        self.of_counts = [bound((name,), flavor, edition) for name in OF_COUNTS]
        self.reading = bound(READING, flavor, edition)
        self.random_baseline = bound(("mcqa.random_baseline",), flavor, edition)
        self.c_at_1 = bound(("mcqa.c_at_1",), flavor, edition)
        self.outcome = bound(("mcqa.correct",), flavor, edition)  # each question's outcome


def score_mcqa(gold: McqaGold, run: McqaRun, *, edition: int = 9, flavor: str = "official") -> Scores:
    """``(measures, per_question, counts)`` of a run already checked against the gold.

    Measures in this order: the overall rates, outcome counts and correctly discarded
    answers; the reading perspective (c@1 of each reading test summarised) and the random
    baseline; each topic's c@1 and reading summary; each reading test's c@1.  Each is
    computed by its kernel in the measure registry (counts as floats).
    """
    kernels = _Kernels(edition, flavor)
    outcomes, per_question = _outcomes(gold, run, kernels.outcome)
    total = kernels.counts(outcomes.values())
    summary = kernels.counts.measures(total)
    for of_counts in kernels.of_counts:
        summary.update(of_counts.measures(of_counts(total)))
    test_c_at_1 = {test.id: _c_at_1(kernels, outcomes, test.questions) for test in gold.reading_tests}
    summary.update(kernels.reading.measures(kernels.reading(list(test_c_at_1.values()))))
    baseline = kernels.random_baseline
    summary.update(baseline.measures(baseline(len(q.candidates) for q in gold.questions.values())))
    measures = {name: float(summary[name]) if name in COUNTS else summary[name] for name in SUMMARY}
    measures.update(_topic_measures(kernels, gold, outcomes, test_c_at_1))
    for test in gold.reading_tests:
        measures[f"mcqa.reading_test.{test.id}.c_at_1"] = test_c_at_1[test.id]
    counts = {"questions": total.n, "answered": total.answered_right + total.answered_wrong,
              "unanswered": total.unanswered, "reading_tests": len(gold.reading_tests),
              "topics": len(gold.topics), "run_answers": len(run.answers)}
    return measures, per_question, counts


def _outcomes(gold: McqaGold, run: McqaRun, outcome: Bound) -> tuple[dict[str, str], dict[str, dict[str, float]]]:
    """Each gold question's outcome (``outcome``: :func:`m.outcome`; a question missing from the run is
    unanswered with no candidate) and its per-question values: ``mcqa.correct`` (answered
    right), ``mcqa.unanswered``, ``mcqa.correct_with_candidates`` (answered right, or
    unanswered with the right candidate), each 1.0 or 0.0."""
    outcomes: dict[str, str] = {}
    per_question: dict[str, dict[str, float]] = {}
    for qid, question in gold.questions.items():
        answer = run.answers.get(qid)
        result = outcome.call(question.correct, answer.answer if answer else None, answer.candidate if answer else None)
        outcomes[qid] = result
        per_question[qid] = {
            "mcqa.correct": float(result == m.ANSWERED_RIGHT),
            "mcqa.unanswered": float(answer is None or answer.answer is None),
            "mcqa.correct_with_candidates": float(result in (m.ANSWERED_RIGHT, m.UNANSWERED_RIGHT)),
        }
    return outcomes, per_question


def _c_at_1(kernels: _Kernels, outcomes: dict[str, str], questions: Iterable[str]) -> float:
    """``mcqa.c_at_1`` over the outcomes of ``questions``."""
    return kernels.c_at_1.call(kernels.counts.call(outcomes[q] for q in questions))


def _topic_measures(kernels: _Kernels, gold: McqaGold, outcomes: dict[str, str],
                    test_c_at_1: dict[str, float]) -> dict[str, float]:
    """Per topic, in gold order: c@1 over the questions of its reading tests, then the
    reading summary (median, mean, std) of its tests' c@1."""
    measures = {}
    for topic in gold.topics:
        questions = [q for t in gold.reading_tests if t.topic == topic.id for q in t.questions]
        measures[f"mcqa.topic.{topic.id}.c_at_1"] = _c_at_1(kernels, outcomes, questions)
        summary = kernels.reading.measures(kernels.reading.call([test_c_at_1[t] for t in topic.reading_tests]))
        for name, value in summary.items():
            measures[f"mcqa.topic.{topic.id}.{name.removeprefix('mcqa.')}"] = value
    return measures


__all__ = ["SUMMARY", "evaluate_mcqa", "score_mcqa"]
