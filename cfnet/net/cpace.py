"""CPace, cipher suite CPACE-X25519-SHA512 (draft-irtf-cfrg-cpace-21), initiator-responder setting.

Both sides derive a secret generator from the password-related string PRS (and the channel id
CI and session id sid), send `scalar * generator` with their associated data AD, and hash the
shared point with both messages into the intermediate session key ISK. A side that does not
know PRS makes one guess per run: the messages give nothing to test guesses on offline.

The generator map (SHA-512 of the generator string, then Elligator 2 onto Curve25519, as the
draft restates RFC 9380's `map_to_curve_elligator2`) is plain integer arithmetic here, checked
against the draft's test vectors; X25519 itself is `cryptography`'s (RFC 7748: the scalar is
clamped, bit 255 of a u-coordinate ignored, and an all-zero result refused).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

DSI = b"CPace255"  # G_X25519.DSI
FIELD_BYTES = 32  # G_X25519.field_size_bytes: scalars, points and generators
NEUTRAL = bytes(FIELD_BYTES)  # G_X25519.I
_HASH_BLOCK = 128  # SHA-512's input block size, H.s_in_bytes
_P = 2**255 - 19
_A = 486662  # Curve25519: v^2 = u^3 + A u^2 + u
_Z = 2  # the non-square of RFC 9380 for Curve25519


def prepend_len(data: bytes) -> bytes:
    """`data` after its length in LEB128."""
    length, out = len(data), bytearray()
    while True:
        low, length = length & 0x7F, length >> 7
        out.append(low | (0x80 if length else 0))
        if not length:
            return bytes(out) + data


def lv_cat(*parts: bytes) -> bytes:
    """Every part after its LEB128 length, concatenated."""
    return b"".join(prepend_len(part) for part in parts)


def generator_string(prs: bytes, ci: bytes, sid: bytes) -> bytes:
    """lv_cat(DSI, PRS, zero padding to fill SHA-512's first block, CI, sid)."""
    padding = max(0, _HASH_BLOCK - 1 - len(prepend_len(prs)) - len(prepend_len(DSI)))
    return lv_cat(DSI, prs, bytes(padding), ci, sid)


def elligator2(r: int) -> int:
    """The u-coordinate of the Curve25519 point that Elligator 2 maps the field element r to."""
    v = -_A * pow(1 + _Z * r * r, _P - 2, _P) % _P
    epsilon = pow((v * v * v + _A * v * v + v) % _P, (_P - 1) // 2, _P)  # 1, P-1 or 0
    return (epsilon * v - (1 - epsilon) * _A * pow(2, _P - 2, _P)) % _P


@lru_cache(maxsize=16)  # a host derives its table's generator once, not per connection
def calculate_generator(prs: bytes, ci: bytes, sid: bytes) -> bytes:
    """The secret generator g (a 32-byte u-coordinate) for this PRS, CI and sid."""
    digest = bytearray(hashlib.sha512(generator_string(prs, ci, sid)).digest()[:FIELD_BYTES])
    digest[-1] &= 0x7F  # decodeUCoordinate: 255 bits
    u = elligator2(int.from_bytes(digest, "little"))
    return u.to_bytes(FIELD_BYTES, "little")


def scalar_mult(scalar: bytes, point: bytes) -> bytes:
    """G.scalar_mult_vfy: X25519(scalar, point), or NEUTRAL when that is the neutral element."""
    try:
        return X25519PrivateKey.from_private_bytes(scalar).exchange(
            X25519PublicKey.from_public_bytes(point)
        )
    except ValueError:  # all-zero result: a low-order point
        return NEUTRAL


def transcript_ir(ya: bytes, ad_a: bytes, yb: bytes, ad_b: bytes) -> bytes:
    """The initiator-responder transcript: lv_cat(Ya, ADa) || lv_cat(Yb, ADb)."""
    return lv_cat(ya, ad_a) + lv_cat(yb, ad_b)


def intermediate_key(k: bytes, transcript: bytes, sid: bytes) -> bytes:
    """ISK = SHA-512(lv_cat(DSI || "_ISK", sid, K) || transcript)."""
    return hashlib.sha512(lv_cat(DSI + b"_ISK", sid, k) + transcript).digest()
