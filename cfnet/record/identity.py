"""A peer's long-lived Ed25519 identity key, its storage and its printable fingerprint.

`cryptography` is imported only where a key is made or signs: checking a signature (all that
`cfnet verify` does) needs libsodium alone, and a command starts sooner without it."""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from nacl import bindings as sodium
from nacl.exceptions import BadSignatureError

from cfnet.lang import N_, Sentence
from cfnet.record.binary_open import O_BINARY

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64


class IdentityError(ValueError):
    """A key file or public key that cannot be used."""


@dataclass(frozen=True, slots=True)
class Identity:
    """An Ed25519 signing key; `public` is its 32-byte raw public key."""

    private: Ed25519PrivateKey

    @classmethod
    def generate(cls) -> Identity:
        """A fresh key from the operating system's random source."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        """The key with this 32-byte private seed (for tests and test vectors)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    @classmethod
    def load_or_create(cls, path: Path) -> Identity:
        """The key stored at `path`, creating it (mode 0600) on first use."""
        if path.exists():
            data = path.read_bytes()
            if len(data) != 32:
                raise IdentityError(
                    Sentence(
                        N_("{file} is not a cfnet identity key (expected {size} bytes)"),
                        file=str(path),
                        size=32,
                    )
                )
            return cls.from_seed(data)
        identity = cls.generate()
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_BINARY, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(identity.seed)
            f.flush()
            os.fsync(f.fileno())
        return identity

    @property
    def seed(self) -> bytes:
        from cryptography.hazmat.primitives import serialization

        return self.private.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )

    @property
    def public(self) -> bytes:
        from cryptography.hazmat.primitives import serialization

        return self.private.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public)

    def sign(self, data: bytes) -> bytes:
        """The 64-byte Ed25519 signature of `data`."""
        return self.private.sign(data)


def verify_signature(public: bytes, data: bytes, signature: bytes) -> bool:
    """Whether `signature` is `public`'s valid Ed25519 signature of exactly `data`.

    Checked by libsodium, which is strict (canonical S; neither the key nor R of small order)
    and about a third faster than OpenSSL here; every honest signature passes it.
    """
    if len(public) != PUBLIC_KEY_BYTES or len(signature) != SIGNATURE_BYTES:
        return False
    try:
        sodium.crypto_sign_open(signature + data, public)
    except (BadSignatureError, ValueError, TypeError, RuntimeError):
        return False
    return True


def fingerprint(public: bytes) -> str:
    """A short printable name for a public key: `ab3f-9k2c-...` (base32 of SHA-256, 16 chars)."""
    digest = base64.b32encode(hashlib.sha256(b"cfnet/v1/fingerprint" + public).digest())
    text = digest.decode("ascii").lower()[:16]
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))
