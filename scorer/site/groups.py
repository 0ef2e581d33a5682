"""What a board says about significance: the group column of each tested measure, the
one line naming the systems that could be first, and every pair's tests as a download.

The tests themselves (max-T step-down over all pairs of a batch, ``docs/ranking.md``) are
in the batch table's ``significance`` records; this module only words and lays them out.
"""
from __future__ import annotations

from scorer.site import labels
from scorer.site.results import Ranking
from scorer.site.tables import Cell, Column, TableView, text_cell

#: The systems named in the "could be first" line of a measure; more are counted.
NAMED_FIRST = 12
#: Rows of the pairwise table the page shows (the downloads have every pair).
PAIRS_SHOWN = 30
#: The pairwise table's slug is its board view's plus this; its downloads (no LaTeX: a
#: board of 250 systems has 31,125 pairs per measure).
PAIRS_SUFFIX = "-pairs"
PAIRS_FORMATS = ("csv", "json")

LETTERS_TITLE = "systems sharing a letter are not significantly different"
TIERS_TITLE = ("T1: no system is significantly better (could be first); T2: only T1 "
               "systems are significantly better; and so on")


def tested(ranking: Ranking) -> list[str]:
    """The components of ``ranking`` with groups (tested, at least two systems)."""
    return [m for m in ranking.components if ranking.significance.get(m, {}).get("groups")]


def group_column(ranking: Ranking, measure: str, label: str) -> Column:
    """The column of a measure's groups: letters or tiers, as the test record says."""
    sig = ranking.significance.get(measure, {})
    meaning = TIERS_TITLE if sig.get("display") == "tiers" else LETTERS_TITLE
    together = f", over the {sig['family']} measures of the ranking together" if sig.get("family", 1) > 1 else ""
    return Column(f"group.{measure}", label, secondary=True,
                  title=f"significance group on {measure} (max-T step-down, α = {sig.get('alpha')}{together}): {meaning}")


def could_be_first(ranking: Ranking, system_name) -> str:
    """One sentence per tested measure: the systems no system is significantly better than
    on it (their rank set on it starts at 1), best first; for a ranking over several
    measures first one sentence for the ranking itself (the systems whose rank set starts
    at 1).  ``system_name``: key -> display name.  "" when nothing is tested."""
    sentences = []
    overall = ranking.rank_sets.get("top_set") or []
    if len(ranking.components) > 1 and overall:
        sentences.append(_first_sentence("this ranking", overall, len(ranking.rank_sets.get("order", overall)),
                                         system_name, "the rank set starts at 1"))
    for measure in tested(ranking):
        sig = ranking.significance[measure]
        top = sig.get("top_set") or []
        if top:
            sentences.append(_first_sentence(labels.measure_label(measure), top, len(sig.get("order", top)),
                                             system_name, "no system significantly better"))
    return " ".join(sentences)


def _first_sentence(what: str, top: list, total: int, system_name, meaning: str) -> str:
    """"Could be first on <what>: ..." for the ``top`` of ``total`` systems."""
    names = [system_name(k) for k in top[:NAMED_FIRST]]
    more = f" and {len(top) - NAMED_FIRST} more (T1 in the group column)" if len(top) > NAMED_FIRST else ""
    if len(top) == 1:
        return f"Could be first on {what}: only {names[0]}; every other system is significantly below it."
    if len(top) == total:
        return f"Could be first on {what}: any of the {len(top)} systems; none is significantly below another."
    return f"Could be first on {what} ({meaning}, {len(top)} of {total}): {', '.join(names)}{more}."


def pairs_view(board_slug: str, ranking: Ranking, system_name) -> TableView:
    """Every pair tested on each measure of ``ranking``: raw and adjusted p-value and the
    decision, the pairs of the best systems first (order of the test); the page shows the
    first :data:`PAIRS_SHOWN` rows, the CSV and JSON downloads all of them."""
    view = TableView(slug=board_slug + PAIRS_SUFFIX, caption="Every pair tested: raw and adjusted p-values",
                     columns=[Column("measure", "Measure", row_header=True, title="the measure the pair was tested on"),
                              Column("system_a", "System A", title="the better system of the pair on the measure"),
                              Column("system_b", "System B", title="the other system"),
                              Column("p", "p", numeric=True, title="paired randomisation test of the pair alone"),
                              Column("p_adjusted", "p (adjusted)", numeric=True,
                                     title="max-T step-down over all pairs of the batch and measure, times the "
                                           "number of measures the ranking tests together (at most 1)"),
                              Column("different", "Different",
                                     title="adjusted p below α, or implied by two such pairs (a above b above c)")],
                     empty="No pair was tested.", formats=PAIRS_FORMATS, limit=PAIRS_SHOWN)
    for measure in tested(ranking):
        sig = ranking.significance[measure]
        position = {s: i for i, s in enumerate(sig.get("order", []))}
        for pair in sorted(sig.get("pairs", []), key=lambda p: sorted(position.get(s, 0) for s in p["systems"])):
            a, b = sorted(pair["systems"], key=lambda s: position.get(s, 0))
            view.add([text_cell(labels.measure_label(measure)), Cell(a, system_name(a), title=a),
                      Cell(b, system_name(b), title=b), p_cell(pair["p"]), p_cell(pair["p_adjusted"]),
                      Cell(bool(pair.get("different")), "yes" if pair.get("different") else "no")])
    return view


def p_cell(p) -> Cell:
    """A p-value: 4 decimals, or 1 significant digit below 1e-4; "-" for none."""
    return Cell(p, "-" if p is None else (f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"))
