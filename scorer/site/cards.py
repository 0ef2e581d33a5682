"""Run cards on the boards: compact markers, the team's number of runs, the card's fields
in the downloads, and the pre-built filtered views ("open weights only", "primary runs only",
"no earlier BioASQ test data", "no web search or agents").

A card (:mod:`scorer.formats.cards`) never changes a rank: a filtered view shows the rows
of the full board that match, with their ranks on the full board.  A system without a card,
or a card without the field a filter needs, is "not disclosed" and is left out of that view.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from scorer.formats.cards import EARLIER_BIOASQ, EXTERNAL_DATA, INFERENCE, WEIGHTS, Card
from scorer.site.tables import Cell, Column, TableView, count_cell

NOT_DISCLOSED = "not disclosed"


@dataclass(frozen=True)
class CardFilter:
    name: str                                     # in the page's path: <board>.<name>.html
    label: str                                    # "open weights only"
    keep: Callable[[Card, str, str], bool]        # (card, task, batch) -> shown


FILTERS = (CardFilter("open", "open weights only", lambda card, task, batch: card.weights == "open"),
           CardFilter("primary", "primary runs only", lambda card, task, batch: card.is_primary(task, batch)),
           CardFilter("no-bioasq", "no earlier BioASQ test data", lambda card, task, batch: card.without_earlier_bioasq),
           CardFilter("no-tools", "no web search or agents",
                      lambda card, task, batch: card.web_search is False and card.agents is False))

TEAM_RUNS_COLUMN = Column("team_runs", "Runs", numeric=True, secondary=True,
                          title="runs the team sent to this leaderboard (Task A batch: its systems with a run)")
#: The card's fields in the downloads only.
CARD_FIELDS = ("model", "model_version", "size", "weights", "inference", "knowledge_cutoff", "web_search", "agents",
               "external_data", "earlier_bioasq", "corpus", "primary", "code", "paper")
DOWNLOAD_COLUMNS = [Column(f"card.{f}", f"Card: {f.replace('_', ' ')}", page=False) for f in CARD_FIELDS]


@dataclass(frozen=True)
class Disclosure:
    """What the boards of one table say about its runs: the cards of the challenge, the
    table's task and batch (a card names its primary runs per batch), and how many runs
    each team sent to the table."""

    cards: dict
    task: str
    batch: str
    team_runs: dict

    def columns(self) -> list[Column]:
        """The team's runs (on the page) and the card's fields (downloads only)."""
        return [TEAM_RUNS_COLUMN, *DOWNLOAD_COLUMNS]

    def cells(self, key: str) -> list[Cell]:
        """The cells of :meth:`columns` for the system ``key``."""
        card = self.cards.get(key)
        runs = count_cell(self.team_runs.get(key.split("/", 1)[0]))
        return [runs, *(self._fields(card) if card else [Cell(None, "") for _ in CARD_FIELDS])]

    def note(self, key: str) -> tuple[str, str]:
        """(markers, the card in words) of the system ``key`` for its Notes cell."""
        card = self.cards.get(key)
        if card is None:
            return NOT_DISCLOSED, "this system has no run card"
        return markers(card, self.task, self.batch), card_text(card, self.task, self.batch)

    def _fields(self, card: Card) -> list[Cell]:
        values = card.to_json()
        for listed in ("external_data", "earlier_bioasq"):
            items = getattr(card, listed)
            values[listed] = ("; ".join(items) if items else "none") if items is not None else None
        values["primary"] = card.is_primary(self.task, self.batch)
        return [Cell(values[f], "" if values[f] is None else str(values[f])) for f in CARD_FIELDS]

    def keeps(self, card_filter: CardFilter, key: str | None) -> bool:
        """Whether a row stays in the filtered view (a row that is no system's, e.g. a
        reference row, always stays)."""
        if key is None:
            return True
        card = self.cards.get(key)
        return card is not None and card_filter.keep(card, self.task, self.batch)


def markers(card: Card, task: str, batch: str) -> str:
    """The compact text of a card on a board: "open · 400M · BioASQ gold · primary"."""
    parts = [{"open": "open", "api": "API", "closed": "closed"}[card.weights] if card.weights else "weights ?"]
    if card.size:
        parts.append(card.size)
    if card.external_data:
        how = f" ({', '.join(card.earlier_bioasq)})" if card.earlier_bioasq else ""  # "BioASQ gold (prompts)"
        parts.append(" + ".join({"bioasq-gold": f"BioASQ gold{how}", "other-qa": "other QA", "other": "other data"}[d]
                                for d in card.external_data))
    parts += [what for what, used in (("web search", card.web_search), ("agents", card.agents)) if used]
    if card.is_primary(task, batch):
        parts.append("primary")
    return " · ".join(parts)


def card_text(card: Card, task: str, batch: str) -> str:
    """The card in words, one field after the other, "not disclosed" for the missing ones."""
    def said(value) -> str:
        return value if value else NOT_DISCLOSED
    return "; ".join([f"model: {said(card.model)}", f"model version: {said(card.model_version)}",
                      f"size: {said(card.size)}",
                      f"weights: {WEIGHTS[card.weights] if card.weights else NOT_DISCLOSED}",
                      f"runs made: {INFERENCE[card.inference] if card.inference else NOT_DISCLOSED}",
                      f"knowledge cutoff: {said(card.knowledge_cutoff)}",
                      f"web search at inference: {yes_no(card.web_search)}", f"agents at inference: {yes_no(card.agents)}",
                      f"external data: {_external(card)}", f"earlier BioASQ test sets: {_earlier(card)}",
                      f"corpus: {said(card.corpus)}",
                      f"primary run here: {'yes' if card.is_primary(task, batch) else 'no'}"])


def yes_no(value: bool | None) -> str:
    """"yes", "no", or "not disclosed" for None."""
    return NOT_DISCLOSED if value is None else "yes" if value else "no"


def _external(card: Card) -> str:
    """"earlier BioASQ gold, other QA data", "none", or "not disclosed"."""
    if card.external_data is None:
        return NOT_DISCLOSED
    return ", ".join(EXTERNAL_DATA[d] for d in card.external_data) or "none"


def _earlier(card: Card) -> str:
    """"used in training, in prompts", "not used", or "not disclosed"."""
    if card.earlier_bioasq is None:
        return NOT_DISCLOSED
    return "used " + ", ".join(EARLIER_BIOASQ[u] for u in card.earlier_bioasq) if card.earlier_bioasq else "not used"


def card_rows(card: Card | None) -> list[tuple[str, str, str | None]]:
    """(label, text, link) of each field of a card for a run or system page ("not disclosed"
    for every field without a card)."""
    if card is None:
        return [("Run card", NOT_DISCLOSED, None)]
    primary = ("every batch it enters" if card.primary is True else
               ", ".join(card.primary) if card.primary else "not named")
    return [("Model", card.model or NOT_DISCLOSED, None), ("Model version", card.model_version or NOT_DISCLOSED, None),
            ("Size", card.size or NOT_DISCLOSED, None),
            ("Weights", WEIGHTS[card.weights] if card.weights else NOT_DISCLOSED, None),
            ("Runs made", INFERENCE[card.inference] if card.inference else NOT_DISCLOSED, None),
            ("Knowledge cutoff", card.knowledge_cutoff or NOT_DISCLOSED, None),
            ("Web search at inference", yes_no(card.web_search), None),
            ("Agents or tools at inference", yes_no(card.agents), None),
            ("External data", _external(card), None),
            ("Earlier BioASQ test sets (public gold) in training or prompts", _earlier(card), None),
            ("Retrieval corpus", card.corpus or NOT_DISCLOSED, None),
            ("Primary run of its team", primary, None),
            ("Code", card.code or NOT_DISCLOSED, card.code), ("Paper", card.paper or NOT_DISCLOSED, card.paper)]


def card_context(card: Card | None) -> dict:
    """What a run or system page shows of a card (the macro ``run_card``)."""
    return {"rows": card_rows(card), "disclosed": card is not None}


def filtered_view(view: TableView, keep: Callable[[str | None], bool]) -> TableView:
    """``view`` (and its folded tables) with the rows ``keep`` accepts by system key; no
    downloads of its own (the full board's are the data)."""
    rows = [i for i, key in enumerate(view.keys) if keep(key)]
    return replace(view, rows=[view.rows[i] for i in rows], row_css=[view.row_css[i] for i in rows],
                   keys=[view.keys[i] for i in rows], formats=(),
                   empty="No system of this board matches: its card does not say so, or it has no card.",
                   details=[filtered_view(d, keep) for d in view.details])


def team_runs(runs) -> dict[str, int]:
    """Team -> how many of its systems have a run among ``runs`` (run entries)."""
    systems: dict[str, set] = {}
    for entry in runs:
        systems.setdefault(entry.team, set()).add(entry.system)
    return {team: len(s) for team, s in systems.items()}
