"""The rules of Chicken Foot and everything about a game that involves no network and no secret:
tiles, rule options, the engine, the text a person reads, and the computer players."""
