"""What a benchmark that times whole `cfnet` processes does first: compile the package's
modules to bytecode, as installing it does (pip compiles a package as it installs it). An
editable install run with PYTHONDONTWRITEBYTECODE=1 would otherwise compile every module it
imports from source at each start (about 80 ms of `cfnet verify`'s start here)."""

from __future__ import annotations

import compileall
from pathlib import Path

import cfnet


def compile_package() -> None:
    """Write the bytecode of every module of cfnet (its __pycache__, which git ignores)."""
    compileall.compile_dir(Path(cfnet.__file__).parent, quiet=1)
