"""Where cfnet keeps its state (the state directory): $CFNET_HOME, else the platform's per-user
data directory."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

HOME_ENV = "CFNET_HOME"


def default_home(environ: Mapping[str, str] = os.environ, platform: str = sys.platform) -> Path:
    """$CFNET_HOME, else the platform's per-user data directory + "cfnet": $XDG_DATA_HOME or
    ~/.local/share on Linux and other Unix systems, ~/Library/Application Support on macOS,
    %LOCALAPPDATA% on Windows."""
    if environ.get(HOME_ENV):
        return Path(environ[HOME_ENV]).expanduser()
    home = Path(environ["HOME"]) if environ.get("HOME") else Path.home()
    if platform == "win32":
        local = environ.get("LOCALAPPDATA", "")
        return (Path(local) if local else home / "AppData" / "Local") / "cfnet"
    if platform == "darwin":
        return home / "Library" / "Application Support" / "cfnet"
    xdg = environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".local" / "share"
    return base / "cfnet"
