"""A seat at a table: the session a screen plays through (offline or over the LAN), the typed
configs of `cfnet host|join|bot|resume` and how each seats a peer and plays it (host, join,
resume, over seating and process), and the processes of computer players (children)."""
