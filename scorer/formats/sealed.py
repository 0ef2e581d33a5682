"""Sealed runs: a run encrypted to the challenge's public key with age, opened only by
the organizers after its window closes (see ``docs/organizers.md``, "Sealed runs").

The format is age v1 (https://age-encryption.org/v1), written and read by ``pyrage`` (the
Python binding of rage, the Rust implementation of age); nothing here is cryptography of
our own.  The challenge's key is an Ed25519 key in OpenSSH format, used through age's
``ssh-ed25519`` recipient type: ``age -r "ssh-ed25519 AAAA..."`` (the Go ``age`` or
``rage`` command line) seals a run the same way ``python -m scorer seal`` does.  That
recipient type is chosen over age's native X25519 for one property: its stanza names the
key it was sealed to (a 4-byte tag, the first bytes of SHA-256 of the key's SSH wire
form), so the pull-request check, which has no secret, can refuse a run sealed to another
key (the previous window's after a rotation, the participant's own) instead of finding
out after the window closed.  X25519 stanzas hide their recipient by design.

What can be checked without the key (:func:`envelope_problems`), all bounded by the
header's size: the age header is well formed (version line, stanzas, canonical base64,
the MAC line), one ``ssh-ed25519`` stanza carries the challenge key's tag (other stanzas,
such as rage's random "grease" ones or a participant's own copy, are allowed), and the
payload's length is one age's STREAM can produce, which gives the exact size of the sealed
run (:func:`opened_size`).  Whether the run inside is valid is known only when it is
opened (:func:`open_envelope`).
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass

from scorer.errors import Problem

#: The suffix of a sealed run: ``<system>.json.age`` at the run's path.
SEALED_SUFFIX = ".age"
#: The recipient type of the challenge's key, as the age header names it.
STANZA_TYPE = "ssh-ed25519"
VERSION_LINE = b"age-encryption.org/v1\n"
#: Bytes the age header may take at most before its MAC line (a few stanzas need ~200).
MAX_HEADER = 16_384
#: age's STREAM: 16-byte payload nonce, plaintext in 64 KiB chunks, each with a 16-byte tag.
NONCE, CHUNK, TAG = 16, 65_536, 16
#: What sealing adds to a run of ``n`` bytes at most: the header and a tag per chunk.
#: :func:`sealed_limit` uses it for the size rule of a sealed file.
HEADER_ALLOWANCE = 4_096

_STANZA_ARG = re.compile(rb"[\x21-\x7e]+")
_SSH_KEY = re.compile(r"ssh-ed25519 ([A-Za-z0-9+/]+={0,2})(?: .*)?")
SEAL_FIX = "seal the run again with python -m scorer seal RUN.json (or age -r \"<the recipient in challenge.toml>\")"


class SealingError(ValueError):
    """A key that cannot be read or used, or a file that cannot be opened: ``problem`` says
    which and how to fix it."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


@dataclass(frozen=True)
class KeyPair:
    """A new sealing key: ``identity``, the private key (OpenSSH PEM text, the secret the
    publish environment holds); ``recipient``, its public key (``ssh-ed25519 AAAA... label``,
    what ``challenge.toml`` publishes)."""

    identity: str
    recipient: str


def generate_key_pair(label: str = "challenge-sealing") -> KeyPair:
    """A new Ed25519 key pair in OpenSSH form (``cryptography`` generates it; the private
    key is unencrypted: it lives in a secret store, never in a file of the repository)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    key = Ed25519PrivateKey.generate()
    identity = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH,
                                 serialization.NoEncryption()).decode("ascii")
    public = key.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    return KeyPair(identity, f"{public.decode('ascii')} {label}".strip())


def recipient_problem(recipient: str) -> str | None:
    """What makes ``recipient`` not an ``ssh-ed25519`` public key line, None when it is one."""
    match = _SSH_KEY.fullmatch(recipient.strip())
    if match is None:
        return "is not an ssh-ed25519 public key (ssh-ed25519 AAAA... [label])"
    try:
        import pyrage  # type: ignore[import-untyped]  # no stubs
        pyrage.ssh.Recipient.from_str(f"{STANZA_TYPE} {match.group(1)}")
    except (ValueError, pyrage.RecipientError) as exc:
        return f"is not a valid ssh-ed25519 public key ({exc})"
    return None


def recipient_tag(recipient: str) -> str:
    """The tag an ``ssh-ed25519`` stanza of this recipient carries: the first 4 bytes of
    SHA-256 of the key's SSH wire form (the base64 field of the key line), in unpadded
    base64 (6 characters).  ``recipient`` must pass :func:`recipient_problem`."""
    match = _SSH_KEY.fullmatch(recipient.strip())
    assert match is not None, f"not an ssh-ed25519 key line: {recipient!r}"
    wire = base64.b64decode(match.group(1))
    return base64.b64encode(hashlib.sha256(wire).digest()[:4]).decode("ascii").rstrip("=")


def seal(data: bytes, recipient: str) -> bytes:
    """``data`` sealed to ``recipient`` (an age file, binary)."""
    import pyrage
    return pyrage.encrypt(data, [pyrage.ssh.Recipient.from_str(_key_part(recipient))])


def _key_part(recipient: str) -> str:
    """``ssh-ed25519 AAAA...`` without the label (pyrage reads the type and key only)."""
    return " ".join(recipient.split()[:2])


def open_envelope(data: bytes, identity: str, name: str) -> bytes:
    """The run inside sealed file ``name`` of bytes ``data``, opened with the private key
    ``identity`` (OpenSSH PEM text).  Raises :class:`SealingError` (located at ``name``)
    when the key cannot be read or the file cannot be opened with it."""
    import pyrage
    try:
        key = pyrage.ssh.Identity.from_buffer(identity.encode("utf-8"))
    except (ValueError, pyrage.IdentityError) as exc:
        raise SealingError(Problem(code="bad-sealing-key", message=f"the sealing key cannot be read ({exc})",
                                   fix="organizers: store the whole private key file (python -m scorer keygen wrote it) "
                                       "as the secret SEALING_KEY of the publish environment")) from None
    try:
        return pyrage.decrypt(data, [key])
    except (ValueError, pyrage.DecryptError) as exc:
        raise SealingError(Problem(
            code="cannot-open", file=name,
            message=f"the sealed run cannot be opened with the challenge's key ({exc}): it was sealed to "
                    "another key, or the file is damaged",
            fix="none after the window closed: the run cannot be read (next time: " + SEAL_FIX + ")")) from None


def sealed_limit(max_run_bytes: int) -> int:
    """The largest sealed file of a run of at most ``max_run_bytes`` bytes: the run, a
    16-byte tag per 64 KiB chunk, the nonce and :data:`HEADER_ALLOWANCE` for the header."""
    chunks = max(1, -(-max_run_bytes // CHUNK))
    return max_run_bytes + chunks * TAG + NONCE + HEADER_ALLOWANCE


def opened_size(payload_bytes: int) -> int | None:
    """The size of the run inside an age payload of ``payload_bytes`` bytes (nonce
    included), None when no age file has a payload of that length.

    The payload is a 16-byte nonce, then chunks of 64 KiB + 16 bytes, the last one
    holding 1 to 64 KiB of the run (or 0 bytes when it is the only one: an empty run).
    """
    rest = payload_bytes - NONCE
    if rest < TAG:
        return None
    full, last = divmod(rest, CHUNK + TAG)
    if last == 0:
        return full * CHUNK
    if last < TAG or (last == TAG and full > 0):
        return None
    return full * CHUNK + last - TAG


def envelope_problems(data: bytes, recipient: str, name: str, max_run_bytes: int) -> tuple[list[Problem], int | None]:
    """What is wrong with sealed file ``name`` of bytes ``data`` that can be seen without
    the key (see the module doc), and the size of the run inside (None when unknown).

    Problems: ``not-sealed`` (not an age file: no version line, or ASCII armor),
    ``bad-envelope`` (a header or payload that is not well formed), ``wrong-recipient``
    (no ``ssh-ed25519`` stanza with the tag of ``recipient``), ``too-large`` (the run
    inside is larger than ``max_run_bytes``).
    """
    def problem(code: str, message: str, fix: str = SEAL_FIX) -> tuple[list[Problem], None]:
        return [Problem(code=code, file=name, message=message, fix=fix)], None

    if data.startswith(b"-----BEGIN AGE ENCRYPTED FILE-----"):
        return problem("not-sealed", "the sealed run is in ASCII armor (age -a)", "seal it without -a/--armor")
    if not data.startswith(VERSION_LINE):
        return problem("not-sealed", "not an age file (it does not start with the line age-encryption.org/v1)")
    end = data.find(b"\n--- ", 0, MAX_HEADER)
    if end < 0:
        return problem("bad-envelope", f"the age header has no MAC line in its first {MAX_HEADER:,} bytes")
    mac_end = data.find(b"\n", end + 1, end + 64)
    if mac_end < 0 or not _canonical_base64(data[end + 5:mac_end], 32):
        return problem("bad-envelope", "the MAC line of the age header is not well formed")
    stanzas, error = _stanzas(data[len(VERSION_LINE):end + 1])
    if error:
        return problem("bad-envelope", f"the age header is not well formed: {error}")
    tag = recipient_tag(recipient)
    if not any(kind == STANZA_TYPE and args[0] == tag for kind, args in stanzas):
        tags = [args[0] for kind, args in stanzas if kind == STANZA_TYPE]
        found = f"sealed to ssh-ed25519 key(s) tagged {', '.join(tags)}" if tags else \
            "not sealed to any ssh-ed25519 key"
        return problem("wrong-recipient", f"the run is {found}; the challenge's key is tagged {tag} "
                                          "(a run sealed to another key cannot be opened)")
    size = opened_size(len(data) - mac_end - 1)
    if size is None:
        return problem("bad-envelope", "the age payload is cut or padded (its length is not one age writes)")
    if size > max_run_bytes:
        return [Problem(code="too-large", file=name, message=f"the sealed run has {size:,} bytes; the limit is "
                                                              f"{max_run_bytes:,}",
                        fix="remove unneeded fields (e.g. snippet texts), then seal it again")], size
    return [], size


def _stanzas(header: bytes) -> tuple[list[tuple[str, list[str]]], str | None]:
    """The (type, arguments) of each stanza of an age header (between the version line and
    the MAC line, each line ending in ``\\n``), or the first thing not well formed.
    ``ssh-ed25519`` stanzas must have a 6-character tag, a 32-byte share and a 32-byte body."""
    lines = header.split(b"\n")[:-1]
    out: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(lines):
        parts = lines[i].split(b" ")
        if parts[0] != b"->" or len(parts) < 2 or not all(_STANZA_ARG.fullmatch(p) for p in parts[1:]):
            return out, f"line {i + 2} is not a stanza line ('-> type arguments')"
        body, i = [], i + 1
        while True:
            if i >= len(lines):
                return out, f"the body of stanza {len(out) + 1} does not end (a line shorter than 64 characters)"
            body.append(lines[i])
            i += 1
            if len(body[-1]) < 64:
                break
            if len(body[-1]) > 64:
                return out, f"line {i + 1} is longer than 64 characters"
        text = b"".join(body)
        if not _canonical_base64(text, None):
            return out, f"the body of stanza {len(out) + 1} is not canonical unpadded base64"
        kind, args = parts[1].decode("ascii"), [p.decode("ascii") for p in parts[2:]]
        if kind == STANZA_TYPE and not (len(args) == 2 and _canonical_base64(args[0].encode(), 4)
                                        and _canonical_base64(args[1].encode(), 32) and _canonical_base64(text, 32)):
            return out, f"stanza {len(out) + 1} (ssh-ed25519) does not have a tag, a 32-byte share and a 32-byte body"
        out.append((kind, args))
    if not out:
        return out, "it has no recipient stanza"
    return out, None


def _canonical_base64(text: bytes, size: int | None) -> bool:
    """``text`` is unpadded standard base64 in its one canonical form (of ``size`` bytes when given)."""
    try:
        decoded = base64.b64decode(text + b"=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    canonical = base64.b64encode(decoded).rstrip(b"=") == text
    return canonical and (size is None or len(decoded) == size)
