"""The command-line entry point: the subcommands' parsers, one module each (analyze, open,
record, proxy, matrix, export, scrub, demo-server; ``matrix diff`` before them), and the dispatch.

Invariant: no exception reaches the user as a traceback. Bad input or usage prints one line on
stderr and exits 2 (``toolcall-inspector PATH`` on a missing file: "no such file");
``analyze`` follows the one exit-code table of :mod:`inspector.core.reports.exitcodes`
(:mod:`.analyze`).
Set TOOLCALL_INSPECTOR_DEBUG=1 to see tracebacks of unexpected errors.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from inspector import __version__
from inspector.cli.analyze import add_analyze_parser, analyze
from inspector.cli.demo import add_demo_parser, demo_server
from inspector.cli.export import add_export_parser, export
from inspector.cli.matrix import add_matrix_parser, matrix
from inspector.cli.open import add_open_parser, open_gui
from inspector.cli.proxy import add_proxy_parser, proxy
from inspector.cli.record import add_record_parser, record
from inspector.cli.scrub import add_scrub_parser, scrub
from inspector.core.base.errors import InspectorError

SUBCOMMANDS = (
    "analyze", "open", "record", "export", "scrub", "proxy", "matrix", "demo-server",
)  # fmt: skip


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="toolcall-inspector",
        description="See how an LLM provider streams tool calls, fragment by fragment.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    add_analyze_parser(sub)
    add_open_parser(sub)
    add_record_parser(sub)
    add_proxy_parser(sub)
    add_matrix_parser(sub)
    add_export_parser(sub)
    add_scrub_parser(sub)
    add_demo_parser(sub)
    return p


def looks_like_path(word: str) -> bool:
    """Is a first word that is no command meant as a file (``toolcall-inspector PATH``)? A
    path separator or a file suffix says so; a bare word is a mistyped command (argparse
    lists the commands)."""
    return os.sep in word or "/" in word or bool(Path(word).suffix)


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point."""
    argv = list(sys.argv[1:] if argv is None else argv)
    first = argv[0] if argv else ""
    if argv[:2] == ["matrix", "diff"]:  # before the matrix parser, whose SPEC would take "diff"
        from inspector.cli.matrixdiff import matrix_diff

        return matrix_diff(argv[2:])
    if first and first not in SUBCOMMANDS and not first.startswith("-"):
        if Path(first).exists():
            argv.insert(0, "open")
        elif looks_like_path(first):
            print(f"toolcall-inspector: no such file: {first}", file=sys.stderr)
            return 2
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "analyze":
            return analyze(args)
        if args.command == "record":
            return record(args)
        if args.command == "export":
            return export(args)
        if args.command == "scrub":
            return scrub(args)
        if args.command == "proxy":
            return proxy(args)
        if args.command == "matrix":
            return matrix(args)
        if args.command == "demo-server":
            return demo_server(args)
        return open_gui(args)
    except InspectorError as exc:
        print(f"toolcall-inspector: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the last line of defence: one line, never a traceback
        if os.environ.get("TOOLCALL_INSPECTOR_DEBUG"):
            raise
        print(f"toolcall-inspector: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
