"""cfnet's languages: the one in effect and its catalog, numbers and lists as it writes them,
text measured in display cells, right-to-left lines, and what a player types in their script.

The names a module needs to put a sentence on the screen are here, e.g.
`from cfnet.lang import _, ngettext, number`."""

from cfnet.lang.bidi import isolate, isolate_name
from cfnet.lang.catalog import N_, _, language, ngettext, npgettext, pgettext
from cfnet.lang.formatting import decimal, digits, number, percent, word_list
from cfnet.lang.sentence import Sentence, said
from cfnet.lang.width import width

__all__ = [
    "N_",
    "Sentence",
    "_",
    "decimal",
    "digits",
    "isolate",
    "isolate_name",
    "language",
    "ngettext",
    "npgettext",
    "number",
    "percent",
    "pgettext",
    "said",
    "width",
    "word_list",
]
