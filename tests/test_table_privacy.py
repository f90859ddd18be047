"""Hidden hands: at every point of a game, no seat can open a position that was not dealt to
it (or drawn by it) and not yet played, from everything it has seen plus its own secrets."""

from __future__ import annotations

from deck_helpers import open_point

from cfnet.deck.sra import DeckError, SeatSecrets, tile_for_point
from cfnet.game.rules import RuleOptions, hand_size
from cfnet.protocol.testing import Network, start_tables
from cfnet.protocol.wire import unpack
from cfnet.record.entry import Entry


def _known_keys(
    entries: list[Entry], players: int
) -> tuple[list[bytes], dict[int, dict[int, bytes]], set[int], dict[int, int]]:
    """From a chain prefix of the current round: final deck, released keys per position and
    seat, played positions, and who holds each drawn yard position."""
    last_round = max(e.body.get("round", 0) for e in entries)
    h = hand_size(players)
    deck: list[bytes] = []
    keys: dict[int, dict[int, bytes]] = {}
    played: set[int] = set()
    drawer: dict[int, int] = {}
    next_yard = players * h
    for entry in entries:
        if entry.body.get("round") != last_round:
            continue
        if entry.kind == "shuffle_b":
            deck = unpack(entry.body["deck"])
        elif entry.kind == "deal":
            others = [p for p in range(players * h) if p // h != entry.seat]
            for p, key in zip(others, unpack(entry.body["keys"]), strict=True):
                keys.setdefault(p, {})[entry.seat] = key
        elif entry.kind == "draw":
            drawer[next_yard] = entry.seat
            next_yard += 1
        elif entry.kind in ("yard_key", "play"):
            keys.setdefault(entry.body["position"], {})[entry.seat] = entry.body["key"]
            if entry.kind == "play":
                played.add(entry.body["position"])
    return deck, keys, played, drawer


def _check(network: Network, crypto: bool) -> None:
    players = len(network.tables)
    h = hand_size(players)
    for seat, table in enumerate(network.tables):
        r = table.round
        if r is None or len(r.b) < players or r.seeds:
            continue
        assert table.local is not None
        deck, keys, played, drawer = _known_keys(table.entries, players)
        own = SeatSecrets.derive(table.local.seeds[r.number], table.table_id, r.number, seat)
        for p in range(54):
            mine = (p < players * h and p // h == seat) or drawer.get(p) == seat
            if mine or p in played:
                continue
            known = {**keys.get(p, {}), seat: own.position_keys[p]}
            assert len(known) < players, f"seat {seat} holds every key of position {p}"
            if crypto:
                try:
                    tile_for_point(open_point(deck[p], list(known.values())))
                except DeckError:
                    continue
                raise AssertionError(f"seat {seat} opened position {p}")


def test_no_seat_opens_a_hidden_position() -> None:
    network = start_tables(4, 21, RuleOptions(rounds=1), ("greedy", "random"))
    seen = [0]

    def watch(net: Network) -> None:
        seen[0] += 1
        _check(net, crypto=seen[0] % 97 == 0)

    network.watch = watch
    network.run()
    assert all(t.over for t in network.tables)
    assert seen[0] > 100
