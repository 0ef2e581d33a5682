"""Judgements -> the batch's next gold version and expert scores (``scorer assess merge``).

**Decisions.**  An item is *accepted* when more than half of the assessors who judged it
accept it: a document or snippet judged relevant, an exact answer judged correct or a
synonym.  A tie is not accepted and is reported (an organizer breaks it by adding a
judgement).  Items nobody judged are left out and counted.  Two accepted snippets that
name each other in ``conflicts_with`` (the runs gave different texts for the same
characters, :func:`scorer.assessment.pool.readings`) are both held back and reported: the
document has one text there, and the assessors are to accept only the reading it holds.

**The next gold** (a copy of the current gold value with additions; nothing is removed):

* an accepted document is appended to the question's ``documents`` as
  ``http://www.ncbi.nlm.nih.gov/pubmed/<PMID>`` (the gold files' form);
* an accepted snippet is appended to ``snippets`` with its sections, its offsets (the
  union of the spans the accepting assessors gave, else the whole pooled snippet) and
  the text of those offsets;
* an accepted exact answer is added as a synonym of gold entry *k* when most accepting
  assessors called it a synonym of *k* (ties: the smaller *k*), else as a new entry
  ``[text]`` (for a factoid question a new entry is one more correct answer; for a list
  question one more entity to find, as BioASQ's final gold does).

**Expert scores** of ideal answers: each of the four criteria is averaged over the
assessors who scored the item, and every system that returned that text gets those
scores (the pool's key file says which), in the format of ``manual.json``.

**Agreement.**  For each pair of assessors, Cohen's kappa on the binary decisions of the
items both judged: kappa = (p_o - p_e) / (1 - p_e), with p_o the share of items on which
they agree and p_e = p_yes(A) p_yes(B) + p_no(A) p_no(B) from each one's own shares.
When p_e = 1 (both gave one and the same answer to everything) kappa is undefined: NaN.
"""
from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from scorer.assessment.judgements import pool_items
from scorer.assessment.pool import merged_ranges

GOLD_URL = "http://www.ncbi.nlm.nih.gov/pubmed/"
MANUAL_CRITERIA = ("recall", "precision", "repetition", "readability")


def accepts(judgement: Mapping) -> bool | None:
    """The binary decision a judgement makes (None for an ideal answer's scores)."""
    if "relevant" in judgement:
        return bool(judgement["relevant"])
    if "verdict" in judgement:
        return judgement["verdict"] != "wrong"
    return None


@dataclass
class Decisions:
    """What the judgements decide: accepted items (key -> the accepting judgements),
    ties, conflicting readings accepted together, unjudged items, and the averaged
    expert scores of ideal answers."""

    accepted: dict[str, list[Mapping]] = field(default_factory=dict)
    ties: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    unjudged: list[str] = field(default_factory=list)
    scores: dict[str, dict[str, float]] = field(default_factory=dict)


def decide(pool: Mapping, judgements: Sequence[Mapping]) -> Decisions:
    """The decisions of several assessors' judgements (each checked against ``pool``)."""
    decisions = Decisions()
    items = pool_items(pool)
    for key, (kind, _, _) in items.items():
        given = [j["judgements"][key] for j in sorted(judgements, key=lambda j: j["assessor"])
                 if key in j["judgements"]]
        if not given:
            decisions.unjudged.append(key)
        elif kind == "ideal_answers":
            decisions.scores[key] = {c: sum(g[c] for g in given) / len(given) for c in MANUAL_CRITERIA}
        else:
            yes = [g for g in given if accepts(g)]
            if 2 * len(yes) > len(given):
                decisions.accepted[key] = yes
            elif 2 * len(yes) == len(given):
                decisions.ties.append(key)
    for key in list(decisions.accepted):
        question = key.rpartition("/")[0]
        if any(f"{question}/{other}" in decisions.accepted for other in items[key][1].get("conflicts_with", ())):
            decisions.conflicts.append(key)
    for key in decisions.conflicts:
        del decisions.accepted[key]
    return decisions


def next_gold(gold: Mapping, pool: Mapping, decisions: Decisions) -> dict:
    """A copy of the gold JSON value with the accepted items added (see the module doc)."""
    result = copy.deepcopy(dict(gold))
    questions: dict[object, dict] = {}
    for question in result.get("questions", []):
        questions.setdefault(question.get("id"), question)
    for key, (kind, item, pooled) in pool_items(pool).items():
        if key not in decisions.accepted or pooled["id"] not in questions:
            continue
        target = questions[pooled["id"]]
        accepting = decisions.accepted[key]
        if kind == "documents":
            target.setdefault("documents", []).append(GOLD_URL + item["pmid"])
        elif kind == "snippets":
            target.setdefault("snippets", []).append(gold_snippet(item, accepting))
        elif kind == "exact_answers":
            _add_answer(target, item["text"], accepting)
    return result


def gold_snippet(item: Mapping, accepting: Sequence[Mapping]) -> dict:
    """The accepted part of a pooled snippet: the union of the spans given (their hull
    when they do not touch), else the whole snippet; its text cut from the pooled text."""
    spans = merged_ranges(tuple(j["span"]) for j in accepting if "span" in j)
    begin, end = (spans[0][0], spans[-1][1]) if spans else (item["offsetInBeginSection"], item["offsetInEndSection"])
    start = begin - item["offsetInBeginSection"]
    text = item["text"][start:start + end - begin] if item.get("text_complete", True) else item["text"]
    return {"document": GOLD_URL + item["pmid"], "beginSection": item["beginSection"],
            "endSection": item["endSection"], "offsetInBeginSection": begin, "offsetInEndSection": end,
            "text": text}


def _add_answer(question: dict, text: str, accepting: Sequence[Mapping]) -> None:
    entries = question.get("exact_answer")
    entries = [e if isinstance(e, list) else [e] for e in entries] if isinstance(entries, list) else []
    votes = Counter(j["of"] for j in accepting if j.get("verdict") == "synonym" and j["of"] < len(entries))
    synonyms = sum(votes.values())
    if votes and 2 * synonyms > len(accepting):
        best = max(votes.values())
        entries[min(k for k, n in votes.items() if n == best)].append(text)
    else:
        entries.append([text])
    question["exact_answer"] = entries


def manual_scores(key: Mapping, decisions: Decisions, phase: str, earlier: Mapping | None = None) -> dict:
    """The expert-scores file (``manual.json``) of the runs of one phase: the earlier
    file's scores, with the averaged scores of every judged ideal answer given to each
    system of that phase that returned it (the key names runs ``<phase>/<team>/<system>``)."""
    systems: dict[str, dict[str, dict]] = copy.deepcopy(dict((earlier or {}).get("systems", {})))
    for item_key, scores in sorted(decisions.scores.items()):
        question = item_key.rpartition("/")[0]
        for run in key["items"].get(item_key, ()):
            run_phase, _, system = run.partition("/")
            if run_phase == phase:
                systems.setdefault(system, {})[question] = dict(scores)
    return {"systems": {s: dict(sorted(q.items())) for s, q in sorted(systems.items())}}


def cohen_kappa(first: Sequence[bool], second: Sequence[bool]) -> float:
    """Cohen's kappa of two assessors' binary decisions on the same items (NaN when
    undefined: no item, or p_e = 1)."""
    n = len(first)
    if n == 0 or n != len(second):
        return math.nan
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    yes_a, yes_b = sum(first) / n, sum(second) / n
    expected = yes_a * yes_b + (1 - yes_a) * (1 - yes_b)
    return math.nan if expected == 1 else (observed - expected) / (1 - expected)


def agreement(judgements: Sequence[Mapping]) -> list[dict]:
    """Cohen's kappa of every pair of assessors over the items both decided."""
    out = []
    ordered = sorted(judgements, key=lambda j: j["assessor"])
    for a, b in combinations(ordered, 2):
        both = [k for k in sorted(a["judgements"]) if k in b["judgements"]
                and accepts(a["judgements"][k]) is not None]
        first = [bool(accepts(a["judgements"][k])) for k in both]
        second = [bool(accepts(b["judgements"][k])) for k in both]
        kappa = cohen_kappa(first, second)
        out.append({"assessors": [a["assessor"], b["assessor"]], "items": len(both),
                    "agreement": sum(x == y for x, y in zip(first, second, strict=True)) / len(both) if both else None,
                    "kappa": None if math.isnan(kappa) else kappa})
    return out
