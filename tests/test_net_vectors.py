"""Network test vectors (protocol.md, section 6.9): frames, CPace (the draft's own vectors),
the handshake and its frame keys, sealed frames, the TXT record.

The constants were generated once from the code and frozen (the CPace ones are the draft's).
Each vector is checked twice: the code must still produce it, and an independent computation
written from the text of protocol.md (plain msgpack, hashlib, hmac, X25519, Ed25519 and
ChaCha20-Poly1305) must produce it too. No sockets.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import hmac
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from zeroconf import ServiceInfo

from cfnet.game.rules import RuleOptions
from cfnet.net import cpace
from cfnet.net.discovery import SERVICE_TYPE, TableInfo
from cfnet.net.framing import (
    MAX_FRAME_BYTES,
    FrameCipher,
    FrameMalformed,
    FrameTooLarge,
    FrameTruncated,
    check_length,
    decode_body,
    encode_frame,
    read_frame,
)
from cfnet.net.handshake import Handshake, HandshakeResult, join_code_password
from cfnet.record.identity import Identity, fingerprint, verify_signature

TABLE_ID = bytes(range(16))
HOST_SEED, JOINER_SEED = bytes([1]) * 32, bytes([2]) * 32
HOST, JOINER = Identity.from_seed(HOST_SEED), Identity.from_seed(JOINER_SEED)
JOINER_SCALAR, HOST_SCALAR = bytes([0x33]) * 32, bytes([0x44]) * 32
CODE = "blue harbour 42"
LABEL = b"cfnet/v2/handshake"

HOST_KEY = "8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c"
JOINER_KEY = "8139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b394"
HOST_FP, JOINER_FP = "jn56-5fyz-7ncm-7att", "s5vg-w556-h4va-vwkn"

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

# hello frames: the joiner's names no table (it dials by address), the host's names its own
HELLO_JOINER = (
    "0000006886a4636f6465{code}a36b6579c420"
    + JOINER_KEY
    + "a57368617265c420{share}a174a568656c6c6fa57461626c65c400a17602"
)
HELLO_HOST = (
    "0000007886a4636f6465{code}a36b6579c420"
    + HOST_KEY
    + "a57368617265c420{share}a174a568656c6c6fa57461626c65c410"
    + TABLE_ID.hex()
    + "a17602"
)


@dataclasses.dataclass(frozen=True)
class HandshakeVector:
    code: str | None
    generator: str
    joiner_share: str
    host_share: str
    point: str  # K
    isk: str
    transcript: str
    prk: str
    joiner_confirm: str
    joiner_sig: str
    host_confirm: str
    host_sig: str
    joiner_key: str  # of the frames the joiner sends
    host_key: str
    sealed_pings: tuple[str, str]  # the joiner's first two frames after the handshake


VECTORS = [
    HandshakeVector(
        CODE,
        "58705b50d4905edd992aacbc3101288e4ac52ce908335d9984d54088b321027f",
        "12241b302fb52fa73bbda1171753a3e66fe0a8ca4327631f3c3f74a2b2062938",
        "bd5fbb06e9143e54e1601ee1c4d75f07ce49cc4675b0e5d53bb1fd72c788aa27",
        "2f445c8f59ae6295da8d15784c81eaddd1e50f287aa0d5223c21afc9449e7f49",
        "53c5935b57ad4981c1b0cfbfe1435675f97cca13c78ae419b3b0ed01ecd80903"
        "596a8148b022d59e9321961ed3ccda9cabd4789d3e2d5ef328516f072cbc4787",
        "5a267cb07e224f4e701a95fde926f6332b6f9068e4f78023e375241b46e9d131",
        "fff545861d078d9fd8c87a1ed01bbfc02908d0d6a5583109f55254109709ffa8",
        "547756ad5e86384035a03315ee9f17a2e6134b8e73202af66ab97338cf5a00ad",
        "7fd3dd9eb0ab2900bba8129be186bf6401cadebd5a8e40829f8bddc2b01d9076"
        "38fd44d760655a34d65f1b0b4622a510a0cc3440d6bc1508f84da17a987fed0c",
        "59ec7db1ba2d6a4b8440dbfd24b0b1c75d34443d07e91050ea08e27cba957f22",
        "8681ca086a6f064eb21d253cef26e5996c5900b7a7c23987c98595fc2500095a"
        "9b9f2293688b322132d525303dc7692ae8de76d1099781695689465b6001450c",
        "fb0c02aa1ef79bc329e9ff85cb266b659587c49df3e0540e8db3ccbf09f8016d",
        "4c367386c58036f3a53d3815f5aa3f079e6c4a3e0324203f1dc2f567626eef08",
        (
            "00000018cbd2a19a15c48ff37d9f2ce9a44bb018a209d0b0832b3f8c",
            "00000018ca2ac15a7ddcd243dc85e1545c9f5a049935741f64007100",
        ),
    ),
    HandshakeVector(
        None,
        "724680b03c09f89a3719605dbc96a1b4e59c833603cb5defe0137bd41648f67c",
        "8622adf14bf9111b89521edd1be4e098bf148f8a9a569667d6785c50e1e9800d",
        "7c694f738f5cba427e1dea0be0348994414ad3fda4b77df9ad5ba15e4f1bb67d",
        "ae273c9ca2e578d925da24dd0fa8129cecba7c480e53d573316f72d9f708ac03",
        "c26acc6a74a0f22e6d1446e066f465b2d3ef69a0c02a7faae5917929d9d6fd86"
        "e7b807aac514b2713dc7e7e756bf83fbc38e69575d73f15fd8af661796c251c5",
        "b987d29f97c0e3205bd86bbfeb620c819db930b6bea7b2a3ca80492795a35bc7",
        "f32baf5fc0f1c87e866402d3467e50e37b9a7080159944437acb2e842dbbfb21",
        "810013ae283090894fb2d357ef694e08d2b38999e321cd8fc8e77be288ee43f1",
        "20a3cc6746efb063bbfc909e8b7d02dd9aeb905b2f72c2ee1e4634249fe40788"
        "c8daecba208e030607e3415e0a498f488431aa53fbd42a3e137bb5e523711503",
        "f5d8f643ae4bbbf360789bff00168ed3aca6414b775a69383bb76eeb4711f947",
        "cd0077d7cca07b4966788a4b0ce0cc334d025dbd45569e9238dd71b6eb4c970f"
        "8d23d0095f19e28bda5edf11b596dff96fefed7f77e8ba70c975bd4a5d4a2502",
        "7cf4703e6c83d254f6aafcc2a52a40ba9b682c3a123054fd058a18d2f9e04bac",
        "0a5894333d145d795badc8ebd0bf8610abb832de9d16ff2072a02605346703dd",
        (
            "0000001864c11a7f20908a37a62951a40a0d10d36a1ddccb7b32c6f0",
            "00000018abab191bb1b67ebf806c956225d911c75a0803fb708183d3",
        ),
    ),
]

TXT = {
    "v": "2",
    "name": "Friday night",
    "id": "000102030405060708090a0b0c0d0e0f",
    "host": "alice",
    "fp": HOST_FP,
    "rules": "rounds=3 start_trains=N double_blank_50=off",
    "seats": "2/4",
    "code": "1",
}
TXT_RDATA = (
    "03763d32116e616d653d467269646179206e696768742369643d303030313032303330343035303630373038"
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


# ---------------------------------------------------------------------- CPace (the draft)

# draft-irtf-cfrg-cpace-21, appendix "Test vector for CPace using group X25519 and hash SHA-512"
DRAFT: dict[str, str] = {
    "PRS": b"Password".hex(),
    "CI": "0b415f696e69746961746f720b425f726573706f6e646572",
    "sid": "7e4b4791d6a8ef019b936c79fb7f2c57",
    "generator_string": "0843506163653235350850617373776f72646d" + "00" * 109 + "180b415f696e697469"
    "61746f720b425f726573706f6e646572107e4b4791d6a8ef019b936c79fb7f2c57",
    "hash": "03998087bdb1a2617bbe25ef5a7c18cd4f84f902328701790958755ee4aed1d3",
    "decoded": "03998087bdb1a2617bbe25ef5a7c18cd4f84f902328701790958755ee4aed153",
    "g": "d04bf6d41f6a289632a2e929fa29bebd51092512a7829fdde7d314b62f05a73f",
    "ya": "21b4f4bd9e64ed355c3eb676a28ebedaf6d8f17bdc365995b319097153044080",
    "ADa": b"ADa".hex(),
    "Ya": "1d13c89278cdadd826f6d8d7f887701430f8380ddc17611cdd6dc989ce0c9f32",
    "yb": "848b0779ff415f0af4ea14df9dd1d3c29ac41d836c7808896c4eba19c51ac40a",
    "ADb": b"ADb".hex(),
    "Yb": "248cccf6d5cdc3646f0ad593f9e6cef4e69d4945f8372e623512ecea32185623",
    "K": "5b067effbdc0b2a0e1d907b21ebb25cfedb96a852179a847c37e43ee71322c6b",
    "transcript_ir": "201d13c89278cdadd826f6d8d7f887701430f8380ddc17611cdd6dc989ce0c9f3203414461"
    "20248cccf6d5cdc3646f0ad593f9e6cef4e69d4945f8372e623512ecea3218562303414462",
    "ISK_IR": "6e19b875f7a561d6b3ca3dbb9ef42ac55de3e717881018204b8922b4d5e53bb2"
    "aa82c300bea7b65d2b671da71922ddf6472301b79bc270adfa8bf413285f2263",
}
# the draft's G_X25519.scalar_mult_vfy vectors: (u, result) for s = DRAFT_S; "" = neutral
DRAFT_S = "af46e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449aff"
DRAFT_LOW_ORDER = [
    ("0000000000000000000000000000000000000000000000000000000000000000", ""),
    ("0100000000000000000000000000000000000000000000000000000000000000", ""),
    ("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", ""),
    ("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800", ""),
    ("5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157", ""),
    ("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", ""),
    (
        "daffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "d8e2c776bbacd510d09fd9278b7edcd25fc5ae9adfba3b6e040e8d3b71b21806",
    ),
    ("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", ""),
    (
        "dbffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "c85c655ebe8be44ba9c0ffde69f2fe10194458d137f09bbff725ce58803cdb38",
    ),
    (
        "d9ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "db64dafa9b8fdd136914e61461935fe92aa372cb056314e1231bc4ec12417456",
    ),
    (
        "cdeb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b880",
        "e062dcd5376d58297be2618c7498f55baa07d7e03184e8aada20bca28888bf7a",
    ),
    (
        "4c9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f11d7",
        "993c6ad11c4c29da9a56f7691fd0ff8d732e49de6250b6c2e80003ff4629a175",
    ),
]


def test_cpace_reproduces_the_draft_vectors() -> None:
    assert cpace.prepend_len(b"").hex() == "00"
    assert cpace.prepend_len(b"1234").hex() == "0431323334"
    assert cpace.prepend_len(bytes(range(127)))[:1].hex() == "7f"
    assert cpace.prepend_len(bytes(range(128)))[:3].hex() == "800100"
    assert cpace.lv_cat(b"1234", b"5", b"", b"678").hex() == "043132333401350003363738"
    assert (
        cpace.transcript_ir(b"123", b"PartyA", b"234", b"PartyB").hex()
        == "03313233065061727479410332333406506172747942"
    )
    prs, ci, sid = (bytes.fromhex(DRAFT[name]) for name in ("PRS", "CI", "sid"))
    gen_string = cpace.generator_string(prs, ci, sid)
    assert gen_string.hex() == DRAFT["generator_string"]
    assert hashlib.sha512(gen_string).digest()[:32].hex() == DRAFT["hash"]
    decoded = int.from_bytes(bytes.fromhex(DRAFT["decoded"]), "little")
    assert cpace.elligator2(decoded).to_bytes(32, "little").hex() == DRAFT["g"]
    g = cpace.calculate_generator(prs, ci, sid)
    assert g.hex() == DRAFT["g"]
    ya, yb = bytes.fromhex(DRAFT["ya"]), bytes.fromhex(DRAFT["yb"])
    big_ya, big_yb = cpace.scalar_mult(ya, g), cpace.scalar_mult(yb, g)
    assert (big_ya.hex(), big_yb.hex()) == (DRAFT["Ya"], DRAFT["Yb"])
    k = cpace.scalar_mult(ya, big_yb)
    assert k.hex() == DRAFT["K"] and cpace.scalar_mult(yb, big_ya) == k
    ad_a, ad_b = bytes.fromhex(DRAFT["ADa"]), bytes.fromhex(DRAFT["ADb"])
    transcript = cpace.transcript_ir(big_ya, ad_a, big_yb, ad_b)
    assert transcript.hex() == DRAFT["transcript_ir"]
    assert cpace.intermediate_key(k, transcript, sid).hex() == DRAFT["ISK_IR"]
    for u, result in DRAFT_LOW_ORDER:
        q = cpace.scalar_mult(bytes.fromhex(DRAFT_S), bytes.fromhex(u))
        assert q == (cpace.NEUTRAL if not result else bytes.fromhex(result)), u


# ---------------------------------------------------------------------- handshake


def test_join_code_password() -> None:
    assert join_code_password(CODE) == b"blue harbour 42"
    # NFKC (full-width letters and digits), trimmed, case-folded: the same password
    assert (
        join_code_password("  \uff22\uff4c\uff55\uff45 HARBOUR \uff14\uff12\t")
        == b"blue harbour 42"
    )
    assert join_code_password("Stra\u00dfe") == b"strasse"


def fixed(value: bytes) -> Callable[[int], bytes]:
    """An entropy source that returns `value` (32 bytes: the CPace scalar), once."""
    calls: list[int] = []

    def entropy(size: int) -> bytes:
        assert size == len(value) and not calls
        calls.append(size)
        return value

    return entropy


def run_handshake(code: str | None) -> tuple[list[bytes], HandshakeResult, HandshakeResult]:
    """The four frames (joiner hello, host hello, joiner auth, host auth) and both results."""
    joiner = Handshake(
        JOINER, initiator=True, table_id=None, join_code=code, entropy=fixed(JOINER_SCALAR)
    )
    host = Handshake(
        HOST, initiator=False, table_id=TABLE_ID, join_code=code, entropy=fixed(HOST_SCALAR)
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
    frames = [encode_frame(m) for m in (joiner_hello, host_hello, joiner_auth, host_auth)]
    return frames, joiner.result, host.result


def hkdf_expand(prk: bytes, info: bytes) -> bytes:
    """RFC 5869 HKDF-Expand with SHA-256 for 32 bytes: one block."""
    return hmac.digest(prk, info + b"\x01", "sha256")


def reference(vector: HandshakeVector) -> dict[str, Any]:
    """6.3 and 6.1 from the text: every derived value, both auth messages, two sealed pings.

    The generator comes from `cpace.calculate_generator`, checked above against the draft."""
    password = b"" if vector.code is None else vector.code.encode()
    g = cpace.calculate_generator(password, LABEL, b"")
    joiner_share = X25519PrivateKey.from_private_bytes(JOINER_SCALAR).exchange(
        X25519PublicKey.from_public_bytes(g)
    )
    host_share = X25519PrivateKey.from_private_bytes(HOST_SCALAR).exchange(
        X25519PublicKey.from_public_bytes(g)
    )
    point = X25519PrivateKey.from_private_bytes(JOINER_SCALAR).exchange(
        X25519PublicKey.from_public_bytes(host_share)
    )
    assert point == X25519PrivateKey.from_private_bytes(HOST_SCALAR).exchange(
        X25519PublicKey.from_public_bytes(joiner_share)
    )

    def lv(*parts: bytes) -> bytes:  # every part here is shorter than 128 bytes
        return b"".join(bytes([len(part)]) + part for part in parts)

    isk = hashlib.sha512(
        lv(b"CPace255_ISK", b"", point)
        + lv(joiner_share, JOINER.public)
        + lv(host_share, HOST.public)
    ).digest()
    transcript = hashlib.sha256(
        msgpack.packb(
            [
                LABEL,
                2,
                TABLE_ID,
                [JOINER.public, joiner_share],
                [HOST.public, host_share],
                vector.code is not None,
            ],
            use_bin_type=True,
        )
    ).digest()
    prk = hmac.digest(transcript, isk, "sha256")
    auths = []
    for seed, role in ((JOINER_SEED, b"initiator"), (HOST_SEED, b"responder")):
        confirm = hkdf_expand(prk, b"cfnet/v2/confirm/" + role)
        sig = Ed25519PrivateKey.from_private_bytes(seed).sign(
            LABEL + b"/" + role + transcript + confirm
        )
        auths.append({"t": "auth", "sig": sig, "confirm": confirm})
    joiner_key = hkdf_expand(prk, b"cfnet/v2/frames/initiator")
    ping = reference_frame({"t": "ping"})
    sealed = []
    for counter in (0, 1):
        header = struct.pack(">I", len(ping) - 4 + 16)
        nonce = counter.to_bytes(12, "big")
        sealed.append(header + ChaCha20Poly1305(joiner_key).encrypt(nonce, ping[4:], header))
    return {
        "generator": g,
        "joiner_share": joiner_share,
        "host_share": host_share,
        "point": point,
        "isk": isk,
        "transcript": transcript,
        "prk": prk,
        "auths": auths,
        "joiner_key": joiner_key,
        "host_key": hkdf_expand(prk, b"cfnet/v2/frames/responder"),
        "sealed_pings": sealed,
    }


@pytest.mark.parametrize("vector", VECTORS, ids=["join-code", "no-code"])
def test_handshake_vector(vector: HandshakeVector) -> None:
    assert HOST.public.hex() == HOST_KEY and JOINER.public.hex() == JOINER_KEY
    assert (fingerprint(HOST.public), fingerprint(JOINER.public)) == (HOST_FP, JOINER_FP)
    frames, joiner, host = run_handshake(vector.code)
    code_byte = "c2" if vector.code is None else "c3"
    assert frames[0].hex() == HELLO_JOINER.format(code=code_byte, share=vector.joiner_share)
    assert frames[1].hex() == HELLO_HOST.format(code=code_byte, share=vector.host_share)
    assert joiner.transcript.hex() == host.transcript.hex() == vector.transcript
    assert (joiner.send_key.hex(), joiner.receive_key.hex()) == (vector.joiner_key, vector.host_key)
    assert (host.send_key.hex(), host.receive_key.hex()) == (vector.host_key, vector.joiner_key)
    expected_auths = [
        {"t": "auth", "sig": bytes.fromhex(sig), "confirm": bytes.fromhex(confirm)}
        for sig, confirm in (
            (vector.joiner_sig, vector.joiner_confirm),
            (vector.host_sig, vector.host_confirm),
        )
    ]
    assert [decode_body(f[4:]) for f in frames[2:]] == expected_auths
    cipher = FrameCipher(joiner.send_key, joiner.receive_key)
    ping = encode_frame({"t": "ping"})
    sealed = [cipher.seal(ping).hex() for _ in range(2)]
    assert tuple(sealed) == vector.sealed_pings
    opener = FrameCipher(host.send_key, host.receive_key)
    assert [opener.open(bytes.fromhex(f[:8]), bytes.fromhex(f[8:])) for f in sealed] == [
        ping[4:]
    ] * 2

    ref = reference(vector)
    assert [reference_frame(m) for m in ref["auths"]] == frames[2:]
    assert ref["auths"] == expected_auths
    assert [f.hex() for f in ref["sealed_pings"]] == list(vector.sealed_pings)
    for name in ("generator", "joiner_share", "host_share", "point", "isk", "transcript", "prk"):
        assert ref[name].hex() == getattr(vector, name), name
    assert (ref["joiner_key"].hex(), ref["host_key"].hex()) == (vector.joiner_key, vector.host_key)
    for key, role, sig, confirm in (
        (JOINER.public, b"/initiator", vector.joiner_sig, vector.joiner_confirm),
        (HOST.public, b"/responder", vector.host_sig, vector.host_confirm),
    ):
        signed = LABEL + role + ref["transcript"] + bytes.fromhex(confirm)
        assert verify_signature(key, signed, bytes.fromhex(sig))
        other = b"/responder" if role == b"/initiator" else b"/initiator"
        assert not verify_signature(
            key, LABEL + other + signed[len(LABEL + role) :], bytes.fromhex(sig)
        )


def test_protocol_md_lists_these_vectors() -> None:
    """Section 6.9 shows the same values as this file (white space aside)."""
    text = (Path(__file__).parent.parent / "protocol.md").read_text(encoding="utf-8")
    section = "".join(text[text.index("### 6.9 Network") :].split())
    values = [HELLO_JOINER.format(code="c3", share=VECTORS[0].joiner_share), TXT_RDATA]
    for vector in VECTORS:
        values += [v for v in dataclasses.astuple(vector)[1:] if isinstance(v, str)]
        values += list(vector.sealed_pings)
    assert [value for value in values if value not in section] == []


# ---------------------------------------------------------------------- discovery


def test_txt_record_vector() -> None:
    table = TableInfo(
        "Friday night", TABLE_ID, "alice", HOST_FP, RuleOptions(rounds=3), 4, 2, True, port=40000
    )
    assert f"{table.label}.{SERVICE_TYPE}" == "Friday night [000102030405]._cfnet._tcp.local."
    assert table.to_txt() == TXT
    info = ServiceInfo(  # a local object: nothing is sent
        SERVICE_TYPE,
        f"{table.label}.{SERVICE_TYPE}",
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
