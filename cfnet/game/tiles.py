"""The double-nine domino set: 55 immutable tiles, each with a stable index 0..54."""

from __future__ import annotations

import re
from dataclasses import dataclass

from cfnet.lang import N_
from cfnet.lang.sentence import Sentence

HIGHEST_PIP = 9
_TILE_TEXT = re.compile(r"^\s*\[?\s*(\d)\s*[-|/:,\s]\s*(\d)\s*\]?\s*$")


class TileParseError(ValueError):
    """Text that does not name a double-nine tile."""


@dataclass(frozen=True, order=True, slots=True)
class Tile:
    """One domino; `low <= high`, both 0..9. Printed as `[9|3]`, typed as `9-3`."""

    low: int
    high: int

    def __post_init__(self) -> None:
        if not 0 <= self.low <= self.high <= HIGHEST_PIP:
            raise TileParseError(
                Sentence(
                    N_("no tile {low}-{high}: halves are 0..{highest}, low half first"),
                    low=self.low,
                    high=self.high,
                    highest=HIGHEST_PIP,
                )
            )

    @classmethod
    def of(cls, a: int, b: int) -> Tile:
        """The tile with halves `a` and `b`, in either order."""
        return ALL_TILES[_INDEX[(min(a, b), max(a, b))]] if _valid_pips(a, b) else cls(a, b)

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Read `9-3`, `3-9`, `[9|3]`, `9 3` or `93` as a tile."""
        match = _TILE_TEXT.match(text) or re.match(r"^\s*(\d)(\d)\s*$", text)
        if match is None:
            raise TileParseError(
                Sentence(
                    N_("{text} is not a tile: type two halves, like 9-3"), text=repr(text.strip())
                )
            )
        return cls.of(int(match.group(1)), int(match.group(2)))

    @classmethod
    def from_index(cls, index: int) -> Tile:
        """The tile at `index` in `ALL_TILES`."""
        if not 0 <= index < len(ALL_TILES):
            raise TileParseError(
                Sentence(
                    N_("no tile has index {index}: indexes are 0..{last}"),
                    index=index,
                    last=len(ALL_TILES) - 1,
                )
            )
        return ALL_TILES[index]

    @property
    def index(self) -> int:
        """Position in `ALL_TILES` (ordered by low half, then high half)."""
        return _INDEX[(self.low, self.high)]

    @property
    def value(self) -> int:
        """The pip count, `low + high`."""
        return self.low + self.high

    @property
    def is_double(self) -> bool:
        return self.low == self.high

    def has(self, number: int) -> bool:
        """Whether either half shows `number`."""
        return self.low == number or self.high == number

    def other(self, number: int) -> int:
        """The half left free when the `number` half is matched against an end."""
        if self.low == number:
            return self.high
        if self.high == number:
            return self.low
        raise ValueError(f"{self} has no {number}")

    @property
    def label(self) -> str:
        """The typed form, high half first: `9-3`."""
        return f"{self.high}-{self.low}"

    def __str__(self) -> str:
        return f"[{self.high}|{self.low}]"


def _valid_pips(a: int, b: int) -> bool:
    return 0 <= a <= HIGHEST_PIP and 0 <= b <= HIGHEST_PIP


ALL_TILES: tuple[Tile, ...] = tuple(
    Tile(low, high) for low in range(HIGHEST_PIP + 1) for high in range(low, HIGHEST_PIP + 1)
)
_INDEX: dict[tuple[int, int], int] = {(t.low, t.high): i for i, t in enumerate(ALL_TILES)}
TILES_PER_NUMBER = HIGHEST_PIP + 1


def double(number: int) -> Tile:
    """The double of `number`, e.g. `double(9)` is `[9|9]`."""
    return Tile.of(number, number)


def a_number(number: int) -> Sentence:
    """The number with its article, as a sentence says it: `a 5`, `an 8`."""
    if number == 8:
        return Sentence(N_("an {number}"), number=number)
    return Sentence(N_("a {number}"), number=number)
