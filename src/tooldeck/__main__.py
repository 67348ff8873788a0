"""``python -m tooldeck``: the ``tooldeck`` command."""

from __future__ import annotations

import sys

from tooldeck.cli import main

if __name__ == "__main__":
    sys.exit(main())
