"""Engine helpers for tests: a public round rebuilt from public facts alone."""

from __future__ import annotations

from cfnet.game.board import PublicRound


def replayed(public: PublicRound) -> PublicRound:
    """A new `PublicRound` from `public`'s start (counts, options) and its moves, replayed."""
    fresh = PublicRound(
        public.players,
        public.round_number,
        public.starter,
        public.options,
        public.initial_hand_counts,
        public.initial_yard_count,
    )
    for move in public.moves:
        fresh.apply_public(move)
    return fresh
