"""Task B Phase B: exact answers (yes/no, factoid, list), c@1, and ideal answers.

``official`` reproduces ``EvaluatorTask1b -phaseB`` (section 4 of
``docs/official-evaluator.md``), raising a located :class:`ScorerError` where the tool
aborts; ``reference`` follows the published definitions and never aborts on a run's answer.
Ideal answers (ROUGE-2/SU4 as BioASQ runs ROUGE-1.5.5, plain and adapted ROUGE-L / BLEU-4,
expert manual scores) are the same in both flavors.  ``docs/measures-phaseb.md`` lists
every measure and every difference between the flavors.
"""
from __future__ import annotations

from collections.abc import Sequence

from scorer.core.errors import Problem, ScorerError, json_pointer, listing_warnings, some_of
from scorer.evaluation.kernels import Bound, bound
from scorer.evaluation.phase_a import _placed, _unique_ids
from scorer.evaluation.result import Result, Scores, ScoresAndWarnings
from scorer.formats import answers as ans
from scorer.formats.jsontext import JsonSource, JsonValue, Loaded, load_input
from scorer.formats.taskb import Question, TaskBFile, read_taskb
from scorer.measures import abstention, registry
from scorer.measures.retrieval import NAN, mean
from scorer.schemas import schema_fix, schema_problems

#: The official tool's ``-verbose`` labels, in its output order, and our names (from the measure registry).
OFFICIAL_LABELS = registry.official_labels("phaseB")
YESNO_MEASURES = ("yesno.accuracy", "yesno.f1_yes", "yesno.f1_no", "yesno.macro_f1")
FACTOID_MEASURES = ("factoid.strict_accuracy", "factoid.lenient_accuracy", "factoid.mrr")
LIST_MEASURES = ("list.precision", "list.recall", "list.f1")
EXACT_MEASURES = YESNO_MEASURES + FACTOID_MEASURES + LIST_MEASURES + ("yesno.c_at_1", "factoid.c_at_1")
ROUGE_MEASURES = ("ideal.rouge2.recall", "ideal.rouge2.precision", "ideal.rouge2.f1",
                  "ideal.rougesu4.recall", "ideal.rougesu4.precision", "ideal.rougesu4.f1")
ADAPTED_MEASURES = ("ideal.rougel", "ideal.rougel_adapted", "ideal.bleu4", "ideal.bleu4_adapted")
BLEU_MEASURES = ADAPTED_MEASURES[2:]
MANUAL_CRITERIA = ("recall", "precision", "repetition", "readability")
MANUAL_SCHEMA = "taskb-manual-scores.schema.json"


def evaluate_phase_b(gold_loaded: Loaded, run_loaded: Loaded, *, edition: int, flavor: str, ideal: bool = True,
                     manual: JsonSource | None = None, system: str | None = None) -> Result:
    """Score a Phase B run.

    ``ideal=False`` skips the ideal-answer text metrics (exact answers only, fast);
    ``manual`` (a path or parsed object, see :func:`manual_measures`) and ``system`` (its
    system id; optional when the file holds one system) add ``ideal.manual.*``.
    """
    gold = read_taskb(*gold_loaded)
    run = read_taskb(*run_loaded)
    return Result(task="phaseB", edition=edition, flavor=flavor,
                  **phase_b_scores(gold, run, edition, flavor, ideal=ideal, manual=manual, system=system))


def phase_b_scores(gold: TaskBFile, run: TaskBFile, edition: int, flavor: str, *, ideal: bool = True,
                   manual: JsonSource | None = None, system: str | None = None) -> dict:
    """The measures, per-question values, counts and warnings of read files (the fields of a :class:`Result`)."""
    if flavor == "official":
        measures, per_question, counts = official_exact(gold, run, edition)
        warnings: list[Problem] = []
    else:
        measures, per_question, counts, warnings = reference_exact(gold, run, edition)
    if ideal:
        measures.update(ideal_measures(gold, run, per_question, counts, flavor=flavor, edition=edition))
    if manual is not None:
        scores, counts["ideal.manual"], manual_warnings = manual_measures(manual, system, gold, flavor=flavor,
                                                                          edition=edition)
        measures.update(scores)
        warnings += manual_warnings
    return {"measures": measures, "per_question": per_question, "counts": counts, "warnings": warnings}


# --- official ------------------------------------------------------------------------

def official_answers(file: TaskBFile, edition: int, *, gold: bool) -> tuple[dict, list[Problem]]:
    """Question index -> its :class:`~scorer.formats.answers.OfficialAnswer` (None when
    absent), and the located problems the official reader aborts on (it reads every question)."""
    read: dict[int, ans.OfficialAnswer | None] = {}
    problems: list[Problem] = []
    for q in file.questions:
        if not q.has_exact_answer:
            read[q.index] = None
            continue
        answer, problem = ans.official_answer(q.exact_answer, edition=edition, gold=gold)
        read[q.index] = answer
        if problem and q.type == ans.YESNO and type(q.exact_answer) is list:
            problem = ans.yesno_list_problem(q.exact_answer)
        if problem:
            problems.append(Problem(code=problem.code, message=problem.message, fix=problem.fix,
                                    file=file.name, pointer=f"{q.pointer}/exact_answer{problem.pointer}",
                                    question_id=q.id))
    return read, problems


def _abort(file: TaskBFile, q: Question, code: str, message: str, fix: str, member: str = "") -> Problem:
    return Problem(code=code, message=message, fix=fix, file=file.name, pointer=q.pointer + member,
                   question_id=q.id)


class _ExactTally:
    """The exact answers scored in a batch, per question type, and their per-question values.

    ``yesno``: (gold label, correct or given label) rows for the yes/no F1s; ``factoid``
    and ``lists``: score rows; ``yesno_outcomes``/``factoid_outcomes``: c@1 outcomes.
    ``kernels``: the calls of the measure registry that compute them in the flavor and
    edition (:func:`scorer.evaluation.kernels.bound`): ``factoid`` and ``list`` of one
    question's answers, the others of the whole batch.
    """

    def __init__(self, flavor: str, edition: int) -> None:
        self.kernels: dict[str, Bound] = {
            "yesno": bound(YESNO_MEASURES, flavor, edition), "factoid": bound(FACTOID_MEASURES, flavor, edition),
            "list": bound(LIST_MEASURES, flavor, edition),
            **{f"{t}.c_at_1": bound((f"{t}.c_at_1",), flavor, edition) for t in ("yesno", "factoid")}}
        self._factoid, self._list = self.kernels["factoid"].scores, self.kernels["list"].scores  # per question
        self.yesno: list[tuple] = []
        self.factoid: list[tuple[float, ...]] = []
        self.lists: list[tuple[float, ...]] = []
        self.yesno_outcomes: list[str] = []
        self.factoid_outcomes: list[str] = []
        self.per_question: dict[str, dict[str, float]] = {}

    def add_yesno(self, qid: str, row: tuple, unanswered: bool, correct: bool) -> None:
        """One yes/no question: accuracy 1 or 0; an unanswered question is a c@1 abstention."""
        self.yesno.append(row)
        self.yesno_outcomes.append(_outcome(unanswered, correct))
        self.per_question.setdefault(qid, {})["yesno.accuracy"] = 1.0 if correct else 0.0

    def add_factoid(self, qid: str, gold: Sequence, answers: Sequence, unanswered: bool) -> None:
        """One factoid question: (strict, lenient, RR) of its ``answers`` against its
        ``gold`` (as the flavor's kernel reads them); strict 1 is a correct c@1 answer."""
        scores = self._factoid(gold, answers)
        self.factoid.append(scores)
        self.factoid_outcomes.append(_outcome(unanswered, scores[0] == 1.0))
        self.per_question.setdefault(qid, {}).update(zip(FACTOID_MEASURES, scores))

    def add_list(self, qid: str, gold: list | None, answers: Sequence | None) -> None:
        """One list question: (P, R, F1) of its ``answers`` against its ``gold``; 0, 0, 0
        without an answer (None)."""
        scores = self._list(gold, answers) if answers is not None else (0.0, 0.0, 0.0)
        self.lists.append(scores)
        self.per_question.setdefault(qid, {}).update(zip(LIST_MEASURES, scores))

    def measures(self, empty: float) -> dict[str, float]:
        """The exact-answer measures in ``EXACT_MEASURES`` order: the yes/no measures of
        the batch (accuracy, F1 yes, F1 no, macro F1); factoid and list means, ``empty``
        when no question of the type was scored; c@1 of each type."""
        kernels = self.kernels
        measures = kernels["yesno"].measures(kernels["yesno"](self.yesno))
        measures.update(_column_means(FACTOID_MEASURES, self.factoid, empty=empty))
        measures.update(_column_means(LIST_MEASURES, self.lists, empty=empty))
        measures["yesno.c_at_1"] = kernels["yesno.c_at_1"](self.yesno_outcomes)
        measures["factoid.c_at_1"] = kernels["factoid.c_at_1"](self.factoid_outcomes)
        return {name: measures[name] for name in EXACT_MEASURES}

    def counts(self) -> dict[str, int]:
        """How many questions of each type were scored."""
        return {"yesno": len(self.yesno), "factoid": len(self.factoid), "list": len(self.lists)}


class _OfficialBatch:
    """One official Phase B evaluation: the files, the edition, what was scored, and the
    problems the tool would abort on (gold file, run file), in the order it meets them."""

    def __init__(self, gold: TaskBFile, run: TaskBFile, edition: int) -> None:
        self.gold, self.run, self.edition = gold, run, edition
        self.gold_read, self.gold_problems = official_answers(gold, edition, gold=True)
        self.run_read, self.run_problems = official_answers(run, edition, gold=False)
        self.tally = _ExactTally("official", edition)


def official_exact(gold: TaskBFile, run: TaskBFile, edition: int) -> Scores:
    """The 10 numbers of ``EvaluatorTask1b -phaseB -e edition``, c@1, per-question values.

    Gold questions are taken in file order and matched to the first run question with the
    same id.  Edition 9 skips gold questions without a run question or without a gold
    answer (absent, ``[]``); editions 2-8 abort on a missing yes/no/factoid/list question.
    Summary and unknown types are never scored.  Raises :class:`ScorerError` with every
    place the official tool would abort on, each with its fix.
    """
    batch = _OfficialBatch(gold, run, edition)
    run_index = run.first_by_id()
    for g in gold.questions:
        r = run_index.get(g.id) if g.id is not None else None
        ga = batch.gold_read[g.index]
        if _skipped_by_edition_9(edition, ga, r) or g.type not in ans.EXACT_TYPES:
            continue
        if g.id is None or r is None:
            _abort_unmatched(batch, g)
            continue
        _OFFICIAL_BY_TYPE[g.type](batch, g.id, g, r, ga, batch.run_read[r.index])
    if batch.gold_problems or batch.run_problems:
        raise ScorerError(_placed(gold, batch.gold_problems) + _placed(run, batch.run_problems))
    tally = batch.tally
    return tally.measures(empty=0.0), tally.per_question, tally.counts()


def _skipped_by_edition_9(edition: int, ga: ans.OfficialAnswer | None, r: Question | None) -> bool:
    """Edition 9's rule (section 4.2): skip a gold question without a run question, without a
    gold exact answer, or whose gold answer is an array without entries."""
    return edition == 9 and (ga is None or ga.is_empty or r is None)


def _abort_unmatched(batch: _OfficialBatch, g: Question) -> None:
    """Record the abort on a gold yes/no, factoid or list question that cannot be paired:
    it has no id, or (editions 2-8) no run question."""
    if g.id is None:
        batch.gold_problems.append(_abort(
            batch.gold, g, "missing-id", f"this gold {g.type} question has no id; the "
            f"official evaluator (edition {batch.edition}) aborts on it", 'add "id": "<the question id>"'))
        return
    batch.run_problems.append(Problem(
        code="missing-question", file=batch.run.name, pointer="/questions", question_id=g.id,
        message=f"the {g.type} question {g.id} of the gold file is not in the run; the official "
                f"evaluator (edition {batch.edition}) aborts on it",
        fix=f'add {{"id": "{g.id}", "type": "{g.type}"}} to the run (no exact_answer = unanswered), '
            "or score with --edition 9, which skips it"))


def _official_yesno(batch: _OfficialBatch, qid: str, g: Question, r: Question, ga: ans.OfficialAnswer | None,
                    ra: ans.OfficialAnswer | None) -> None:
    """Section 4.3: correct iff the normalised labels are equal; an array answer in the run
    aborts, and so does a gold question without a string answer (not scored then).  An
    absent or blank answer is an abstention for c@1."""
    if ra is not None and ra.label is None:
        assert isinstance(r.exact_answer, list), "official_answer reads a label from every string answer"
        problem = ans.yesno_list_problem(r.exact_answer)
        batch.run_problems.append(_abort(batch.run, r, problem.code, problem.message, problem.fix, "/exact_answer"))
    if ga is None or ga.label is None:
        batch.gold_problems.append(_abort(batch.gold, g, "gold-yesno-answer", "this gold yes/no question has no "
                                          "string exact answer; the official evaluator aborts on it",
                                          'give the gold question "exact_answer": "yes" or "no"'))
        return
    correct = ra is not None and ra.label == ga.label
    batch.tally.add_yesno(qid, (ga.label, correct), _unanswered_yesno(r), correct)


def _official_factoid(batch: _OfficialBatch, qid: str, g: Question, r: Question, ga: ans.OfficialAnswer | None,
                      ra: ans.OfficialAnswer | None) -> None:
    """Section 4.4: (strict, lenient, RR) over the entries (editions 3-9) or the flat strings
    (edition 2, where any run answer counts as given); an answered question whose gold has
    no exact answer aborts.  No entry and no string is an abstention for c@1."""
    gold: Sequence
    answers: Sequence
    if batch.edition == 2:
        answered = ra is not None
        gold, answers = (ga.flat if ga else []), (ra.flat if ra else [])
    else:
        answered = ra is not None and bool(ra.entries)
        gold, answers = (ga.entries if ga else []), (ra.entries if ra is not None and answered else [])
    if answered and ga is None:
        batch.gold_problems.append(_abort(batch.gold, g, "gold-answer-missing", "this gold factoid question has "
                                          "no exact answer, but the run answers it; the official evaluator aborts",
                                          "add the gold exact_answer, or drop the run's answer"))
        return
    batch.tally.add_factoid(qid, gold, answers, not (ra is not None and (ra.entries or ra.flat)))


def _official_list(batch: _OfficialBatch, qid: str, g: Question, r: Question, ga: ans.OfficialAnswer | None,
                   ra: ans.OfficialAnswer | None) -> None:
    """Section 4.5: (P, R, F1) by consuming matches; 0, 0, 0 without run entries; an
    answered question whose gold has no exact answer aborts.  The run's entries are shared
    by every gold question with this id (the tool's in-place removals); the gold's are copied."""
    answered = ra is not None and bool(ra.entries)
    if answered and ga is None:
        batch.gold_problems.append(_abort(batch.gold, g, "gold-answer-missing", "this gold list question has no "
                                          "exact answer, but the run answers it; the official evaluator aborts",
                                          "add the gold exact_answer, or drop the run's answer"))
        return
    if answered and ga is not None and ra is not None:
        batch.tally.add_list(qid, list(ga.entries), ra.entries)
    else:
        batch.tally.add_list(qid, None, None)


_OFFICIAL_BY_TYPE = {ans.YESNO: _official_yesno, ans.FACTOID: _official_factoid, ans.LIST: _official_list}


def _unanswered_yesno(r: Question) -> bool:
    """An absent exact answer or a blank string: an abstention for c@1."""
    return not r.has_exact_answer or (type(r.exact_answer) is str and not r.exact_answer.strip())


# --- reference -----------------------------------------------------------------------

def reference_exact(gold: TaskBFile, run: TaskBFile, edition: int) -> ScoresAndWarnings:
    """Published definitions: every gold question with a usable gold answer is scored
    (``edition`` changes nothing: the reference kernels are those of every edition).

    A question missing from the run, or without an exact answer, is unanswered (wrong,
    and an abstention for c@1).  Gold questions whose answer cannot be read (a yes/no
    label other than yes/no, no factoid/list entity) are left out with a warning.
    """
    gold_index = _unique_ids(gold, "gold")
    run_index = _unique_ids(run, "run")
    tally = _ExactTally("reference", edition)
    unusable = []
    for qid, g in gold_index.items():
        if g.type not in ans.EXACT_TYPES:
            continue
        r = run_index.get(qid)
        given = r.exact_answer if r is not None and r.has_exact_answer else None
        if not _REFERENCE_BY_TYPE[g.type](tally, qid, g, given):
            unusable.append(qid)
    missing = [qid for qid in tally.per_question if qid not in run_index]
    warnings = listing_warnings(
        run.name, ("unanswered-questions", missing, "gold question(s) are not in the run and count as unanswered",
                   "answer every question of the test set"))
    warnings += listing_warnings(
        gold.name, ("unusable-gold-answer", unusable, "gold question(s) have no usable exact answer and are not scored",
                    'give yes/no questions "yes" or "no" and factoid/list questions [["entity", "synonym"], ...]'))
    measures = tally.measures(empty=NAN)
    return measures, tally.per_question, tally.counts(), warnings


def _reference_yesno(tally: _ExactTally, qid: str, g: Question, given: JsonValue) -> bool:
    """A yes/no question: correct iff the given label (yes/no after normalisation) equals the
    gold one; no label given is an abstention.  False (not scored) when the gold label is
    not yes or no."""
    gold_label = ans.reference_label(g.exact_answer) if g.has_exact_answer else None
    if gold_label not in ("yes", "no"):
        return False
    answer = ans.reference_label(given)
    tally.add_yesno(qid, (gold_label, answer), answer is None, answer == gold_label)
    return True


def _reference_gold_entries(g: Question) -> list:
    """The gold entities of a factoid or list question ([] when it has no answer)."""
    return ans.reference_entries(g.exact_answer) if g.has_exact_answer else []


def _reference_factoid(tally: _ExactTally, qid: str, g: Question, given: JsonValue) -> bool:
    """A factoid question: the reference kernel of the given entities; none given
    is an abstention.  False (not scored) when the gold has no entity."""
    gold_entries = _reference_gold_entries(g)
    if not gold_entries:
        return False
    entries = ans.reference_entries(given)
    tally.add_factoid(qid, gold_entries, entries, not entries)
    return True


def _reference_list(tally: _ExactTally, qid: str, g: Question, given: JsonValue) -> bool:
    """A list question: the reference kernel of the given entities.  False (not
    scored) when the gold has no entity."""
    gold_entries = _reference_gold_entries(g)
    if not gold_entries:
        return False
    tally.add_list(qid, gold_entries, ans.reference_entries(given))
    return True


_REFERENCE_BY_TYPE = {ans.YESNO: _reference_yesno, ans.FACTOID: _reference_factoid, ans.LIST: _reference_list}


def _column_means(names: tuple[str, ...], rows: list[tuple[float, ...]], empty: float) -> dict[str, float]:
    """name i -> mean of the i-th values of ``rows``; ``empty`` when there is no row."""
    return {name: sum(row[i] for row in rows) / len(rows) if rows else empty for i, name in enumerate(names)}


def _outcome(unanswered: bool, correct: bool) -> str:
    """The c@1 outcome of one question; an unanswered question is never counted correct."""
    if unanswered:
        return abstention.UNANSWERED
    return abstention.CORRECT if correct else abstention.WRONG


# --- ideal answers --------------------------------------------------------------------

def ideal_measures(gold: TaskBFile, run: TaskBFile, per_question: dict, counts: dict, *, flavor: str = "official",
                   edition: int = 9) -> dict[str, float]:
    """ROUGE-2/SU4, plain and adapted ROUGE-L and BLEU-4 of the run's ideal answers.

    Scored: every gold question (first of each id) with at least one gold ideal answer;
    a question the run leaves without an ideal answer scores 0.  Nothing is returned when
    the gold has no ideal answer or the run has none.  The candidate's yes/no label is the
    run's exact answer and each reference's is the gold one; the entities of a factoid or
    list question are the gold exact answers with their synonyms (see ``adapted``).
    ROUGE values are ROUGE-1.5.5's per-question numbers; the batch value is their
    arithmetic mean.  BLEU-4 is corpus-level, the others are means over questions.  Each
    is computed by its kernel in the measure registry (the same in every flavor and edition).
    """
    run_index = run.first_by_id()
    items = _ideal_items(gold, run_index)
    if not items or all(candidate is None for *_, candidate in items):
        return {}
    candidates = [candidate or "" for *_, candidate in items]
    references_list = [references for _, _, references, _ in items]
    bonus = [_bonus(g, run_index.get(qid), len(references)) for qid, g, references, _ in items]
    values = _ideal_per_question([qid for qid, *_ in items], candidates, references_list, bonus, per_question,
                                 flavor, edition)
    measures = {name: mean(column) for name, column in values.items()}
    measures.update(_ideal_bleu4(candidates, references_list, bonus, bound(BLEU_MEASURES, flavor, edition)))
    counts["ideal"] = len(items)
    return {name: measures[name] for name in (*ROUGE_MEASURES, *ADAPTED_MEASURES)}


def _ideal_items(gold: TaskBFile, run_index: dict[str, Question]) -> list[tuple]:
    """(id, gold question, gold ideal texts, run ideal text or None) of every gold question
    (first of each id) with at least one gold ideal answer, in gold order; None when the
    run has no question with the id."""
    items = []
    for qid, g in gold.first_by_id().items():
        references = ans.gold_ideal_texts(g.ideal_answer)
        if references:
            r = run_index.get(qid)
            items.append((qid, g, references, ans.ideal_text(r.ideal_answer) if r is not None else None))
    return items


def _ideal_per_question(qids: list[str], candidates: list[str], references_list: list[list[str]],
                        bonus: list[tuple], per_question: dict, flavor: str, edition: int) -> dict[str, list[float]]:
    """Per-question ROUGE-2/SU4 (ROUGE-1.5.5), ROUGE-L and adapted ROUGE-L of each candidate
    against its references, added to ``per_question``; returns each measure's column."""
    values: dict[str, list[float]] = {name: [] for name in (*ROUGE_MEASURES, "ideal.rougel", "ideal.rougel_adapted")}
    rouge = bound(ROUGE_MEASURES, flavor, edition)
    rouge_l = bound(("ideal.rougel",), flavor, edition)
    rouge_l_adapted = bound(("ideal.rougel_adapted",), flavor, edition)
    scores = rouge(list(zip(candidates, references_list)))
    for qid, rouge_scores, candidate, references, (label, ref_labels, ents) in zip(
            qids, scores, candidates, references_list, bonus):
        entry = rouge.measures(rouge_scores)
        entry["ideal.rougel"] = rouge_l.call(candidate, references)
        entry["ideal.rougel_adapted"] = rouge_l_adapted.call(candidate, references, candidate_label=label,
                                                        reference_labels=ref_labels, entities=ents)
        per_question.setdefault(qid, {}).update(entry)
        for name, value in entry.items():
            values[name].append(value)
    return values


def _ideal_bleu4(candidates: list[str], references_list: list[list[str]], bonus: list[tuple],
                 bleu4: Bound) -> dict[str, float]:
    """Corpus-level plain and adapted BLEU-4 of the candidates (``bonus``: each question's
    candidate label, reference labels and entities), both from the one call ``bleu4``."""
    labels = [label for label, _, _ in bonus]
    reference_labels = [ref_labels for _, ref_labels, _ in bonus]
    entities = [ents for _, _, ents in bonus]
    return bleu4.measures(bleu4(candidates, references_list, candidate_labels=labels,
                                reference_labels_list=reference_labels, entities_list=entities))


def _bonus(g: Question, r: Question | None, n_references: int) -> tuple[str | None, list[str] | None, list[str] | None]:
    """(candidate label, reference labels, entities) of the adapted metrics for one question."""
    if g.type == ans.YESNO:
        gold_label = ans.reference_label(g.exact_answer) if g.has_exact_answer else None
        if gold_label in ("yes", "no"):
            given = ans.reference_label(r.exact_answer) if r is not None and r.has_exact_answer else None
            return given or "", [gold_label] * n_references, None
    elif g.type in (ans.FACTOID, ans.LIST) and g.has_exact_answer:
        strings = sorted(set().union(*ans.reference_entries(g.exact_answer)))
        return None, None, strings or None
    return None, None, None


# --- expert manual scores -----------------------------------------------------------------

def manual_measures(manual: JsonSource, system: str | None, gold: TaskBFile, *, flavor: str = "official",
                    edition: int = 9) -> tuple[dict[str, float], int, list[Problem]]:
    """``ideal.manual.*``: the mean expert score of ``system`` per criterion.

    ``manual``: a path or parsed object in the format of ``taskb-manual-scores.schema.json``
    (``{"systems": {SYSTEM: {QUESTION ID: {"recall": 1-5, "precision": ...,
    "repetition": ..., "readability": ...}}}}``).  The means are over the system's scored
    questions that are in the gold file.  Returns (measures, number of questions, warnings).
    """
    value, doc = _manual_scores(manual)
    systems = value["systems"]
    system = _chosen_system(systems, system, doc.name)
    gold_ids = {q.id for q in gold.questions}
    scored = {qid: s for qid, s in systems[system].items() if qid in gold_ids}
    unknown = sorted(set(systems[system]) - gold_ids)
    warnings = []
    if unknown:
        warnings.append(Problem(
            code="unknown-question", severity="warning", file=doc.name, pointer=json_pointer("systems", system),
            message=f"{len(unknown)} manually scored question(s) are not in the gold file and are ignored: "
                    + some_of(unknown), fix="check the question ids against the gold file"))
    measures = {}
    for criterion in MANUAL_CRITERIA:
        kernel = bound((f"ideal.manual.{criterion}",), flavor, edition)
        measures.update(kernel.measures(kernel([s[criterion] for s in scored.values()])))
    return measures, len(scored), warnings


def _manual_scores(manual: JsonSource) -> Loaded:
    """The loaded manual scores and their text; a :class:`ScorerError` with every schema
    violation (located, with the schema's ``x-fix``) when they do not follow the schema."""
    value, doc = load_input(manual, name="manual")
    problems = [doc.place(p) for p in schema_problems(MANUAL_SCHEMA, value, lambda e: Problem(
        code="manual-scores", message=e.message, pointer=json_pointer(*e.path),
        fix=schema_fix(e)))]
    if problems:
        raise ScorerError(problems)
    return value, doc


def _chosen_system(systems: dict, system: str | None, file: str) -> str:
    """``system``, or the only system of the file when none is given; a :class:`ScorerError`
    naming the available systems when it is not in the file or the choice is ambiguous."""
    if system is None and len(systems) == 1:
        system = next(iter(systems))
    if system is None or system not in systems:
        raise ScorerError(Problem(
            code="unknown-system", file=file, pointer="/systems",
            message=f"the manual scores have no system {system!r}" if system else
                    "the manual scores hold several systems and none was chosen",
            fix="choose one of: " + some_of(sorted(systems), 10)))
    return system
