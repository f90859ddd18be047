"""Signed entries: frozen test vectors, binding, bit flips, canonical-only decoding, the verified
chain and equivocation proofs."""

from __future__ import annotations

import hashlib
import time
from typing import Any

import pytest
from chain_helpers import Chain, ChainError, ChainProblem, EquivocationError
from hypothesis import given, settings
from hypothesis import strategies as st

from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.record.codec import encode_canonical
from cfnet.record.entry import (
    GENESIS_PREV,
    HASH_DOMAIN,
    MAX_ENTRY_BYTES,
    SIGN_DOMAIN,
    Entry,
    Equivocation,
    MalformedEntry,
    decode_entry,
    entry_hash,
    sign_entry,
)
from cfnet.record.identity import Identity

ADA = Identity.from_seed(bytes(32))
BO = Identity.from_seed(bytes([1]) * 32)
TABLE = bytes(range(16))
OTHER_TABLE = bytes(16)

# Test vector 1 (protocol.md): seed 32 zero bytes, seat 0, seq 0, kind "genesis".
VECTOR1_PUBLIC = "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29"
VECTOR1_BODY: dict[str, Any] = {"name": "Ada", "protocol": 1, "key": b"\x01\x02"}
VECTOR1_SIGNED = (
    "9701c410000102030405060708090a0b0c0d0e0f00c4200000000000000000000000000000000000000000"
    "00000000000000000000000000a767656e6573697383a36b6579c4020102a46e616d65a3416461a870726f"
    "746f636f6c01"
)
VECTOR1_SIGNATURE = (
    "941dc6649686e7a0301e478f2304e2d7d4c2de55ee9882220d74445629a4e29e849340497e329e4c6aea23"
    "1185bc91d6538643c3aeae044ad1f8db7c2c584e03"
)
VECTOR1_WIRE = "92c45c" + VECTOR1_SIGNED + "c440" + VECTOR1_SIGNATURE
VECTOR1_HASH = "0e33b2cecd96785aab59197e165dfa275476ff48229f23095e9659eb2b18d32e"

# Test vector 2: seed 32 bytes of 0x01, seat 1, seq 1 after vector 1, kind "join".
VECTOR2_PUBLIC = "8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c"
VECTOR2_BODY: dict[str, Any] = {"name": "Bo", "round": 0}
VECTOR2_WIRE = (
    "92c44d9701c410000102030405060708090a0b0c0d0e0f01c4200e33b2cecd96785aab59197e165dfa2754"
    "76ff48229f23095e9659eb2b18d32e01a46a6f696e82a46e616d65a2426fa5726f756e6400c44002ffd4d6"
    "97b9c45f3b39a3339c0a6d824340944005e748e27140d0c03fc00e6ea9a689835ed99854445c70bb595270"
    "b9f52600e08aae67001cf1e7e2da36180d"
)
VECTOR2_HASH = "b541a30905bee7c8069fb2b42ef653939e6de56e039502981ffc863ea6475d89"


def vector1() -> Entry:
    return sign_entry(ADA, TABLE, 0, GENESIS_PREV, 0, "genesis", VECTOR1_BODY)


def vector2() -> Entry:
    return sign_entry(BO, TABLE, 1, bytes.fromhex(VECTOR1_HASH), 1, "join", VECTOR2_BODY)


def test_vectors_are_frozen() -> None:
    one, two = vector1(), vector2()
    assert ADA.public.hex() == VECTOR1_PUBLIC and BO.public.hex() == VECTOR2_PUBLIC
    assert one.signed.hex() == VECTOR1_SIGNED
    assert one.signature.hex() == VECTOR1_SIGNATURE
    assert one.wire.hex() == VECTOR1_WIRE
    assert one.hash.hex() == VECTOR1_HASH
    assert two.wire.hex() == VECTOR2_WIRE
    assert two.hash.hex() == VECTOR2_HASH
    assert two.prev == one.hash


def test_vector_decodes_to_its_fields_and_verifies() -> None:
    entry = decode_entry(bytes.fromhex(VECTOR1_WIRE))
    assert (entry.table_id, entry.seq, entry.prev, entry.seat, entry.kind, entry.body) == (
        TABLE,
        0,
        GENESIS_PREV,
        0,
        "genesis",
        VECTOR1_BODY,
    )
    assert entry.verify(ADA.public) and not entry.verify(BO.public)
    assert entry.hash == hashlib.sha256(HASH_DOMAIN + entry.wire).digest() == entry_hash(entry.wire)
    assert entry.signed == encode_canonical([1, TABLE, 0, GENESIS_PREV, 0, "genesis", VECTOR1_BODY])
    assert entry.wire == encode_canonical([entry.signed, entry.signature])


def test_signature_covers_the_domain_label() -> None:
    entry = vector1()
    bare = ADA.sign(entry.signed)
    forged = decode_entry(encode_canonical([entry.signed, bare]))
    assert not forged.verify(ADA.public)
    assert entry.signature == ADA.sign(SIGN_DOMAIN + entry.signed)


bodies = st.dictionaries(
    st.text(max_size=10),
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text(max_size=20)
    | st.binary(max_size=40)
    | st.lists(st.integers(-1000, 1000) | st.binary(max_size=32), max_size=8),
    max_size=8,
)


@settings(max_examples=60)
@given(bodies, st.integers(0, 2**32 - 1), st.integers(0, 255))
def test_random_bodies_round_trip_exactly_and_canonically(
    body: dict[str, Any], seq: int, seat: int
) -> None:
    prev = GENESIS_PREV if seq == 0 else bytes([7]) * 32
    entry = sign_entry(ADA, TABLE, seq, prev, seat, "move", body)
    back = decode_entry(entry.wire)
    assert back == entry and back.body == body and back.verify(ADA.public)
    assert encode_canonical(back.body) == encode_canonical(body)
    assert back.signed == encode_canonical([1, TABLE, seq, prev, seat, "move", body])


def test_every_single_bit_flip_in_the_wire_is_rejected() -> None:
    wire = vector2().wire
    for i in range(len(wire) * 8):
        flipped = bytearray(wire)
        flipped[i // 8] ^= 1 << (i % 8)
        try:
            entry = decode_entry(bytes(flipped))
        except MalformedEntry:
            continue
        assert not entry.verify(BO.public), f"bit {i} flipped and still verifies"


@pytest.mark.parametrize(
    "change",
    [
        {"table_id": OTHER_TABLE},
        {"seq": 2},
        {"prev": bytes([9]) * 32},
        {"seat": 0},
        {"kind": "abort"},
        {"body": {"name": "Bo", "round": 1}},
    ],
)
def test_a_signature_does_not_carry_over_to_another_table_place_seat_kind_or_body(
    change: dict[str, Any],
) -> None:
    original = vector2()
    fields = {
        "table_id": TABLE,
        "seq": 1,
        "prev": original.prev,
        "seat": 1,
        "kind": "join",
        "body": VECTOR2_BODY,
    } | change
    signed = encode_canonical([1, *fields.values()])
    replayed = decode_entry(encode_canonical([signed, original.signature]))
    assert not replayed.verify(BO.public)


def _wire_with(fields: Any) -> bytes:
    """A validly signed wire over the canonical encoding of `fields`."""
    signed = encode_canonical(fields)
    return encode_canonical([signed, ADA.sign(SIGN_DOMAIN + signed)])


def _raw_wire(signed: bytes) -> bytes:
    """A wire around hand-made (maybe non-canonical) signed bytes, validly signed."""
    return encode_canonical([signed, ADA.sign(SIGN_DOMAIN + signed)])


GOOD = [1, TABLE, 0, GENESIS_PREV, 0, "genesis", {"a": 1}]


def _good_with(index: int, value: Any) -> list[Any]:
    fields = list(GOOD)
    fields[index] = value
    return fields


@pytest.mark.parametrize(
    "wire",
    [
        _wire_with(_good_with(0, 2)),  # unknown version
        _wire_with(_good_with(1, bytes(15))),  # short table id
        _wire_with(_good_with(1, "0123456789abcdef")),  # table id as str
        _wire_with(_good_with(2, -1)),
        _wire_with(_good_with(2, 2**32)),
        _wire_with(_good_with(2, True)),  # bool is not an int here
        _wire_with(_good_with(3, bytes(31))),
        _wire_with(_good_with(3, bytes([1]) * 32)),  # entry 0 must have zero prev
        _wire_with(_good_with(4, 256)),
        _wire_with(_good_with(4, None)),
        _wire_with(_good_with(5, "Bad Kind")),
        _wire_with(_good_with(5, "")),
        _wire_with(_good_with(5, b"genesis")),  # kind as bin
        _wire_with(_good_with(6, [1])),  # body not a map
        _wire_with(GOOD[:6]),
        _wire_with([*GOOD, 0]),
        _wire_with({"entry": 1}),
        # non-canonical signed bytes, validly signed all the same
        _raw_wire(encode_canonical(GOOD).replace(b"\x00\xc4\x20", b"\xce\x00\x00\x00\x00\xc4\x20")),
        _raw_wire(encode_canonical(GOOD)[:-3] + b"\x81\xd9\x01a\x01"),  # key as str8
        _raw_wire(encode_canonical(GOOD)[:-3] + b"\x82\xa1b\x01\xa1a\x01"),  # unsorted keys
        _raw_wire(encode_canonical(GOOD)[:-3] + b"\x81\xa1a\xcb" + bytes(8)),  # float
        _raw_wire(encode_canonical(GOOD)[:-3] + b"\x81\xc4\x01a\x01"),  # key as bin
        _raw_wire(encode_canonical(GOOD) + b"\x00"),  # trailing byte inside signed
        # non-canonical or malformed outer wire
        b"\x92\xc5\x00\x02\x90\x90" + b"\xc4\x40" + bytes(64),
        encode_canonical([encode_canonical(GOOD), bytes(63)]),
        encode_canonical([encode_canonical(GOOD), bytes(64), b""]),
        encode_canonical(["signed", bytes(64)]),
        vector1().wire + b"\x00",
        vector1().wire[:-1],
        b"",
    ],
)
def test_malformed_or_non_canonical_entries_are_refused(wire: bytes) -> None:
    with pytest.raises(MalformedEntry):
        decode_entry(wire)


def test_malformed_entry_is_a_peer_error_without_blame() -> None:
    with pytest.raises(PeerProtocolError) as info:
        decode_entry(b"\x00")
    assert info.value.seat is None


def test_oversize_wire_is_refused_before_decoding() -> None:
    huge = b"\x92\xc6" + (MAX_ENTRY_BYTES + 1).to_bytes(4, "big") + bytes(MAX_ENTRY_BYTES + 67)
    start = time.thread_time()  # this thread's CPU: what decoding would cost, whatever the load
    with pytest.raises(MalformedEntry, match="over the limit"):
        decode_entry(huge)
    assert time.thread_time() - start < 0.5


def test_deeply_nested_body_is_refused() -> None:
    signed = encode_canonical(GOOD)[:-3] + b"\x81\xa1a" + b"\x91" * 100 + b"\x00"
    with pytest.raises(MalformedEntry, match="deeper"):
        decode_entry(_raw_wire(signed))


@pytest.mark.parametrize(
    ("table_id", "seq", "prev", "seat", "kind", "body"),
    [
        (bytes(15), 0, GENESIS_PREV, 0, "k", {}),
        (TABLE, -1, GENESIS_PREV, 0, "k", {}),
        (TABLE, 0, bytes([1]) * 32, 0, "k", {}),
        (TABLE, 0, GENESIS_PREV, 0, "K", {}),
        (TABLE, 0, GENESIS_PREV, 0, "k", {"x": 1.5}),
        (TABLE, 0, GENESIS_PREV, 0, "k", {1: 1}),
        (TABLE, 0, GENESIS_PREV, 0, "k", []),
    ],
)
def test_sign_entry_refuses_bad_fields_as_local_misuse(
    table_id: bytes, seq: int, prev: bytes, seat: int, kind: str, body: Any
) -> None:
    with pytest.raises(LocalProtocolError, match="cannot sign"):
        sign_entry(ADA, table_id, seq, prev, seat, kind, body)


KEYS = {0: ADA.public, 1: BO.public}
SIGNERS = {0: ADA, 1: BO}


def _next(chain: Chain, seat: int, body: dict[str, Any] | None = None) -> Entry:
    return sign_entry(
        SIGNERS[seat], chain.table_id, chain.next_seq, chain.head, seat, "move", body or {}
    )


def test_chain_appends_links_and_ignores_echoes() -> None:
    chain = Chain(TABLE)
    assert chain.head == GENESIS_PREV and chain.next_seq == 0
    first = vector1()
    assert chain.append(first, ADA.public)
    second = vector2()
    assert chain.append(second, BO.public)
    third = _next(chain, 0)
    assert chain.append(third, ADA.public)
    assert list(chain.entries) == [first, second, third] and len(chain) == 3
    assert chain.head == third.hash
    assert not chain.append(decode_entry(second.wire), BO.public)  # an echo changes nothing
    assert len(chain) == 3


def _two_entry_chain() -> Chain:
    chain = Chain(TABLE)
    chain.append(vector1(), ADA.public)
    chain.append(vector2(), BO.public)
    return chain


@pytest.mark.parametrize(
    ("make", "key", "problem", "signer"),
    [
        (lambda c: sign_entry(BO, TABLE, 2, bytes(32), 1, "move", {}), BO, "WRONG_PREV", 1),
        (lambda c: sign_entry(BO, TABLE, 3, c.head, 1, "move", {}), BO, "GAP", 1),
        (lambda c: sign_entry(ADA, TABLE, 1, c.entries[0].hash, 0, "x", {}), ADA, "SEQ_TAKEN", 0),
        (lambda c: sign_entry(BO, OTHER_TABLE, 2, c.head, 1, "move", {}), BO, "WRONG_TABLE", 1),
        (lambda c: sign_entry(BO, TABLE, 2, c.head, 0, "move", {}), ADA, "BAD_SIGNATURE", None),
        (lambda c: sign_entry(ADA, TABLE, 2, c.head, 1, "move", {}), BO, "BAD_SIGNATURE", None),
    ],
)
def test_chain_rejects_entries_that_do_not_extend_it(
    make: Any, key: Identity, problem: str, signer: int | None
) -> None:
    chain = _two_entry_chain()
    entry = make(chain)
    with pytest.raises(ChainError) as info:
        chain.append(entry, key.public)
    assert info.value.problem is ChainProblem[problem]
    assert info.value.signer == signer
    assert info.value.seat is None  # no proof: the table layer decides on blame
    assert len(chain) == 2


def test_chain_turns_a_second_entry_for_one_place_into_blame_with_proof() -> None:
    chain = _two_entry_chain()
    rival = sign_entry(BO, TABLE, 1, bytes.fromhex(VECTOR1_HASH), 1, "join", {"name": "Eve"})
    with pytest.raises(EquivocationError) as info:
        chain.append(rival, BO.public)
    error = info.value
    assert error.seat == 1 and error.problem is ChainProblem.EQUIVOCATION
    assert error.proof.check(BO.public)
    assert len(chain) == 2 and chain.entries[1] == vector2()


def test_chain_needs_a_table_id_of_16_bytes() -> None:
    with pytest.raises(LocalProtocolError):
        Chain(bytes(8))


def _rival_of_vector2(body: dict[str, Any]) -> Entry:
    return sign_entry(BO, TABLE, 1, bytes.fromhex(VECTOR1_HASH), 1, "join", body)


# protocol.md section 2, vectors 3 (with vector 2, an equivocation) and 4 (another chain: not one)
VECTOR3_WIRE = (
    "92c44d9701c410000102030405060708090a0b0c0d0e0f01c4200e33b2cecd96785aab59197e165dfa2754"
    "76ff48229f23095e9659eb2b18d32e01a46a6f696e82a46e616d65a2426fa5726f756e6401c44058ec83aa"
    "d2c271abde37e982fa033abba89d1a65451c0418dbba68124e16f79b7a4420e6c77eae11b4765666cc684b"
    "7f3c16fb97c452d983cf81affb46424707"
)
VECTOR4_WIRE = (
    "92c44d9701c410000102030405060708090a0b0c0d0e0f01c42005050505050505050505050505050505050"
    "5050505050505050505050505050501a46a6f696e82a46e616d65a2426fa5726f756e6400c440d7eadbd8fb"
    "6ffa666b06168f5976a962eddef2e4867e747dde4db41f046f001ddba83033fef37b4147d6d0c2828ca75e"
    "8c0372efec72c0413e8ab67a74afda0c"
)


def test_equivocation_proof_verifies_for_two_signed_entries_at_one_place() -> None:
    proof = Equivocation(vector2(), _rival_of_vector2({"name": "Eve"}))
    assert proof.check(BO.public)
    assert not proof.check(ADA.public)


def test_equivocation_vectors_3_and_4() -> None:
    three = _rival_of_vector2({"name": "Bo", "round": 1})
    assert three.wire.hex() == VECTOR3_WIRE
    proof = Equivocation.from_plain([vector2().wire, three.wire])
    assert proof.check(BO.public)
    four = sign_entry(BO, TABLE, 1, bytes([5]) * 32, 1, "join", VECTOR2_BODY)
    assert four.wire.hex() == VECTOR4_WIRE
    assert not Equivocation(vector2(), four).check(BO.public)


def test_equivocation_proof_fails_for_identical_entries_other_seats_or_places() -> None:
    assert not Equivocation(vector2(), decode_entry(vector2().wire)).check(BO.public)
    other_seat = sign_entry(BO, TABLE, 1, bytes.fromhex(VECTOR1_HASH), 0, "join", VECTOR2_BODY)
    assert not Equivocation(vector2(), other_seat).check(BO.public)
    other_seq = sign_entry(BO, TABLE, 2, vector2().hash, 1, "join", VECTOR2_BODY)
    assert not Equivocation(vector2(), other_seq).check(BO.public)
    other_table = sign_entry(
        BO, OTHER_TABLE, 1, bytes.fromhex(VECTOR1_HASH), 1, "join", VECTOR2_BODY
    )
    assert not Equivocation(vector2(), other_table).check(BO.public)
    one_from_each = sign_entry(ADA, TABLE, 1, bytes.fromhex(VECTOR1_HASH), 1, "join", {})
    assert not Equivocation(vector2(), one_from_each).check(BO.public)
    assert not Equivocation(vector2(), one_from_each).check(ADA.public)


def test_equivocation_plain_form_fits_an_entry_body_and_is_order_free() -> None:
    a, b = vector2(), _rival_of_vector2({"name": "Eve"})
    plain = Equivocation(a, b).to_plain()
    assert plain == Equivocation(b, a).to_plain()
    abort = sign_entry(ADA, TABLE, 2, a.hash, 0, "abort", {"proof": plain, "seat": 1})
    carried = Equivocation.from_plain(decode_entry(abort.wire).body["proof"])
    assert carried.check(BO.public)
    assert {carried.a, carried.b} == {a, b}


@pytest.mark.parametrize(
    "plain",
    [
        None,
        [],
        [b"x"],
        "not a proof",
        [VECTOR2_WIRE, VECTOR1_WIRE],
        [bytes.fromhex(VECTOR2_WIRE), bytes.fromhex(VECTOR2_WIRE)],
        sorted([bytes.fromhex(VECTOR2_WIRE), bytes.fromhex(VECTOR1_WIRE)], reverse=True),
        [b"\x00", b"\x01"],
    ],
)
def test_equivocation_plain_form_refuses_junk(plain: Any) -> None:
    with pytest.raises(MalformedEntry):
        Equivocation.from_plain(plain)
