"""A judged log read back: a game as positions (the replay and watch views) and the plain export."""
