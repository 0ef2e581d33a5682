"""The feedback BioASQ hands out after a Synergy round (``python -m scorer synergy-feedback``).

After each round the experts' judgements of what the systems returned are released, with
no word of which system returned what, so systems can use them in the next round.  The
file has the form of BioASQ's Synergy feedback files (``feedback_accompanying_round_<n>``)
as their readers use it: ``{"questions": [...]}`` with, per question of the round's gold
(in its order):

* ``id``, ``body``, ``type`` and ``answerReady`` (the gold's; ready when it does not say);
* ``documents``: ``[{"id": PMID, "golden": true|false}]``: the gold's documents (golden),
  then the pool's documents the judgements accepted and the gold does not list yet
  (golden), then those they rejected (not golden), each in the pool's order;
* ``snippets``: the gold's snippets, each with ``"golden": true``, then the pool's
  accepted snippets in the form the gold gets them (the part the assessors kept,
  :func:`scorer.assessment.merge.gold_snippet`) unless the gold already holds those
  offsets, then the rejected ones as they were pooled (``"golden": false``), each in the
  pool's order (the order in which ``assess merge`` appends accepted items to the gold);
* for a question ready to answer, the gold's ``exact_answer`` and ``ideal_answer``.

An item is *decided* when the majority rule of :func:`scorer.assessment.merge.decide`
accepts it, or when assessors judged it and it is neither accepted, tied, nor one of two
conflicting texts accepted together; tied, conflicting and unjudged items are left out
(nothing is known of them).  The same gold, pool and judgements give the same file
whether or not ``assess merge`` has already added the accepted items to the gold.
"""
from __future__ import annotations

from collections.abc import Mapping

from scorer.assessment.judgements import pool_items
from scorer.assessment.merge import GOLD_URL, Decisions, gold_snippet
from scorer.measures.snippets import pubmed_id

SNIPPET_FIELDS = ("document", "beginSection", "endSection", "offsetInBeginSection", "offsetInEndSection", "text")


def _place(snippet: Mapping) -> tuple:
    return (pubmed_id(str(snippet.get("document", ""))), snippet.get("beginSection"), snippet.get("endSection"),
            snippet.get("offsetInBeginSection"), snippet.get("offsetInEndSection"))


def synergy_feedback(gold: Mapping, pool: Mapping, decisions: Decisions) -> dict:
    """The feedback file of a round (see the module doc) from its gold JSON value, its
    pool and the decisions of the assessors' judgements."""
    items = pool_items(pool)
    undecided = set(decisions.ties) | set(decisions.conflicts) | set(decisions.unjudged)
    by_question: dict[str, list[tuple[str, dict, bool]]] = {}
    for key, (kind, item, question) in items.items():
        if kind in ("documents", "snippets") and key not in undecided:
            by_question.setdefault(question["id"], []).append((kind, item, key in decisions.accepted))
    out, seen = [], set()
    for question in gold.get("questions", []):
        qid = question.get("id") if isinstance(question, dict) else None
        if not isinstance(qid, str) or qid in seen:
            continue
        seen.add(qid)
        ready = question.get("answerReady", True) is not False
        entry: dict = {"id": qid, "body": question.get("body"), "type": question.get("type"), "answerReady": ready}
        documents = [{"id": pubmed_id(d), "golden": True} for d in question.get("documents", []) if isinstance(d, str)]
        snippets = [{**{f: s[f] for f in SNIPPET_FIELDS if f in s}, "golden": True}
                    for s in question.get("snippets", []) if isinstance(s, dict)]
        listed = {d["id"] for d in documents}
        places = {_place(s) for s in snippets}
        decided = by_question.get(qid, [])
        for kind, item, accepted in [d for d in decided if d[2]] + [d for d in decided if not d[2]]:
            if kind == "documents" and item["pmid"] not in listed:
                listed.add(item["pmid"])
                documents.append({"id": item["pmid"], "golden": accepted})
            elif kind == "snippets":
                accepting = decisions.accepted.get(f"{qid}/{item['item']}", [])
                snippet = gold_snippet(item, accepting) if accepted else {
                    "document": GOLD_URL + item["pmid"], **{f: item[f] for f in SNIPPET_FIELDS[1:]}}
                if _place(snippet) not in places:
                    places.add(_place(snippet))
                    snippets.append({**snippet, "golden": accepted})
        entry["documents"], entry["snippets"] = documents, snippets
        if ready:
            for member in ("exact_answer", "ideal_answer"):
                if member in question:
                    entry[member] = question[member]
        out.append(entry)
    return {"questions": out}
