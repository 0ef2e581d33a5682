"""Opinion- and entity-aware ROUGE-L and BLEU-4 (Yang et al., MRC2018 / DuReader).

Plain n-gram overlap barely moves when an answer states the wrong opinion (yes/no
questions) or names the wrong entity.  The adaptation adds a bonus to the numerator and
the denominator of every ratio, so agreeing on the opinion or containing the gold entities
raises the score, which never exceeds 1.  Without labels and entities both metrics are the
plain (vanilla) ROUGE-L and BLEU-4.  ``docs/measures-ideal.md`` has worked examples.

Units (``tokens``):
* ``"char"``: the official MRC2018 script: the characters of
  :func:`scorer.measures.text.mrc2018_normalize` (whitespace removed, a few full-width marks
  made ASCII, case kept).  Reproduces the script's numbers.
* ``"word"`` (default, for BioASQ): :func:`scorer.measures.text.word_tokens` (lower-cased;
  runs of letters/digits, each punctuation mark a token).

Bonus inputs of one question (the script's rules; at most one kind per question):
* yes/no: ``candidate_label`` (the candidate's opinion) and ``reference_labels`` (one per
  reference, compared for equality).  For BioASQ: the system's exact yes/no answer and the
  gold exact answer repeated for every gold ideal answer.
* entities: ``entities``, the gold entity strings (tokenised like the text, duplicates and
  empty ones ignored).  For BioASQ factoid/list questions: every gold exact answer and
  synonym.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from numbers import Real

from scorer.core.errors import Problem, ScorerError
from scorer.measures.text import mrc2018_normalize, word_tokens

TOKENISATIONS = ("word", "char")
BLEU_ORDER = 4

# A text as its units: the normalised string (characters) or a tuple of word tokens; both
# slice into hashable n-grams.
Units = str | tuple[str, ...]


@dataclass(frozen=True)
class _Question:
    """One question's inputs, checked and tokenised."""

    candidate: Units
    references: tuple[Units, ...]
    candidate_label: str | None   # set only when the yes/no bonus applies
    reference_labels: tuple[str, ...]
    entities: frozenset           # of Units; empty when the entity bonus does not apply


def _argument_error(message: str, fix: str) -> ScorerError:
    return ScorerError(Problem(code="bad-argument", message=message, fix=fix))


def _units(text, tokens: str, what: str) -> Units:
    if not isinstance(text, str):
        raise _argument_error(f"{what} is {type(text).__name__}, not text", "pass a string")
    return mrc2018_normalize(text) if tokens == "char" else _word_units(text)


@lru_cache(maxsize=4096)
def _word_units(text: str) -> tuple[str, ...]:
    """Word tokens as a tuple, memoised: each answer is tokenised once for all four metrics."""
    return tuple(word_tokens(text))


def _checked_weights(**weights) -> None:
    for name, value in weights.items():
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) \
                or value < 0:
            raise _argument_error(f"{name} = {value!r} is not a non-negative number",
                                  f"pass {name} as a float such as 1.0")


def _question(candidate, references, candidate_label, reference_labels, entities,
              tokens: str, where: str) -> _Question:
    """Check and tokenise one question's inputs; ScorerError with ``where`` otherwise.

    Checked in this order: ``tokens``, the references, the reference labels (only with
    ``candidate_label``), the entities, not both kinds of bonus, the candidate."""
    if tokens not in TOKENISATIONS:
        raise _argument_error(f"tokens = {tokens!r} is unknown",
                              "use 'word' (English, BioASQ) or 'char' (MRC2018 script)")
    ref_units = _reference_units(references, tokens, where)
    labels = () if candidate_label is None else _reference_labels(reference_labels, len(ref_units), where)
    entity_units = frozenset() if entities is None else _entity_units(entities, tokens, where)
    if candidate_label is not None and entity_units:
        raise _argument_error(f"{where}both a yes/no label and entities were given",
                              "give labels for yes/no questions, entities for the others")
    return _Question(_units(candidate, tokens, f"{where}the candidate"), ref_units,
                     candidate_label, labels, entity_units)


def _reference_units(references, tokens: str, where: str) -> tuple[Units, ...]:
    """The references (one text or a non-empty list of texts) as units."""
    refs = [references] if isinstance(references, str) else references
    if not isinstance(refs, Sequence):
        raise _argument_error(f"{where}the references are not a list of texts",
                              "pass the reference answers as a list of strings")
    if not refs:
        raise _argument_error(f"{where}there is no reference answer",
                              "leave the question out (the MRC2018 script skips it)")
    return tuple(_units(r, tokens, f"{where}reference {i}") for i, r in enumerate(refs))


def _reference_labels(reference_labels, n_references: int, where: str) -> tuple[str, ...]:
    """The yes/no labels of the references: a list (not a string) with one per reference."""
    if reference_labels is None or isinstance(reference_labels, str) \
            or not isinstance(reference_labels, Sequence) \
            or len(reference_labels) != n_references:
        raise _argument_error(
            f"{where}the yes/no bonus needs one reference label per reference "
            f"({n_references})", "pass reference_labels as a list as long as references "
            "(the MRC2018 script crashes on fewer)")
    return tuple(reference_labels)


def _entity_units(entities, tokens: str, where: str) -> frozenset:
    """The distinct non-empty entities (a list or set of texts, not one string) as units."""
    if isinstance(entities, str) or not isinstance(entities, (Sequence, set, frozenset)):
        raise _argument_error(f"{where}entities is not a list of strings",
                              "pass the gold entities as a list of strings")
    return frozenset(u for i, e in enumerate(entities) if (u := _units(e, tokens, f"{where}entity {i}")))


# --------------------------------------------------------------------------- ROUGE-L

def lcs_length(a: Units, b: Units) -> int:
    """Length of the longest common subsequence of ``a`` and ``b``.

    Bit-parallel (Hyyrö 2004): bit i of ``v`` stands for ``a[i]``; for each unit ``y`` of
    ``b``, ``u = v & match[y]; v = (v + u) | (v - u)``; the LCS length is the number of
    zero bits among the ``len(a)`` low bits of ``v``.  Same result as the textbook
    dynamic programme, in ``len(b)`` big-integer steps.
    """
    match: dict = {}
    for i, unit in enumerate(a):
        match[unit] = match.get(unit, 0) | (1 << i)
    all_ones = (1 << len(a)) - 1
    v = all_ones
    for unit in b:
        u = v & match.get(unit, 0)
        v = ((v + u) | (v - u)) & all_ones
    return len(a) - v.bit_count()


def _contains(text: Units, part: Units) -> bool:
    """``part`` occurs in ``text`` as a contiguous run of units (substring / sub-tuple)."""
    if isinstance(text, str) and isinstance(part, str):
        return part in text

    k = len(part)
    return any(text[i:i + k] == part for i in range(len(text) - k + 1))


def _rouge_l_precision_recall(q: _Question, alpha: float, beta: float) -> tuple[float, float]:
    precisions, recalls = [], []
    entity_bonus = float(sum(len(e) for e in q.entities if _contains(q.candidate, e)))
    for i, ref in enumerate(q.references):
        lcs = lcs_length(q.candidate, ref)
        yes_no_bonus = 0.0
        if q.candidate_label is not None and q.candidate_label == q.reference_labels[i]:
            yes_no_bonus = float(lcs)
        p_denominator = len(q.candidate) + alpha * yes_no_bonus + beta * entity_bonus
        r_denominator = len(ref) + alpha * yes_no_bonus + beta * entity_bonus
        hits = lcs + alpha * yes_no_bonus + beta * entity_bonus
        precisions.append(hits / p_denominator if p_denominator > 0 else 0.0)
        recalls.append(hits / r_denominator if r_denominator > 0 else 0.0)
    return max(precisions), max(recalls)


def rouge_l_precision_recall(candidate: str, references: Sequence[str] | str, *,
                             candidate_label: str | None = None,
                             reference_labels: Sequence[str] | None = None,
                             entities: Sequence[str] | None = None,
                             alpha: float = 1.0, beta: float = 1.0,
                             tokens: str = "word") -> tuple[float, float]:
    """``(P, R)`` of the (adapted) ROUGE-L of one question, before the F-measure.

    For reference i: ``LCS_i`` = LCS length of candidate and reference i; ``yn_i = LCS_i``
    when the yes/no bonus applies and ``candidate_label == reference_labels[i]``, else 0;
    ``ent`` = total length of the distinct gold entities that occur contiguously in the
    candidate (entity bonus only).  ``P_i = (LCS_i + alpha yn_i + beta ent) / (|candidate| +
    alpha yn_i + beta ent)``, ``R_i`` the same with ``|reference_i|`` (0 for a zero
    denominator); ``P = max_i P_i`` and ``R = max_i R_i`` are taken separately.
    """
    _checked_weights(alpha=alpha, beta=beta)
    q = _question(candidate, references, candidate_label, reference_labels, entities,
                  tokens, where="")
    return _rouge_l_precision_recall(q, alpha, beta)


def rouge_l(candidate: str, references: Sequence[str] | str, *,
            candidate_label: str | None = None, reference_labels: Sequence[str] | None = None,
            entities: Sequence[str] | None = None, alpha: float = 1.0, beta: float = 1.0,
            gamma: float = 1.2, tokens: str = "word") -> float:
    """(Adapted) ROUGE-L of one question: ``F = (1 + g^2) P R / (R + g^2 P)``, ``g = gamma``.

    ``P``, ``R``: :func:`rouge_l_precision_recall`; ``F = 0`` when P or R is 0.  Plain
    ROUGE-L without ``candidate_label`` and ``entities``.  The MRC2018 script reports the
    mean of this value over the questions.  Raises :class:`scorer.ScorerError` for a
    question without reference, labels that do not match the references, both kinds of
    bonus at once, or arguments that are not text.
    """
    _checked_weights(gamma=gamma)
    precision, recall = rouge_l_precision_recall(
        candidate, references, candidate_label=candidate_label,
        reference_labels=reference_labels, entities=entities, alpha=alpha, beta=beta,
        tokens=tokens)
    if precision == 0 or recall == 0:
        return 0.0
    return (1 + gamma ** 2) * precision * recall / (recall + gamma ** 2 * precision)


# --------------------------------------------------------------------------- BLEU-4

def _ngrams(units: Units, n: int) -> list[Units]:
    return [units[i:i + n] for i in range(len(units) - n + 1)]


def _clipped_matches(candidate_ngrams: list, reference_ngram_lists: list[list]) -> int:
    """Candidate n-grams matched, each n-gram clipped by its largest count in one reference."""
    wanted = Counter(candidate_ngrams)
    best: dict = {}
    for ngrams in reference_ngram_lists:
        found = Counter(ngrams)
        for gram in wanted.keys() & found.keys():
            if found[gram] > best.get(gram, 0):
                best[gram] = found[gram]
    return sum(min(wanted[gram], count) for gram, count in best.items())


@dataclass
class BleuCounts:
    """Corpus-level BLEU statistics: ``matches[k]`` and ``totals[k]`` for n = k + 1
    (bonuses included), candidate length ``c`` and closest reference length ``r``."""

    matches: list[float]
    totals: list[float]
    candidate_length: int = 0
    reference_length: int = 0

    @classmethod
    def empty(cls) -> BleuCounts:
        """Counts of no question (all 0)."""
        return cls([0] * BLEU_ORDER, [0] * BLEU_ORDER)

    def precision(self, n: int) -> float:
        """``p_n = matches / totals`` (0 when there is no candidate n-gram)."""
        total = self.totals[n - 1]
        return self.matches[n - 1] / total if total != 0 else 0.0

    def bleu(self, max_n: int = BLEU_ORDER) -> float:
        """``BP * (p_1 ... p_max_n) ** (1 / max_n)``, ``BP = exp(min(1 - r / c, 0))``, 0 if c = 0."""
        product = 1.0
        for n in range(1, max_n + 1):
            product *= self.precision(n)
        if self.candidate_length == 0:
            return 0.0
        brevity = math.exp(min(1 - self.reference_length / float(self.candidate_length), 0))
        return product ** (1.0 / max_n) * brevity


def _add_question(counts: BleuCounts, q: _Question, alpha: float, beta: float,
                  plain: BleuCounts | None = None) -> None:
    """Add one question to corpus counts, as the MRC2018 script's ``BLEUWithBonus``;
    ``plain`` (optional) gets the same question without bonus from the same n-gram counts."""
    for target in (counts, plain) if plain is not None else (counts,):
        target.candidate_length += len(q.candidate)
        target.reference_length += min((abs(len(q.candidate) - len(r)), len(r)) for r in q.references)[1]
    if q.candidate_label is not None:
        weight = alpha
        bonus_sources = [r for r, label in zip(q.references, q.reference_labels) if label == q.candidate_label]
    else:
        weight, bonus_sources = beta, list(q.entities)
    for k in range(BLEU_ORDER):
        cand = _ngrams(q.candidate, k + 1)
        matches = _clipped_matches(cand, [_ngrams(r, k + 1) for r in q.references])
        for target in (counts, plain) if plain is not None else (counts,):
            target.matches[k] += matches
            target.totals[k] += len(cand)
        if bonus_sources:
            bonus = weight * _clipped_matches(cand, [_ngrams(b, k + 1) for b in bonus_sources])
            counts.matches[k] += bonus
            counts.totals[k] += bonus


def _corpus_counts(candidates, references_list, candidate_labels, reference_labels_list, entities_list,
                   alpha: float, beta: float, tokens: str, plain: BleuCounts | None) -> BleuCounts:
    """The (bonus-including) corpus counts; the plain ones are added to ``plain`` if given."""
    _checked_weights(alpha=alpha, beta=beta)
    lists = [candidates, references_list]
    lists += [v for v in (candidate_labels, reference_labels_list, entities_list) if v is not None]
    if any(isinstance(v, str) or not isinstance(v, Sequence) for v in lists):
        raise _argument_error("BLEU-4 takes lists with one entry per question",
                              "pass candidates, references_list, ... as lists")
    n = len(candidates)
    if any(len(v) != n for v in lists):
        raise _argument_error(
            "candidates, references_list and the optional per-question lists differ in length",
            "pass one entry per question in every list (None for no label/entities)")
    counts = BleuCounts.empty()
    for i in range(n):
        q = _question(candidates[i], references_list[i],
                      candidate_labels[i] if candidate_labels is not None else None,
                      reference_labels_list[i] if reference_labels_list is not None else None,
                      entities_list[i] if entities_list is not None else None,
                      tokens, where=f"question {i}: ")
        _add_question(counts, q, alpha, beta, plain)
    return counts


def bleu_counts(candidates: Sequence[str], references_list: Sequence[Sequence[str]], *,
                candidate_labels: Sequence[str | None] | None = None,
                reference_labels_list: Sequence[Sequence[str] | None] | None = None,
                entities_list: Sequence[Sequence[str] | None] | None = None,
                alpha: float = 1.0, beta: float = 1.0, tokens: str = "word") -> BleuCounts:
    """The corpus statistics behind :func:`bleu4` (for drill-down and tests).

    Per question, for n = 1..4: candidate n-grams clipped by their largest count in any one
    reference are added to ``matches``, all candidate n-grams to ``totals``.  Yes/no bonus:
    ``alpha x`` the candidate n-grams matched (clipped the same way) against the references
    whose label equals the candidate's is added to both.  Entity bonus: ``beta x`` those
    matched against the entity strings, likewise.  ``c`` adds the candidate length, ``r``
    the length of the reference closest to it (ties: the shorter).
    """
    return _corpus_counts(candidates, references_list, candidate_labels, reference_labels_list,
                          entities_list, alpha, beta, tokens, plain=None)


def bleu4_plain_and_adapted(candidates: Sequence[str], references_list: Sequence[Sequence[str]], *,
                            candidate_labels: Sequence[str | None] | None = None,
                            reference_labels_list: Sequence[Sequence[str] | None] | None = None,
                            entities_list: Sequence[Sequence[str] | None] | None = None,
                            alpha: float = 1.0, beta: float = 1.0, tokens: str = "word") -> tuple[float, float]:
    """``(bleu4(candidates, references_list), bleu4(..., with the bonus arguments))`` from one
    pass over the corpus: the plain counts are the adapted ones before their bonus."""
    plain = BleuCounts.empty()
    counts = _corpus_counts(candidates, references_list, candidate_labels, reference_labels_list,
                            entities_list, alpha, beta, tokens, plain=plain)
    return plain.bleu(), counts.bleu()


def bleu4(candidates: Sequence[str], references_list: Sequence[Sequence[str]], *,
          candidate_labels: Sequence[str | None] | None = None,
          reference_labels_list: Sequence[Sequence[str] | None] | None = None,
          entities_list: Sequence[Sequence[str] | None] | None = None,
          alpha: float = 1.0, beta: float = 1.0, tokens: str = "word") -> float:
    """Corpus-level (adapted) BLEU-4 of one answer per question, as the MRC2018 script.

    ``BLEU = BP x (p_1 p_2 p_3 p_4) ** (1/4)`` over the :func:`bleu_counts` of the corpus,
    no smoothing (any ``p_n = 0`` gives 0), ``BP = exp(min(1 - r / c, 0))``, 0 when the
    candidates are all empty.  Plain BLEU-4 without labels and entities.  Per question i:
    ``candidate_labels[i]`` / ``reference_labels_list[i]`` for the yes/no bonus,
    ``entities_list[i]`` for the entity bonus (None entries: no bonus).  Raises
    :class:`scorer.ScorerError` as :func:`rouge_l` does, naming the question.
    """
    return bleu_counts(candidates, references_list, candidate_labels=candidate_labels,
                       reference_labels_list=reference_labels_list,
                       entities_list=entities_list, alpha=alpha, beta=beta,
                       tokens=tokens).bleu()
