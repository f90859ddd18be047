"""The Unicode bidi controls cfnet writes and strips (Unicode Standard Annex #9)."""

LRI = "\u2066"
"""Left-to-right isolate: a tile, a score or an end label inside a right-to-left sentence."""
FSI = "\u2068"
"""First-strong isolate: a name, whose direction is that of its own first letter."""
PDI = "\u2069"
"""Pop directional isolate: closes an LRI or FSI."""
ISOLATES = "\u2066\u2067\u2068"
CONTROLS = "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""Every bidi control (marks, embeddings, overrides, isolates): none is shown once the text is
in visual order."""
