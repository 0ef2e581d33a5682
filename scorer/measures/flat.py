"""Task A flat (multi-label) measures: accuracy, example-based, macro and micro P/R/F.

Documents are lists of integer label ids, document k of the gold against document k of
the run (:class:`LabelLists`).  Everything is vectorised over all documents at once.

``official_flat`` reproduces BioASQ's ``evaluation.Evaluator`` (quirks included);
``reference_flat`` follows the textbook definitions.  Both count with one function
(:func:`_compared`), the flavor choosing what it passes (gold repeats kept or dropped,
the label domain) and how it reads undefined ratios; only the Evaluator's macro averages
stay a separate emulation (:func:`_official_macro`).  ``docs/measures-taska.md`` lists
every difference with an example.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from scorer.core.errors import Problem, ScorerError
from scorer.measures.arrays import expand_ranges, sorted_member, sorted_unique


class LabelLists:
    """The label ids of n documents in CSR form: document k has ``labels[ptr[k]:ptr[k+1]]``."""

    def __init__(self, ptr: np.ndarray, labels: np.ndarray):
        self.ptr = ptr
        self.labels = labels

    @classmethod
    def from_lists(cls, lists: Iterable[Sequence[int] | np.ndarray], *, distinct: bool = False) -> LabelLists:
        """From one sequence of ids per document; ``distinct`` drops repeats within a document."""
        lists = list(lists)
        sizes = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
        result = cls.from_sizes(sizes, np.fromiter((v for x in lists for v in x), dtype=np.int64,
                                                   count=int(sizes.sum())))
        return result.distinct() if distinct else result

    def __len__(self) -> int:
        return len(self.ptr) - 1

    def sizes(self) -> np.ndarray:
        return np.diff(self.ptr)

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """``(documents, labels)``: one entry per label occurrence."""
        return np.repeat(np.arange(len(self)), self.sizes()), self.labels

    def row(self, k: int) -> np.ndarray:
        return self.labels[self.ptr[k]:self.ptr[k + 1]]

    def distinct(self) -> LabelLists:
        """The same documents without repeated labels (each row sorted)."""
        docs, labels = self.pairs()
        width = int(labels.max()) + 1 if len(labels) else 1
        codes = sorted_unique(docs * width + labels)
        ptr = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(np.bincount(codes // width, minlength=len(self)), out=ptr[1:])
        return LabelLists(ptr, codes % width)

    @classmethod
    def from_sizes(cls, sizes: Sequence[int] | np.ndarray, labels: Sequence[int] | np.ndarray) -> LabelLists:
        """From the number of labels of each document and all labels, document after document."""
        ptr = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=ptr[1:])
        return cls(ptr, np.asarray(labels, dtype=np.int64))

    def take(self, rows: np.ndarray) -> LabelLists:
        """The documents ``rows`` (in that order)."""
        sizes = self.sizes()[rows]
        return LabelLists.from_sizes(sizes, self.labels[expand_ranges(self.ptr[:-1][rows], sizes)[1]])

    def resized(self, n: int) -> LabelLists:
        """The first ``n`` documents, empty documents added past the end."""
        ptr = self.ptr[:n + 1]
        ptr = np.concatenate([ptr, np.full(n + 1 - len(ptr), ptr[-1])])
        return LabelLists(ptr, self.labels[:ptr[-1]])

    def keeping(self, mask: np.ndarray) -> LabelLists:
        """The same documents with only the labels where ``mask`` (one flag per label) is true."""
        return LabelLists.from_sizes(np.bincount(self.pairs()[0][mask], minlength=len(self)), self.labels[mask])


def ratio(numerator, denominator) -> np.ndarray:
    """Elementwise IEEE division (0/0 = NaN, x/0 = inf), as Java and C++ compute it."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(numerator, dtype=np.float64) / np.asarray(denominator, dtype=np.float64)


def f_measure(precision, recall) -> np.ndarray:
    """2PR/(P+R); 0 where P = R = 0; NaN where P or R is NaN."""
    precision, recall = np.asarray(precision, dtype=np.float64), np.asarray(recall, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 2 * precision * recall / (precision + recall)
    return np.where((precision == 0) & (recall == 0), 0.0, value)


def _hits(gold: LabelLists, pred_distinct: LabelLists) -> tuple[np.ndarray, np.ndarray]:
    """For every gold occurrence: is it among its document's predictions?  And for every
    prediction: is it among its document's gold labels?"""
    width = int(max(gold.labels.max(initial=0), pred_distinct.labels.max(initial=0))) + 1
    g_docs, g_labels = gold.pairs()
    p_docs, p_labels = pred_distinct.pairs()
    g_codes, p_codes = g_docs * width + g_labels, p_docs * width + p_labels
    return sorted_member(g_codes, sorted_unique(p_codes)), sorted_member(p_codes, sorted_unique(g_codes))


def _compared(gold: LabelLists, pred: LabelLists, gold_labels: np.ndarray):
    """What both flavors count: ``(per_document, pred_labels, tp, fp, fn)``.

    ``pred`` is distinct; ``gold`` is as the flavor keeps it (official: repeats kept,
    reference: distinct).  Per document k, with c_k = gold occurrences found among the
    predictions: accuracy = c/|g ∪ p| (distinct labels), EbP = c/|p|, EbR = c/|g|,
    EbF = 2c/(|g|+|p|), as IEEE ratios (0/0 = NaN, for the flavor to read).  Per label
    of the sorted domain ``gold_labels`` ∪ predicted labels: a prediction is a TP if its
    label is in its gold line, else an FP; every gold occurrence not predicted is an FN.
    """
    n = len(gold)
    g_hit, p_hit = _hits(gold, pred)
    g_docs, g_labels = gold.pairs()
    p_docs, p_labels = pred.pairs()
    common = np.bincount(g_docs, weights=g_hit, minlength=n)
    g_size, p_size = gold.sizes(), pred.sizes()
    union = gold.distinct().sizes() + p_size - np.bincount(p_docs, weights=p_hit, minlength=n)
    per_document = {
        "flat.accuracy": ratio(common, union),
        "flat.example_precision": ratio(common, p_size),
        "flat.example_recall": ratio(common, g_size),
        "flat.example_f1": ratio(2 * common, g_size + p_size),
    }
    labels = sorted_unique(np.concatenate([gold_labels, p_labels]))

    def index(x):
        return np.searchsorted(labels, x)

    tp = np.bincount(index(p_labels[p_hit]), minlength=len(labels))
    fp = np.bincount(index(p_labels[~p_hit]), minlength=len(labels))
    fn = np.bincount(index(g_labels[~g_hit]), minlength=len(labels))
    return per_document, p_labels, tp, fp, fn


def official_flat(gold: LabelLists, pred: LabelLists) -> tuple[dict, dict]:
    """BioASQ ``Evaluator TRUE SYS``: ``(measures, per_document)``.

    Line k of ``pred`` (repeats dropped) is compared with line k of ``gold`` (repeats
    kept) by :func:`_compared`; N = number of pred lines, each example-based measure is
    the sum of its per-document values over N (NaN for N = 0; a NaN value propagates).
    The label domain is the labels of the whole gold file and the predicted labels.
    MaP = Σ_{TP+FP>0} TP/(TP+FP) / |distinct predicted labels|;
    MaR = Σ_{TP+FN>0} TP/(TP+FN) / |distinct labels of the whole gold file|;
    MaF visits all labels by increasing id, keeping the previous label's P (R) when a
    label has no TP+FP (TP+FN), adds 2PR/(P+R) unless P = R = 0, and divides by the same
    gold count; MiP/MiR/MiF from the summed counts (MiF NaN without any TP).
    An empty line or more pred than gold lines makes the tool print no numbers:
    :class:`ScorerError`.
    """
    n = len(pred)
    if n > len(gold):
        raise _abort(f"the run has {n} lines but the gold only {len(gold)}")
    for lists, role in ((gold, "gold"), (pred, "run")):
        empty = np.flatnonzero(lists.sizes() == 0)
        if len(empty):
            raise _abort(f"line {empty[0] + 1} of the {role} has no label")
    gold_labels_all = sorted_unique(gold.labels)
    per_document, p_labels, tp, fp, fn = _compared(
        LabelLists(gold.ptr[:n + 1], gold.labels[:gold.ptr[n]]), pred.distinct(), gold_labels_all)
    measures = {name: float(values.sum() / n) if n else float("nan") for name, values in per_document.items()}
    measures.update(_official_macro(tp, fp, fn, len(sorted_unique(p_labels)), len(gold_labels_all)))
    micro_p, micro_r = ratio(tp.sum(), tp.sum() + fp.sum()), ratio(tp.sum(), tp.sum() + fn.sum())
    measures["flat.micro_precision"], measures["flat.micro_recall"] = float(micro_p), float(micro_r)
    with np.errstate(invalid="ignore", divide="ignore"):
        measures["flat.micro_f1"] = float(2 * micro_p * micro_r / (micro_p + micro_r))
    return measures, per_document


def _official_macro(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, n_pred_labels: int,
                    n_gold_labels: int) -> dict:
    """The Evaluator's MaP, MaR, MaF (see :func:`official_flat`).  Not the reference's
    means with other parameters: the sums run over other subsets of labels (and the MaF
    carries values forward), so sharing them would change the rounding of the sums."""
    precision, recall = ratio(tp, tp + fp), ratio(tp, tp + fn)
    measures = {"flat.macro_precision": float(ratio(precision[tp + fp > 0].sum(), n_pred_labels)),
                "flat.macro_recall": float(ratio(recall[tp + fn > 0].sum(), n_gold_labels))}
    carried_p, carried_r = _carry_forward(precision, tp + fp > 0), _carry_forward(recall, tp + fn > 0)
    adds = (carried_p != 0) | (carried_r != 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        macro_f = 2 * carried_p[adds] * carried_r[adds] / (carried_p[adds] + carried_r[adds])
    measures["flat.macro_f1"] = float(ratio(macro_f.sum(), n_gold_labels))
    return measures


def _carry_forward(values: np.ndarray, defined: np.ndarray) -> np.ndarray:
    """``values`` where ``defined``, else the last defined value before (0 at the start)."""
    last = np.where(defined, np.arange(len(values)), -1)
    np.maximum.accumulate(last, out=last)
    return np.where(last >= 0, values[np.maximum(last, 0)], 0.0)


def _abort(message: str) -> ScorerError:
    return ScorerError(Problem(
        code="official-tool-abort",
        message=f"the official Evaluator prints no numbers for this input: {message}",
        fix="give every document at least one known label and at most one run line per gold line"))


def reference_flat(gold: LabelLists, pred: LabelLists) -> tuple[dict, dict]:
    """Textbook multi-label measures: ``(measures, per_document)``.

    Both sides are sets (repeats dropped) and counted by :func:`_compared`.  Per
    document: accuracy = |g∩p|/|g∪p| (Jaccard), EbP = |g∩p|/|p| (0 for an empty
    prediction), EbR = |g∩p|/|g|, EbF = 2|g∩p|/(|g|+|p|), 0 where undefined; means over
    the documents (NaN for none).  Per label l of L = labels in gold or run:
    P_l = TP/(TP+FP) (0 if never predicted), R_l = TP/(TP+FN) (0 if never in gold),
    F_l = 2P_lR_l/(P_l+R_l) (0 if both 0); MaP, MaR, MaF = means over L (NaN for no
    label).  MiP = ΣTP/Σ(TP+FP), MiR = ΣTP/Σ(TP+FN), MiF = 2·MiP·MiR/(MiP+MiR), 0 when
    undefined.
    """
    n = len(gold)
    gold = gold.distinct()
    per_document, _, tp, fp, fn = _compared(gold, pred.distinct(), gold.labels)
    per_document = {name: _zero_if_undefined(values) for name, values in per_document.items()}
    measures = {name: float(values.mean()) if n else float("nan") for name, values in per_document.items()}
    precision = _zero_if_undefined(ratio(tp, tp + fp))
    recall = _zero_if_undefined(ratio(tp, tp + fn))
    for name, values in (("precision", precision), ("recall", recall), ("f1", f_measure(precision, recall))):
        measures[f"flat.macro_{name}"] = float(values.mean()) if len(tp) else float("nan")
    micro_p = float(_zero_if_undefined(ratio(tp.sum(), tp.sum() + fp.sum())))
    micro_r = float(_zero_if_undefined(ratio(tp.sum(), tp.sum() + fn.sum())))
    measures["flat.micro_precision"], measures["flat.micro_recall"] = micro_p, micro_r
    measures["flat.micro_f1"] = float(f_measure(micro_p, micro_r))
    return measures, per_document


def _zero_if_undefined(values: np.ndarray) -> np.ndarray:
    """0 where a ratio is 0/0 (an empty prediction or label never predicted)."""
    return np.nan_to_num(values, nan=0.0)
