"""Engine helpers for tests: a public round rebuilt from public facts alone."""

from __future__ import annotations

from cfnet.game.board import PublicRound


def replayed(public: PublicRound) -> PublicRound:
    """A new `PublicRound` from `public`'s start, its moves replayed one by one."""
    fresh = public.at_start()
    for move in public.moves:
        fresh.apply_public(move)
    return fresh
