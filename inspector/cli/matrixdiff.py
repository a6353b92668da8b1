"""``toolcall-inspector matrix diff A B``: two matrices compared, the cells that changed.

A and B are matrix folders (holding ``matrix.json``) or ``matrix.json`` files. Prints the
changed cells as a table (target, scenario or client column, before → after, worse / better /
changed / added / removed) and a count line. Exit status (docs/matrix.md, "Comparing"):
1 when any cell got worse, 0 otherwise, 2 when either side cannot be read (one line).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from inspector.core.base.errors import InspectorError
from inspector.core.matrix.diff import counts, diff, regressed, table
from inspector.core.matrix.result import load_result


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="toolcall-inspector matrix diff",
        description="Compare two matrices (before, after): the cells that changed. Exit 1 when "
        "any cell got worse, 0 otherwise, 2 when either cannot be read.",
    )
    p.add_argument("before", metavar="A", help="a matrix folder or its matrix.json (before)")
    p.add_argument("after", metavar="B", help="a matrix folder or its matrix.json (after)")
    return p


def matrix_diff(argv: Sequence[str]) -> int:
    """Run ``matrix diff`` with the arguments after ``diff``."""
    args = _parser().parse_args(list(argv))
    try:
        a, b = load_result(args.before), load_result(args.after)
    except InspectorError as exc:
        print(f"toolcall-inspector: {exc}", file=sys.stderr)
        return 2
    changes = diff(a, b)
    if changes:
        print(table(changes))
        print()
    print(counts(changes))
    return 1 if regressed(changes) else 0
