"""Canonical, bounded msgpack: the one byte form of every signed or framed value.

Canonical: ints in their shortest msgpack form, str as UTF-8 `str`, bytes as `bin`, maps with
str keys sorted by their UTF-8 bytes and no duplicates; no floats, no ext types. Decoding walks
the headers first (sizes, depth, item count, truncation) before msgpack builds any object; each
call uses a fresh one-shot `msgpack.unpackb` with explicit limits, so no Unpacker outlives an error.
"""

from __future__ import annotations

from typing import Any

import msgpack

from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.lang import N_, Sentence

Plain = Any
"""A msgpack-able value: None, bool, int, str, bytes, list (tuple on encode), dict[str, ...]."""

MAX_SIZE = 1 << 20
MAX_DEPTH = 16
MAX_STR_LEN = 1 << 16
MAX_BIN_LEN = 1 << 20
MAX_ARRAY_LEN = 1 << 12
MAX_MAP_LEN = 1 << 10
MAX_ITEMS = 1 << 16

_INT_MIN = -(1 << 63)
_INT_MAX = (1 << 64) - 1


class DecodeError(PeerProtocolError):
    """Received bytes are not one bounded, canonical msgpack value."""


class EncodeError(LocalProtocolError):
    """A value we tried to encode is not canonical-msgpack-able; nothing was encoded."""


def encode_canonical(obj: Plain, *, max_depth: int = MAX_DEPTH) -> bytes:
    """The canonical msgpack bytes of `obj`; EncodeError for floats, non-str keys, etc."""
    return bytes(msgpack.packb(_normalise(obj, max_depth, "value"), use_bin_type=True))


def _normalise(obj: Plain, depth_left: int, where: str) -> Plain:
    """`obj` with every map rebuilt in canonical key order, after checking every type."""
    kind = type(obj)
    if obj is None or kind is bool or kind is bytes:
        return obj
    if kind is str:
        _utf8(obj, where)
        return obj
    if kind is int:
        if not _INT_MIN <= obj <= _INT_MAX:
            raise EncodeError(  # untranslated: a caller's bug
                f"{where}: int {obj} is outside msgpack's -2**63 .. 2**64-1"
            )
        return obj
    if kind in (list, tuple, dict) and depth_left <= 0:
        raise EncodeError(  # untranslated: a caller's bug
            f"{where}: nested too deep (allowed depth {MAX_DEPTH})"
        )
    if kind is list or kind is tuple:
        return [_normalise(x, depth_left - 1, f"{where}[{i}]") for i, x in enumerate(obj)]
    if kind is dict:
        keys: list[tuple[bytes, str]] = []
        for key in obj:
            if type(key) is not str:
                raise EncodeError(  # untranslated: a caller's bug
                    f"{where}: map key {key!r} is not a str (only str keys)"
                )
            keys.append((_utf8(key, where), key))
        keys.sort()
        return {k: _normalise(obj[k], depth_left - 1, f"{where}.{k}") for _, k in keys}
    raise EncodeError(  # untranslated: a caller's bug
        f"{where}: {kind.__name__} is not allowed"
        " (allowed: None, bool, int, str, bytes, list, tuple, dict with str keys)"
    )


def _utf8(text: str, where: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EncodeError(  # untranslated: a caller's bug
            f"{where}: str {text!r} is not valid UTF-8 text"
        ) from exc


def decode_bounded(
    data: bytes,
    *,
    max_size: int = MAX_SIZE,
    max_depth: int = MAX_DEPTH,
    max_str_len: int = MAX_STR_LEN,
    max_bin_len: int = MAX_BIN_LEN,
    max_array_len: int = MAX_ARRAY_LEN,
    max_map_len: int = MAX_MAP_LEN,
    max_items: int = MAX_ITEMS,
    canonical: bool = True,
) -> Plain:
    """The one msgpack value that is exactly `data`, within every limit; DecodeError if not.

    Sizes, depth, item count, floats, ext types and truncation are checked on the headers
    before any object is built; `canonical` also requires `data == encode_canonical(value)`.
    """
    if len(data) > max_size:
        raise DecodeError(
            Sentence(
                N_("{size} bytes is over the limit of {limit}"), size=len(data), limit=max_size
            )
        )
    _scan(data, max_depth, max_str_len, max_bin_len, max_array_len, max_map_len, max_items)
    try:
        value = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_str_len=max_str_len,
            max_bin_len=max_bin_len,
            max_array_len=max_array_len,
            max_map_len=max_map_len,
            max_ext_len=0,
        )
    except (ValueError, msgpack.UnpackException) as exc:
        raise DecodeError(Sentence(N_("not valid msgpack: {error}"), error=str(exc))) from exc
    if canonical:
        try:
            again = encode_canonical(value, max_depth=max_depth)
        except EncodeError as exc:
            raise DecodeError(Sentence(N_("not canonical: {error}"), error=str(exc))) from exc
        if again != data:
            raise DecodeError(
                Sentence(
                    N_(
                        "not canonical msgpack (ints must be shortest, map keys sorted and"
                        " unique, text as str and bytes as bin)"
                    )
                )
            )
    return value


# Header layout of each msgpack type byte that may appear: (extra header bytes, what it is).
_FIXED = {0xC0: 0, 0xC2: 0, 0xC3: 0, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}
_FIXED |= {0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}
_BIN = {0xC4: 1, 0xC5: 2, 0xC6: 4}
_STR = {0xD9: 1, 0xDA: 2, 0xDB: 4}
_ARRAY = {0xDC: 2, 0xDD: 4}
_MAP = {0xDE: 2, 0xDF: 4}
_RESERVED = N_("byte {pos} starts the reserved type byte 0xc1")
_FLOAT = N_("byte {pos} starts a float (floats are not allowed)")
_EXT = N_("byte {pos} starts an ext type (ext types are not allowed)")
_REFUSED = {0xC1: _RESERVED, 0xCA: _FLOAT, 0xCB: _FLOAT}
_REFUSED |= {b: _EXT for b in (0xC7, 0xC8, 0xC9, *range(0xD4, 0xD9))}


def _scan(
    data: bytes,
    max_depth: int,
    max_str_len: int,
    max_bin_len: int,
    max_array_len: int,
    max_map_len: int,
    max_items: int,
) -> None:
    """Walk the headers of one value: every limit, no floats or ext, no truncation or trailer."""
    end = len(data)
    pos = 0
    items = 0
    open_counts: list[int] = []  # items still to come in each open array/map, outermost first

    def need(n: int) -> None:
        if pos + n > end:
            raise DecodeError(
                Sentence.counted(
                    "truncated at byte {end}: {count} more byte expected",
                    "truncated at byte {end}: {count} more bytes expected",
                    pos + n - end,
                    end=end,
                    count=pos + n - end,
                )
            )

    def length(nbytes: int) -> int:
        need(1 + nbytes)
        return int.from_bytes(data[pos + 1 : pos + 1 + nbytes], "big")

    def check(n: int, limit: int, what: str) -> int:
        if n > limit:
            raise DecodeError(
                Sentence(
                    N_("{what} of length {size} at byte {pos} is over the limit of {limit}"),
                    what=what,
                    size=n,
                    pos=pos,
                    limit=limit,
                )
            )
        return n

    while True:
        need(1)
        b = data[pos]
        items += 1
        if items > max_items:
            raise DecodeError(Sentence(N_("more than {count} items"), count=max_items))
        children = 0
        if b <= 0x7F or b >= 0xE0:
            size = 1
        elif b <= 0x8F:
            children, size = 2 * check(b & 0x0F, max_map_len, "map"), 1
        elif b <= 0x9F:
            children, size = check(b & 0x0F, max_array_len, "array"), 1
        elif b <= 0xBF:
            size = 1 + check(b & 0x1F, max_str_len, "str")
        elif b in _FIXED:
            size = 1 + _FIXED[b]
        elif b in _BIN:
            size = 1 + _BIN[b] + check(length(_BIN[b]), max_bin_len, "bin")
        elif b in _STR:
            size = 1 + _STR[b] + check(length(_STR[b]), max_str_len, "str")
        elif b in _ARRAY:
            children = check(length(_ARRAY[b]), max_array_len, "array")
            size = 1 + _ARRAY[b]
        elif b in _MAP:
            children = 2 * check(length(_MAP[b]), max_map_len, "map")
            size = 1 + _MAP[b]
        else:
            raise DecodeError(Sentence(_REFUSED[b], pos=pos))
        need(size)
        is_container = b in _ARRAY or b in _MAP or 0x80 <= b <= 0x9F
        if is_container and len(open_counts) >= max_depth:
            raise DecodeError(
                Sentence(N_("nested deeper than {depth} at byte {pos}"), depth=max_depth, pos=pos)
            )
        pos += size
        if children:
            open_counts.append(children)
            continue
        while open_counts:  # this value is complete: count it in its parents
            open_counts[-1] -= 1
            if open_counts[-1]:
                break
            open_counts.pop()
        if not open_counts:
            break
    if pos != end:
        raise DecodeError(
            Sentence.counted(
                "{count} byte of trailing data after the value at byte {pos}",
                "{count} bytes of trailing data after the value at byte {pos}",
                end - pos,
                count=end - pos,
                pos=pos,
            )
        )
