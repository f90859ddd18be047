"""`os.open` flags for a file of bytes on every system: Windows opens a descriptor in text mode,
translating newlines, unless given O_BINARY (which POSIX systems do not have, nor need)."""

from __future__ import annotations

import os

O_BINARY: int = getattr(os, "O_BINARY", 0)
