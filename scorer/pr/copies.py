"""Copied runs: a run identical or nearly identical to another team's earlier run.

Pure functions over parsed (validated, normalized) runs, and one reader at the end: the
pull-request check (:mod:`scorer.pr.check`) compares each run of a pull request with the
other teams' runs of the same batch phase on the base branch and (the reporter, with the
API: :class:`scorer.pr.github.OpenRuns`) in pull requests not merged (:func:`compare`), and the
organizers' view, ``python -m scorer ci copies`` (:func:`repository_copies`), compares all
the runs of each batch phase of a repository with each other (:func:`copies_among`).  See
``docs/pull-requests.md`` ("Copied runs").

Both compare what is scored, never bytes (:mod:`scorer.formats.scored`):

**Identical** (:func:`canonical`): the same scored form (its digest,
:func:`scorer.formats.scored.digest`): the form the measures compare after the fixes
``normalize`` makes, members no measure reads dropped, case and whitespace folded where
no measure sees them.  So a copy reformatted, reordered, normalized, with other snippet
texts, upper-case exact answers, other whitespace in its ideal answers or a repeated
document is still identical.

**Similarity** (:func:`similarity`): a run's *profile* (:func:`profile`) maps each entry id
to its scored items (:func:`scorer.formats.scored.items`: documents, concepts, triples,
snippet places, labels, the lower-cased first string of each exact answer, the ideal
answer with its whitespace collapsed); items whose value occurs in the test set (mcqa:
the candidate ids) are left out, as every run repeats them.  Then, over the ids that have
an item in either run,

    similarity(A, B) = mean over ids q of |A_q ∩ B_q| / min(|A_q|, |B_q|)
                       (the overlap coefficient; an id only one run answers counts 0)

so 1 means that for every question one run's items are all among the other's: the same
run, or one with items added (a member that matches nothing, added to every question, is
still a copy) or left out; two runs with nothing in common score 0.  None when neither run
has an item.  A pair at or above ``[rules] copy_similarity`` of ``challenge.toml`` is
flagged, never refused.

Cost: a profile is linear in the run's size; a comparison is linear in the two profiles,
so the check compares one run with the n runs of its batch phase in O(n·size), and the
comparison of all the runs of a batch phase is pairwise, O(n²·size).  Measured with
``benchmarks/bench_copies.py`` (65 runs of 100 questions with 10 documents and 10
snippets each, one core, a shared machine): the 65 fingerprints 2.3 s, the 2,080 pairs 1.5 s, one run
against the 64 others 0.04 s.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scorer.core.errors import ScorerError
from scorer.core.paths import RunRef, run_ref
from scorer.core.utc import utc_text
from scorer.formats.challenge import load_challenge, read_received
from scorer.formats.jsontext import load_json
from scorer.formats.scored import digest, items, text
from scorer.pr.policy import normalized_run, testset_path

#: The default of ``[rules] copy_similarity``.
DEFAULT_COPY_SIMILARITY = 0.9

Profile = dict[str, frozenset[tuple[str, str]]]


def canonical(task: str, run) -> str:
    """The digest of ``run``'s scored form (``task``: a task of :func:`scorer.evaluate`):
    :func:`scorer.formats.scored.digest`."""
    return digest(task, run)


def values_of_testset(testset) -> frozenset[str]:
    """The canonical JSON of every scalar and every list element of a test set: what every
    run may repeat (question bodies, types, candidates)."""
    out: set[str] = set()
    stack = [testset]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            out.update(text(v) for v in value)
            stack.extend(value)
        else:
            out.add(text(value))
    return frozenset(out)


def profile(task: str, run, common: frozenset[str] = frozenset()) -> Profile:
    """Entry id -> its scored items (:func:`scorer.formats.scored.items`) without the values
    of ``common`` (:func:`values_of_testset`); entries with no item are left out."""
    out = {}
    for qid, found in items(task, run).items():
        kept = frozenset(item for item in found if item[1] not in common)
        if kept:
            out[qid] = kept
    return out


def similarity(a: Profile, b: Profile) -> float | None:
    """The mean per-id overlap coefficient of two profiles (see the module doc); None when
    neither has an item."""
    ids = a.keys() | b.keys()
    if not ids:
        return None
    total = 0.0
    for qid in ids:
        left, right = a.get(qid), b.get(qid)
        if left and right:
            total += len(left & right) / min(len(left), len(right))
    return total / len(ids)


@dataclass(frozen=True)
class Copy:
    """Run ``copy`` (a path) is identical (``identical``) or similar (``similarity``) to
    run ``original``, another team's run; ``earlier``: ``original`` is known to have been
    public before ``copy`` (the check: :func:`scorer.pr.check.earlier_copies`; the
    organizers' view: by the ledger), so the copier could see it."""

    copy: str
    original: str
    similarity: float
    identical: bool
    earlier: bool = True

    def to_json(self) -> dict:
        return {"copy": self.copy, "original": self.original, "similarity": round(self.similarity, 4),
                "identical": self.identical, "earlier": self.earlier}

    def describe(self) -> str:
        how = "identical (in what is scored)" if self.identical else f"{self.similarity:.0%} similar"
        return f"{self.copy} is {how} to {self.original}"


@dataclass(frozen=True)
class Fingerprint:
    """What a run is compared by: its canonical digest and its profile."""

    digest: str
    profile: Profile

    @classmethod
    def of(cls, task: str, run, common: frozenset[str] = frozenset()) -> Fingerprint:
        return cls(canonical(task, run), profile(task, run, common))


def compare(copy: str, mine: Fingerprint, original: str, theirs: Fingerprint, threshold: float,
            earlier: bool = True) -> Copy | None:
    """A :class:`Copy` (with ``earlier``) when ``mine`` is identical to ``theirs`` or at
    least ``threshold`` similar; None otherwise."""
    if mine.digest == theirs.digest:
        return Copy(copy, original, 1.0, True, earlier)
    value = similarity(mine.profile, theirs.profile)
    return Copy(copy, original, value, False, earlier) if value is not None and value >= threshold else None


def copies_among(runs: list[tuple[str, str, Fingerprint, str | None]], threshold: float) -> list[Copy]:
    """The copies among ``runs`` of one batch phase, given as (path, team, fingerprint,
    arrival time as UTC text or None) in the order they were received (unknown times
    last): each run against every run before it of another team (:func:`compare`;
    ``earlier`` when both times are known and the original's is the earlier)."""
    found = []
    for i, (path, team, mine, arrived) in enumerate(runs):
        for original, other, theirs, before in runs[:i]:
            if other != team:
                known = arrived is not None and before is not None and before < arrived
                hit = compare(path, mine, original, theirs, threshold, known)
                if hit is not None:
                    found.append(hit)
    return found


def repository_copies(root: Path) -> list[Copy]:
    """The copies among the runs under ``root/submissions`` (:func:`copies_among` for each
    batch phase, with ``[rules] copy_similarity`` of ``root/challenge.toml``), each batch
    phase's runs in the order of their arrival times in ``submissions/received.json``
    (runs it lacks after them, by path).  A run larger than ``[limits] max_run_bytes``,
    a symbolic link, or a run that does not validate is left out.  Raises
    :class:`ScorerError` for a broken ``challenge.toml`` or ledger."""
    challenge = load_challenge(root)
    received = read_received(root)
    phases: dict[tuple[str, str, str], list[tuple[str, RunRef]]] = {}
    for path in sorted((root / "submissions").rglob("*.json")):
        relative = path.relative_to(root).as_posix()
        ref = run_ref(relative)
        if ref is not None and path.is_file() and not path.is_symlink():
            phases.setdefault((ref.task, ref.batch, ref.phase), []).append((relative, ref))
    found: list[Copy] = []
    for _, runs in sorted(phases.items()):
        common = _testset_values(root / testset_path(runs[0][1]))
        times = {relative: utc_text(received[relative]) for relative, _ in runs if relative in received}
        ordered = sorted(runs, key=lambda r: (r[0] not in times, times.get(r[0], ""), r[0]))
        prints = []
        for relative, ref in ordered:
            path = root / relative
            if path.stat().st_size > challenge.limits.max_run_bytes:
                continue
            value = normalized_run(ref, path.read_bytes(), challenge.limits.max_run_bytes, challenge.limits)
            if value is not None:
                prints.append((relative, ref.team, Fingerprint.of(ref.scorer_task, value, common),
                               times.get(relative)))
        found += copies_among(prints, challenge.rules.copy_similarity)
    return found


def _testset_values(path: Path) -> frozenset[str]:
    """:func:`values_of_testset` of the test set file ``path``; empty when it is missing or unreadable."""
    try:
        return values_of_testset(load_json(path, max_bytes=None)[0]) if path.is_file() else frozenset()
    except ScorerError:
        return frozenset()
