"""Raises on import, after writing $TDTEST_IMPORT_MARKER (so tests can see it ran)."""

import os
import pathlib

marker = os.environ.get("TDTEST_IMPORT_MARKER")
if marker:
    pathlib.Path(marker).write_text("imported")
raise RuntimeError("tdtest-broken refuses to import")
