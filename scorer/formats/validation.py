"""Validation of Task B files: every problem at once, located, each with its fix.

Three layers, all reported together:

1. *variants* that real participants produce (snake_case snippet keys, list-valued
   sections, extra snippet keys such as ``score``, numbers written as strings, bare
   PubMed ids, ``articles`` for ``documents``, ...).  Each fixer returns the fixed
   question and what it changed, so ``validate`` and ``normalize`` share one code path.
2. the JSON Schema of the format (``scorer/schemas``), run on the fixed value, so each
   place is reported once, by the most specific message;
3. checks a schema cannot express: duplicate question ids, snippets ending before they
   begin, and (with a gold file) questions missing from the run or unknown to the gold.
"""
from __future__ import annotations

import copy
import re
import shlex
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import replace
from itertools import chain
from operator import itemgetter

from scorer.core.errors import Bounded, Problem, bounded, excerpt, json_pointer, some_of
from scorer.core.limits import QuestionLimits
from scorer.core.tasks import SCORINGS
from scorer.formats.answers import fix_phase_b_question
from scorer.formats.findings import Finding, QuestionFixer
from scorer.formats.jsontext import JsonFloat, JsonText, JsonValue
from scorer.formats.limits import limit_problems
from scorer.formats.mcqa import validate_mcqa
from scorer.formats.taska import validate_taska
from scorer.formats.taskb import ABSENT, SNIPPET_FIELDS, SNIPPET_KEY_VARIANTS, SNIPPET_KEYS, TaskBFile
from scorer.schemas import SchemaError, schema_fix, schema_problems

#: The document URL form of every BioASQ gold file; the official tool compares strings.
PUBMED_URL = "http://www.ncbi.nlm.nih.gov/pubmed/{}"
_PMID_FORMS = re.compile(
    r"\s*(?:(?:https?://)?(?:www\.)?(?:ncbi\.nlm\.nih\.gov/pubmed|pubmed\.ncbi\.nlm\.nih\.gov)/|pmid:?\s*)?"
    r"(\d+)/?\s*", re.IGNORECASE)
_PUBMED_PREFIX = PUBMED_URL.format("")
_SNIPPET_KEYSET = frozenset(SNIPPET_KEYS)


#: The warnings of forms the official evaluator reads but compares as written, so that
#: every item written so scores 0 (a run of them only: its category scores 0) although
#: ``normalize`` writes the gold's form: code -> the form in words.  A challenge refuses a
#: run with any of them (:mod:`scorer.pr.policy`) rather than publish the zero; a run
#: scored all the same (merged before, or by an organizer) has each category they zero
#: marked (:func:`form_zero_note`, :mod:`scorer.store.runs`).
SCORE_CHANGING_FORMS = {"document-form": "another URL form"}
_CATEGORY_AT = re.compile(r"^/questions/\d+/([^/]+)")


def score_changing_forms(problems: Iterable[Problem]) -> list[Problem]:
    """The warnings among ``problems`` of a form of :data:`SCORE_CHANGING_FORMS` (summaries
    of them included)."""
    return [p for p in problems if p.severity == "warning" and p.code in SCORE_CHANGING_FORMS]


def form_categories(problems: Iterable[Problem]) -> dict[str, str]:
    """Category (``documents``, ``snippets``: the member of a question a warning's JSON
    pointer is in) -> the form in words, for the :func:`score_changing_forms` of
    ``problems``; a snippet whose ``document`` is in another form counts for snippets."""
    found: dict[str, str] = {}
    for problem in score_changing_forms(problems):
        where = _CATEGORY_AT.match(problem.pointer or "")
        if where:
            found.setdefault(where.group(1), SCORE_CHANGING_FORMS[problem.code])
    return found


def normalize_in_place(path: str) -> str:
    """``python -m scorer normalize PATH PATH``: the command that fixes the run at
    ``path`` in place (in a challenge repository its path gives its task)."""
    quoted = shlex.quote(path)
    return f"python -m scorer normalize {quoted} {quoted}"


def form_zero_note(category: str, form: str, path: str) -> str:
    """What a score of 0 in ``category`` owed to items in another ``form`` says, wherever
    it is shown (run result, board notes and cells, run page, downloads)."""
    return f"{category} in {form}; {normalize_in_place(path)} fixes it"


def form_zero_problems(zeroed: dict[str, str], path: str) -> list[Problem]:
    """The ``form-zero`` warning of each category of ``zeroed`` (category -> form in words,
    :func:`form_zeroed`): the sentence a board, a run page and ``score`` show."""
    return [Problem(code="form-zero", severity="warning", file=path,
                    message=f"{category}: 0 only because the items are written in {form} "
                            "(the official evaluator compares them as written)",
                    fix=f"run: {normalize_in_place(path)} (then commit the fixed file)")
            for category, form in zeroed.items()]


#: A score below this shows as 0.0000 (the site shows four decimals).
SHOWN_ZERO = 0.00005


def form_zeroed(measures: dict, problems: list[Problem], rescored: Callable[[], dict]) -> dict[str, str]:
    """Category -> form in words, for each category that scores 0 only because of a form
    ``normalize`` fixes (:func:`form_categories` of the run's ``problems``, the detection
    the pull-request check refuses such a run by): every measure of the category shows as
    0.0000 in ``measures`` (below :data:`SHOWN_ZERO`: GMAP's epsilon keeps it just above
    0), and one does not in ``rescored()`` (the measures of the run as ``normalize``
    writes it, under the same rules; called only then, so a category that would score 0
    anyway is not marked).  {} for a run without such forms."""
    scored = {m.partition(".")[0] for m in measures}
    zero = {c: form for c, form in form_categories(problems).items() if c in scored and not _any_positive(measures, c)}
    if not zero:
        return {}
    fixed = rescored()
    return {c: form for c, form in zero.items() if _any_positive(fixed, c)}


def _any_positive(measures: dict, category: str) -> bool:
    """Whether a measure of ``category`` (``<category>.<statistic>``) is a number that does
    not show as 0.0000 (at least :data:`SHOWN_ZERO`)."""
    return any(type(v) in (int, float) and v >= SHOWN_ZERO for m, v in measures.items()
               if m.partition(".")[0] == category)


def _is_canonical_document(value: JsonValue) -> bool:
    """True for a string already in the gold's URL form (ASCII digits after the prefix),
    which :func:`_canonical_document` returns unchanged and unreported."""
    if type(value) is not str or not value.startswith(_PUBMED_PREFIX):
        return False
    digits = value[len(_PUBMED_PREFIX):]
    return digits.isascii() and digits.isdigit()


#: No gold items known (see :func:`gold_items`).
_NOTHING_WRITTEN: frozenset[str] = frozenset()


def gold_items(gold_value: JsonValue) -> dict[str, frozenset[str]]:
    """Question id -> the documents a Task B gold file writes for it, exactly as written
    (its ``documents`` and its snippets' ``document``).  The official evaluator compares
    documents as strings, so a run's document equal to one of these matches it as it is,
    whatever its URL form: the fixers leave it as written (BioASQ's own golden files mix
    forms, :func:`gold_document_forms`).  {} for a value that is no Task B file."""
    out: dict[str, frozenset[str]] = {}
    questions = gold_value.get("questions") if isinstance(gold_value, dict) else None
    for q in questions if isinstance(questions, list) else ():
        if not isinstance(q, dict) or not isinstance(q.get("id"), str):
            continue
        documents, snippets = q.get("documents"), q.get("snippets")
        found = [d for d in (documents if isinstance(documents, list) else ()) if isinstance(d, str)]
        found += [s["document"] for s in (snippets if isinstance(snippets, list) else ())
                  if isinstance(s, dict) and isinstance(s.get("document"), str)]
        out[q["id"]] = out.get(q["id"], _NOTHING_WRITTEN) | frozenset(found)
    return out


def gold_document_forms(gold_value: JsonValue) -> tuple[int, int, list[tuple[str, str]]]:
    """How a gold file writes its documents: (the documents written in another form than
    :data:`PUBMED_URL`'s, those of them also written in that form in the same question,
    up to 3 (question id, document) examples).  Each document of a question counts once."""
    other = both = 0
    examples: list[tuple[str, str]] = []
    for qid, written in gold_items(gold_value).items():
        for document in sorted(written):
            match = _PMID_FORMS.fullmatch(document)
            if match is None or document == PUBMED_URL.format(match.group(1)):
                continue
            other += 1
            both += PUBMED_URL.format(match.group(1)) in written
            if len(examples) < 3:
                examples.append((qid, document))
    return other, both, examples


def _canonical_document(value: JsonValue, pointer: str, findings: Bounded,
                        written: Container[str] = _NOTHING_WRITTEN) -> JsonValue:
    """A document id in the gold's URL form; bare ids and other URL forms are findings,
    except a string the gold writes as it is (``written``, :func:`gold_items`)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value in written:
        return value
    text = str(value)
    match = _PMID_FORMS.fullmatch(text)
    if not match:
        return value
    canonical = PUBMED_URL.format(match.group(1))
    if canonical != value:
        findings.append(Finding(
            pointer, "document-form", f"document {excerpt(value)} is not in the URL form of the gold files",
            f'write "{canonical}" (the official evaluator compares documents as exact strings)',
            severity="warning"))
    return canonical


def _whole_number(value: JsonValue, pointer: str, what: str, findings: Bounded) -> JsonValue:
    """12.0 and "12" -> 12, reported; anything else unchanged (the schema judges it)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, JsonFloat) or isinstance(value, float):
        if value.is_integer():
            findings.append(Finding(pointer, "integral-float", f"{what} {excerpt(value)} is written as a fraction",
                                    f"write {int(value)}", severity="warning"))
            return int(value)
        return value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        if number.is_integer():
            findings.append(Finding(pointer, "number-as-string", f'{what} is the string "{value}", not a number',
                                    f"write {int(number)} without quotes"))
            return int(number)
    return value


def _is_plain_snippet(snippet: JsonValue) -> bool:
    """True for a snippet :func:`_fix_snippet` leaves as it is, without a finding: only
    BioASQ keys, integer offsets, no list-valued section, a document (if any) in URL
    form.  Checked first, so a well-formed run builds no pointers."""
    if len(snippet) == 6:  # the usual snippet: all six keys, read in one call
        try:
            document, begin, end, offset_begin, offset_end, _ = SNIPPET_FIELDS(snippet)
        except KeyError:
            return False
        return (type(offset_begin) is int and type(offset_end) is int and type(begin) is not list
                and type(end) is not list and _is_canonical_document(document))
    get = snippet.get
    return (snippet.keys() <= _SNIPPET_KEYSET and type(get("offsetInBeginSection", 0)) is int
            and type(get("offsetInEndSection", 0)) is int and type(get("beginSection")) is not list
            and type(get("endSection")) is not list
            and ("document" not in snippet or _is_canonical_document(snippet["document"])))


def _fix_snippet(snippet: JsonValue, pointer: str, findings: Bounded,
                 written: Container[str] = _NOTHING_WRITTEN) -> JsonValue:
    """The snippet at ``pointer`` with its fixes (and their findings); for a snippet that is
    not plain (:func:`_is_plain_snippet`, which callers check first)."""
    if not isinstance(snippet, dict):
        return snippet
    fixed = {}
    for key, value in snippet.items():
        where = pointer + json_pointer(key)
        target = key
        if key not in SNIPPET_KEYS:
            official = SNIPPET_KEY_VARIANTS.get(key.lower())
            if official and official not in snippet and official not in fixed:  # a second variant is removed
                findings.append(Finding(where, "snippet-key-variant", f'snippet key "{key}" is not a BioASQ key',
                                        f'rename "{key}" to "{official}"'))
                target = official
            else:
                findings.append(Finding(where, "unknown-snippet-key",
                                        f'unknown snippet key "{key}" (the official evaluator aborts on it)',
                                        f'remove "{key}"'))
                continue
        if target in ("beginSection", "endSection") and isinstance(value, list):
            if len(value) == 1 and isinstance(value[0], str):
                findings.append(Finding(where, "list-valued-section", f"{target} is the list {excerpt(value)}",
                                        f'write the string "{value[0]}"'))
                value = value[0]
        elif target.startswith("offset"):
            value = _whole_number(value, where, target, findings)
        elif target == "document":
            value = _canonical_document(value, where, findings, written)
        fixed[target] = value
    return fixed


def _fix_strings(values: JsonValue, pointer: str, what: str, findings: Bounded, documents: bool = False,
                 written: Container[str] = _NOTHING_WRITTEN) -> JsonValue:
    """Numbers in a list of strings become their text; with ``documents``, documents get
    the URL form (but for those the gold writes as they are: ``written``)."""
    if not isinstance(values, list):
        if isinstance(values, str):
            findings.append(Finding(pointer, "string-instead-of-list", f'"{what}" is a string, not a list',
                                    f'write "{what}": ["{values}"]'))
            values = [values]
        else:
            return values
    if all(_is_canonical_document(v) for v in values) if documents else all(type(v) is str for v in values):
        return list(values)  # nothing to fix: no pointers built
    out = []
    for i, value in enumerate(values):
        where = f"{pointer}/{i}"
        if documents:
            value = _canonical_document(value, where, findings, written)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            text = value.literal if isinstance(value, JsonFloat) else str(value)
            findings.append(Finding(where, "number-instead-of-string", f"{what}[{i}] is the number {text}",
                                    f'write the string "{text}"'))
            value = text
        out.append(value)
    return out


def fix_phase_a_question(question: object, written: Container[str] = _NOTHING_WRITTEN
                         ) -> tuple[object, Iterable[Finding | Problem]]:
    """Fix the Phase A members of one question; return (fixed question, findings).
    ``written``: the documents the gold writes for the question (:func:`gold_items`),
    left as they are."""
    findings = Bounded()  # a million bad documents in one question: 100 findings and a count
    if not isinstance(question, dict):
        return question, findings
    fixed = dict(question)
    qid = fixed.get("id")
    if isinstance(qid, (int, float)) and not isinstance(qid, bool):
        text = qid.literal if isinstance(qid, JsonFloat) else str(qid)
        findings.append(Finding("/id", "number-instead-of-string", f"the question id is the number {text}",
                                f'write the id as a string: "{text}"'))
        fixed["id"] = text
    if "articles" in fixed and "documents" not in fixed:
        findings.append(Finding("/articles", "articles-instead-of-documents",
                                'the documents are under "articles", which the evaluator ignores',
                                'rename "articles" to "documents"'))
        fixed["documents"] = fixed.pop("articles")
    if "documents" in fixed:
        fixed["documents"] = _fix_strings(fixed["documents"], "/documents", "documents", findings,
                                          documents=True, written=written)
    if "concepts" in fixed:
        fixed["concepts"] = _fix_strings(fixed["concepts"], "/concepts", "concepts", findings)
    snippets = fixed.get("snippets")
    if isinstance(snippets, list):  # a plain snippet is copied, no pointer built; each is checked once
        fixed["snippets"] = [dict(s) if type(s) is dict and _is_plain_snippet(s) else
                             _fix_snippet(s, f"/snippets/{i}", findings, written) for i, s in enumerate(snippets)]
    return fixed, findings


GOLD_SCHEMA = "taskb-gold.schema.json"
#: Gold files of both phases: the answer fixers of runs do not apply (a gold ideal answer is
#: a list, an edition-2 factoid gold a flat list).
GOLD_FIXERS: list[QuestionFixer] = [fix_phase_a_question]


def run_fixers(task: str) -> list[QuestionFixer]:
    """The question fixers of a run of a Task B task of :func:`scorer.evaluate`: Phase A's
    (every Task B file may carry documents and snippets), then Phase B's: the official
    evaluator reads the exact answers of a Phase A run too (and aborts on a flat factoid
    list there), so every Task B run gets them."""
    return [fix_phase_a_question, fix_phase_b_question]


def _nothing_to_fix(question: object) -> bool:
    """True for a run's question every fixer leaves as it is without a finding (a string
    id, documents in the gold's URL form, concepts that are strings, plain snippets, no
    answers), told without copying anything; False when a fixer may have something to say."""
    if (type(question) is not dict or type(question.get("id")) is not str or "exact_answer" in question
            or "ideal_answer" in question or ("articles" in question and "documents" not in question)):
        return False
    documents, concepts, snippets = (question.get("documents", ()), question.get("concepts", ()),
                                     question.get("snippets", ()))
    return (type(documents) in (list, tuple) and all(map(_is_canonical_document, documents))
            and type(concepts) in (list, tuple) and all(type(c) is str for c in concepts)
            and type(snippets) in (list, tuple) and all(type(s) is dict and _is_plain_snippet(s) for s in snippets))


#: A run's documents, joined by newlines, all in the gold's URL form (:func:`_is_canonical_document`).
_CANONICAL_LINES = re.compile(rf"(?:{re.escape(_PUBMED_PREFIX)}[0-9]+\n)*{re.escape(_PUBMED_PREFIX)}[0-9]+")


def _all_canonical(documents: Sequence[str]) -> bool:
    """True when every string of ``documents`` is in the gold's URL form, as
    :func:`_is_canonical_document` tells (the prefix, then ASCII digits), told by one
    match of them all joined by newlines (a string holding a newline makes one line more)."""
    if not documents:
        return True
    text = "\n".join(documents)
    return text.count("\n") == len(documents) - 1 and _CANONICAL_LINES.fullmatch(text) is not None


_DOCUMENT = itemgetter(0)  # of a Snippet


def questions_to_check(run: TaskBFile) -> list[int] | None:
    """The indices (ascending) of the questions of a run, read by
    :func:`scorer.formats.taskb.read_taskb`, that validation may warn about, told from the
    records of that reading: every other question is a well-formed object (not in
    ``run.read_by_member``) with an id, documents, no answer, and its documents and its
    snippets' documents in the gold's URL form, so it has nothing to fix
    (:func:`_nothing_to_fix`), or only an error (an ``ideal_answer`` of null, which reads
    as absent).  None when a document of those questions is in another form (every
    question is then to be checked)."""
    by_member = set(run.read_by_member)
    to_check, plain = list(run.read_by_member), []
    for q in run.questions:
        if q.index in by_member:
            continue
        if q.id is None or not q.documents or q.has_exact_answer or q.ideal_answer is not ABSENT:
            to_check.append(q.index)  # without documents: perhaps under "articles"
        else:
            plain.append(q)
    documents = list(chain(chain.from_iterable(q.documents for q in plain),
                           map(_DOCUMENT, chain.from_iterable(q.snippets for q in plain))))
    return sorted(to_check) if _all_canonical(documents) else None


def normalize_taskb(value: JsonValue, phase: str = "phaseA", role: str = "run",
                    as_written: Mapping[str, frozenset[str]] | None = None, skip_plain: bool = False,
                    only: Sequence[int] | None = None) -> tuple[object, list[tuple[str, Finding | Problem]]]:
    """Apply every documented fix; return (fixed value, [(question pointer, finding)]).
    ``as_written``: the gold's documents of each question (:func:`gold_items`), which a
    run's question keeps as written.  ``skip_plain``: a question with nothing to fix
    (:func:`_nothing_to_fix`) is kept as it is, not copied (for the findings alone);
    ``only``: the indices (ascending) of the questions to look at, the others known to have
    nothing to fix (:func:`questions_to_check`), kept as they are."""
    fixers = run_fixers(phase) if role == "run" else GOLD_FIXERS
    if not isinstance(value, dict) or not isinstance(value.get("questions"), list):
        return value, []
    fixed = dict(value)
    found: list[tuple[str, Finding | Problem]] = []
    questions = list(value["questions"])
    for i in range(len(questions)) if only is None else only:
        question = questions[i]
        if skip_plain and _nothing_to_fix(question):
            continue
        qid = question.get("id") if as_written and isinstance(question, dict) else None
        written = as_written.get(qid, _NOTHING_WRITTEN) if as_written and isinstance(qid, str) else _NOTHING_WRITTEN
        for fixer in fixers:
            question, findings = (fixer(question, written) if written and fixer is fix_phase_a_question
                                  else fixer(question))
            found.extend((f"/questions/{i}", f) for f in findings)
        questions[i] = question
    fixed["questions"] = questions
    return fixed, found


def _question_id(value: JsonValue, pointer: str) -> str | None:
    match = re.match(r"/questions/(\d+)", pointer or "")
    if not match or not isinstance(value, dict):
        return None
    try:
        qid = value["questions"][int(match.group(1))].get("id")
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    return qid if isinstance(qid, str) else (str(qid) if isinstance(qid, int) else None)


def _schema_problem(error: SchemaError) -> Problem:
    pointer = json_pointer(*error.path)
    fix = schema_fix(error)
    if error.keyword == "required":
        missing = re.search(r"'([^']+)' is a required property", error.message)
        name = missing.group(1) if missing else "a member"
        fix = 'add "id": "<the question id of the test set>"' if name == "id" else f'add "{name}"'
        return Problem(code="missing-member", message=f'the required member "{name}" is missing',
                       fix=fix, pointer=pointer)
    if error.keyword == "additionalProperties":
        return Problem(code="unknown-member", message=error.message, fix=fix, pointer=pointer)
    if error.keyword == "type":
        return Problem(code="wrong-type", message=f"{error.message}", fix=fix, pointer=pointer)
    if error.keyword == "minimum":
        return Problem(code="negative-offset", message=f"{excerpt(error.instance)} is negative", fix=fix,
                       pointer=pointer)
    return Problem(code=f"schema-{error.keyword}", message=error.message, fix=fix, pointer=pointer)


def _semantic_problems(value: JsonValue) -> list[Problem]:
    """Duplicate question ids and snippets that end before they begin."""
    problems: list[Problem] = []
    if not isinstance(value, dict) or not isinstance(value.get("questions"), list):
        return problems
    first: dict[str, int] = {}
    for i, q in enumerate(value["questions"]):
        if not isinstance(q, dict):
            continue
        qid = q.get("id")
        if isinstance(qid, str):
            if qid in first:
                problems.append(Problem(
                    code="duplicate-id", pointer=f"/questions/{i}/id",
                    message=f"question id {qid} appears again (first at /questions/{first[qid]})",
                    fix="keep one entry per question id (the official evaluator uses only the first)"))
            else:
                first[qid] = i
        snippets = q.get("snippets")
        for j, s in enumerate(snippets if isinstance(snippets, list) else ()):
            if (isinstance(s, dict) and type(s.get("offsetInBeginSection")) is int
                    and type(s.get("offsetInEndSection")) is int
                    and s.get("beginSection") == s.get("endSection")
                    and s["offsetInEndSection"] < s["offsetInBeginSection"]):
                problems.append(Problem(
                    code="end-before-begin", pointer=f"/questions/{i}/snippets/{j}/offsetInEndSection",
                    message=f"the snippet ends (offset {s['offsetInEndSection']}) before it begins "
                            f"(offset {s['offsetInBeginSection']})",
                    fix="swap the offsets, or check how they were computed"))
    return problems


def _ignored_problems(value: JsonValue, task: str) -> list[Problem]:
    """Members a run of ``task`` may carry that are not scored (the registry's
    :attr:`scorer.core.tasks.Scoring.ignored`; Synergy: concepts and triples): one warning each kind."""
    problems = []
    members, why = SCORINGS[task].ignored
    questions = value.get("questions") if isinstance(value, dict) else None
    for member in members:
        first = next((i for i, q in enumerate(questions if isinstance(questions, list) else ())
                      if isinstance(q, dict) and q.get(member)), None)
        if first is not None:
            problems.append(Problem(code="ignored-member", severity="warning", pointer=f"/questions/{first}/{member}",
                                    message=f"{why}; {member} are ignored", fix=f"leave out {member}"))
    return problems


def _coverage_problems(value: JsonValue, gold_value: JsonValue, phase: str) -> list[Problem]:
    """Gold questions the run does not answer, and run questions unknown to the gold."""
    def ids(v: JsonValue) -> list[str]:
        if not isinstance(v, dict) or not isinstance(v.get("questions"), list):
            return []
        return [q["id"] for q in v["questions"] if isinstance(q, dict) and isinstance(q.get("id"), str)]
    run_ids, gold_ids = ids(value), ids(gold_value)
    run_set, gold_set = set(run_ids), set(gold_ids)
    problems = []
    missing = [q for q in dict.fromkeys(gold_ids) if q not in run_set]
    if missing:
        problems.append(Problem(
            code="missing-questions", pointer="/questions", severity="warning",
            message=f"{len(missing)} question(s) of the gold file are not answered: "
                    + some_of(missing),
            fix=SCORINGS[phase].missing_fix))
    for i, qid in enumerate(run_ids):
        if qid not in gold_set:
            problems.append(Problem(code="unknown-question", pointer=f"/questions/{i}/id", severity="warning",
                                    question_id=qid, message=f"question {qid} is not in the gold file",
                                    fix="check the id against the test set"))
    return problems


def validate_taskb(value: JsonValue, doc: JsonText, *, phase: str = "phaseA", role: str = "run",
                   gold_value: JsonValue = None, limits: QuestionLimits | None = None,
                   as_written: Mapping[str, frozenset[str]] | None = None,
                   warnings_only: bool = False, only: Sequence[int] | None = None) -> tuple[list[Problem], object]:
    """Every problem of a parsed Task B file, located; and the normalized value.

    ``role`` is ``"run"`` or ``"gold"``; with ``gold_value`` the run's questions are
    also compared with the gold's; with ``limits`` a run's lists longer than their
    per-question cap are errors (gold files are never capped).  A run keeps the documents
    the gold writes as they are (``as_written``, else :func:`gold_items` of
    ``gold_value``): they match as written, so they are no problem to fix.
    ``warnings_only``: the warnings alone (the schema, semantic, limit and coverage checks
    give errors only, and are left out), questions with nothing to fix not copied; the
    value returned is then not to be used; ``only``: the questions to look at
    (:func:`normalize_taskb`).
    """
    if as_written is None and gold_value is not None and role == "run":
        as_written = gold_items(gold_value)
    fixed, found = normalize_taskb(value, phase, role, as_written, skip_plain=warnings_only, only=only)
    problems = [f if isinstance(f, Problem) else  # a summary of findings
                Problem(code=f.code, message=f.message, fix=f.fix, severity=f.severity, pointer=f.pointer,
                        fixed_by=f.fixed_by)
                for f in bounded(f if isinstance(f, Problem) else replace(f, pointer=base + f.pointer)
                                 for base, f in found if not warnings_only or f.severity == "warning")]
    if not warnings_only:
        schema = SCORINGS[phase].run_schema if role == "run" else GOLD_SCHEMA
        problems += schema_problems(schema, fixed, _schema_problem)
        problems += _semantic_problems(fixed)
    if role == "run":
        problems += _ignored_problems(fixed, phase)
    if limits is not None and role == "run" and not warnings_only:
        problems += limit_problems(fixed, phase, limits)
    if gold_value is not None and not warnings_only:
        problems += _coverage_problems(fixed, gold_value, phase)
    if warnings_only:
        problems = [p for p in problems if p.severity == "warning"]
    placed = []
    for p in bounded(problems):
        qid = p.question_id or _question_id(fixed, p.pointer)
        placed.append(doc.place(p.located(question_id=qid)))
    placed.sort(key=lambda p: (p.is_summary, p.line or 0, p.column or 0, p.pointer or ""))
    return placed, fixed if warnings_only else copy.deepcopy(fixed) if fixed is value else fixed


def run_warnings(task: str, value: JsonValue, doc: JsonText, read: TaskBFile | None = None) -> list[Problem]:
    """The warnings :func:`validate_run` gives for a run of ``task`` (forms the official
    evaluator reads but compares as written, labels it reads otherwise, members it
    ignores), without its errors.  A Task B run's questions with nothing to fix are passed
    over without a copy, so a well-formed run costs one cheap pass: :func:`scorer.evaluate`
    calls this on every run it scores.  ``read``: the run as
    :func:`scorer.formats.taskb.read_taskb` read it, whose records tell the questions
    with nothing to fix (:func:`questions_to_check`): only the others are looked at."""
    if _VALIDATORS[SCORINGS[task].files] is _taskb_problems:
        only = questions_to_check(read) if read is not None else None
        if only != [] and doc.read is not None:  # a typed reading's view: the fixers need the plain value
            value = doc.parsed()
        return validate_taskb(value, doc, phase=task, warnings_only=True, only=only)[0]
    return [p for p in validate_run(task, value, doc)[0] if p.severity == "warning"]


def validate_run(task: str, value: JsonValue, doc: JsonText, *, role: str = "run", gold_value: JsonValue = None,
                 labels: Container[str] | None = None, limits: QuestionLimits | None = None,
                 as_written: Mapping[str, frozenset[str]] | None = None) -> tuple[list[Problem], object]:
    """Every problem of a parsed file of one task of :func:`scorer.evaluate` (``phaseA``,
    ``phaseB``, ``taskA``, ``mcqa``, ``synergy``), located, and its normalized value (the
    value itself for the tasks ``normalize`` has no fixes for).  The validator is that of
    the task's file format (the registry's :attr:`scorer.core.tasks.Scoring.files`).  Each
    validator takes what it uses: ``gold_value`` (Task B, mcqa: the run's ids against the
    gold's), ``labels`` (Task A: the hierarchy's ids), ``limits`` (per-question caps; not
    mcqa), ``as_written`` (Task B: the gold's documents, :func:`gold_items`, kept as the
    run writes them)."""
    return _VALIDATORS[SCORINGS[task].files](task, value, doc, role=role, gold_value=gold_value, labels=labels,
                                             limits=limits, as_written=as_written)


def _taskb_problems(task: str, value: JsonValue, doc: JsonText, *, role: str, gold_value: JsonValue,
                    labels: Container[str] | None, limits: QuestionLimits | None,
                    as_written: Mapping[str, frozenset[str]] | None) -> tuple[list[Problem], object]:
    return validate_taskb(value, doc, phase=task, role=role, gold_value=gold_value, limits=limits,
                          as_written=as_written)


def _taska_problems(task: str, value: JsonValue, doc: JsonText, *, role: str, gold_value: JsonValue,
                    labels: Container[str] | None, limits: QuestionLimits | None,
                    as_written: Mapping[str, frozenset[str]] | None) -> tuple[list[Problem], object]:
    return validate_taska(value, doc, role=role, labels=labels, limits=limits), value


def _mcqa_problems(task: str, value: JsonValue, doc: JsonText, *, role: str, gold_value: JsonValue,
                   labels: Container[str] | None, limits: QuestionLimits | None,
                   as_written: Mapping[str, frozenset[str]] | None) -> tuple[list[Problem], object]:
    return validate_mcqa(value, doc, role=role, gold_value=gold_value), value


#: The validator of each file format (:attr:`scorer.core.tasks.Scoring.files`, the module of
#: :mod:`scorer.formats` that reads it); tests/test_registries.py checks every task's is here.
_VALIDATORS = {"taskb": _taskb_problems, "taska": _taska_problems, "mcqa": _mcqa_problems}
