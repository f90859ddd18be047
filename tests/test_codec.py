"""Canonical bounded msgpack: exact round trips, every non-canonical form refused, limits enforced
on the headers before anything big is built."""

from __future__ import annotations

import time
import tracemalloc
from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.record.codec import (
    MAX_DEPTH,
    DecodeError,
    EncodeError,
    decode_bounded,
    encode_canonical,
)

plain_leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text(max_size=40)
    | st.binary(max_size=40)
)
plain_values: st.SearchStrategy[Any] = plain_leaves
for _ in range(5):  # nesting stays within MAX_DEPTH
    plain_values = (
        plain_leaves
        | st.lists(plain_values, max_size=4)
        | st.dictionaries(st.text(max_size=8), plain_values, max_size=4)
    )


def is_canonical(data: bytes) -> bool:
    """Whether `data` is one bounded value in canonical encoding (decode, re-encode, compare)."""
    try:
        decode_bounded(data)
    except DecodeError:
        return False
    return True


@given(plain_values)
def test_random_values_round_trip_exactly_and_canonically(value: Any) -> None:
    data = encode_canonical(value)
    back = decode_bounded(data)
    assert encode_canonical(back) == data
    assert _typed(back) == _typed(value)
    assert is_canonical(data)


@given(st.dictionaries(st.text(max_size=8), plain_leaves, max_size=8), st.randoms())
def test_map_encoding_does_not_depend_on_insertion_order(value: dict[str, Any], rnd: Any) -> None:
    items = list(value.items())
    rnd.shuffle(items)
    assert encode_canonical(dict(items)) == encode_canonical(value)


@given(st.binary(max_size=200))
def test_arbitrary_bytes_decode_only_to_their_own_canonical_value(data: bytes) -> None:
    try:
        value = decode_bounded(data)
    except DecodeError:
        return
    assert encode_canonical(value) == data


def _typed(value: Any) -> Any:
    """`value` with every leaf tagged by its type, so that True != 1 when compared."""
    if isinstance(value, list | tuple):
        return ("list", [_typed(x) for x in value])
    if isinstance(value, dict):
        return ("map", {k: _typed(v) for k, v in value.items()})
    return (type(value).__name__, value)


def test_maps_are_sorted_by_utf8_key_bytes() -> None:
    assert encode_canonical({"b": 1, "a": 2, "é": 3, "Z": 4}) == (
        b"\x84\xa1Z\x04\xa1a\x02\xa1b\x01\xa2\xc3\xa9\x03"
    )


@pytest.mark.parametrize(
    ("value", "hex_bytes"),
    [
        (0, "00"),
        (127, "7f"),
        (128, "cc80"),
        (256, "cd0100"),
        (65536, "ce00010000"),
        (2**32, "cf0000000100000000"),
        (-1, "ff"),
        (-32, "e0"),
        (-33, "d0df"),
        (-129, "d1ff7f"),
        (-32769, "d2ffff7fff"),
        (-(2**31) - 1, "d3ffffffff7fffffff"),
        ("a" * 32, "d920" + "61" * 32),
        (b"", "c400"),
        ([], "90"),
        ({}, "80"),
        ([None, False, True], "93c0c2c3"),
    ],
)
def test_shortest_forms_are_the_canonical_ones(value: Any, hex_bytes: str) -> None:
    assert encode_canonical(value).hex() == hex_bytes
    assert decode_bounded(bytes.fromhex(hex_bytes)) == value


def test_tuples_encode_as_arrays_and_decode_as_lists() -> None:
    assert decode_bounded(encode_canonical((1, (2,)))) == [1, [2]]


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"\xcc\x05", "5 as uint8"),
        (b"\xce\x00\x00\x00\x05", "5 as uint32"),
        (b"\xd0\x05", "5 as int8"),
        (b"\xd1\xff\xff", "-1 as int16"),
        (b"\xcd\x00\xff", "255 as uint16"),
        (b"\xd9\x03abc", "short str as str8"),
        (b"\xc5\x00\x01x", "short bin as bin16"),
        (b"\xdc\x00\x01\x01", "1-item array as array16"),
        (b"\xde\x00\x01\xa1a\x01", "1-item map as map16"),
        (b"\x82\xa1b\x01\xa1a\x01", "unsorted map keys"),
        (b"\x82\xa1a\x01\xa1a\x02", "duplicate map keys"),
        (b"\x81\xc4\x01a\x01", "bin map key (str-as-bin)"),
        (b"\x81\x01\x01", "int map key"),
        (b"\xca\x00\x00\x00\x00", "float32"),
        (b"\xcb" + bytes(8), "float64"),
        (b"\xd4\x01\x00", "fixext"),
        (b"\xd6\xff\x00\x00\x00\x00", "timestamp ext"),
        (b"\xc7\x01\x05x", "ext8"),
        (b"\xc1", "reserved byte"),
        (b"\xa1\xff", "invalid UTF-8 in str"),
        (b"\x01\x02", "trailing data"),
        (b"\x92\x01", "truncated array"),
        (b"\xc4\x05ab", "truncated bin"),
        (b"", "empty input"),
    ],
)
def test_non_canonical_or_invalid_encodings_are_refused(data: bytes, why: str) -> None:
    with pytest.raises(DecodeError):
        decode_bounded(data)
    assert not is_canonical(data), why


def test_decode_errors_are_peer_errors_and_encode_errors_are_local() -> None:
    assert issubclass(DecodeError, PeerProtocolError)
    assert issubclass(EncodeError, LocalProtocolError)


@pytest.mark.parametrize(
    "value",
    [
        1.5,
        {1: "int key"},
        {b"k": "bin key"},
        {"a": [1, 2, {3}]},
        bytearray(b"x"),
        2**64,
        -(2**63) - 1,
        "\ud800",
        {"nested": [[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]},
    ],
)
def test_encode_refuses_values_without_a_canonical_form(value: Any) -> None:
    with pytest.raises(EncodeError):
        encode_canonical(value)


def test_deepest_allowed_nesting_round_trips_and_one_more_is_refused() -> None:
    value: Any = 0
    for _ in range(MAX_DEPTH):
        value = [value]
    assert decode_bounded(encode_canonical(value)) == value
    with pytest.raises(DecodeError, match="deeper"):
        decode_bounded(b"\x91" + encode_canonical(value))


@pytest.mark.parametrize(
    ("data", "limits", "match"),
    [
        (b"\xdd\xff\xff\xff\xff", {}, "array of length"),
        (b"\xdf\xff\xff\xff\xff", {}, "map of length"),
        (b"\xc6\xff\xff\xff\xff", {}, "bin of length"),
        (b"\xdb\xff\xff\xff\xff", {}, "str of length"),
        (b"\x91" * 1_000_000 + b"\x00", {"max_size": 2_000_000}, "deeper"),
        (b"\x00" * 2_000_000, {}, "over the limit"),
        (b"\x93\x01\x02\x03", {"max_array_len": 2}, "array of length 3"),
        (b"\x93\x01\x02\x03", {"max_items": 3}, "more than 3 items"),
        (b"\xa3abc", {"max_str_len": 2}, "str of length 3"),
        (b"\xc4\x03abc", {"max_bin_len": 2}, "bin of length 3"),
        (b"\x82\xa1a\x01\xa1b\x02", {"max_map_len": 1}, "map of length 2"),
    ],
)
def test_hostile_sizes_are_refused_quickly_without_big_allocations(
    data: bytes, limits: dict[str, Any], match: str
) -> None:
    tracemalloc.start()
    start = time.thread_time()  # this thread's CPU: what decoding would cost, whatever the load
    try:
        with pytest.raises(DecodeError, match=match):
            decode_bounded(data, **limits)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.thread_time() - start < 0.5
    assert peak < 256 * 1024


def test_msgpack_and_our_encoder_agree_on_canonical_data() -> None:
    value = {"deck": [bytes(32)] * 54, "m": 2**64 - 1, "n": -(2**63), "s": "x" * 300}
    assert encode_canonical(value) == msgpack.packb(value, use_bin_type=True)
