"""ROUGE-2 and ROUGE-SU4 of ideal answers exactly as BioASQ runs ROUGE-1.5.5.

BioASQ runs ``ROUGE-1.5.5.pl -c 95 -2 4 -u -x -n 4`` once per question: the system's ideal
answer is the peer, every gold ideal answer is a model, the models are pooled (``-f A``), no
stemming, stopwords kept, no length limit, ``-p 0.5``.  This module reproduces its
per-question values without Perl (see ``docs/measures-ideal.md``):

* text and tokens: :func:`scorer.measures.text.rouge_tokens` (ASCII only, first line, up
  to the first ``<``, lower-cased ``[a-z0-9]+`` runs);
* ROUGE-2 units: the bigrams of a text;
* ROUGE-SU4 units: the skip-bigrams (ordered token pairs with at most 4 tokens between them)
  plus the unigrams of every token but the last one (ROUGE-1.5.5's quirk: a one-token text
  has no SU4 unit at all);
* hits of one model: ``sum over units u of min(count in peer, count in model)``;
* ``R = sum of hits / sum of model units``, ``P = sum of hits / (number of models x peer
  units)``, 0 when a denominator is 0;
* R and P are rounded to 5 decimals, ``F = P R / (0.5 P + 0.5 R)`` is computed from the
  rounded values (0 when both are 0) and rounded to 5 decimals.

:func:`rouge_bioasq_many` scores a batch with a few vectorised numpy passes (one sort of
all unit occurrences); :func:`rouge_bioasq` is the same computation for one pair.
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, repeat

import numpy as np

from scorer.core.errors import Problem, ScorerError
from scorer.measures.text import rouge_tokens

ROUGE_KEYS = ("R2_R", "R2_P", "R2_F", "SU4_R", "SU4_P", "SU4_F")
MAX_SKIP = 4  # ``-2 4``: at most 4 tokens between the two tokens of a skip-bigram
_BIGRAM_DISTANCES = (1,)
_SKIP_BIGRAM_DISTANCES = tuple(range(1, MAX_SKIP + 2))
_PAIRS_PER_CHUNK = 2000  # bounds the memory of one vectorised pass


def rouge_bioasq(candidate: str, references: Sequence[str] | str) -> dict[str, float]:
    """ROUGE-2 and ROUGE-SU4 recall, precision and F of one ideal answer (ROUGE-1.5.5 rules).

    ``candidate``: the system's ideal answer.  ``references``: the gold ideal answer(s), a
    string or a non-empty list of strings (pooled as ROUGE-1.5.5's ``-f A`` does).
    Returns ``{"R2_R", "R2_P", "R2_F", "SU4_R", "SU4_P", "SU4_F"}``, each rounded to 5
    decimals as ROUGE-1.5.5 prints them.  An answer with no token (empty, non-ASCII only,
    starting with ``<``) scores 0 everywhere.  Raises :class:`scorer.ScorerError` when an
    argument is not text or there is no reference.
    """
    return _score_chunk([_checked_pair(candidate, references, where="")])[0]


def rouge_bioasq_many(pairs) -> list[dict[str, float]]:
    """:func:`rouge_bioasq` of every ``(candidate, references)`` pair, in order, fast.

    About 0.6 s for 5,000 BioASQ-sized pairs (``python benchmarks/bench_rouge.py``), where
    ROUGE-1.5.5 needs about 16 s.  A batch's score is the arithmetic mean of these
    per-question values (ROUGE-1.5.5's printed "average" is a bootstrap estimate of it).
    Raises :class:`scorer.ScorerError` naming the first bad pair.
    """
    checked = []
    for index, pair in enumerate(pairs):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise _argument_error(f"pair {index} is not a (candidate, references) pair",
                                  "pass a list of (candidate, references) tuples")
        checked.append(_checked_pair(pair[0], pair[1], where=f"pair {index}: "))
    scores: list[dict[str, float]] = []
    for start in range(0, len(checked), _PAIRS_PER_CHUNK):
        scores.extend(_score_chunk(checked[start:start + _PAIRS_PER_CHUNK]))
    return scores


def _argument_error(message: str, fix: str) -> ScorerError:
    return ScorerError(Problem(code="bad-argument", message=message, fix=fix))


def _checked_pair(candidate, references, where: str) -> tuple[str, list[str]]:
    """``(candidate, [reference, ...])`` after checking the types; ScorerError otherwise."""
    if not isinstance(candidate, str):
        raise _argument_error(f"{where}the candidate answer is {type(candidate).__name__}, "
                              "not text", "pass the ideal answer as a string")
    refs = [references] if isinstance(references, str) else references
    if not isinstance(refs, Sequence) or not all(isinstance(r, str) for r in refs):
        raise _argument_error(f"{where}the references are not text or a list of texts",
                              "pass the gold ideal answer(s) as a string or list of strings")
    if not refs:
        raise _argument_error(f"{where}there is no reference answer",
                              "ROUGE needs at least one gold ideal answer; skip the question")
    return candidate, list(refs)


class _TokenTable:
    """The tokens of a chunk of pairs as numbers, laid out for vectorised counting.

    Texts are numbered pair by pair: the peer (slot 0), then its models (slots 1, 2, ...).
    A token is its index in the pair's peer vocabulary (``width - 1`` words), or -1 when it
    cannot be part of a hit: a model token the peer lacks, a peer token no model has.
    A unit made of tokens ``a`` and ``b`` has the code ``a * width + b`` (a unigram ``a``:
    ``b = width - 1``), unique within its pair; the pairs' codes are laid end to end
    (``pair_start``) and a unit occurrence's key is ``(pair_start + code) << slot_bits |
    slot``: sorted keys put the occurrences of one unit of one pair together, the peer's
    first.
    """

    def __init__(self, pairs: list[tuple[str, list[str]]]):
        texts: list[list[int]] = []
        widths: list[int] = []
        for candidate, references in pairs:
            peer_tokens = rouge_tokens(candidate)
            vocabulary = {token: i for i, token in enumerate(dict.fromkeys(peer_tokens))}
            texts.append(list(map(vocabulary.__getitem__, peer_tokens)))
            texts.extend(list(map(vocabulary.get, rouge_tokens(r), repeat(-1)))
                         for r in references)
            widths.append(len(vocabulary) + 1)
        texts_per_pair = np.fromiter((1 + len(refs) for _, refs in pairs), np.int64, len(pairs))
        width = np.asarray(widths, dtype=np.int64)
        first_text = np.cumsum(texts_per_pair) - texts_per_pair
        self.n_pairs = len(pairs)
        self.slot_bits = int(texts_per_pair.max() - 1).bit_length()
        self.pair_start = np.concatenate(([0], np.cumsum(width * width)))
        self.pair_of_text = np.repeat(np.arange(self.n_pairs), texts_per_pair)
        self.is_model = np.ones(len(texts), dtype=bool)
        self.is_model[first_text] = False
        self.lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        ids = np.fromiter(chain.from_iterable(texts), dtype=np.int64,
                          count=int(self.lengths.sum()))
        # per token position: its pair, slot, and how many tokens its text has from it on
        pair_at = np.repeat(self.pair_of_text, self.lengths)
        slot_at = np.repeat(np.arange(len(texts)) - first_text[self.pair_of_text], self.lengths)
        self.tokens_left = np.repeat(np.cumsum(self.lengths), self.lengths) - np.arange(ids.size)
        # a peer token that no model of its pair has cannot be part of a hit
        word = np.cumsum(width - 1)[pair_at] - (width - 1)[pair_at] + ids
        in_a_model = np.zeros(int((width - 1).sum()), dtype=bool)
        in_a_model[word[(slot_at > 0) & (ids >= 0)]] = True
        self.usable = ids >= 0
        self.usable[self.usable] = in_a_model[word[self.usable]]
        # key = head of the first token + tail of the second one
        self.head = (((self.pair_start[:-1][pair_at] + ids * width[pair_at]) << self.slot_bits)
                     | slot_at)
        self.tail = ids << self.slot_bits
        self.unigram_tail = (width[pair_at] - 1) << self.slot_bits

    def unit_keys(self, distances: tuple[int, ...], with_unigrams: bool) -> np.ndarray:
        """Keys of the unit occurrences that may be hits (both tokens usable).

        Units: token pairs ``(i, i + d)`` inside one text for ``d`` in ``distances``, plus,
        with ``with_unigrams``, the unigram of every token but the last of its text.
        """
        usable, parts = self.usable, []
        for d in distances:
            inside = (self.tokens_left[:-d] > d) & usable[:-d] & usable[d:]
            parts.append((self.head[:-d] + self.tail[d:])[inside])
        if with_unigrams:
            inside = (self.tokens_left > 1) & usable
            parts.append((self.head + self.unigram_tail)[inside])
        return np.concatenate(parts)

    def pooled_hits(self, distances: tuple[int, ...], with_unigrams: bool) -> np.ndarray:
        """Per pair: sum over its models of sum over units of min(peer count, model count)."""
        keys = np.sort(self.unit_keys(distances, with_unigrams))
        run_start = np.flatnonzero(np.diff(keys, prepend=-1))  # keys are >= 0
        run_count = np.diff(run_start, append=keys.size)
        run_key = keys[run_start]
        unit, slot = run_key >> self.slot_bits, run_key & ((1 << self.slot_bits) - 1)
        # the runs of one unit of one pair follow each other, the peer's (slot 0) first
        unit_first_run = np.maximum.accumulate(
            np.where(np.diff(unit, prepend=-1) != 0, np.arange(unit.size), 0))
        peer_count = np.where(slot[unit_first_run] == 0, run_count[unit_first_run], 0)
        hits = np.where(slot > 0, np.minimum(run_count, peer_count), 0)
        hits_before = np.concatenate(([0], np.cumsum(hits)))
        return np.diff(hits_before[np.searchsorted(unit, self.pair_start)])

    def unit_totals(self, distances: tuple[int, ...], with_unigrams: bool) -> np.ndarray:
        """Per text: its number of units (all tokens count)."""
        n = self.lengths
        total = sum((np.maximum(n - d, 0) for d in distances), np.zeros_like(n))
        return total + np.maximum(n - 1, 0) if with_unigrams else total


def _score_chunk(pairs: list[tuple[str, list[str]]]) -> list[dict[str, float]]:
    table = _TokenTable(pairs)
    per_measure = []
    for distances, with_unigrams in ((_BIGRAM_DISTANCES, False), (_SKIP_BIGRAM_DISTANCES, True)):
        hits = table.pooled_hits(distances, with_unigrams)
        units = table.unit_totals(distances, with_unigrams)
        model_of = table.pair_of_text[table.is_model]
        model_units = np.bincount(model_of, weights=units[table.is_model], minlength=table.n_pairs)
        peer_units = units[~table.is_model] * np.bincount(model_of, minlength=table.n_pairs)
        per_measure.append(zip(hits.tolist(), model_units.tolist(), peer_units.tolist()))
    return [dict(zip(ROUGE_KEYS, rouge155_scores(*r2) + rouge155_scores(*su4)))
            for r2, su4 in zip(*per_measure)]


def rouge155_scores(hits: float, model_units: float, peer_units: float) -> tuple[float, float, float]:
    """``(R, P, F)`` from pooled counts, rounded as ROUGE-1.5.5 prints them.

    ``R = round(hits / model_units, 5)``, ``P = round(hits / peer_units, 5)`` (0 when the
    denominator is 0), ``F = round(P R / (0.5 P + 0.5 R), 5)`` from the rounded values
    (0 when ``P + R = 0``).  ``peer_units`` is already multiplied by the number of models.
    """
    recall = round(hits / model_units, 5) if model_units else 0.0
    precision = round(hits / peer_units, 5) if peer_units else 0.0
    denominator = 0.5 * precision + 0.5 * recall
    f_score = round(precision * recall / denominator, 5) if denominator > 0 else 0.0
    return recall, precision, f_score
