"""A seat at a table: the session a screen plays through (offline or over the LAN), and the
processes of computer players."""
