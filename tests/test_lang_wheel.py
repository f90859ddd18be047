"""A wheel built from a clean checkout carries the compiled catalogs and the rule books: once
installed into a fresh environment, away from the sources, `cfnet --lang ms --help` is in
Malay, `LANGUAGE=fa cfnet --help` in Persian, and `cfnet rules` is docs/rules.md."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from cfnet.lang.languages import LANGUAGES, SOURCE

ROOT = Path(__file__).resolve().parent.parent


def run(args: list[str], cwd: Path, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LANG")}
    env.update(PYTHONIOENCODING="utf-8", **environ)
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def checkout(into: Path) -> None:
    """The files a clean checkout of this tree has (tracked, or new and not ignored): no built
    catalog, no build directory."""
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT)
    if listed.returncode != 0:
        pytest.skip(f"not a git checkout: {listed.stderr.strip()}")
    for name in filter(None, listed.stdout.split("\0")):
        source = ROOT / name
        if source.exists() or source.is_symlink():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name, follow_symlinks=False)


def test_an_installed_wheel_speaks_every_language(tmp_path: Path) -> None:
    source, dist, fresh = tmp_path / "checkout", tmp_path / "dist", tmp_path / "fresh"
    checkout(source)
    assert not list(source.rglob("*.mo"))
    # as a user's `pip wheel .`: in an isolated environment with pyproject's build requirements
    built = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w",
         str(dist), str(source)], tmp_path,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = dist.glob("cfnet-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for code in LANGUAGES:
        assert (f"cfnet/locale/{code}/LC_MESSAGES/cfnet.mo" in names) == (code != SOURCE)
    assert "cfnet/locale/en/rules.md" in names and not [n for n in names if n.endswith(".po")]

    made = run([sys.executable, "-m", "venv", "--without-pip", str(fresh)], tmp_path)
    assert made.returncode == 0, made.stderr
    python = fresh / "bin" / "python"
    found = run([str(python), "-c", "import site; print(site.getsitepackages()[0])"], tmp_path)
    # the dependencies come from this environment's site-packages; cfnet only from the wheel
    # (this environment's editable cfnet is installed by a .pth that a plain path does not run)
    Path(found.stdout.strip(), "dependencies.pth").write_text(site.getsitepackages()[0] + "\n")
    installed = run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-index", str(wheel)], tmp_path,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stdout + installed.stderr
    where = run([str(python), "-c", "import cfnet; print(cfnet.__file__)"], tmp_path)
    assert where.stdout.startswith(str(fresh)), where

    cfnet = str(fresh / "bin" / "cfnet")
    home = {"CFNET_HOME": str(tmp_path / "home")}
    malay = run([cfnet, "--lang", "ms", "--help"], tmp_path, **home)
    assert malay.returncode == 0, malay.stderr
    assert malay.stdout.startswith("penggunaan: cfnet [-h]")
    assert "Domino Chicken Foot (kaki ayam) di LAN anda" in malay.stdout
    assert "tunjukkan bantuan ini dan keluar" in malay.stdout  # argparse's own words
    persian = run([cfnet, "--help"], tmp_path, LANGUAGE="fa", **home)
    assert persian.stdout.startswith("طرز استفاده: cfnet"), persian.stdout + persian.stderr
    rules = run([cfnet, "rules"], tmp_path, **home)
    assert rules.stdout == (ROOT / "docs" / "rules.md").read_text()
