"""`python -m cfnet`: the `cfnet` command."""

import sys

from cfnet.cli.main import console

sys.exit(console())
