"""No English sentence a person reads is left unmarked: every place that puts text in front of a
person (a print, a line said on a screen or in the lobby, a notice, an error raised for a person,
an option's help) in the layers that speak to people is read, and a sentence written there
outside `_()`, `N_()`, `ngettext()`, `pgettext()` or a `Sentence` is named, with its file and
line. The check reads the code (Python's own parser), so it also covers paths no test runs."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "cfnet"
LAYERS = ("cli", "ui", "seat", "review", "disk")
"""The layers that speak to people, whole."""
MODULES = (
    "game/board.py",
    "game/bots.py",
    "game/moves.py",
    "game/round.py",
    "game/rules.py",
    "game/tiles.py",
    "net/discovery.py",
    "net/handshake.py",
    "net/joining.py",
    "net/link.py",
    "net/lobby.py",
    "net/roster.py",
    "protocol/events.py",
    "protocol/verify.py",
    "record/logfile.py",
)
"""Modules elsewhere whose reasons reach a person (the engine's, the verdict's, the lobby's and
a link's, a log file's)."""
MARKING = {"_", "N_", "ngettext", "pgettext", "npgettext", "Sentence", "counted"}
SPEAKING = {"print", "say", "_say", "tell", "told", "fail", "Notice", "GameAborted", "GameLeft"}
"""Calls whose text a person reads (their first argument; `GameLeft`'s second is a key)."""
INTERNAL = {"AssertionError", "NotImplementedError", "RuntimeError", "TypeError", "KeyError"}
"""Errors that are cfnet's own bugs, never shown as a reason: their words stay English."""
INVARIANTS = {"ValueError"}
"""A bare ValueError is raised where a caller broke a precondition (the engine's and the
store's own checks), never for what a person typed: a person's errors have their own classes."""
UNTRANSLATED = "# untranslated:"
"""Written on a `raise` of a person's error class where only a bug in cfnet can reach it."""
PLACEHOLDER = re.compile(r"\{[^{}]*\}")
COMMAND = re.compile(r"\bcfnet(?: [a-z-]+)?\b")
"""A command's name, as an error line begins (`cfnet verify: ...`): a name, not words."""
WORD = re.compile(r"[A-Za-z]{2,}")


def files() -> list[Path]:
    found = [p for layer in LAYERS for p in sorted((PACKAGE / layer).rglob("*.py"))]
    return found + [PACKAGE / module for module in MODULES]


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _texts(node: ast.AST) -> Iterator[ast.expr]:
    """The string literals and f-strings under `node`, except inside a marking call."""
    if isinstance(node, ast.Call) and _name(node.func) in MARKING:
        return
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
        return
    if isinstance(node, ast.JoinedStr):
        yield node
        return
    for child in ast.iter_child_nodes(node):
        yield from _texts(child)


def _words(node: ast.expr) -> str:
    """The text of a literal with its placeholders left out (an f-string's values too)."""
    if isinstance(node, ast.Constant):
        text = PLACEHOLDER.sub(" ", str(node.value))
    else:
        assert isinstance(node, ast.JoinedStr)
        text = "".join(str(v.value) if isinstance(v, ast.Constant) else " " for v in node.values)
    return " ".join(text.split())


def is_sentence(text: str) -> bool:
    """At least two words of letters: a frame like `cfnet verify: {error}` is not a sentence."""
    return len(WORD.findall(COMMAND.sub(" ", text))) >= 2


def spoken(tree: ast.AST, source: list[str]) -> Iterator[ast.AST]:
    """The arguments of every place in `tree` (of the lines `source`) that puts text in front
    of a person."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            lines = source[node.lineno - 1 : node.end_lineno]
            bug = any(UNTRANSLATED in line for line in lines)
            if _name(node.exc.func) not in INTERNAL | INVARIANTS and not bug:
                yield from node.exc.args
        elif isinstance(node, ast.Call):
            if _name(node.func) in SPEAKING:
                yield from node.args[:1]
            yield from (k.value for k in node.keywords if k.arg == "help")


def unmarked(path: Path) -> list[str]:
    """Each English sentence `path` shows a person without marking it, as `file:line: text`."""
    source = path.read_text(encoding="utf-8")
    found = []
    for argument in spoken(ast.parse(source), source.splitlines()):
        for text in _texts(argument):
            if is_sentence(_words(text)):
                where = path.relative_to(PACKAGE.parent)
                found.append(f"{where}:{text.lineno}: {_words(text).strip()[:60]!r}")
    return found


def test_the_check_finds_an_unmarked_sentence_and_passes_a_marked_one(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f(x):\n"
        "    print(f'the table {x} is full')\n"
        "    print(_('the table {x} is full').format(x=x))\n"
        "    print(f'{x}: {x}')\n"
        "    raise LobbyError(Sentence(N_('no table {x}'), x=x))\n"
        "    raise LobbyError('no table at all')\n"
        "    parser.add_argument('--x', help='what it does')\n"
        "    raise AssertionError('cannot happen here')\n"
        "    raise StoreError('call load() first')  # untranslated: a caller's bug\n"
        "    raise StoreError(\n"
        "        'no table is kept here'\n"
        "    )\n"
    )
    found = sorted(line.split(": ", 1)[1] for line in _unmarked_in(sample))
    assert found == [
        "'no table at all'",
        "'no table is kept here'",
        "'the table is full'",
        "'what it does'",
    ]


def _unmarked_in(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    return [
        f"{text.lineno}: {_words(text).strip()!r}"
        for argument in spoken(ast.parse(source), source.splitlines())
        for text in _texts(argument)
        if is_sentence(_words(text))
    ]


def test_every_sentence_shown_to_a_person_is_marked_for_translation() -> None:
    assert [line for path in files() for line in unmarked(path)] == []
