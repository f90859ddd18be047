"""The terminal screens (table browser, lobby, game, replay viewer) and the line output."""
