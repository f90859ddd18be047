"""The mesh's fast path for `entry` frames gives exactly what the general frame codec gives:
the same bytes out, the same message or the same refusal in."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cfnet.net.framing import DEFAULT_LIMITS, FrameMalformed, decode_body, encode_frame, entry_frame
from cfnet.record.codec import DecodeError, decode_bounded

HEAD = b"\x82\xa1t\xa5entry\xa4wire"


def general(body: bytes) -> Any:
    """The general decoder's answer: the message, or None for a malformed body."""
    limits = DEFAULT_LIMITS
    try:
        return decode_bounded(
            body,
            max_size=limits.max_bytes,
            max_depth=limits.max_depth,
            max_str_len=limits.max_str,
            max_bin_len=limits.max_bytes,
            max_array_len=limits.max_array,
            max_map_len=limits.max_map,
        )
    except DecodeError:
        return None


def fast(body: bytes) -> Any:
    try:
        return decode_body(body)
    except FrameMalformed:
        return None


@pytest.mark.parametrize("size", [0, 1, 255, 256, 65535, 65536, 300_000])
def test_entry_frames_are_the_general_encoding(size: int) -> None:
    wire = bytes(range(256)) * (size // 256) + bytes(size % 256)
    frame = entry_frame(wire)
    assert frame == encode_frame({"t": "entry", "wire": wire})
    assert decode_body(frame[4:]) == {"t": "entry", "wire": wire}


@given(st.binary(max_size=600))
def test_any_wire_round_trips(wire: bytes) -> None:
    frame = entry_frame(wire)
    assert frame == encode_frame({"t": "entry", "wire": wire})
    assert decode_body(frame[4:]) == general(frame[4:]) == {"t": "entry", "wire": wire}


@given(st.binary(max_size=300), st.sampled_from([b"", b"\xc4", b"\xc5", b"\xc6", b"\xc4\x05"]))
def test_bodies_that_look_like_entries_get_the_general_answer(tail: bytes, tag: bytes) -> None:
    body = HEAD + tag + tail
    assert fast(body) == general(body)


@pytest.mark.parametrize(
    "body",
    [
        HEAD + b"\xc5\x00\x03abc",  # a longer size header than needed
        HEAD + b"\xc6\x00\x00\x00\x03abc",
        HEAD + b"\xc4\x03abcd",  # trailing byte
        HEAD + b"\xc4\x04abc",  # truncated
        HEAD,
    ],
)
def test_non_canonical_or_cut_entry_frames_are_malformed(body: bytes) -> None:
    with pytest.raises(FrameMalformed):
        decode_body(body)
