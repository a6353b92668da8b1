"""``make bench``: every speed goal of the headless path, proxy and matrix in one run, then
one table of their PASS/FAIL lines.

Runs each benchmark as a process of its own, one after another (never two at once: each
measures its floor in the same run, and two benches side by side would load each other's),
passing its output through as it comes, and at the end prints every line that holds a
verdict (``PASS``, ``FAIL``, ``MISS``) under the input it was about, with each bench's wall
time and the total. A report, not a test: it exits 1 only when a bench exits non-zero (a
broken path, which a bench never times), whatever the verdicts say.

The benches and what each one's goals are: bench/README.md.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent

BENCHES: list[tuple[str, list[str]]] = [
    ("ingest", ["ingest.py"]),
    ("clients", ["clients.py"]),
    ("analyze", ["analyze.py", "--large"]),
    ("har", ["har.py"]),
    ("proxy body", ["proxy_body.py"]),
    ("matrix", ["matrix.py"]),
]
"""Each bench's name in the table and its script and arguments (under bench/)."""

VERDICT = re.compile(r"\b(PASS|FAIL|MISS)\b")


@dataclass
class Ran:
    name: str
    code: int = 0
    seconds: float = 0.0
    verdicts: list[tuple[str, str]] = field(default_factory=list)
    """(the heading the line came under, the line)"""


def run(name: str, argv: list[str]) -> Ran:
    """One bench, its output passed through; its verdict lines kept with their heading (the
    last line before them that was not indented)."""
    ran = Ran(name)
    print(f"\n=== {name}: bench/{' '.join(argv)}", flush=True)
    began = time.monotonic()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with subprocess.Popen(
        [sys.executable, str(HERE / argv[0]), *argv[1:]],
        cwd=HERE.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        errors="replace",
    ) as proc:
        assert proc.stdout is not None
        heading = ""
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            text = line.rstrip("\n")
            if VERDICT.search(text):
                ran.verdicts.append((heading, text.strip()))
            elif text and not text[0].isspace():
                heading = text.strip()
        ran.code = proc.wait()
    ran.seconds = time.monotonic() - began
    return ran


def main() -> int:
    began = time.monotonic()
    done = [run(name, argv) for name, argv in BENCHES]
    total = time.monotonic() - began
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\n=== the goals ({total / 60:.1f} min in all; load average {load})")
    for ran in done:
        state = "" if ran.code == 0 else f"  EXIT {ran.code}: a broken path, not timed"
        print(f"{ran.name} ({ran.seconds:.0f} s){state}")
        shown = ""
        for heading, line in ran.verdicts:
            if heading and heading != shown:
                print(f"  {heading[:100]}")
                shown = heading
            print(f"    {line}")
    counts = {v: sum(VERDICT.search(line).group(1) == v for r in done for _, line in r.verdicts)  # type: ignore[union-attr]
              for v in ("PASS", "FAIL", "MISS")}  # fmt: skip
    print(f"{counts['PASS']} PASS, {counts['FAIL']} FAIL, {counts['MISS']} MISS")
    return 1 if any(r.code for r in done) else 0


if __name__ == "__main__":
    sys.exit(main())
