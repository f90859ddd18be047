"""Network test vectors (protocol.md, section 6.9): frames, join-code key, handshake, TXT record.

The constants were generated once from the code and frozen. Each vector is checked twice: the
code must still produce it, and an independent computation written from the text of
protocol.md (plain msgpack, hashlib, hmac, X25519 and Ed25519) must produce it too. No sockets.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import hmac
import struct
import unicodedata
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from zeroconf import ServiceInfo

from cfnet.identity import Identity, fingerprint, verify_signature
from cfnet.net.discovery import SERVICE_TYPE, TableInfo
from cfnet.net.framing import (
    MAX_FRAME_BYTES,
    FrameMalformed,
    FrameTooLarge,
    FrameTruncated,
    check_length,
    decode_body,
    encode_frame,
    read_frame,
)
from cfnet.net.handshake import Handshake, join_code_key
from cfnet.rules import RuleOptions

TABLE_ID = bytes(range(16))
HOST_SEED, JOINER_SEED = bytes([1]) * 32, bytes([2]) * 32
HOST, JOINER = Identity.from_seed(HOST_SEED), Identity.from_seed(JOINER_SEED)
JOINER_NONCE, HOST_NONCE = bytes([0x11]) * 32, bytes([0x22]) * 32
JOINER_X25519, HOST_X25519 = bytes([0x33]) * 32, bytes([0x44]) * 32
CODE = "blue harbour 42"

HOST_KEY = "8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c"
JOINER_KEY = "8139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b394"
HOST_FP, JOINER_FP = "jn56-5fyz-7ncm-7att", "s5vg-w556-h4va-vwkn"
JOINER_EPH = "7b0d47d93427f8311160781c7c733fd89f88970aef490d8aa0ee19a4cb8a1b14"
HOST_EPH = "ff2ee45601ec1b67310c7790404585ae697331eee1c1f8cf2419731c1fff3e6b"
SHARED = "3c528e9fd39731b15d10de8feb5f71d3f65b73c993581dedb03315a9ed177730"
CODE_KEY = "33e8dc1295bcde9a365a00f379dda29624e2ab3d367a680c7394a26b9d672cf5"

FRAMES: list[tuple[dict[str, Any], str]] = [
    ({"t": "ping"}, "0000000881a174a470696e67"),
    ({"t": "done"}, "0000000881a174a4646f6e65"),
    ({"t": "sync", "count": 53}, "0000000f82a5636f756e7435a174a473796e63"),
    (
        {"t": "bye", "reason": "peer leaving the mesh"},
        "0000002482a6726561736f6eb570656572206c656176696e6720746865206d657368a174a3627965",
    ),
    (
        {"t": "entry", "wire": b"\x92\xc4\x00\xc4\x00"},
        "0000001582a174a5656e747279a477697265c40592c400c400",
    ),
    ({"t": "sit", "name": "alice"}, "0000001282a46e616d65a5616c696365a174a3736974"),
    ({"t": "ready", "port": 40123}, "0000001182a4706f7274cd9cbba174a57265616479"),
    (
        {"t": "go", "seats": [0, 1], "addresses": [["", 40000], ["192.168.1.21", 40001]]},
        "0000003083a96164647265737365739292a0cd9c4092ac3139322e3136382e312e3231cd9c41a573656174"
        "73920001a174a2676f",
    ),
    (
        {"t": "seats", "seats": [["alice", HOST.public], ["bob", JOINER.public]], "of": 3},
        "0000006483a26f6603a573656174739292a5616c696365c420"
        + HOST_KEY
        + "92a3626f62c420"
        + JOINER_KEY
        + "a174a57365617473",
    ),
]

# hello frames are the same with and without a join code but for the "code" byte (c3 / c2)
HELLO_JOINER = (
    "0000008e87a4636f6465{code}a3657068c420"
    + JOINER_EPH
    + "a36b6579c420"
    + JOINER_KEY
    + "a56e6f6e6365c420"
    + JOINER_NONCE.hex()
    + "a174a568656c6c6fa57461626c65c400a17601"
)
HELLO_HOST = (
    "0000009e87a4636f6465{code}a3657068c420"
    + HOST_EPH
    + "a36b6579c420"
    + HOST_KEY
    + "a56e6f6e6365c420"
    + HOST_NONCE.hex()
    + "a174a568656c6c6fa57461626c65c410"
    + TABLE_ID.hex()
    + "a17601"
)


@dataclasses.dataclass(frozen=True)
class HandshakeVector:
    code: str | None
    transcript: str
    joiner_sig: str
    joiner_mac: str | None
    host_sig: str
    host_mac: str | None


VECTORS = [
    HandshakeVector(
        CODE,
        "a65dea632084c94deb40b7d3f5f5a7ff898e0bd50d724948d720a9d1dd97e3de",
        "e3072f48dd27d11b6cc2464f6d8053872bae6d7ecf7321e8143cdf105a6aaccd"
        "42c1b670709f1329c3618fcec1329447fb0fb1c0a250a7519cabe7d545133e07",
        "ff02f1aecd7bc33e865d4b77c1c9efdc932908352a085ee37ec4294ef7a2f82e",
        "7fbb5bc027f9309eb0b7ad2e7fbe9e00ff68b5c95b1c9d9696bf3db6d875df85"
        "a89f13f1e30b36d80346354cd5050c20efe3ca5db4070a825b119d32343f0101",
        "69b67dbaa06f79bcdc248d725ef3053aba62d62cf8a3d605acc17e914927426f",
    ),
    HandshakeVector(
        None,
        "02bcf74bc7a212e1f9afb206b6208abea93c2f8cc8189c1b1a8fc696d15cb5c6",
        "c60fbee7a56bad306c21a104853affd0eac70c2154cf227e0aeafe3353fe5ced"
        "6faee53dacb758134510eee9afd831239d0151fcfb821489be2c5c07f5fac00b",
        None,
        "738e49f94eef484771bc68650cdbcc34c2816024ba522ed029100cbf645d206d"
        "3e1d8acc791b1e69bd2b7d29e9f30f067dce32bdf54316637696cacea7479f01",
        None,
    ),
]

TXT = {
    "v": "1",
    "name": "Friday night",
    "id": "000102030405060708090a0b0c0d0e0f",
    "host": "alice",
    "fp": HOST_FP,
    "rules": "rounds=3 start_trains=N double_blank_50=off",
    "seats": "2/4",
    "code": "1",
}
TXT_RDATA = (
    "03763d31116e616d653d467269646179206e696768742369643d303030313032303330343035303630373038"
    "3039306130623063306430653066" + "0a686f73743d616c696365" + "1666703d6a6e35362d3566797a2d"
    "376e636d2d37617474" + "3172756c65733d726f756e64733d332073746172745f747261696e733d4e2064"
    "6f75626c655f626c616e6b5f35303d6f6666" + "0973656174733d322f34" + "06636f64653d31"
)


# ---------------------------------------------------------------------- frames


def reference_frame(message: dict[str, Any]) -> bytes:
    """6.1 from the text: u32 big-endian length, then the map with keys sorted bytewise."""
    body = bytes(msgpack.packb(dict(sorted(message.items())), use_bin_type=True))
    return struct.pack(">I", len(body)) + body


@pytest.mark.parametrize(("message", "expected"), FRAMES, ids=[m["t"] for m, _ in FRAMES])
def test_frame_bytes(message: dict[str, Any], expected: str) -> None:
    frame = encode_frame(message)
    assert frame.hex() == expected
    assert reference_frame(message) == frame
    assert decode_body(frame[4:]) == message
    assert asyncio.run(read_frames(frame)) == [message, None]


async def read_frames(data: bytes) -> list[dict[str, Any] | None]:
    """Every frame in `data` read back by `read_frame` (no socket: a fed StreamReader)."""
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    out: list[dict[str, Any] | None] = []
    while True:
        message = await read_frame(reader)
        out.append(message)
        if message is None:
            return out


def test_frame_limits_and_errors() -> None:
    assert MAX_FRAME_BYTES == 1_052_672
    assert check_length(struct.pack(">I", MAX_FRAME_BYTES)) == MAX_FRAME_BYTES
    with pytest.raises(FrameTooLarge):
        check_length(struct.pack(">I", MAX_FRAME_BYTES + 1))
    bad_bodies = [
        bytes.fromhex("82a174a470696e67a16101"),  # keys out of order: {"t": "ping", "a": 1}
        bytes.fromhex("81a17401"),  # "t" is not a str
        bytes.fromhex("81a175a470696e67"),  # no "t"
        bytes.fromhex("91a470696e67"),  # not a map
        bytes.fromhex("82a174a470696e67a178cc05"),  # 5 as uint8: not the shortest int
        bytes.fromhex("82a174a470696e67a178cb3ff0000000000000"),  # a float
        reference_frame({"t": "x", "s": "a" * 1025})[4:],  # str over 1024 bytes
        reference_frame({"t": "x", "a": list(range(257))})[4:],  # array over 256
        reference_frame({"t": "x", "d": [[[[[[1]]]]]]})[4:],  # 7 levels of nesting
        reference_frame({"t": "x", **{f"k{i:02}": i for i in range(32)}})[4:],  # 33 pairs
        bytes.fromhex("81a174a470696e6700"),  # trailing byte
    ]
    for body in bad_bodies:
        with pytest.raises(FrameMalformed):
            decode_body(body)
    decode_body(reference_frame({"t": "x", "d": [[[[[1]]]]]})[4:])  # 6 levels: allowed
    ping = encode_frame({"t": "ping"})
    assert asyncio.run(read_frames(ping + ping)) == [{"t": "ping"}, {"t": "ping"}, None]
    for cut in (2, 6):
        with pytest.raises(FrameTruncated):
            asyncio.run(read_frames(ping + ping[:cut]))


# ---------------------------------------------------------------------- join code


def reference_code_key(code: str, table_id: bytes) -> bytes:
    text = unicodedata.normalize("NFKC", code).strip().casefold()
    salt = b"cfnet/v1/join-code\x00" + table_id
    return hashlib.scrypt(text.encode(), salt=salt, n=16384, r=8, p=1, dklen=32)


def test_join_code_key() -> None:
    assert join_code_key(CODE, TABLE_ID).hex() == CODE_KEY
    assert reference_code_key(CODE, TABLE_ID).hex() == CODE_KEY
    # NFKC (full-width letters and digits), trimmed, case-folded: the same key
    assert (
        join_code_key("  \uff22\uff4c\uff55\uff45 HARBOUR \uff14\uff12\t", TABLE_ID).hex()
        == CODE_KEY
    )
    assert join_code_key(CODE, bytes(16)) != join_code_key(CODE, TABLE_ID)


# ---------------------------------------------------------------------- handshake


def fixed(handshake: Handshake, nonce: bytes, x25519: bytes) -> Handshake:
    """`handshake` with its fresh randomness replaced by fixed values (before `start`).

    The class draws its nonce and X25519 key in __init__ and offers no way to pass them, so the
    two private attributes holding them are overwritten here; nothing else is touched."""
    private = X25519PrivateKey.from_private_bytes(x25519)
    handshake._ephemeral = private
    handshake._mine = dataclasses.replace(
        handshake._mine, nonce=nonce, ephemeral=private.public_key().public_bytes_raw()
    )
    return handshake


def run_handshake(code: str | None) -> tuple[list[bytes], bytes]:
    """The four frames (joiner hello, host hello, joiner auth, host auth) and the transcript."""
    joiner = fixed(
        Handshake(JOINER, initiator=True, table_id=None, join_code=code),
        JOINER_NONCE,
        JOINER_X25519,
    )
    host = fixed(
        Handshake(HOST, initiator=False, table_id=TABLE_ID, join_code=code),
        HOST_NONCE,
        HOST_X25519,
    )
    (joiner_hello,) = joiner.start()
    (host_hello,) = host.start()
    assert host.receive(joiner_hello) == []
    (joiner_auth,) = joiner.receive(host_hello)
    (host_auth,) = host.receive(joiner_auth)
    assert joiner.receive(host_auth) == []
    assert joiner.result is not None and host.result is not None
    assert joiner.result.peer_key == HOST.public and host.result.peer_key == JOINER.public
    assert joiner.result.table_id == host.result.table_id == TABLE_ID
    assert joiner.result.transcript == host.result.transcript
    frames = [encode_frame(m) for m in (joiner_hello, host_hello, joiner_auth, host_auth)]
    return frames, joiner.result.transcript


def reference_auth(vector: HandshakeVector) -> tuple[bytes, list[dict[str, Any]]]:
    """6.3 from the text: the transcript and both auth messages."""
    label = b"cfnet/v1/handshake"
    joiner_eph = bytes.fromhex(JOINER_EPH)
    host_eph = bytes.fromhex(HOST_EPH)
    transcript = hashlib.sha256(
        msgpack.packb(
            [
                label,
                1,
                TABLE_ID,
                [JOINER.public, JOINER_NONCE, joiner_eph],
                [HOST.public, HOST_NONCE, host_eph],
                vector.code is not None,
            ],
            use_bin_type=True,
        )
    ).digest()
    shared = X25519PrivateKey.from_private_bytes(JOINER_X25519).exchange(
        X25519PublicKey.from_public_bytes(host_eph)
    )
    assert shared.hex() == SHARED
    assert (
        X25519PrivateKey.from_private_bytes(HOST_X25519).exchange(
            X25519PublicKey.from_public_bytes(joiner_eph)
        )
        == shared
    )
    auths = []
    for seed, role in ((JOINER_SEED, b"/initiator"), (HOST_SEED, b"/responder")):
        data = label + role + transcript
        mac = None
        if vector.code is not None:
            mac = hmac.digest(reference_code_key(vector.code, TABLE_ID), data + shared, "sha256")
        sig = Ed25519PrivateKey.from_private_bytes(seed).sign(data)
        auths.append({"t": "auth", "sig": sig, "mac": mac})
    return transcript, auths


@pytest.mark.parametrize("vector", VECTORS, ids=["join-code", "no-code"])
def test_handshake_vector(vector: HandshakeVector) -> None:
    assert HOST.public.hex() == HOST_KEY and JOINER.public.hex() == JOINER_KEY
    assert (fingerprint(HOST.public), fingerprint(JOINER.public)) == (HOST_FP, JOINER_FP)
    frames, transcript = run_handshake(vector.code)
    code_byte = "c2" if vector.code is None else "c3"
    assert frames[0].hex() == HELLO_JOINER.format(code=code_byte)
    assert frames[1].hex() == HELLO_HOST.format(code=code_byte)
    assert transcript.hex() == vector.transcript
    expected_auths = [
        {"t": "auth", "sig": bytes.fromhex(sig), "mac": None if mac is None else bytes.fromhex(mac)}
        for sig, mac in ((vector.joiner_sig, vector.joiner_mac), (vector.host_sig, vector.host_mac))
    ]
    assert [decode_body(f[4:]) for f in frames[2:]] == expected_auths
    reference_transcript, reference_auths = reference_auth(vector)
    assert reference_transcript == transcript
    assert reference_auths == expected_auths
    assert [reference_frame(m) for m in reference_auths] == frames[2:]
    label = b"cfnet/v1/handshake"
    for key, role, sig in (
        (JOINER.public, b"/initiator", vector.joiner_sig),
        (HOST.public, b"/responder", vector.host_sig),
    ):
        assert verify_signature(key, label + role + transcript, bytes.fromhex(sig))
        other = b"/responder" if role == b"/initiator" else b"/initiator"
        assert not verify_signature(key, label + other + transcript, bytes.fromhex(sig))


# ---------------------------------------------------------------------- discovery


def test_txt_record_vector() -> None:
    table = TableInfo(
        "Friday night", TABLE_ID, "alice", HOST_FP, RuleOptions(rounds=3), 4, 2, True, port=40000
    )
    assert table.instance == "Friday night [000102030405]._cfnet._tcp.local."
    assert table.to_txt() == TXT
    info = ServiceInfo(  # a local object: nothing is sent
        SERVICE_TYPE,
        table.instance,
        port=40000,
        properties=table.to_txt(),
        parsed_addresses=["192.168.1.20"],
        server="cfnet-0001020304050607.local.",
    )
    assert info.text.hex() == TXT_RDATA
    reference = b"".join(
        bytes([len(item)]) + item for item in (f"{k}={v}".encode() for k, v in TXT.items())
    )
    assert reference.hex() == TXT_RDATA
    raw = {k.encode(): v.encode() for k, v in TXT.items()}
    assert TableInfo.from_txt(raw, "192.168.1.20", 40000) == dataclasses.replace(
        table, address="192.168.1.20"
    )
