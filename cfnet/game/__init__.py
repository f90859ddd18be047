"""The rules of Chicken Foot and everything about a game that involves no network and no secret:
tiles, rule options, moves, the board and the public round, whole rounds and games, the text a
person reads, and the computer players (and the games they play among themselves)."""
