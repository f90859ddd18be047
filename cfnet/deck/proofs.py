"""Zero-knowledge proofs for the two shuffle hops (protocol.md, "Hop proofs").

- Phase A (`prove_shuffle` / `check_shuffle`): the output is the input permuted, every point
  multiplied by the one secret m behind the published M = m*G. The Terelius-Wikstrom shuffle
  proof as written out by Haenni, Locher, Koenig and Dubuis (2017), adapted from re-encryption
  to a common secret power (Neff's statement).
- Phase B (`prove_rekey` / `check_rekey`): m*Y[p] = k[p]*X[p] for every position p, with M and
  every K[p] = k[p]*G published; one batched Sigma protocol under Fiat-Shamir weights.

Both are non-interactive: every public input is hashed, in a fixed order, before each challenge.
The prover's nonces come from its round seed and the statement (reproducible, never reused for
another statement). Pure; a proof that does not verify raises ProofError.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

import nacl.bindings as sodium
import nacl.exceptions

from cfnet.deck.derive import (
    GROUP_ORDER,
    REKEY_CHALLENGE,
    REKEY_NONCE,
    REKEY_STATEMENT,
    REKEY_WEIGHT,
    SCALAR_BYTES,
    SHUFFLE_CHALLENGE,
    SHUFFLE_GENERATOR,
    SHUFFLE_NONCE,
    SHUFFLE_STATEMENT,
    SHUFFLE_WEIGHT,
    is_scalar,
    label_bytes,
    public_blocks,
    public_scalars,
    scalar_from_blocks,
    secret_scalars,
    u32,
)
from cfnet.deck.pool import spread
from cfnet.errors import LocalProtocolError, PeerProtocolError
from cfnet.lang import N_, Sentence

POINT_BYTES = 32
ONE = (1).to_bytes(SCALAR_BYTES, "little")
_NACL_ERRORS = (nacl.exceptions.RuntimeError, nacl.exceptions.TypeError)
_NOT_A_POINT = N_("a point of the proof or its statement is not a valid group point")


class ProofError(PeerProtocolError):
    """A hop proof that does not verify (or is not shaped as one)."""


# -- group and scalar arithmetic (libsodium; a refused point or scalar is a bad proof)


def _mul(scalar: bytes, point: bytes) -> bytes:
    """scalar * point; refuses an invalid point, a zero scalar and an identity result."""
    try:
        product: bytes = sodium.crypto_scalarmult_ed25519_noclamp(scalar, point)
    except _NACL_ERRORS:
        raise ProofError(Sentence(_NOT_A_POINT)) from None
    return product


def _base(scalar: bytes) -> bytes:
    point: bytes = sodium.crypto_scalarmult_ed25519_base_noclamp(scalar)
    return point


def _add(p: bytes, q: bytes) -> bytes:
    return _combine(sodium.crypto_core_ed25519_add, p, q)


def _sub(p: bytes, q: bytes) -> bytes:
    return _combine(sodium.crypto_core_ed25519_sub, p, q)


def _combine(operation: Callable[[bytes, bytes], bytes], p: bytes, q: bytes) -> bytes:
    """p + q or p - q; a point that is not on the curve is a bad proof."""
    try:
        return operation(p, q)
    except _NACL_ERRORS:
        raise ProofError(Sentence(N_("a point of the proof is not on the curve"))) from None


def _sum(points: Sequence[bytes]) -> bytes:
    """The sum of `points` (one or more), added in order."""
    total = points[0]
    for point in points[1:]:
        total = _add(total, point)
    return total


Term = tuple[bytes, bytes | None]
"""(scalar, point): scalar * point; (scalar, None): scalar * G."""


def _product(term: Term) -> bytes:
    scalar, point = term
    return _base(scalar) if point is None else _mul(scalar, point)


def _combination(terms: Sequence[Term]) -> bytes:
    """The sum of the products of `terms` (one or more)."""
    return _sum([_product(term) for term in terms])


def _difference(terms: Sequence[Term], minus: Term) -> bytes:
    """The sum of the products of `terms`, less the product of `minus`."""
    return _sub(_combination(terms), _product(minus))


def _terms(scalars: Sequence[bytes], points: Sequence[bytes]) -> list[Term]:
    return list(zip(scalars, points, strict=True))


SUM_SHARE = 6
"""How many terms of a long combination one job of a `_Batch` multiplies and adds."""


class _Batch:
    """Jobs that each make one point, independent of each other, done together on the deck's
    threads by `run`, whose list has their points in the order the jobs were added (and
    raises the first one's error in that order, as doing them in order would)."""

    def __init__(self) -> None:
        self._jobs: list[Callable[[], bytes]] = []

    def jobs(self, jobs: Iterable[Callable[[], bytes]]) -> slice:
        """Add `jobs`; where their points are in `run`'s list."""
        start = len(self._jobs)
        self._jobs.extend(jobs)
        return slice(start, len(self._jobs))

    def combinations(self, combinations: Iterable[Sequence[Term]]) -> slice:
        """A job for each of `combinations` (see `_combination`)."""
        return self.jobs(functools.partial(_combination, terms) for terms in combinations)

    def sum(self, terms: Sequence[Term]) -> slice:
        """Jobs whose points add up to the combination of the (many) `terms`."""
        return self.combinations(
            terms[start : start + SUM_SHARE] for start in range(0, len(terms), SUM_SHARE)
        )

    def run(self) -> list[bytes]:
        return spread(_run, self._jobs, min_share=2)


def _run(job: Callable[[], bytes]) -> bytes:
    return job()


_IDENTITY = (1).to_bytes(POINT_BYTES, "little")
_SCALARMULT_BITS = 2**255 - 1


def _not_identity(point: bytes) -> bytes:
    """`point`, refused as libsodium refuses to multiply the identity: a product folded into
    a combination must fail where the product itself would have."""
    if point == _IDENTITY:
        raise ProofError(Sentence(_NOT_A_POINT))
    return point


# Scalars mod L as Python ints: the same results as libsodium's crypto_core_ed25519_scalar_*
# for the canonical scalars used here, without a call through the FFI for each.


def _int(scalar: bytes) -> int:
    return int.from_bytes(scalar, "little")


def _scalar(value: int) -> bytes:
    return (value % GROUP_ORDER).to_bytes(SCALAR_BYTES, "little")


def _smul(a: bytes, b: bytes) -> bytes:
    return _scalar(_int(a) * _int(b))


def _ssum(scalars: Sequence[bytes]) -> bytes:
    return _scalar(sum(_int(scalar) for scalar in scalars))


def _response(nonce: bytes, challenge: bytes, secret: bytes) -> bytes:
    """nonce + challenge * secret (mod L); never zero for an honest prover (probability 2^-252)."""
    response = _scalar(_int(nonce) + _int(challenge) * _int(secret))
    if not is_scalar(response):
        raise LocalProtocolError(  # untranslated: a chance of 2^-252
            "a proof response is zero: draw another round seed"
        )
    return response


def _own_terms(scalars: Sequence[int], points: Sequence[bytes | None]) -> list[Term]:
    """The terms of sum(scalars[i] * points[i]) for a prover's own combination (terms with a
    zero scalar, which libsodium refuses to multiply by, add nothing)."""
    terms: list[Term] = [
        (_scalar(s), p) for s, p in zip(scalars, points, strict=True) if s % GROUP_ORDER
    ]
    if not terms:
        raise LocalProtocolError(  # untranslated: a chance of 2^-252
            "every weight of a proof's combination is zero: draw another seed"
        )
    return terms


# -- proofs already checked in this process (the same bytes are not checked twice)

_proven: dict[bytes, None] = {}  # SHA-256 of a statement and its valid proof, oldest first
_memory = [4096]  # how many of them to keep
_proven_lock = threading.Lock()  # checks may run on several threads at once


def _statement_digest(kind: bytes, where: bytes, *parts: Sequence[bytes] | bytes) -> bytes:
    """SHA-256 over a check's kind, hop, every point of its statement and its proof."""
    digest = hashlib.sha256(kind + u32(len(where)) + where)
    for part in parts:
        items = [part] if isinstance(part, bytes) else part
        digest.update(u32(len(items)) + b"".join(u32(len(item)) + item for item in items))
    return digest.digest()


def remember_proofs(count: int) -> None:
    """Keep the last `count` proofs checked in this process (0: none, so that every check does
    the whole work, as a benchmark times it and a peer on a machine of its own does)."""
    with _proven_lock:
        _memory[0] = count
        while len(_proven) > count:
            del _proven[next(iter(_proven))]


def _remember_proven(digest: bytes) -> None:
    """Note a proof that verified, so that another table in this process (the in-memory network,
    a replay after a game) does not redo the multiplications; verification is a pure function."""
    with _proven_lock:
        _proven[digest] = None
    remember_proofs(_memory[0])


def _checked_scalars(items: Sequence[bytes]) -> None:
    if not all(is_scalar(item) for item in items):
        raise ProofError(
            Sentence(N_("a proof scalar is zero or not canonical (it must be in 1..L-1)"))
        )


# -- hashing: generators, statements, challenges, nonces


@functools.cache
def _generators(size: int) -> tuple[bytes, ...]:
    """H_1..H_size."""
    return tuple(generator(i + 1) for i in range(size))


@functools.cache
def _generator_sum(size: int) -> bytes:
    """H_1 + ... + H_size (public constants: summed once per process)."""
    return _sum(_generators(size))


@functools.cache
def generator(index: int) -> bytes:
    """Generator `index` (0: H, i >= 1: H_i): from_uniform(SHA-512(lbl || u32(index))[0:32])."""
    digest = hashlib.sha512(label_bytes(SHUFFLE_GENERATOR) + u32(index)).digest()
    point: bytes = sodium.crypto_core_ed25519_from_uniform(digest[:POINT_BYTES])
    return point


def _statement(label: str, where: bytes, size: int, *groups: Sequence[bytes]) -> bytes:
    """SHA-512(lbl(label) || where || u32(size) || every item of every group, in order)."""
    h = hashlib.sha512(label_bytes(label) + where + u32(size))
    for group in groups:
        for item in group:
            h.update(item)
    return h.digest()


def _challenge(label: str, *parts: bytes) -> bytes:
    """The first nonzero scalar of the public stream of `label` over `parts`."""
    return scalar_from_blocks(public_blocks(label, b"".join(parts)))


def _nonces(seed: bytes, label: str, statement: bytes) -> Iterator[bytes]:
    """Nonce i: the first nonzero scalar of the secret stream of `label`, info statement||u32(i)."""
    return secret_scalars(seed, label, statement)


def _take(nonces: Iterator[bytes], count: int) -> list[bytes]:
    return [next(nonces) for _ in range(count)]


# -- phase A: the shuffle proof


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """Permutation commitments C, commitment chain Chat, challenge c, responses s1..s4, shat,
    sprime; `to_bytes` is their concatenation in that order ((4n + 5) * 32 bytes)."""

    commitments: tuple[bytes, ...]
    chain: tuple[bytes, ...]
    challenge: bytes
    s1: bytes
    s2: bytes
    s3: bytes
    s4: bytes
    s_hat: tuple[bytes, ...]
    s_prime: tuple[bytes, ...]

    def to_bytes(self) -> bytes:
        return b"".join(
            (
                *self.commitments,
                *self.chain,
                self.challenge,
                self.s1,
                self.s2,
                self.s3,
                self.s4,
                *self.s_hat,
                *self.s_prime,
            )
        )

    @classmethod
    def from_bytes(cls, blob: bytes, size: int) -> ShuffleProof:
        """The proof for a deck of `size` points; ProofError if `blob` is not (4*size+5)*32."""
        if type(blob) is not bytes or len(blob) != shuffle_proof_bytes(size):
            wrong = N_("a shuffle proof for {count} points is {size} bytes")
            raise ProofError(Sentence(wrong, count=size, size=shuffle_proof_bytes(size)))
        items = [blob[i : i + 32] for i in range(0, len(blob), 32)]
        n = size
        challenge, s1, s2, s3, s4 = items[2 * n : 2 * n + 5]
        return cls(
            tuple(items[:n]),
            tuple(items[n : 2 * n]),
            challenge,
            s1,
            s2,
            s3,
            s4,
            tuple(items[2 * n + 5 : 3 * n + 5]),
            tuple(items[3 * n + 5 :]),
        )


def _commitment(term: tuple[bytes, bytes]) -> bytes:
    """C_j = r_j * G + H_went(j) for a term (r_j, H_went(j))."""
    r, h = term
    return _add(_base(r), h)


def shuffle_proof_bytes(size: int) -> int:
    return (4 * size + 5) * 32


def _weights(statement: bytes, commitments: Sequence[bytes]) -> list[bytes]:
    """u_i: the first nonzero scalar of the public stream SHUFFLE_WEIGHT over
    statement || C_1..C_n || u32(i)."""
    return list(
        islice(public_scalars(SHUFFLE_WEIGHT, statement + b"".join(commitments)), len(commitments))
    )


def _shuffle_challenge(
    statement: bytes,
    commitments: Sequence[bytes],
    chain: Sequence[bytes],
    t: Sequence[bytes],
    t_hat: Sequence[bytes],
) -> bytes:
    return _challenge(SHUFFLE_CHALLENGE, statement, *commitments, *chain, *t, *t_hat)


def prove_shuffle(
    where: bytes,
    inputs: Sequence[bytes],
    outputs: Sequence[bytes],
    mask: bytes,
    permutation: Sequence[int],
    masking_key: bytes,
    seed: bytes,
) -> ShuffleProof:
    """Prove outputs[i] = masking_key * inputs[permutation[i]] with mask = masking_key * G."""
    n = len(inputs)
    statement = _statement(SHUFFLE_STATEMENT, where, n, inputs, outputs, [mask])
    nonces = _nonces(seed, SHUFFLE_NONCE, statement)
    h, hs = generator(0), _generators(n)
    went = [0] * n  # went[j]: the output position of input j
    for i, j in enumerate(permutation):
        went[j] = i
    r = _take(nonces, n)
    commitments = spread(_commitment, list(zip(r, [hs[i] for i in went], strict=True)))
    u = _weights(statement, commitments)
    u_out = [u[j] for j in permutation]
    r_hat = _take(nonces, n)
    # chain[i] = r_hat[i] * G + u_out[i] * chain[i-1] (chain[-1] = h) is, unrolled,
    # a[i] * G + b[i] * h with a[i] = r_hat[i] + u_out[i] * a[i-1] and b[i] = the product of
    # u_out[0..i]: the same points, every one computed on its own.
    a, b = [0] * n, [0] * n
    a_previous, b_previous = 0, 1
    for i in range(n):
        a_previous = (_int(r_hat[i]) + _int(u_out[i]) * a_previous) % GROUP_ORDER
        b_previous = _int(u_out[i]) * b_previous % GROUP_ORDER
        a[i], b[i] = a_previous, b_previous
    w1, w2, w3, w4 = _take(nonces, 4)
    w_hat, w_prime = _take(nonces, n), _take(nonces, n)
    # t[3] = sum(w'_i * outputs[i]) - w4 * sum(u_j * inputs[j]); with outputs[i] =
    # masking_key * inputs[permutation[i]] that is one combination of the inputs:
    # sum((masking_key * w'_went[j] - w4 * u_j) * inputs[j]), the same point.
    m, w4_int = _int(masking_key), _int(w4)
    t3_weights = [m * _int(w_prime[went[j]]) - w4_int * _int(u[j]) for j in range(n)]
    # t_hat[i] = w_hat[i] * G + w'[i] * chain[i-1] is, by the same unrolling, (w_hat[i] + w'[i]
    # * a[i-1]) * G + (w'[i] * b[i-1]) * h (a[-1] = 0, b[-1] = 1): every point of the proof is
    # then independent of the others, and made in one batch.
    batch = _Batch()
    t2_parts = batch.sum([(w3, None), *_terms(w_prime, hs)])
    t3_parts = batch.sum(_own_terms(t3_weights, inputs))
    t_hat_at = batch.combinations(
        _own_terms([_int(w_hat[i]) + _int(w_prime[i]) * a_i, _int(w_prime[i]) * b_i], [None, h])
        for i, (a_i, b_i) in enumerate([(0, 1), *zip(a[:-1], b[:-1], strict=True)])
    )
    chain_at = batch.combinations(
        _own_terms([a_i, b_i], [None, h]) for a_i, b_i in zip(a, b, strict=True)
    )
    ends_at = batch.combinations([(w, None)] for w in (w1, w2, w4))
    points = batch.run()
    chain, t_hat = points[chain_at], points[t_hat_at]
    w1_g, w2_g, w4_g = points[ends_at]
    t = [w1_g, w2_g, _sum(points[t2_parts]), _sum(points[t3_parts]), w4_g]
    c = _shuffle_challenge(statement, commitments, chain, t, t_hat)
    v = [ONE] * n  # v[i] = u_out[i+1] * ... * u_out[n-1]
    for i in range(n - 2, -1, -1):
        v[i] = _smul(u_out[i + 1], v[i + 1])
    return ShuffleProof(
        tuple(commitments),
        tuple(chain),
        c,
        _response(w1, c, _ssum(r)),
        _response(w2, c, _ssum([_smul(r_hat[i], v[i]) for i in range(n)])),
        _response(w3, c, _ssum([_smul(r[j], u[j]) for j in range(n)])),
        _response(w4, c, masking_key),
        tuple(_response(w_hat[i], c, r_hat[i]) for i in range(n)),
        tuple(_response(w_prime[i], c, u_out[i]) for i in range(n)),
    )


def check_shuffle(
    where: bytes,
    inputs: Sequence[bytes],
    outputs: Sequence[bytes],
    mask: bytes,
    proof: ShuffleProof,
) -> None:
    """ProofError unless `proof` shows outputs is inputs permuted and times the secret of mask."""
    n = len(inputs)
    if not (len(outputs) == len(proof.commitments) == len(proof.chain) == n):
        raise ProofError(Sentence(N_("the shuffle proof is not for {count} points"), count=n))
    _checked_scalars([proof.s1, proof.s2, proof.s3, proof.s4, *proof.s_hat, *proof.s_prime])
    digest = _statement_digest(b"shuffle", where, inputs, outputs, mask, proof.to_bytes())
    if digest in _proven:
        return
    statement = _statement(SHUFFLE_STATEMENT, where, n, inputs, outputs, [mask])
    h, hs = generator(0), _generators(n)
    c, chain = proof.challenge, proof.chain
    u = [_int(weight) for weight in _weights(statement, proof.commitments)]
    u_product = 1
    for weight in u:
        u_product = u_product * weight % GROUP_ORDER
    generator_sum = _generator_sum(n)
    # c * c_tilde and s4 * x_bar (c_tilde = sum(u_i * C_i), x_bar = sum(u_i * inputs[i])) as
    # one combination each, with c and s4 folded into the weights: the same points, and
    # refused where c_tilde or x_bar is the identity (libsodium refuses to multiply it). Every
    # point is independent of the others: they are made in one batch, and any point refused
    # gives the one error they all give.
    c_weight = _int(c) & _SCALARMULT_BITS  # the bits libsodium's noclamp multiplication uses
    s4 = _int(proof.s4)
    batch = _Batch()
    sums_at = [
        batch.sum(terms)
        for terms in (
            [(proof.s3, None), *_terms(proof.s_prime, hs)],  # s3 * G + sum(s'_i * H_i)
            _terms([_scalar(c_weight * weight) for weight in u], proof.commitments),  # c * c_tilde
            _terms(proof.s_prime, outputs),  # sum(s'_i * outputs[i])
            _terms([_scalar(s4 * weight) for weight in u], inputs),  # s4 * x_bar
        )
    ]
    ends_at = batch.jobs(
        [
            lambda: _difference(  # c_bar = sum(C_i) - sum(H_i)
                [(proof.s1, None)], (c, _sub(_sum(proof.commitments), generator_sum))
            ),
            lambda: _difference(  # c_hat = chain[-1] - u_product * h
                [(proof.s2, None)], (c, _sub(chain[-1], _mul(_scalar(u_product), h)))
            ),
            functools.partial(_difference, [(proof.s4, None)], (c, mask)),
        ]
    )
    t_hat_at = batch.jobs(  # s_hat_i * G + s'_i * chain[i-1] - c * chain[i] (chain[-1] = h)
        functools.partial(_difference, [(s_hat, None), (s_prime, previous)], (c, link))
        for s_hat, s_prime, previous, link in zip(
            proof.s_hat, proof.s_prime, [h, *chain[:-1]], chain, strict=True
        )
    )
    points = batch.run()
    s3_h, c_tilde_c, s_prime_out, x_bar_s4 = (_sum(points[at]) for at in sums_at)
    t_c_bar, t_c_hat, t_mask = points[ends_at]
    t = [
        t_c_bar,
        t_c_hat,
        _sub(s3_h, _not_identity(c_tilde_c)),
        _sub(s_prime_out, _not_identity(x_bar_s4)),
        t_mask,
    ]
    t_hat = points[t_hat_at]
    if _shuffle_challenge(statement, proof.commitments, chain, t, t_hat) != c:
        raise ProofError(Sentence(N_("the shuffle proof does not verify")))
    _remember_proven(digest)


# -- phase B: the rekey proof


@dataclass(frozen=True, slots=True)
class RekeyProof:
    """Challenge c, response for m, responses for every k[p]; `to_bytes`: c || s_m || s_0.."""

    challenge: bytes
    s_mask: bytes
    s_keys: tuple[bytes, ...]

    def to_bytes(self) -> bytes:
        return self.challenge + self.s_mask + b"".join(self.s_keys)

    @classmethod
    def from_bytes(cls, blob: bytes, size: int) -> RekeyProof:
        """The proof for a deck of `size` points; ProofError if `blob` is not (size+2)*32."""
        if type(blob) is not bytes or len(blob) != rekey_proof_bytes(size):
            wrong = N_("a rekey proof for {count} points is {size} bytes")
            raise ProofError(Sentence(wrong, count=size, size=rekey_proof_bytes(size)))
        items = [blob[i : i + 32] for i in range(0, len(blob), 32)]
        return cls(items[0], items[1], tuple(items[2:]))


def rekey_proof_bytes(size: int) -> int:
    return (size + 2) * 32


def _rekey_weights(statement: bytes, size: int) -> list[bytes]:
    """e_p: the first nonzero scalar of the public stream REKEY_WEIGHT over statement || u32(p)."""
    return list(islice(public_scalars(REKEY_WEIGHT, statement), size))


def prove_rekey(
    where: bytes,
    inputs: Sequence[bytes],
    outputs: Sequence[bytes],
    mask: bytes,
    key_points: Sequence[bytes],
    masking_key: bytes,
    keys: Sequence[bytes],
    seed: bytes,
) -> RekeyProof:
    """Prove masking_key * outputs[p] = keys[p] * inputs[p] for every p, with mask and
    key_points[p] = keys[p] * G."""
    n = len(inputs)
    statement = _statement(REKEY_STATEMENT, where, n, inputs, outputs, [mask], key_points)
    e = _rekey_weights(statement, n)
    nonces = _nonces(seed, REKEY_NONCE, statement)
    a, b = next(nonces), _take(nonces, n)
    # t_rel = a * sum(e_p * outputs[p]) - sum(e_p * b_p * inputs[p]); with outputs[p] =
    # (keys[p] / masking_key) * inputs[p] that is sum(e_p * (a * keys[p] / masking_key - b_p)
    # * inputs[p]), the same point.
    a_unmask = _int(a) * pow(_int(masking_key), -1, GROUP_ORDER)
    batch = _Batch()
    t_rel_parts = batch.sum(
        _own_terms([_int(e[p]) * (a_unmask * _int(keys[p]) - _int(b[p])) for p in range(n)], inputs)
    )
    t_key_at = batch.combinations([(b_p, None)] for b_p in b)
    t_mask_at = batch.combinations([[(a, None)]])
    points = batch.run()
    c = _challenge(
        REKEY_CHALLENGE, statement, *points[t_mask_at], *points[t_key_at], _sum(points[t_rel_parts])
    )
    return RekeyProof(
        c,
        _response(a, c, masking_key),
        tuple(_response(b[p], c, keys[p]) for p in range(n)),
    )


def check_rekey(
    where: bytes,
    inputs: Sequence[bytes],
    outputs: Sequence[bytes],
    mask: bytes,
    key_points: Sequence[bytes],
    proof: RekeyProof,
) -> None:
    """ProofError unless `proof` shows m * outputs[p] = k[p] * inputs[p] for every p, where
    mask = m * G and key_points[p] = k[p] * G."""
    n = len(inputs)
    if not (len(outputs) == len(key_points) == len(proof.s_keys) == n):
        raise ProofError(Sentence(N_("the rekey proof is not for {count} points"), count=n))
    _checked_scalars([proof.s_mask, *proof.s_keys])
    digest = _statement_digest(b"rekey", where, inputs, outputs, mask, key_points, proof.to_bytes())
    if digest in _proven:
        return
    statement = _statement(REKEY_STATEMENT, where, n, inputs, outputs, [mask], key_points)
    e = [_int(weight) for weight in _rekey_weights(statement, n)]
    c = proof.challenge
    # s_mask * y_hat (y_hat = sum(e_p * outputs[p])) as one combination, s_mask folded into
    # the weights: the same point, refused where y_hat is the identity, as libsodium does.
    # Every multiplication is independent of the others: they are done in one batch.
    s_mask = _int(proof.s_mask)
    batch = _Batch()
    y_hat_parts = batch.sum(_terms([_scalar(s_mask * e[p]) for p in range(n)], outputs))
    weighted_parts = batch.sum(
        _terms([_scalar(e[p] * _int(proof.s_keys[p])) for p in range(n)], inputs)
    )
    t_mask_at = batch.jobs([functools.partial(_difference, [(proof.s_mask, None)], (c, mask))])
    t_key_at = batch.jobs(
        functools.partial(_difference, [(s_key, None)], (c, key_point))
        for s_key, key_point in zip(proof.s_keys, key_points, strict=True)
    )
    points = batch.run()
    (t_mask,) = points[t_mask_at]
    t_key = points[t_key_at]
    t_rel = _sub(_not_identity(_sum(points[y_hat_parts])), _sum(points[weighted_parts]))
    if _challenge(REKEY_CHALLENGE, statement, t_mask, *t_key, t_rel) != c:
        raise ProofError(Sentence(N_("the rekey proof does not verify")))
    _remember_proven(digest)
