"""Sealed runs (``[submissions] sealed``): the age envelope and what can be checked of it
without the key, the challenge's configuration, the pull-request check (no key),
``keygen`` and ``seal``, and ``score-all`` opening sealed runs only after their window.
The whole path through the workflows is in ``tests/test_workflow_replay.py``."""
from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import shutil
import stat
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from scorer.cli import main as cli_main
from scorer.core.errors import ScorerError
from scorer.formats.challenge import load_challenge
from scorer.formats.sealed import (
    SealingError,
    envelope_problems,
    generate_key_pair,
    open_envelope,
    opened_size,
    recipient_tag,
    seal,
)
from scorer.store import score_all
from tests.gitutil import commit, git
from tests.pr_challenge import BASE_FILES, CHALLENGE, MAX_BYTES, OPEN, check, codes, dumps, only, phase_a_run

KEY = generate_key_pair()
OTHER = generate_key_pair("someone-else")
SEALED = f'\n[submissions]\nsealed = ["taskB"]\nrecipient = "{KEY.recipient}"\n'
SEALED_FILES = {**BASE_FILES, "challenge.toml": CHALLENGE.format(rules='flavor = "official"', max_bytes=MAX_BYTES)
                .encode() + SEALED.encode()}
RUN = "submissions/taskB/batch1/phaseA/alpha/a1.json"   # batch1 has gold
AFTER_CLOSE = datetime(2026, 3, 2, 10, 0, 1, tzinfo=UTC)  # batch1/phaseA closes 2026-03-02T10:00:00Z
AT_CLOSE = datetime(2026, 3, 2, 10, 0, 0, tzinfo=UTC)


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli_main(list(argv))
    return code, out.getvalue()


# --- the envelope -------------------------------------------------------------------------

@pytest.mark.parametrize(("payload", "size"), [
    (16 + 16, 0),                      # nonce + one empty final chunk (tag only)
    (16 + 17, 1),                      # one byte and its tag
    (16 + 65_536 + 16, 65_536),        # one full chunk, the last
    (16 + 65_552 + 17, 65_537),        # a full chunk, then one byte
    (16 + 2 * 65_552, 131_072),        # two full chunks
    (16 + 15, None),                   # shorter than a tag
    (16 + 65_552 + 10, None),          # a last chunk shorter than its tag
    (16 + 65_552 + 16, None),          # an empty chunk after a full one (age never writes it)
])
def test_the_size_inside_a_payload_is_worked_out_from_its_length(payload, size):
    assert opened_size(payload) == size


def test_a_sealed_run_is_a_well_formed_envelope_for_the_key_and_opens_to_the_same_bytes():
    data = phase_a_run("q1", "q2")
    sealed = seal(data, KEY.recipient)
    assert sealed.startswith(b"age-encryption.org/v1\n-> ssh-ed25519 ")
    assert data not in sealed
    assert envelope_problems(sealed, KEY.recipient, "x.json.age", MAX_BYTES) == ([], len(data))
    assert open_envelope(sealed, KEY.identity, "x.json.age") == data


def test_the_recipient_tag_is_the_start_of_sha256_of_the_ssh_key():
    wire = base64.b64decode(KEY.recipient.split()[1])
    expected = base64.b64encode(hashlib.sha256(wire).digest()[:4]).decode().rstrip("=")
    assert recipient_tag(KEY.recipient) == expected and len(expected) == 6
    assert f"-> ssh-ed25519 {expected} ".encode() in seal(b"{}", KEY.recipient)


def envelope_codes(data: bytes, limit: int = MAX_BYTES) -> list[str]:
    problems, _ = envelope_problems(data, KEY.recipient, "x.json.age", limit)
    assert all(p.file == "x.json.age" and p.fix for p in problems)
    return [p.code for p in problems]


def test_envelopes_that_are_not_for_this_challenge_or_not_well_formed_are_named():
    data = phase_a_run("q1")
    good = seal(data, KEY.recipient)
    header_end = good.index(b"\n--- ")
    mac_end = good.index(b"\n", header_end + 1)
    other, _ = envelope_problems(seal(data, OTHER.recipient), KEY.recipient, "x.json.age", MAX_BYTES)
    assert [p.code for p in other] == ["wrong-recipient"]
    assert recipient_tag(OTHER.recipient) in other[0].message and recipient_tag(KEY.recipient) in other[0].message
    assert envelope_codes(data) == ["not-sealed"]                                   # the plain run
    assert envelope_codes(b"-----BEGIN AGE ENCRYPTED FILE-----\nYWdl\n") == ["not-sealed"]
    assert envelope_codes(good[:header_end]) == ["bad-envelope"]                    # no MAC line
    assert envelope_codes(good[:mac_end + 1] + b"\0" * 26) == ["bad-envelope"]     # payload 26: cut inside a tag
    bad_body = good.replace(b"\n--- ", b"\n!!!\n--- ", 1)                          # not base64 where a line belongs
    assert envelope_codes(bad_body) == ["bad-envelope"]
    assert envelope_codes(seal(b"x" * (MAX_BYTES + 1), KEY.recipient)) == ["too-large"]
    assert envelope_codes(seal(b"x" * MAX_BYTES, KEY.recipient)) == []


GOOD = seal(phase_a_run("q1"), KEY.recipient)
GOOD_LINES = GOOD[:GOOD.index(b"\n--- ") + 1].split(b"\n")[:-1]  # version line, stanzas (the MAC line apart)
SSH = next(i for i, line in enumerate(GOOD_LINES) if line.startswith(b"-> ssh-ed25519 "))  # 0-based
MAC_LINE = len(GOOD_LINES) + 1  # 1-based, as problems are located
LOW_ORDER = bytes.fromhex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")  # order 8 (RFC 7748 list)


def b64(data: bytes) -> bytes:
    return base64.b64encode(data).rstrip(b"=")


def crafted(stanza_args: list[bytes] | None = None, body: bytes | None = None, mac: bytes | None = None,
            payload: bytes | None = None) -> bytes:
    """GOOD with the challenge key's ssh-ed25519 stanza's arguments (after the type), its
    body, the MAC (after '--- ') or the payload replaced."""
    lines = list(GOOD_LINES)
    if stanza_args is not None:
        lines[SSH] = b" ".join([b"->", b"ssh-ed25519", *stanza_args])
    if body is not None:
        lines[SSH + 1] = body
    mac_start = GOOD.index(b"\n--- ") + 5
    mac_end = GOOD.index(b"\n", mac_start)
    return (b"\n".join(lines) + b"\n--- " + (GOOD[mac_start:mac_end] if mac is None else mac) + b"\n"
            + (GOOD[mac_end + 1:] if payload is None else payload))


TAG, SHARE = GOOD_LINES[SSH].split(b" ")[2:4]


MALFORMED = [
    (crafted([b64(b"\1\2\3"), SHARE]), SSH + 1, "the tag is not 4 bytes"),
    (crafted([TAG + b"==", SHARE]), SSH + 1, "the tag is not 4 bytes in canonical unpadded base64"),
    (crafted([TAG]), SSH + 1, "has 1 argument(s); age writes 2"),
    (crafted([TAG, SHARE, b"extra"]), SSH + 1, "has 3 argument(s)"),
    (crafted([TAG, b64(bytes(31))]), SSH + 1, "the ephemeral share is not 32 bytes"),
    (crafted([TAG, SHARE[:-1] + (b"B" if SHARE[-1:] != b"B" else b"C")]), SSH + 1,
     "the ephemeral share is not 32 bytes in canonical"),  # 2 unused bits set: not canonical
    (crafted([TAG, b64(bytes(32))]), SSH + 1, "low-order X25519 point"),
    (crafted([TAG, b64(LOW_ORDER)]), SSH + 1, "low-order X25519 point"),
    (crafted(body=b64(bytes(31))), SSH + 2, "the body (the wrapped file key) is not 32 bytes"),
    (crafted(body=b64(bytes(33))), SSH + 2, "the body (the wrapped file key) is not 32 bytes"),
    (crafted(body=b""), SSH + 2, "the body (the wrapped file key) is not 32 bytes"),
    (crafted(body=b64(bytes(31)) + b"B"), SSH + 2, "is not canonical unpadded base64"),
    (crafted(mac=b64(bytes(31))), MAC_LINE, "the MAC line of the age header does not hold 32 bytes"),
    (crafted(mac=b""), MAC_LINE, "the MAC line of the age header does not hold 32 bytes"),
    (crafted(mac=b"A" * 70), MAC_LINE, "does not end within 64 characters"),
    (crafted(payload=bytes(10)), None, "the age payload (the 10 bytes after the MAC line) is shorter than the "
                                       "16-byte nonce"),
    (crafted(payload=bytes(16)), None, "holds no chunk: after the 16-byte nonce, at least one chunk's 16-byte tag"),
    (crafted(payload=bytes(31)), None, "holds no chunk"),
    (crafted(payload=bytes(16 + 65_552 + 16)), None, "is cut or padded"),
]


# ids by position: the envelopes are random bytes, which would differ between test workers
@pytest.mark.parametrize(("envelope", "line", "says"), MALFORMED, ids=[f"malformed-{i}" for i in range(len(MALFORMED))])
def test_each_malformation_of_the_envelope_is_a_located_bad_envelope(envelope, line, says):
    problems, size = envelope_problems(envelope, KEY.recipient, "x.json.age", MAX_BYTES)
    assert [(p.code, p.file, p.line) for p in problems] == [("bad-envelope", "x.json.age", line)], problems
    assert says in problems[0].message and problems[0].fix and size is None


def test_the_crafted_envelopes_differ_from_a_good_one_only_where_said():
    """The helper rebuilds the good envelope byte for byte when nothing is replaced, and the
    good one has a tag of 6 characters and a share and a body of 43 (4, 32, 32 bytes)."""
    assert crafted() == GOOD and envelope_problems(GOOD, KEY.recipient, "x", MAX_BYTES)[0] == []
    assert (len(TAG), len(SHARE), len(GOOD_LINES[SSH + 1])) == (6, 43, 43)


def test_a_well_formed_envelope_with_a_wrong_body_is_found_only_by_opening_it():
    """A body of 32 random-looking bytes is well formed in every way the check can see
    without the key; only opening tells, and it is then that run's own error
    (``cannot-open``; see the publisher's test of each run alone below)."""
    forged = crafted(body=b64(hashlib.sha256(b"not the file key").digest()))
    assert envelope_problems(forged, KEY.recipient, "x.json.age", MAX_BYTES)[0] == []
    with pytest.raises(SealingError) as caught:
        open_envelope(forged, KEY.identity, "x.json.age")
    assert caught.value.problem.code == "cannot-open" and caught.value.problem.file == "x.json.age"


def test_a_run_sealed_to_another_key_cannot_be_opened_and_says_so():
    with pytest.raises(SealingError) as caught:
        open_envelope(seal(b"{}", OTHER.recipient), KEY.identity, "x.json.age")
    assert caught.value.problem.code == "cannot-open" and caught.value.problem.file == "x.json.age"
    with pytest.raises(SealingError) as caught:
        open_envelope(seal(b"{}", KEY.recipient), "not a key", "x.json.age")
    assert caught.value.problem.code == "bad-sealing-key"


@pytest.mark.skipif(shutil.which("age") is None, reason="the age command line is not installed (apt install age)")
def test_the_age_command_line_seals_and_opens_the_same_envelopes(tmp_path):
    run, key = tmp_path / "a1.json", tmp_path / "key"
    run.write_bytes(phase_a_run("q1"))
    key.write_text(KEY.identity)
    key.chmod(0o600)
    subprocess.run(["age", "-r", KEY.recipient, "-o", f"{run}.age", str(run)], check=True)
    by_cli = Path(f"{run}.age").read_bytes()
    assert envelope_problems(by_cli, KEY.recipient, "a1.json.age", MAX_BYTES) == ([], run.stat().st_size)
    assert open_envelope(by_cli, KEY.identity, "a1.json.age") == run.read_bytes()
    Path(f"{run}.age").write_bytes(seal(run.read_bytes(), KEY.recipient))
    opened = subprocess.run(["age", "-d", "-i", str(key), f"{run}.age"], capture_output=True, check=True).stdout
    assert opened == run.read_bytes()


# --- challenge.toml -------------------------------------------------------------------------

def challenge_with(tmp_path: Path, submissions: str) -> Path:
    (tmp_path / "challenge.toml").write_text('[challenge]\nname = "x"\n\n[submissions]\n' + submissions)
    return tmp_path


def test_sealed_tasks_are_read_per_task_or_for_the_whole_challenge(tmp_path):
    some = load_challenge(challenge_with(tmp_path, f'sealed = ["taskB", "mcqa"]\nrecipient = "{KEY.recipient}"\n'))
    assert some.sealed_tasks == {"taskB", "mcqa"} and some.recipient == KEY.recipient
    every = load_challenge(challenge_with(tmp_path, f'sealed = true\nrecipient = "{KEY.recipient}"\n'))
    assert every.sealed_tasks == {"taskB", "taskA", "mcqa", "synergy"}
    assert load_challenge(challenge_with(tmp_path, "sealed = false\n")).sealed_tasks == frozenset()


@pytest.mark.parametrize(("submissions", "code", "line"), [
    ('sealed = true\nrecipient = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAAA"\n', "bad-recipient", 6),
    ('sealed = true\nrecipient = "age1qqqq"\n', "config-pattern", 6),
    ('sealed = ["taskC"]\n', "config-oneOf", 5),
])
def test_a_recipient_that_is_not_a_key_is_a_located_error(tmp_path, submissions, code, line):
    with pytest.raises(ScorerError) as caught:
        load_challenge(challenge_with(tmp_path, submissions))
    problem = caught.value.problems[0]
    assert problem.code == code and problem.line == line and problem.fix, problem


def test_the_demos_public_key_serves_a_demo_only(tmp_path):
    """The demo's private key is committed (public): a challenge that is not a demo may not
    publish its recipient, whatever its label; only a demo that publishes it is scored with
    the committed key (so ``build`` of a fresh clone opens the demo's sealed gold)."""
    from scorer.formats.sealed import DEMO_KEY_FILE, DEMO_RECIPIENT
    from scorer.store.sealed import demo_identity
    relabelled = " ".join(DEMO_RECIPIENT.split()[:2]) + " our-challenge"
    with pytest.raises(ScorerError) as caught:
        load_challenge(challenge_with(tmp_path, f'sealed = true\nrecipient = "{relabelled}"\n'))
    problem = caught.value.problems[0]
    assert problem.code == "demo-recipient" and problem.line == 6 and DEMO_KEY_FILE in problem.message, problem
    (tmp_path / DEMO_KEY_FILE).parent.mkdir()
    (tmp_path / DEMO_KEY_FILE).write_text("the demo's key\n")
    toml = tmp_path / "challenge.toml"
    toml.write_text(f'[challenge]\nname = "x"\ndemo = true\n\n[submissions]\nrecipient = "{relabelled}"\n')
    assert demo_identity(tmp_path, load_challenge(tmp_path)) == "the demo's key\n"
    toml.write_text(f'[challenge]\nname = "x"\ndemo = true\n\n[submissions]\nrecipient = "{KEY.recipient}"\n')
    assert demo_identity(tmp_path, load_challenge(tmp_path)) is None  # a demo with a key of its own
    (tmp_path / DEMO_KEY_FILE).unlink()
    toml.write_text(f'[challenge]\nname = "x"\ndemo = true\n\n[submissions]\nrecipient = "{relabelled}"\n')
    assert demo_identity(tmp_path, load_challenge(tmp_path)) is None


# --- the pull-request check: no key ---------------------------------------------------------

@pytest.fixture
def sealed_repo(tmp_path, monkeypatch) -> Path:
    """The tiny challenge with Task B sealed, on a branch ``pr``; opening a sealed file
    fails the test (the check never holds a key)."""
    def no_opening(*args, **kwargs):
        raise AssertionError("the check tried to open a sealed run")
    monkeypatch.setattr("pyrage.decrypt", no_opening)
    monkeypatch.setattr("scorer.formats.sealed.open_envelope", no_opening)
    for name in ("GITHUB_ACTOR", "GITHUB_EVENT_PATH", "SEALING_KEY"):
        monkeypatch.delenv(name, raising=False)
    repo = tmp_path / "challenge"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, SEALED_FILES, "the sealed challenge")
    git(repo, "checkout", "-q", "-b", "pr")
    return repo


def test_the_check_accepts_a_sealed_run_from_its_envelope_alone(sealed_repo):
    commit(sealed_repo, {f"{RUN}.age": seal(phase_a_run("q1", "q2"), KEY.recipient)})
    code, body, markdown, _ = check(sealed_repo)
    change = only(body)
    assert code == 0 and change["accepted"] and change["sealed"] and change["scores"] is None
    assert change["run"] == {"task": "taskB", "batch": "batch1", "phase": "phaseA", "team": "alpha", "system": "a1"}
    assert "Sealed run" in markdown and "No gold" not in markdown


@pytest.mark.parametrize(("files", "actor", "now", "expected"), [
    ({RUN: phase_a_run("q1")}, "alice", OPEN, ["sealed-task"]),                          # plain: public
    ({f"{RUN}.age": seal(phase_a_run("q1"), OTHER.recipient)}, "alice", OPEN, ["wrong-recipient"]),
    ({f"{RUN}.age": phase_a_run("q1")}, "alice", OPEN, ["not-sealed"]),                  # named .age, not sealed
    ({f"{RUN}.age": seal(phase_a_run("q1"), KEY.recipient)}, "bob", OPEN, ["not-a-member"]),
    ({f"{RUN}.age": seal(phase_a_run("q1"), KEY.recipient)}, "alice", "2026-03-02T10:00:01Z", ["window-closed"]),
    ({f"{RUN}.age": seal(b"x" * (MAX_BYTES + 1), KEY.recipient)}, "alice", OPEN, ["too-large"]),
    ({"submissions/mcqa/m1/alpha/a1.json.age": seal(b"{}", KEY.recipient)}, "alice", OPEN, ["not-sealed-task"]),
    ({"submissions/taskB/batch1/phaseA/alpha/a9.json.age": seal(b"{}", KEY.recipient)}, "alice", OPEN,
     ["unregistered-system"]),
])

def test_the_check_refuses_what_it_can_see_is_wrong_without_the_key(sealed_repo, files, actor, now, expected):
    commit(sealed_repo, files)
    code, body, markdown, _ = check(sealed_repo, actor=actor, now=now)
    assert code == 1 and codes(only(body)) == expected, only(body)["reasons"]
    assert all(r["fix"] for r in only(body)["reasons"])



def test_a_sealed_task_without_a_published_key_loads_and_its_runs_wait_for_the_key(sealed_repo):
    toml = (sealed_repo / "challenge.toml").read_text().replace(f'recipient = "{KEY.recipient}"', "")
    commit(sealed_repo, {"challenge.toml": toml.encode()})
    git(sealed_repo, "branch", "-f", "main", "HEAD")  # the starter configuration, on the base branch
    commit(sealed_repo, {f"{RUN}.age": seal(phase_a_run("q1"), KEY.recipient)})
    code, body, _, _ = check(sealed_repo)
    assert code == 1 and codes(only(body)) == ["no-recipient"] and "keygen" in only(body)["reasons"][0]["fix"]


# --- keygen and seal --------------------------------------------------------------------------

def test_keygen_writes_a_private_key_only_its_owner_reads_and_prints_the_recipient(tmp_path):
    key = tmp_path / "key"
    code, out = run_cli("keygen", "--identity", str(key))
    assert code == 0 and stat.S_IMODE(key.stat().st_mode) == 0o600
    recipient = next(line for line in out.splitlines() if line.startswith("recipient = "))
    (tmp_path / "challenge.toml").write_text(f'[challenge]\nname = "x"\n[submissions]\nsealed = true\n{recipient}\n')
    challenge = load_challenge(tmp_path)
    assert open_envelope(seal(b"run", challenge.recipient), key.read_text(), "r") == b"run"
    assert run_cli("keygen", "--identity", str(key))[0] == 2  # never overwritten


def test_seal_refuses_an_invalid_run_with_its_located_errors_and_seals_a_valid_one(sealed_repo):
    run = sealed_repo / RUN
    run.parent.mkdir(parents=True)
    run.write_bytes(dumps({"questions": [{"id": "q7", "documents": [], "snippets": []}]}))
    code, out = run_cli("seal", str(run), "--repo", str(sealed_repo))
    assert code == 1 and "q7 is not in the test set testsets/taskb/batch1/phaseA.json" in out
    assert f"{RUN}:" in out and "not sealed" in out and not Path(f"{run}.age").exists()
    run.write_bytes(phase_a_run("q1", "q2"))
    code, out = run_cli("seal", str(run), "--repo", str(sealed_repo))
    assert code == 0 and f"add {RUN}.age" in out
    sealed = Path(f"{run}.age").read_bytes()
    assert envelope_problems(sealed, KEY.recipient, "x", MAX_BYTES) == ([], run.stat().st_size)
    plain = sealed_repo / "submissions/mcqa/m1/alpha/a1.json"
    plain.parent.mkdir(parents=True)
    plain.write_bytes(b"{}")
    assert run_cli("seal", str(plain), "--repo", str(sealed_repo))[0] == 2  # mcqa is not sealed here


# --- score-all: opened only after the window, by the holder of the key ------------------------

def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def sealed_tree(tmp_path) -> Path:
    """The sealed challenge's files with three sealed runs of batch1/phaseA (valid, invalid
    once opened, sealed to another key) and one plain run of another batch."""
    root = tmp_path / "challenge"
    for rel, data in {**SEALED_FILES,
                      f"{RUN}.age": seal(phase_a_run("q1", "q2"), KEY.recipient),
                      "submissions/taskB/batch1/phaseA/alpha/a2.json.age": seal(b'{"questions": [}', KEY.recipient),
                      "submissions/taskB/batch1/phaseA/beta/b1.json": None,
                      "submissions/taskB/batch1/phaseA/beta/b1.json.age": seal(phase_a_run("q1"), OTHER.recipient),
                      }.items():
        if data is not None:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
    return root


def statuses(root: Path) -> dict[str, str]:
    index = json.loads((root / "results/index.json").read_text())
    return {path: entry["status"] for path, entry in index["runs"].items()}


def test_nothing_is_opened_before_the_window_closes_even_with_the_key(sealed_tree):
    summary = score_all(sealed_tree, identity=KEY.identity, now=AT_CLOSE)
    sealed = [RUN, "submissions/taskB/batch1/phaseA/alpha/a2.json", "submissions/taskB/batch1/phaseA/beta/b1.json"]
    assert summary.sealed == sorted(sealed) and summary.opened == [] and summary.unopened == []
    assert not any((sealed_tree / path).exists() for path in sealed)
    assert not (sealed_tree / "results/sealed.json").exists()
    assert {p: s for p, s in statuses(sealed_tree).items() if p in sealed} == dict.fromkeys(sealed, "sealed")
    assert statuses(sealed_tree)["submissions/taskB/batch2/phaseA/alpha/a1.json"] == "awaiting gold"


def test_after_the_window_the_key_holder_opens_validates_and_scores_each_run_alone(sealed_tree):
    invalid, foreign = "submissions/taskB/batch1/phaseA/alpha/a2.json", "submissions/taskB/batch1/phaseA/beta/b1.json"
    summary = score_all(sealed_tree, identity=KEY.identity, now=AFTER_CLOSE)
    assert summary.opened == sorted([RUN, invalid]) and summary.unopened == [foreign]
    assert summary.scored == [RUN] and summary.failed == sorted([invalid, foreign]) and summary.sealed == []
    assert (sealed_tree / RUN).read_bytes() == phase_a_run("q1", "q2")
    result = json.loads((sealed_tree / "results/runs/taskB/batch1/phaseA/alpha/a1.json").read_text())
    assert result["provenance"]["sealed_sha256"] == sha256(sealed_tree / f"{RUN}.age")
    assert result["provenance"]["run_sha256"] == sha256(sealed_tree / RUN)
    error = json.loads((sealed_tree / "results/runs/taskB/batch1/phaseA/alpha/a2.error.json").read_text())
    assert error["problems"][0]["file"] == invalid and error["problems"][0]["line"] == 1  # located in the opened run
    unopenable = json.loads((sealed_tree / "results/runs/taskB/batch1/phaseA/beta/b1.error.json").read_text())
    assert [p["code"] for p in unopenable["problems"]] == ["cannot-open"] and not (sealed_tree / foreign).exists()
    assert unopenable["problems"][0]["file"] == f"{foreign}.age"
    # Once opened, never again: the ledger says so, with the key or without it.
    again = score_all(sealed_tree, identity=KEY.identity, now=AFTER_CLOSE)
    assert again.opened == again.unopened == again.scored == [] and RUN in again.reused
    assert statuses(sealed_tree)[RUN] == "scored"
    without_key = score_all(sealed_tree)
    assert without_key.scored == [] and statuses(sealed_tree)[foreign] == "error"


def test_a_replaced_sealed_run_is_opened_again_and_a_stray_plain_file_is_not_scored(sealed_tree):
    score_all(sealed_tree, identity=KEY.identity, now=AFTER_CLOSE)
    (sealed_tree / f"{RUN}.age").write_bytes(seal(phase_a_run("q1"), KEY.recipient))  # a late replacement
    assert score_all(sealed_tree).sealed == [RUN]  # without the key: the old opening is not scored as the new run
    summary = score_all(sealed_tree, identity=KEY.identity, now=AFTER_CLOSE)
    assert summary.opened == [RUN] and summary.scored == [RUN]
    assert (sealed_tree / RUN).read_bytes() == phase_a_run("q1")


def test_a_key_that_cannot_be_read_stops_before_any_run_is_touched(sealed_tree):
    with pytest.raises(SealingError):
        score_all(sealed_tree, identity="-----BEGIN OPENSSH PRIVATE KEY-----\nnope\n", now=AFTER_CLOSE)
    assert not (sealed_tree / RUN).exists() and not (sealed_tree / "results").exists()


def test_another_teams_envelope_on_the_base_branch_sent_again_is_refused(sealed_repo):
    """Alpha's sealed run is on main (the ledger says when); bob commits its bytes at beta's
    path: refused, naming alpha's run.  Bob's own sealing of the very same run is another
    envelope (age output is random) and is accepted."""
    envelope = seal(phase_a_run("q1", "q2"), KEY.recipient)
    ledger = json.loads((sealed_repo / "submissions/received.json").read_text())
    git(sealed_repo, "checkout", "-q", "main")
    commit(sealed_repo, {f"{RUN}.age": envelope, "submissions/received.json": dumps({**ledger, RUN: OPEN})})
    git(sealed_repo, "checkout", "-q", "-B", "pr", "main")
    beta = "submissions/taskB/batch1/phaseA/beta/b1.json.age"
    commit(sealed_repo, {beta: envelope})
    code, body, markdown, _ = check(sealed_repo, actor="bob", now="2026-03-01T13:00:00Z")
    assert code == 1 and codes(only(body)) == ["replayed-envelope"], markdown
    assert only(body)["reasons"][0]["message"].startswith(f"{beta} is byte for byte the sealed run {RUN}.age,")
    commit(sealed_repo, {beta: seal(phase_a_run("q1", "q2"), KEY.recipient)})
    code, body, markdown, _ = check(sealed_repo, actor="bob", now="2026-03-01T13:00:00Z")
    assert code == 0 and only(body)["accepted"], markdown
