"""Sealed runs on the branch: opened after their window closes, by the one caller that
holds the challenge's private key (the publish job, see ``docs/organizers.md``).

A sealed run sits at ``<run path>.age`` (:mod:`scorer.formats.sealed`).  :func:`open_sealed_runs`
opens each one whose window has closed and that is not opened yet (or was replaced since):
the run it holds is written at the run's own path and checked by the caller's ``check``
(the publisher passes :func:`scorer.pr.publish.opened_problems`: the pull-request check's
validation of a plain run, the test set's ids and the limits); a valid one is then scored
by ``score-all`` as any other run, and the publisher commits the opened runs with the
results.  What was opened, and
why a run could not be, is kept in the ledger ``results/sealed.json``:

    sealed run path -> {"sealed_sha256": digest of the .age file,
                        "opened_sha256": digest of the run written (null: not opened),
                        "problems": [located problems: why it could not be opened,
                                     or why the opened run is invalid]}

so that callers without the key (shard jobs, a local ``score-all``) know a run's state:
:func:`sealed_state`.  A run that cannot be opened gets its problems as its error in
``results/``; it never stops the others.  Before its window closes a sealed run is never
opened, whoever holds the key.

Sealed gold (``[gold] sealed``, see ``docs/organizers.md``, "Private gold") is any
``<file>.age`` under ``gold/`` whose plain file is not committed: the gold of a batch and
phase, its expert scores, its preliminary copy.  :func:`sealed_gold` opens each one with the
key into a folder outside the repository (never at its plain path: nothing plain of it is
ever written in the work tree, the results commit cannot carry it) and records it in the
same ledger, under its sealed path, with the SHA-256 of the plain gold as ``opened_sha256``:
the digest the provenance of a run's result names, so that a caller without the key still
reuses every result, and the plain gold committed at the reveal, if its content is the
same, rescores nothing.  A sealed gold file that cannot be opened (sealed to another key,
cut or padded) is recorded with its problems, which become the error of the runs of its
batch only.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from scorer.core.challenge import Challenge
from scorer.core.digest import sha256_bytes
from scorer.core.errors import Problem
from scorer.core.paths import SEALED_SUFFIX, RunRef, sealed_ref
from scorer.core.tasks import GOLD_MEMBERS, TASKS
from scorer.core.utc import utc_text
from scorer.formats.sealed import (
    DEMO_KEY_FILE,
    SealingError,
    envelope_problems,
    is_demo_recipient,
    open_envelope,
    sealed_limit,
)
from scorer.store.files import canonical_json, sha256_file, write_atomic

LEDGER = "results/sealed.json"
#: Where sealed gold is looked for: every ``<file>.age`` under it.
GOLD_FOLDER = "gold"
#: The fix of a sealed gold file that cannot be opened.
GOLD_SEAL_FIX = ("organizers: seal the golden file again to the challenge's key ([submissions] recipient): "
                 "python -m scorer import-bioasq ... --golden FILE --seal")
#: What checks an opened run: (repository root, run, challenge) -> its located errors.
OpenedCheck = Callable[[Path, RunRef, Challenge], list[Problem]]
#: The states of a sealed run: its valid opened run is at its path, its opened run is invalid,
#: it could not be opened, it waits.
OPENED, INVALID, UNOPENABLE, SEALED = "opened", "invalid", "unopenable", "sealed"


@dataclass(frozen=True)
class Opening:
    """What :func:`open_sealed_runs` did: the runs it wrote (run paths) and those that could
    not be opened (run path -> problems)."""

    opened: tuple[str, ...]
    failed: dict[str, list[dict]]


def discover_sealed(root: Path) -> list[RunRef]:
    """The sealed runs under ``submissions/`` (by the run path they stand for)."""
    top = root / "submissions"
    found = (sealed_ref(p.relative_to(root).as_posix()) for p in top.rglob("*.age") if p.is_file() and not p.is_symlink())
    return sorted((ref for ref in found if ref is not None), key=lambda r: r.path)


def read_ledger(root: Path) -> dict[str, dict]:
    """``results/sealed.json`` (empty when absent or unreadable: every run is then opened again)."""
    try:
        value = json.loads((root / LEDGER).read_bytes())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def sealed_state(root: Path, ref: RunRef, ledger: dict[str, dict]) -> tuple[str, list[dict]]:
    """The state of sealed run ``ref`` with its problems: :data:`SEALED` unless the ledger
    records the opening of the present ``.age`` file; then :data:`UNOPENABLE` when it
    could not be opened, :data:`SEALED` when the run written then is no longer at the
    run's path unchanged, else :data:`INVALID` (with the opened run's problems) or
    :data:`OPENED`."""
    entry = ledger.get(ref.sealed_path)
    if not isinstance(entry, dict) or entry.get("sealed_sha256") != sha256_file(root / ref.sealed_path):
        return SEALED, []
    problems = list(entry.get("problems") or [])
    if entry.get("opened_sha256") is None:
        return UNOPENABLE, problems
    run = root / ref.path
    if not (run.is_file() and not run.is_symlink() and sha256_file(run) == entry["opened_sha256"]):
        return SEALED, []
    return (INVALID, problems) if problems else (OPENED, [])


def open_sealed_runs(root: Path, challenge: Challenge, identity: str, now: datetime,
                     check: OpenedCheck | None = None) -> Opening:
    """Open every sealed run of a sealed task whose window closed before ``now`` and that is
    still :data:`SEALED` (:func:`sealed_state`), with the private key ``identity``; write each
    run at its path, give it to ``check`` (None: no check here, ``score-all`` validates it)
    and record every opening and the problems ``check`` found in :data:`LEDGER`.  ``Opening.opened``: the runs written (valid or not); ``failed``: the
    runs that could not be opened.

    A sealed file larger than a sealed run of ``limits.max_run_bytes`` can be is not
    decrypted (its problem is recorded); a run that cannot be opened has its opened file
    removed (a replaced run's old opening must not be scored as the new one).  A key that
    cannot be read is raised (:class:`scorer.formats.sealed.SealingError`) before any run
    is touched.
    """
    _check_key(identity)
    ledger = read_ledger(root)
    opened: list[str] = []
    failed: dict[str, list[dict]] = {}
    for ref in discover_sealed(root):
        window = challenge.window(ref)
        if not challenge.is_sealed(ref.task) or window is None or now <= window.closes:
            continue
        state, _ = sealed_state(root, ref, ledger)
        if state != SEALED:  # opened, or known not to open: the same file gives the same outcome
            continue
        data = (root / ref.sealed_path).read_bytes()
        problem = _open_into(root, ref, data, identity, challenge.limits.max_run_bytes)
        if problem is None:
            opened.append(ref.path)
            problems = [p.to_dict() for p in (check(root, ref, challenge) if check else [])]
        else:
            failed[ref.path] = problems = [problem.to_dict()]
        ledger[ref.sealed_path] = {"sealed_sha256": sha256_bytes(data), "problems": problems,
                                   "opened_sha256": None if problem else sha256_file(root / ref.path)}
    if opened or failed:
        write_atomic(root / LEDGER, canonical_json(dict(sorted(ledger.items()))))
    return Opening(tuple(opened), failed)


def _check_key(identity: str) -> None:
    """Raise :class:`SealingError` when ``identity`` is not a private key pyrage can read."""
    try:
        open_envelope(b"", identity, "")
    except SealingError as exc:
        if exc.problem.code == "bad-sealing-key":
            raise


def _open_into(root: Path, ref: RunRef, data: bytes, identity: str, max_run_bytes: int) -> Problem | None:
    """Write the run inside ``data`` at ``ref``'s path; the problem when it cannot be opened
    (then no file is left at the run's path)."""
    target = root / ref.path
    if len(data) > sealed_limit(max_run_bytes):
        problem = Problem(code="too-large", file=ref.sealed_path,
                          message=f"the sealed run has {len(data):,} bytes, more than a run of "
                                  f"{max_run_bytes:,} bytes sealed", fix="none after the window closed")
    else:
        try:
            write_atomic(target, open_envelope(data, identity, ref.sealed_path))
            return None
        except SealingError as exc:
            problem = exc.problem
    target.unlink(missing_ok=True)
    return problem


@dataclass(frozen=True)
class SealedGold:
    """A sealed gold file as one call sees it: ``digest``, the SHA-256 of the plain gold
    (None: unknown: not opened by this call and not recorded for the present sealed file);
    ``opened``: where this call opened it, outside the repository (None: not opened here);
    ``problems``: why it cannot be opened, located at its sealed file."""

    digest: str | None
    opened: Path | None = None
    problems: tuple[dict, ...] = ()


def demo_identity(root: Path, challenge: Challenge) -> str | None:
    """The demo's private key (public, ``docs/demo.md``): the text of
    :data:`scorer.formats.sealed.DEMO_KEY_FILE` under ``root`` when the challenge says
    ``demo = true``, publishes the demo's recipient and the file is there; else None.  So
    ``python -m scorer build`` of a fresh clone scores the demo's sealed gold, and no other
    challenge ever opens anything with that key."""
    path = root / DEMO_KEY_FILE
    if not (challenge.demo and challenge.recipient and is_demo_recipient(challenge.recipient)) or not path.is_file():
        return None
    return path.read_text(encoding="utf-8")


def discover_sealed_gold(root: Path) -> list[str]:
    """The plain paths (relative to ``root``) of the sealed gold files under ``gold/`` whose
    plain file is not committed beside them (a plain file is the revealed gold and wins)."""
    top = root / GOLD_FOLDER
    found = (p.relative_to(root).as_posix().removesuffix(SEALED_SUFFIX) for p in top.rglob("*" + SEALED_SUFFIX)
             if p.is_file() and not p.is_symlink())
    return sorted(path for path in found if not (root / path).exists())


def sealed_gold(root: Path, challenge: Challenge, identity: str | None = None,
                into: Path | None = None) -> dict[str, SealedGold]:
    """Plain gold path -> :class:`SealedGold`, for each of :func:`discover_sealed_gold`.

    With the private key ``identity`` and a folder ``into`` outside the repository, each is
    opened there (at its plain path under ``into``): its envelope is first checked as the
    pull-request check checks a sealed run's (:func:`scorer.formats.sealed.envelope_problems`:
    another key's, cut or padded), then opened; the ledger records what was found for each
    sealed file.  Without them, the ledger's record of the present sealed file is read.
    Raises ValueError when ``into`` is inside ``root``, and
    :class:`scorer.formats.sealed.SealingError` for a key that cannot be read.
    """
    if into is not None and into.resolve().is_relative_to(root.resolve()):
        raise ValueError(f"sealed gold is never opened inside the repository ({into})")
    ledger = read_ledger(root)
    out: dict[str, SealedGold] = {}
    opening = identity is not None and into is not None
    if opening:
        assert identity is not None
        _check_key(identity)
    for plain in discover_sealed_gold(root):
        sealed = plain + SEALED_SUFFIX
        data = (root / sealed).read_bytes()
        entry = ledger.get(sealed)
        if not opening:
            known = isinstance(entry, dict) and entry.get("sealed_sha256") == sha256_bytes(data)
            out[plain] = (SealedGold(entry.get("opened_sha256"), None, tuple(entry.get("problems") or ()))
                          if known and isinstance(entry, dict) else SealedGold(None))
            continue
        assert identity is not None and into is not None
        out[plain] = found = _open_gold(data, sealed, challenge.recipient, identity, into / plain)
        ledger[sealed] = {"sealed_sha256": sha256_bytes(data), "opened_sha256": found.digest,
                          "problems": list(found.problems)}
    if opening and out:
        write_atomic(root / LEDGER, canonical_json(dict(sorted(ledger.items()))))
    return out


def _open_gold(data: bytes, sealed: str, recipient: str | None, identity: str, target: Path) -> SealedGold:
    """Sealed gold file ``sealed`` (bytes ``data``) opened with ``identity`` and written at
    ``target``; its problems instead when its envelope is not one of ``recipient`` (when the
    challenge names one) well formed, or it does not open."""
    problems, _ = (envelope_problems(data, recipient, sealed, len(data), what="gold", fix=GOLD_SEAL_FIX)
                   if recipient else ([], None))
    if problems:
        return SealedGold(None, None, tuple(p.to_dict() for p in problems))
    try:
        plain = open_envelope(data, identity, sealed, what="gold", fix=GOLD_SEAL_FIX)
    except SealingError as exc:
        return SealedGold(None, None, (exc.problem.to_dict(),))
    write_atomic(target, plain, mode=0o600)  # the plain gold stays the key holder's alone
    return SealedGold(sha256_bytes(plain), target)


def plain_gold_problems(root: Path, challenge: Challenge, now: datetime) -> list[Problem]:
    """A warning for each plain gold file of a task whose gold is sealed, committed before
    the reveal (``[gold] reveal``: "never", or a time after ``now``): that gold is public
    from that commit on, which the challenge's configuration says it must not be; and for
    each of its test sets that carries gold (:func:`testset_gold_problems`)."""
    if challenge.gold_reveal is not None and now >= challenge.gold_reveal:
        return []
    return _plain_gold_files(root, challenge) + testset_gold_problems(root, challenge)


def _plain_gold_files(root: Path, challenge: Challenge) -> list[Problem]:
    """The ``plain-gold`` warnings of :func:`plain_gold_problems`."""
    until = f"before its reveal ({utc_text(challenge.gold_reveal)})" if challenge.gold_reveal else \
        'while [gold] reveal = "never"'
    return [Problem(code="plain-gold", severity="warning", file=path,
                    message=f"the gold of {task} is sealed ([gold] sealed), but this file of it is committed plain "
                            f"{until}: it is public from this commit on, and its drill-down is shown",
                    fix="if it is a mistake: git rm it, import the batch again with --seal, and treat the gold as "
                        "public (it stays in the history); if the gold may be public now, set [gold] reveal")
            for task in sorted(challenge.sealed_gold) for path in _batch_files(challenge, task, TASKS[task].gold)
            if (root / path).is_file()]


def _batch_files(challenge: Challenge, task: str, name: Callable[[str, str], str]) -> list[str]:
    """The files ``name(batch, phase)`` of every batch and phase of ``task``, each once."""
    return sorted({name(batch_id, phase) for batch_id, batch in challenge.batches(task).items()
                   for phase in batch.phase_windows()})


def testset_gold_problems(root: Path, challenge: Challenge) -> list[Problem]:
    """With ``[gold] testsets = "questions"`` (the default), a warning for each test set of a
    task whose gold is sealed that holds a member of :data:`scorer.core.tasks.GOLD_MEMBERS` with
    a value (BioASQ's Phase B test set carries Phase A's gold documents and snippets),
    located at the first such question."""
    if challenge.gold_testsets != "questions":
        return []
    out = []
    for task in sorted(challenge.sealed_gold):
        for path in _batch_files(challenge, task, TASKS[task].testset):
            try:
                questions = json.loads((root / path).read_bytes()).get("questions")
            except (OSError, ValueError, AttributeError):
                continue  # absent or unreadable: the check and the scoring say so
            found = next(((i, m) for i, q in enumerate(questions if isinstance(questions, list) else [])
                          if isinstance(q, dict) for m in GOLD_MEMBERS if q.get(m)), None)
            if found is not None:
                out.append(Problem(code="testset-gold", severity="warning", file=path, pointer=f"/questions/{found[0]}/"
                                   f"{found[1]}", message=f"the gold of {task} is sealed, but this test set holds "
                                   f"{found[1]} (gold): it is public in the repository",
                                   fix="keep each question's id, type and body only (import-bioasq does), hand the "
                                       "full test set to the registered teams yourself; or set [gold] testsets = "
                                       '"as-given" if it may be public'))
    return out
