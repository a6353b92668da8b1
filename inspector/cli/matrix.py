"""``toolcall-inspector matrix [SPEC] --out DIR``: run a compatibility matrix headlessly.

Without SPEC it runs the embedded default (:mod:`inspector.net.matrix.default`: the demo
provider's models x the built-in scenarios, offline, no key). ``DIR`` ends up holding
``matrix.json``, ``matrix.md``, ``matrix.html`` and one capture per session; the table is
printed (the cell words, colour only on a terminal).

Exit codes: 0 the matrix ran (whatever its cells say: the words are the verdict; some
targets skipped for want of a key included), 2 a spec or folder that cannot be used (one
line: a symlink among the files it writes, a non-empty folder that is no previous matrix
without ``--force``; :mod:`inspector.core.matrix.folder`), or a matrix that would run no
session (no targets, no scenarios, every target skipped: nothing is written; one line saying
why), 130 / 143 interrupted: finished cells are kept and ``matrix.json`` is written with the
others ``pending``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Final, TextIO

from inspector.core.matrix.cells import Cell
from inspector.core.matrix.exports import cell_text, client_column, summary, write_exports
from inspector.core.matrix.result import MatrixResult
from inspector.core.reports.words import label

ANSI: Final[dict[str, str]] = {
    "error": "1;41;97", "skipped": "90", "no call": "91", "wrong calls": "95", "invalid": "31",
    "retried": "35", "breaks clients": "33", "quirk": "36", "not checked": "37", "pass": "32",
    "pending": "34",
}  # fmt: skip
"""Cell word -> SGR code, used only when the output is a terminal (the words always show);
in the cells' precedence, the legend's order."""
TARGET_WIDTH: Final = 34


def add_matrix_parser(sub: Any) -> None:
    """The ``matrix`` subcommand's options, on the subparsers ``sub``."""
    m = sub.add_parser(
        "matrix",
        help="run a compatibility matrix (targets x scenarios) and write its results",
        description="Run every target (profile + model) against every scenario, concurrently, "
        "judge each session (expected calls, validity, retries, quirks, client replicas) and "
        "write DIR/matrix.json, matrix.md, matrix.html and one capture per session; the table "
        "is printed. Without SPEC: the demo provider's models x the built-in scenarios, "
        "offline (docs/matrix.md). `matrix diff A B` compares two matrices.",
    )
    m.add_argument("spec", nargs="?", metavar="SPEC", help="a matrix spec (JSON, docs/matrix.md)")
    m.add_argument("--out", required=True, metavar="DIR", help="the folder to write")
    m.add_argument("--runs", type=int, metavar="N", help="runs per cell (overrides the spec)")
    m.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty DIR that holds no previous matrix (a previous matrix is "
        "replaced without it; a symlink is never written through)",
    )


def matrix(args: argparse.Namespace) -> int:
    """Run the matrix; print its table; write the folder (see the module docstring)."""
    from dataclasses import replace

    from inspector.cli.record import Interrupted, run_interruptible
    from inspector.core.matrix.folder import prepare
    from inspector.core.matrix.idle import NothingToRun
    from inspector.core.matrix.spec import MatrixSpecError, load_spec
    from inspector.net.matrix.default import default_spec
    from inspector.net.matrix.runner import MatrixRunner, nothing_to_run

    spec = load_spec(args.spec) if args.spec else default_spec()
    if args.runs is not None:
        if not 1 <= args.runs <= 100:
            raise MatrixSpecError("--runs must be a whole number from 1 to 100")
        spec = replace(spec, runs=args.runs)
    why = nothing_to_run(spec)
    if why is not None:
        where = (
            "" if args.spec else " (the built-in matrix: the demo's models x the shipped scenarios)"
        )
        raise NothingToRun(f"nothing to run: {why}{where}")
    out = Path(args.out)
    prepare(out, force=args.force)
    tty = sys.stderr.isatty()
    runner = MatrixRunner(spec, out, on_cell_finished=_progress(spec.sessions, tty))
    code = 0
    try:
        run_interruptible(runner.run())
    except Interrupted as exc:
        code = 128 + int(exc.signum)
    finally:
        if tty:
            print(file=sys.stderr)
        runner.save()
        write_exports(runner.result, out)
    print_table(runner.result, sys.stdout, colour=sys.stdout.isatty())
    print(f"wrote {out / 'matrix.json'}, matrix.md, matrix.html and the captures under "
          f"{out / 'captures'}")  # fmt: skip
    if code:
        print(f"interrupted: finished cells kept in {out / 'matrix.json'}", file=sys.stderr)
    return code


def _progress(total: int, tty: bool) -> Any:
    done = [0]

    def on_cell(cell: Cell) -> None:
        done[0] += len(cell.runs)
        if tty:
            print(f"\r{done[0]}/{total} sessions", end="", file=sys.stderr, flush=True)

    return on_cell


def print_table(result: MatrixResult, out: TextIO, *, colour: bool = False) -> None:
    """The matrix as a text table: a row per target, a column per scenario (the cell's word
    and pass rate), then the client replicas that would not get some row's calls."""
    cols = result.scenarios
    widths = [max(len(c), *(len(cell_text(result.cell(r.name, c))) for r in result.rows))
              for c in cols]  # fmt: skip
    head = (
        "target".ljust(TARGET_WIDTH)
        + "  "
        + "  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True))
    )
    print(head + "  clients", file=out)
    print("-" * (len(head) + 9), file=out)
    for row in result.rows:
        cells = []
        for c, w in zip(cols, widths, strict=True):
            cell = result.cell(row.name, c)
            text = cell_text(cell).ljust(w)
            cells.append(f"\x1b[{ANSI[cell.word]}m{text}\x1b[0m" if colour else text)
        name = row.name if len(row.name) <= TARGET_WIDTH else row.name[: TARGET_WIDTH - 1] + "…"
        line = name.ljust(TARGET_WIDTH) + "  " + "  ".join(cells)
        print(line + "  " + _clients(result, row.name), file=out)
    print(file=out)
    print(summary(result), file=out)
    words = [w for w in ANSI if any(cell.word == w for cell in result)]
    print("legend: " + " · ".join(label(w) for w in words), file=out)


def _clients(result: MatrixResult, target: str) -> str:
    broken = []
    for name in result.replicas:
        column = client_column(result, target, name)
        if column.colour_key == "breaks":
            broken.append(f"{name} ({column.word})")
    if broken:
        return "✗ " + ", ".join(broken)
    judged = any(
        outcome.right is not None
        for cell in result
        if cell.target == target
        for run in cell.runs
        for outcome in run.clients.values()
    )
    return "✓ every client agrees" if judged else "-"
