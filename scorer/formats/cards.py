"""Run cards: ``submissions/cards/<team>/<system>.toml`` -> :class:`Card`.

A card says what a system's runs are: the model family, its exact version and size, open
weights or an API, whether the runs were made through an API or locally, the model's
knowledge cutoff, web search or agents at inference, the external data used and whether
earlier BioASQ test sets (whose gold is public) were used in training or prompts, the
retrieval corpus, the batches where it is the team's primary run, a link to code or a paper (``docs/submit.md``, "Say what your runs are"; the schema
is ``run-card.schema.json``).  It is the team's own file, added by a pull request like a
run; what a card leaves out (and a system without a card) is "not disclosed", which never
changes a rank.  Every problem is located (file, line, TOML path) and says how to fix it.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from scorer.core.challenge import Challenge
from scorer.core.errors import Problem, ScorerError
from scorer.formats.tomltext import rejected_at, toml_line, toml_schema_problems, toml_value

CARDS = "submissions/cards"
#: A card is a few lines; the pull-request check refuses a larger file before reading it.
MAX_CARD_BYTES = 16_000
_CARD_PATH = re.compile(r"submissions/cards/([a-z0-9][a-z0-9-]{0,63})/([a-z0-9][a-z0-9-]{0,63})\.toml")
#: The kinds of external data a card may name, as the site says them.
EXTERNAL_DATA = {"bioasq-gold": "earlier BioASQ gold", "other-qa": "other QA data", "other": "other data"}
#: The kinds of model weights, as the site says them.
WEIGHTS = {"open": "open weights", "api": "API model", "closed": "closed weights"}
#: Where the runs were made, as the site says it.
INFERENCE = {"api": "through a vendor's API", "local": "locally (hardware the team runs)"}
#: Where earlier BioASQ test sets were used, as the site says it.
EARLIER_BIOASQ = {"training": "in training", "prompts": "in prompts"}


@dataclass(frozen=True)
class Card:
    """A system's card; None (``external_data``: None) for what it does not disclose."""

    team: str
    system: str
    model: str | None = None
    model_version: str | None = None
    size: str | None = None
    weights: str | None = None
    inference: str | None = None                 # "api" or "local"
    knowledge_cutoff: str | None = None          # "2024-06" or "2024-06-01"
    web_search: bool | None = None
    agents: bool | None = None
    external_data: tuple[str, ...] | None = None  # () : none used
    earlier_bioasq: tuple[str, ...] | None = None  # "training", "prompts"; () : not used
    corpus: str | None = None
    primary: bool | tuple[str, ...] = False      # True: every batch; else "<task>/<batch>" entries
    code: str | None = None
    paper: str | None = None

    @property
    def key(self) -> str:
        return f"{self.team}/{self.system}"

    @property
    def without_earlier_bioasq(self) -> bool:
        """Whether the card says that no earlier BioASQ test set was used: ``earlier_bioasq
        = []``, or, without that key, ``external_data`` given without ``bioasq-gold``
        (False when it says neither: not disclosed)."""
        if self.earlier_bioasq is not None:
            return not self.earlier_bioasq
        return self.external_data is not None and "bioasq-gold" not in self.external_data

    def is_primary(self, task: str, batch: str) -> bool:
        """Whether the system's run is its team's primary run in ``batch`` of ``task``."""
        return self.primary is True or (isinstance(self.primary, tuple) and f"{task}/{batch}" in self.primary)

    def to_json(self) -> dict:
        """The card as the downloads give it (undisclosed keys are null)."""
        return {"model": self.model, "model_version": self.model_version, "size": self.size, "weights": self.weights,
                "inference": self.inference, "knowledge_cutoff": self.knowledge_cutoff, "web_search": self.web_search,
                "agents": self.agents,
                "external_data": list(self.external_data) if self.external_data is not None else None,
                "earlier_bioasq": list(self.earlier_bioasq) if self.earlier_bioasq is not None else None,
                "corpus": self.corpus, "primary": self.primary if isinstance(self.primary, bool) else list(self.primary),
                "code": self.code, "paper": self.paper}


def card_path(team: str, system: str) -> str:
    return f"{CARDS}/{team}/{system}.toml"


def card_ref(path: str) -> tuple[str, str] | None:
    """(team, system) of a card's repository path, None for any other path."""
    match = _CARD_PATH.fullmatch(path)
    return (match.group(1), match.group(2)) if match else None


def parse_card(data: bytes, path: str, challenge: Challenge) -> Card:
    """A card's bytes at ``path`` (:func:`card_ref` must accept it) -> :class:`Card`.

    Raises :class:`ScorerError` with every problem at once: not UTF-8, not TOML, the
    schema, a ``primary`` batch that ``challenge.toml`` lacks (when the schema accepted
    ``primary``, whatever it refused elsewhere), a ``knowledge_cutoff`` that is no day of
    the calendar (2024-02-30), and ``earlier_bioasq`` and ``external_data`` that disagree
    (:func:`_bioasq_problems`).  The team and system are the path's
    (:func:`card_problems` checks that they are registered).
    """
    ref = card_ref(path)
    assert ref is not None, path
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScorerError(Problem(code="not-utf8", file=path, message=f"the card is not UTF-8 ({exc.reason})",
                                  fix="save the file as UTF-8")) from None
    value = toml_value(text, path)
    problems = toml_schema_problems(value, text, Path(path), "run-card.schema.json")
    if isinstance(value.get("primary"), list) and not rejected_at({p.pointer or "" for p in problems}, ["primary"]):
        problems += [Problem(code="unknown-batch", file=path, line=toml_line(text, ["primary"]), pointer=f"primary[{i}]",
                            message=f"primary[{i}]: {entry!r} is not a batch of challenge.toml",
                            fix='write "<task>/<batch>" with the ids of challenge.toml, e.g. "taskB/batch1"')
                    for i, entry in enumerate(value["primary"]) if not _is_batch(challenge, entry)]
    refused = {p.pointer or "" for p in problems}
    problems += _cutoff_problems(value, text, path, refused) + _bioasq_problems(value, text, path, refused)
    if problems:
        raise ScorerError(problems)
    primary = value.get("primary", False)
    external, earlier = value.get("external_data"), value.get("earlier_bioasq")
    return Card(team=ref[0], system=ref[1], model=value.get("model"), model_version=value.get("model_version"),
                size=value.get("size"), weights=value.get("weights"), inference=value.get("inference"),
                knowledge_cutoff=value.get("knowledge_cutoff"), web_search=value.get("web_search"),
                agents=value.get("agents"), external_data=tuple(external) if external is not None else None,
                earlier_bioasq=tuple(earlier) if earlier is not None else None, corpus=value.get("corpus"), primary=primary if isinstance(primary, bool) else tuple(primary),
                code=value.get("code"), paper=value.get("paper"))


def _cutoff_problems(value: dict, text: str, path: str, refused: set[str]) -> list[Problem]:
    """``knowledge_cutoff`` as a full date that the calendar lacks ("2024-02-30"; the
    schema's pattern checks the form, not the days of the month)."""
    cutoff = value.get("knowledge_cutoff")
    if not isinstance(cutoff, str) or len(cutoff) != 10 or rejected_at(refused, ["knowledge_cutoff"]):
        return []
    try:
        date.fromisoformat(cutoff)
    except ValueError:
        return [Problem(code="invalid-date", file=path, line=toml_line(text, ["knowledge_cutoff"]),
                        pointer="knowledge_cutoff", message=f"knowledge_cutoff: {cutoff!r} is not a date",
                        fix='write a day of the calendar, or the year and month alone ("2024-02")')]
    return []


def _bioasq_problems(value: dict, text: str, path: str, refused: set[str]) -> list[Problem]:
    """``earlier_bioasq`` and ``external_data`` that disagree, when the card gives both:
    earlier BioASQ test sets used in training or prompts are earlier BioASQ gold
    (``bioasq-gold``) among the external data, and the other way round."""
    earlier, external = value.get("earlier_bioasq"), value.get("external_data")
    if (not isinstance(earlier, list) or not isinstance(external, list)
            or rejected_at(refused, ["earlier_bioasq"]) or rejected_at(refused, ["external_data"])):
        return []
    if bool(earlier) == ("bioasq-gold" in external):
        return []
    said = (f"earlier_bioasq = {earlier!r} says earlier BioASQ test sets were used, external_data does not name "
            "\"bioasq-gold\"" if earlier else
            "external_data names \"bioasq-gold\" (earlier BioASQ gold), earlier_bioasq = [] says it was not used")
    return [Problem(code="card-disagrees", file=path, line=toml_line(text, ["earlier_bioasq"]), pointer="earlier_bioasq",
                    message=f"earlier_bioasq: {said}",
                    fix='make them agree: "bioasq-gold" in external_data exactly when earlier_bioasq names '
                        '"training" or "prompts"')]


def _is_batch(challenge: Challenge, entry: str) -> bool:
    task, _, batch = entry.partition("/")
    try:
        return batch in challenge.batches(task)
    except KeyError:  # not a task id
        return False


def primary_conflicts(card: Card, others: Iterable[Card]) -> list[Problem]:
    """``primary-conflict`` for each other card of the same team that names a batch
    ``card`` names as primary (``true`` names every batch): a team has one primary run per
    batch."""
    def batches(c: Card) -> set[str] | None:  # None: every batch
        return None if c.primary is True else set(c.primary or ())

    mine = batches(card)
    problems = []
    for other in others:
        theirs = batches(other)
        if other.team != card.team or other.system == card.system:
            continue
        if mine is None and theirs is None:
            shared = "every batch"
        else:
            both = (theirs or set()) if mine is None else mine if theirs is None else mine & theirs
            shared = ", ".join(sorted(both))
        if shared:
            problems.append(Problem(code="primary-conflict", file=card_path(card.team, card.system), pointer="primary",
                                    message=f"system {other.system} of the team is also primary for {shared}",
                                    fix=f"name one primary system per batch: change primary here or in "
                                        f"{card_path(other.team, other.system)}"))
    return problems


def card_problems(challenge: Challenge, team: str, system: str, path: str) -> list[Problem]:
    """A card for a team or system that the team files do not register."""
    registered = challenge.teams.get(team)
    if registered is None:
        return [Problem(code="unknown-team", file=path, message=f"there is no team {team} (teams/{team}.toml)",
                        fix="put the card under submissions/cards/<your team id>/")]
    if system not in registered.systems:
        return [Problem(code="unregistered-system", file=path, message=f"team {team} has no system {system!r}",
                        fix=f"name the card after a system of teams/{team}.toml: "
                            + ", ".join(sorted(registered.systems)))]
    return []


def load_cards(challenge: Challenge) -> tuple[dict[str, Card], list[Problem]]:
    """Every card of the repository (system key -> card) and the problems of the cards
    that cannot be used (each then counts as no card: "not disclosed"); a symbolic link,
    a file that is too large and any other file under ``submissions/cards/`` is a problem."""
    cards: dict[str, Card] = {}
    problems: list[Problem] = []
    top = challenge.root / CARDS
    for folder, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(files):
            full = Path(folder) / name
            path = full.relative_to(challenge.root).as_posix()
            ref = card_ref(path)
            found = ([Problem(code="not-a-card", file=path, message="not at a card's path, ignored",
                              fix=f"cards go to {CARDS}/<team>/<system>.toml")] if ref is None else
                     [Problem(code="symlink", file=path, message="the card is a symbolic link",
                              fix="commit the card itself")] if full.is_symlink() else
                     [Problem(code="too-large", file=path, message=f"the card is larger than {MAX_CARD_BYTES:,} bytes",
                              fix="a card is a few lines")] if full.stat().st_size > MAX_CARD_BYTES else
                     card_problems(challenge, *ref, path))
            if ref is None or found:
                problems += found
                continue
            try:
                card = parse_card(full.read_bytes(), path, challenge)
            except ScorerError as exc:
                problems += exc.problems
                continue
            cards[card.key] = card
    claimed = list(cards.values())
    for key, card in list(cards.items()):  # conflicting primary claims are not shown: neither is primary
        conflicts = primary_conflicts(card, claimed)
        if conflicts:
            problems += conflicts
            cards[key] = replace(card, primary=False)
    return cards, problems
