"""What readers reuse outside the site: an Atom feed of the published results and a badge
endpoint per system.

* ``feed.xml`` (Atom, RFC 4287): one entry per leaderboard with ranked results, newest
  window first, titled preliminary or final results where experts assess the runs (the
  final results of a batch are a new entry).  An entry's id carries a digest of its rankings, so a feed reader shows a
  leaderboard again when its results change (a new run scored, a correction).  Its time is
  when the leaderboard's window closed (results exist only after the gold is published,
  which is after the close; the build records no wall-clock time).  Links are relative to
  the feed (RFC 4287 resolves them against the feed's own address).
* ``badges/<team>/<system>.json``: a shields.io endpoint (``schemaVersion`` 1) with the
  system's best rank over every leaderboard, where and on what; shown with
  ``https://img.shields.io/endpoint?url=<site>/badges/<team>/<system>.json``.
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import datetime

from scorer.core.digest import sha256_bytes
from scorer.core.utc import utc_text
from scorer.site import labels, paths
from scorer.site.assessment import gold_state
from scorer.site.escaping import xml_text
from scorer.site.results import Table

ATOM = "http://www.w3.org/2005/Atom"
TAG_AUTHORITY = "bioasq-leaderboard.github.io"


@dataclass(frozen=True)
class Published:
    """A leaderboard with ranked results: where it is, when its window closed, its leaders."""

    table: Table
    where: str
    path: str
    closed: datetime

    @property
    def digest(self) -> str:
        """SHA-256 (16 hex digits) of its rankings' records: changes with any published number."""
        records = {name: r.records for name, r in sorted(self.table.rankings.items())}
        return sha256_bytes(json.dumps(records, sort_keys=True, default=str).encode())[:16]


def published(site) -> list[Published]:
    """Every table of ``site`` (:class:`scorer.site.context.Site`) with a ranked system, newest close first."""
    out = []
    for (task, batch, phase), table in site.results.tables.items():
        if not any(r["ranked"] for ranking in table.rankings.values() for r in ranking.records):
            continue
        windows = site.challenge.batches(task)[batch].phase_windows()
        closed = windows[phase].closes if phase is not None else max(w.closes for w in windows.values())
        name = site.challenge.batches(task)[batch].name
        out.append(Published(table, labels.where_label(task, name, phase), paths.board(task, batch, phase), closed))
    return sorted(out, key=lambda p: (p.closed, p.path), reverse=True)


def _kind(table: Table) -> str:
    """"final results" once the experts' assessment is merged (a new entry, since the
    rankings change), "preliminary results" before it, "results" where nobody assesses."""
    state = gold_state(table, {})  # the state only: no hashes needed
    return "results" if state is None else f"{state['state']} results"


def atom_feed(challenge_name: str, items: list[Published], names) -> bytes:
    """The Atom document of the published leaderboards (``names``: :class:`scorer.site.boards.Names`);
    well-formed XML 1.0 whatever the names hold (:func:`scorer.site.escaping.xml_text`)."""
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    slug = sha256_bytes(challenge_name.encode("utf-8", "surrogatepass"))[:12]
    _text(feed, "title", f"{challenge_name}: results")
    _text(feed, "id", f"tag:{TAG_AUTHORITY},2013:{slug}")
    _text(feed, "updated", utc_text(items[0].closed) if items else "1970-01-01T00:00:00Z")
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="alternate", href="index.html")
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="self", href="feed.xml")
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    _text(author, "name", "The organizers")
    for item in items:
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        _text(entry, "title", f"{item.where}: {_kind(item.table)}")
        _text(entry, "id", f"tag:{TAG_AUTHORITY},{item.closed.year}:{slug}/{item.path}/{item.digest}")
        _text(entry, "updated", utc_text(item.closed))
        ET.SubElement(entry, f"{{{ATOM}}}link", rel="alternate", href=xml_text(item.path))
        _text(entry, "summary", _summary(item, names))
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="utf-8", xml_declaration=False) + b"\n"


def _text(parent: ET.Element, tag: str, text: str) -> None:
    """A child element holding ``text``, its characters that XML 1.0 does not allow replaced."""
    ET.SubElement(parent, f"{{{ATOM}}}{tag}").text = xml_text(text)


def _summary(item: Published, names) -> str:
    """"exact answers: 1. A (team), 2. B (team), 3. C (team)" per ranking (the phase is in
    the entry's title)."""
    parts = []
    for ranking in item.table.rankings.values():
        top = [r for r in ranking.records if r["ranked"]][:3]
        leaders = ", ".join(f"{r['rank']:g}. {names.system(r['system'])}" for r in top)
        parts.append(f"{labels.ranking_within(item.table.task, item.table.phase, ranking.name)}: {leaders}")
    return "; ".join(parts)


def badges(items: list[Published]) -> dict[str, dict]:
    """System key -> its shields.io endpoint document: the best rank (then the most recent
    leaderboard) over every ranking of every published leaderboard."""
    best: dict[str, tuple] = {}
    for order, item in enumerate(items):  # newest first: on equal ranks the newest wins
        for ranking in item.table.rankings.values():
            ranked = [r for r in ranking.records if r["ranked"]]
            for r in ranked:
                candidate = (r["rank"], order, item.where,
                             labels.ranking_within(item.table.task, item.table.phase, ranking.name), len(ranked))
                if r["system"] not in best or candidate < best[r["system"]]:
                    best[r["system"]] = candidate
    return {key: {"schemaVersion": 1, "label": "best rank",
                  "message": f"{rank:g} of {n} · {where} · {ranking}",
                  "color": "brightgreen" if rank == 1 else "green" if rank <= 3 else "blue"}
            for key, (rank, _, where, ranking, n) in sorted(best.items())}


def badge_path(key: str) -> str:
    """``badges/<team>/<system>.json``."""
    return f"badges/{key}.json"


def write_feeds(site) -> None:
    """``feed.xml`` and every system's badge endpoint."""
    site.w.write("feed.xml", atom_feed(site.challenge.name, published(site), site.names))
    for key, document in site.badges().items():
        site.w.write(badge_path(key), (json.dumps(document, ensure_ascii=False, sort_keys=True) + "\n").encode())
