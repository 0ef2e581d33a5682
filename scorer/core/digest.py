"""The scorer's one digest of bytes: SHA-256 as 64 lowercase hex digits (the fingerprint,
the rules of a challenge, results, ledgers, pools, the site's short names)."""
from __future__ import annotations

import hashlib


def sha256_bytes(data: bytes) -> str:
    """The SHA-256 of ``data`` as 64 lowercase hex digits."""
    return hashlib.sha256(data).hexdigest()


__all__ = ["sha256_bytes"]
