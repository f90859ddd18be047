"""The package's folders are its layers: a module imports only from its own layer or below,
and no modules import each other in a circle."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "cfnet"
LAYERS = [
    "lang",
    "errors",
    "game",
    "deck",
    "record",
    "protocol",
    "review",
    "disk",
    "net",
    "seat",
    "ui",
    "cli",
]
"""Lowest first: each may import the ones before it (and itself), never one after it."""


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Every cfnet module and the cfnet modules it imports (at any depth of its code)."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        names = found.setdefault(_module(path), set())
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("cfnet"):
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names if a.name.startswith("cfnet"))
    return found


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def test_every_module_is_in_a_layer() -> None:
    assert [
        m for m in _imports() if m != "cfnet" and m != "cfnet.__main__" and _layer(m) is None
    ] == []


def test_imports_point_down() -> None:
    upward = [
        f"{module} imports {name}"
        for module, names in sorted(_imports().items())
        for name in names
        if _layer(module) is not None and (_layer(name) or 0) > (_layer(module) or 0)
    ]
    assert upward == []


def test_no_import_cycle() -> None:
    imports = _imports()
    graph = {m: {n for n in names if n in imports} for m, names in imports.items()}
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        assert module not in path, "import cycle: " + " -> ".join(
            [*path[path.index(module) :], module]
        )
        if module not in done:
            for name in sorted(graph[module]):
                visit(name, [*path, module])
            done.add(module)

    for module in sorted(graph):
        visit(module, [])
