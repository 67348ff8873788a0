"""Refresh the README's figures for the default test run: how many tests, how long.

    python bench/readme_figures.py               # run the default suite, then rewrite
    python bench/readme_figures.py LOG           # the figures of a saved run's output
    python bench/readme_figures.py --count LOG   # the count only (a busy machine's run)

The README says "The default run (about N tests) takes about M minutes on an idle
two-core machine". Run this on such a machine after the suite grew or got faster: it
rounds the count to tens and the time to whole minutes, and rewrites that sentence in
place (it prints what changed). A run on a machine that is not idle says nothing about
the time: ``--count`` keeps the stated minutes. ``tests/test_readme.py`` keeps the
sentence in the form this script reads, and (marked slow, as CI runs it) the count
within a tenth of what the suite collects.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SENTENCE = re.compile(
    r"The default run \(about (?P<tests>[\d,]+) tests\) takes about (?P<minutes>\d+) minutes?"
)
"""The README's figures; the count is written with thousands separators."""
SUMMARY = re.compile(r"^=*\s*(?P<counts>\d+ \w+(?:, \d+ \w+)*) in (?P<seconds>[\d.]+)s\b", re.M)
"""pytest's last line: ``2780 passed, 2 deselected in 183.21s (0:03:03)``."""
RAN = ("passed", "failed", "skipped", "xfailed", "xpassed", "error", "errors")
"""The outcomes of tests that ran (``deselected`` ones did not)."""


class Figures(NamedTuple):
    tests: int
    minutes: int

    def sentence(self) -> str:
        unit = "minute" if self.minutes == 1 else "minutes"
        return f"The default run (about {self.tests:,} tests) takes about {self.minutes} {unit}"


def figures_of_run(output: str) -> Figures:
    """The rounded figures of a pytest run from its output (its last summary line)."""
    found = list(SUMMARY.finditer(output))
    if not found:
        raise ValueError("no pytest summary line (N passed ... in Xs) in the output")
    last = found[-1]
    tests = 0
    for count in last["counts"].split(", "):
        number, outcome = count.split(" ", 1)
        tests += int(number) if outcome in RAN else 0
    minutes = max(1, round(float(last["seconds"]) / 60))
    return Figures(round(tests, -1), minutes)


def figures_in_readme(text: str) -> Figures:
    """The figures the README states now."""
    found = SENTENCE.findall(text)
    if len(found) != 1:
        raise ValueError(f"README.md: expected one {SENTENCE.pattern!r}, found {len(found)}")
    tests, minutes = found[0]
    return Figures(int(tests.replace(",", "")), int(minutes))


def rewrite(text: str, figures: Figures) -> str:
    figures_in_readme(text)  # exactly one sentence to replace
    return SENTENCE.sub(figures.sentence(), text)


def run_default_suite() -> str:
    """The output of the README's test command's pytest step, run from the checkout."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-4000:])
        raise SystemExit("the default run failed: figures left as they are")
    return done.stdout


def main(argv: list[str]) -> int:
    count_only = "--count" in argv
    logs = [arg for arg in argv if arg != "--count"]
    output = Path(logs[0]).read_text(encoding="utf-8") if logs else run_default_suite()
    figures = figures_of_run(output)
    text = README.read_text(encoding="utf-8")
    before = figures_in_readme(text)
    if count_only:
        figures = figures._replace(minutes=before.minutes)
    README.write_text(rewrite(text, figures), encoding="utf-8")
    print(f"README.md: {before.sentence()} -> {figures.sentence()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
