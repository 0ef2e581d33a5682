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
the MAC line: 32 bytes), every ``ssh-ed25519`` stanza is as age writes it (a 4-byte tag,
a 32-byte ephemeral share that is not a low-order point, a 32-byte body), one of them
carries the challenge key's tag (other stanzas, such as rage's random "grease" ones or a
participant's own copy, are allowed), and the payload's length is one age's STREAM can
produce (a 16-byte nonce, then chunks each with a 16-byte tag), which gives the exact
size of the sealed run (:func:`opened_size`).  Whether the wrapped file key unwraps, the
header MAC matches and the run inside is valid is known only when it is opened
(:func:`open_envelope`): an envelope wrong only there harms its sender alone.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from scorer.core.errors import Problem
from scorer.core.paths import sealed_copy

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
#: The demo challenge's key (``docs/demo.md``): its private key is PUBLIC, committed at
#: :data:`DEMO_KEY_FILE` so that anyone can open the demo's sealed gold and build its site.
#: Only a challenge that says ``demo = true`` and publishes this recipient opens with it
#: (:func:`scorer.store.sealed.demo_identity`); a challenge that is not a demo may not publish
#: it (``demo-recipient``): anyone could open what is sealed to it.
DEMO_RECIPIENT = ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIF2C+AjpUL/V2J0UkzZF7CXnt6gSpRQYUV5fNPh0+/5u "
                  "DEMO-ONLY-its-private-key-is-public")
DEMO_KEY_FILE = "demo/DEMO-ONLY-sealing-key.txt"
SEAL_FIX = "seal the run again with python -m scorer seal RUN.json (or age -r \"<the recipient in challenge.toml>\")"


def read_gold(path: Path, identity: str | None) -> bytes:
    """The bytes of gold file ``path``: the plain file when it is there, else its sealed
    copy (``[gold] sealed``) opened in memory with the private key ``identity`` (OpenSSH
    PEM text).  Raises :class:`SealingError` when the gold is sealed and ``identity`` is
    None or does not open it, OSError when there is neither file."""
    if path.is_file() or not sealed_copy(path).is_file():
        return path.read_bytes()
    if identity is None:
        raise SealingError(Problem(code="sealed-gold", file=str(sealed_copy(path)),
                                   message="the gold is sealed: it is read with the challenge's private key",
                                   fix="give the key file: --identity KEYFILE (python -m scorer keygen wrote it)"))
    return open_envelope(sealed_copy(path).read_bytes(), identity, str(sealed_copy(path)), what="gold",
                         fix="give the challenge's private key (--identity), the one its recipient is of")


def gold_to_write(path: Path, data: bytes, recipient: str | None) -> tuple[Path, bytes]:
    """Where and what to write for gold file ``path`` holding ``data``: sealed to
    ``recipient`` at its :func:`sealed_copy` when the gold is sealed (``recipient`` given),
    else ``data`` at ``path``.  Nothing plain of sealed gold is ever written."""
    return (sealed_copy(path), seal(data, recipient)) if recipient else (path, data)


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


def is_demo_recipient(recipient: str) -> bool:
    """Whether ``recipient`` is the demo's public key (:data:`DEMO_RECIPIENT`), whatever its label."""
    return _key_part(recipient) == _key_part(DEMO_RECIPIENT)


def _key_part(recipient: str) -> str:
    """``ssh-ed25519 AAAA...`` without the label (pyrage reads the type and key only)."""
    return " ".join(recipient.split()[:2])


def open_envelope(data: bytes, identity: str, name: str, what: str = "run", fix: str = "") -> bytes:
    """The run (or the ``what``: "gold") inside sealed file ``name`` of bytes ``data``,
    opened with the private key ``identity`` (OpenSSH PEM text).  Raises
    :class:`SealingError` (located at ``name``, with ``fix`` when given) when the key
    cannot be read or the file cannot be opened with it."""
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
            message=f"the sealed {what} cannot be opened with the challenge's key ({exc}): it was sealed to "
                    "another key, or the file is damaged",
            fix=fix or "none after the window closed: the run cannot be read (next time: " + SEAL_FIX + ")")) from None


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


def envelope_problems(data: bytes, recipient: str, name: str, max_run_bytes: int, what: str = "run",
                      fix: str = SEAL_FIX) -> tuple[list[Problem], int | None]:
    """What is wrong with sealed file ``name`` of bytes ``data`` that can be seen without
    the key (see the module doc), and the size of the run (or the ``what``: "gold") inside
    (None when unknown); ``fix``: how to seal it again.

    Problems: ``not-sealed`` (not an age file: no version line, or ASCII armor),
    ``bad-envelope`` (a header or payload that is not well formed, located at its header
    line: :func:`_stanzas`; the MAC line; :func:`_payload_problem`),
    ``wrong-recipient`` (no ``ssh-ed25519`` stanza with the tag of ``recipient``),
    ``too-large`` (the run inside is larger than ``max_run_bytes``).

    What remains unchecked needs the key: whether the wrapped file key (a stanza's body)
    unwraps, the header MAC matches and the payload decrypts.  An envelope well formed in
    every other way but wrong there is found only when the publisher opens it, and then it
    is that run's own error (``cannot-open``), nobody else's.
    """
    def problem(code: str, message: str, fix: str = fix, line: int | None = None) -> tuple[list[Problem], None]:
        return [Problem(code=code, file=name, line=line, message=message, fix=fix)], None

    if data.startswith(b"-----BEGIN AGE ENCRYPTED FILE-----"):
        return problem("not-sealed", f"the sealed {what} is in ASCII armor (age -a)", "seal it without -a/--armor")
    if not data.startswith(VERSION_LINE):
        return problem("not-sealed", "not an age file (it does not start with the line age-encryption.org/v1)")
    end = data.find(b"\n--- ", 0, MAX_HEADER)
    if end < 0:
        return problem("bad-envelope", f"the age header has no MAC line ('--- ' and the MAC) in its first "
                                       f"{MAX_HEADER:,} bytes")
    mac_line = data.count(b"\n", 0, end) + 2  # 1-based: the version line is line 1
    mac_end = data.find(b"\n", end + 1, end + 64)
    if mac_end < 0:
        return problem("bad-envelope", "the MAC line of the age header does not end within 64 characters",
                       line=mac_line)
    if not _canonical_base64(data[end + 5:mac_end], 32):
        return problem("bad-envelope", "the MAC line of the age header does not hold 32 bytes (the header's "
                                       "HMAC-SHA-256) in canonical unpadded base64 (43 characters after '--- ')",
                       line=mac_line)
    stanzas, error = _stanzas(data[len(VERSION_LINE):end + 1])
    if error:
        message, line = error
        return problem("bad-envelope", f"the age header is not well formed: {message}", line=line)
    tag = recipient_tag(recipient)
    if not any(kind == STANZA_TYPE and args[0] == tag for kind, args in stanzas):
        tags = [args[0] for kind, args in stanzas if kind == STANZA_TYPE]
        found = f"sealed to ssh-ed25519 key(s) tagged {', '.join(tags)}" if tags else \
            "not sealed to any ssh-ed25519 key"
        return problem("wrong-recipient", f"the {what} is {found}; the challenge's key is tagged {tag} "
                                          f"(a {what} sealed to another key cannot be opened)")
    payload = len(data) - mac_end - 1
    size = opened_size(payload)
    if size is None:
        return problem("bad-envelope", f"the age payload (the {payload:,} bytes after the MAC line) "
                                       f"{_payload_problem(payload)}")
    if size > max_run_bytes:
        return [Problem(code="too-large", file=name, message=f"the sealed {what} has {size:,} bytes; the limit is "
                                                              f"{max_run_bytes:,}",
                        fix="remove unneeded fields (e.g. snippet texts), then seal it again")], size
    return [], size


def _payload_problem(payload: int) -> str:
    """Why no age file has a payload of ``payload`` bytes (:func:`opened_size` is None)."""
    if payload < NONCE:
        return f"is shorter than the {NONCE}-byte nonce"
    if payload < NONCE + TAG:
        return f"holds no chunk: after the {NONCE}-byte nonce, at least one chunk's {TAG}-byte tag is needed"
    return "is cut or padded (its length is not one age writes: chunks of 64 KiB + 16 bytes, the last shorter)"


def _stanzas(header: bytes) -> tuple[list[tuple[str, list[str]]], tuple[str, int] | None]:
    """The (type, arguments) of each stanza of an age header (between the version line and
    the MAC line, each line ending in ``\\n``), or the first thing not well formed with its
    header line (1-based; the version line is line 1).  Every stanza's body is canonical
    unpadded base64 in lines of 64 characters, the last one shorter; an ``ssh-ed25519``
    stanza must be as age writes it (:func:`_ssh_stanza_problem`)."""
    lines = header.split(b"\n")[:-1]
    out: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(lines):
        start = i + 2
        parts = lines[i].split(b" ")
        if parts[0] != b"->" or len(parts) < 2 or not all(_STANZA_ARG.fullmatch(p) for p in parts[1:]):
            return out, ("not a stanza line ('-> type arguments', each argument printable ASCII "
                         "without spaces)", start)
        body, i = [], i + 1
        while True:
            if i >= len(lines):
                return out, (f"the body of stanza {len(out) + 1} does not end (a line shorter than 64 characters)",
                             start)
            body.append(lines[i])
            i += 1
            if len(body[-1]) < 64:
                break
            if len(body[-1]) > 64:
                return out, ("a stanza body line longer than 64 characters", i + 1)
        text = b"".join(body)
        if not _canonical_base64(text, None):
            return out, (f"the body of stanza {len(out) + 1} is not canonical unpadded base64", start + 1)
        kind, args = parts[1].decode("ascii"), [p.decode("ascii") for p in parts[2:]]
        if kind == STANZA_TYPE:
            wrong = _ssh_stanza_problem(args, text)
            if wrong is not None:
                message, offset = wrong
                return out, (f"stanza {len(out) + 1} (ssh-ed25519): {message}", start + offset)
        out.append((kind, args))
    if not out:
        return out, ("it has no recipient stanza", 2)
    return out, None


def _ssh_stanza_problem(args: list[str], body: bytes) -> tuple[str, int] | None:
    """What makes an ``ssh-ed25519`` stanza (its arguments after the type, its body) not
    one age writes, with the line it is on (0: the stanza line, 1: its body); None when
    it is well formed.  Per https://age-encryption.org/v1: two arguments, the key's tag (4
    bytes) and the ephemeral X25519 share (32 bytes), each in canonical unpadded base64;
    the share not a low-order point (the shared secret would be all zeroes, which age
    refuses whatever the key); the body, the wrapped file key, exactly 32 bytes (a 16-byte
    file key and its 16-byte tag)."""
    if len(args) != 2:
        return f"has {len(args)} argument(s); age writes 2 (the key's tag and the ephemeral share)", 0
    tag, share = (a.encode("ascii") for a in args)
    if not _canonical_base64(tag, 4):
        return "the tag is not 4 bytes in canonical unpadded base64 (6 characters)", 0
    if not _canonical_base64(share, 32):
        return "the ephemeral share is not 32 bytes in canonical unpadded base64 (43 characters)", 0
    if _low_order(base64.b64decode(share + b"=")):
        return "the ephemeral share is a low-order X25519 point: no key can open it", 0
    if not _canonical_base64(body, 32):
        return "the body (the wrapped file key) is not 32 bytes in canonical unpadded base64 (43 characters)", 1
    return None


def _low_order(share: bytes) -> bool:
    """Whether the X25519 point ``share`` (32 bytes) has low order: its product with any
    clamped scalar (a multiple of the cofactor 8) is all zeroes, which ``cryptography``'s
    X25519 refuses (``ValueError``).  One exchange with a fresh key tells."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
    try:
        X25519PrivateKey.generate().exchange(X25519PublicKey.from_public_bytes(share))
    except ValueError:
        return True
    return False


def _canonical_base64(text: bytes, size: int | None) -> bool:
    """``text`` is unpadded standard base64 in its one canonical form (of ``size`` bytes when given)."""
    try:
        decoded = base64.b64decode(text + b"=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    canonical = base64.b64encode(decoded).rstrip(b"=") == text
    return canonical and (size is None or len(decoded) == size)
