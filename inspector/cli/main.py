"""Command-line entry points: thin wrappers over core (analyze) and ui (open).

Invariant: no exception reaches the user as a traceback. Bad input or usage prints one line on
stderr and exits 2; ``analyze`` follows the one exit-code table of
:mod:`inspector.core.reports.exitcodes` (2 bad usage, unreadable, not a stream, a ``--client``
that is unknown or does not speak the dialect; 1 an invalid call, a failed request, an
interrupted attempt, a body that is not UTF-8, a ``--client`` that breaks; 0 everything else,
"not checked" included).
Set TOOLCALL_INSPECTOR_DEBUG=1 to see tracebacks of unexpected errors.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inspector import __version__
from inspector.cli.export import add_export_parser, export
from inspector.cli.matrix import add_matrix_parser, matrix
from inspector.cli.proxy import add_proxy_parser, proxy
from inspector.cli.record import add_record_parser, record
from inspector.core.analysis.session import DIALECT_CHOICES, VALIDATION_MODES, Analysis, Settings
from inspector.core.base.errors import InspectorError
from inspector.core.calls.accumulator import EMPTY_ID_POLICIES
from inspector.core.capture.records import Capture
from inspector.core.providers import REGISTRY
from inspector.core.reports import exitcodes

SUBCOMMANDS = ("analyze", "open", "record", "export", "proxy", "matrix", "demo-server")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="toolcall-inspector",
        description="See how an LLM provider streams tool calls, fragment by fragment.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    a = sub.add_parser(
        "analyze",
        help="judge a capture or raw SSE body headlessly",
        description="Judge a capture or a raw SSE body headlessly.",
        epilog="exit status:\n" + exitcodes.table_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    a.add_argument("path", help="a capture (.jsonl), a raw SSE body (curl -N output), or a HAR")
    a.add_argument(
        "--entry",
        type=int,
        metavar="N",
        help="of a HAR: judge the LLM session starting at entry N (default: each in turn)",
    )
    a.add_argument("--dialect", choices=DIALECT_CHOICES, default="auto")
    a.add_argument(
        "--tools",
        metavar="FILE",
        help="tool definitions (any provider's shape) or a request body with tools",
    )
    a.add_argument("--validation", choices=VALIDATION_MODES, default="structural")
    a.add_argument(
        "--empty-id",
        choices=EMPTY_ID_POLICIES,
        default="absent",
        help='absent: treat "" ids as omitted; literal: look them up (the classic bug)',
    )
    a.add_argument("--json", action="store_true", help="one JSON document on stdout")
    a.add_argument(
        "--client",
        action="append",
        metavar="NAME",
        help="exit 1 when this client library (a replica: openai-python, litellm, …) would not "
        "get the inspector's calls; repeatable",
    )
    o = sub.add_parser("open", help="open the desktop inspector")
    o.add_argument("path", nargs="?", help="a capture or raw SSE body to open")
    o.add_argument(
        "--screenshot",
        metavar="PNG",
        help="render the window once loaded, save it as PNG, and exit",
    )
    o.add_argument("--validation", choices=VALIDATION_MODES, help="judge under this mode")
    o.add_argument("--empty-id", choices=EMPTY_ID_POLICIES, help="empty-id handling")
    o.add_argument(
        "--compare",
        action="store_true",
        help="also open the side-by-side comparison (absent vs literal)",
    )
    o.add_argument(
        "--view",
        choices=("raw", "problems", "clients", "turn", "timeline"),  # ui.views.TABS (no Qt here)
        help="the pane to show under the lanes (clients: what each client library makes of it)",
    )
    add_record_parser(sub)
    add_proxy_parser(sub)
    add_matrix_parser(sub)
    add_export_parser(sub)
    d = sub.add_parser("demo-server", help="run the demo provider (quirky streams, no API key)")
    d.add_argument("--port", type=int, default=8765, help="port to listen on (0: any free one)")
    d.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    d.add_argument(
        "--chunk-delay",
        type=float,
        default=0.03,
        metavar="S",
        help="seconds between streamed events (default 0.03)",
    )
    return p


def demo_server(args: argparse.Namespace) -> int:
    """``toolcall-inspector demo-server``: serve the demo provider until Ctrl+C (exit 0)."""
    from inspector.net.demo import run_demo_server

    return run_demo_server(args.host, args.port, args.chunk_delay)


def analyze(args: argparse.Namespace) -> int:
    """``toolcall-inspector analyze``: the exit-code table of :mod:`.core.reports.exitcodes`
    (a raw body that is not a stream is one line and exit 2, before any analysis). The code
    is decided before the report is written; the report is written as it is made."""
    from inspector.cli.har import emit
    from inspector.core.capture.reader import load
    from inspector.core.replay.harsessions import is_har_file
    from inspector.core.reports.clientreport import named_replicas
    from inspector.core.reports.gate import check_stream

    named_replicas(args.client or [])  # an unknown client is refused before any reading
    if is_har_file(args.path):  # its LLM sessions, each judged as below (inspector.cli.har)
        from inspector.cli.har import analyze_har

        return analyze_har(args, lambda capture, source: _judge(args, capture, source))
    if args.entry is not None:
        raise InspectorError(f"{args.path}: --entry picks a session of a HAR file; this is none")
    capture = load(args.path)
    check_stream(capture, args.path)
    report, code = _judge(args, capture, args.path)
    emit(report, args.json)
    return code


def _judge(args: argparse.Namespace, capture: Capture, source: str) -> tuple[Any, int]:
    """One capture judged as ``analyze`` asks: (the report, made as it is written: the lazy
    JSON document or the text's lines, each ended; the exit code, decided here)."""
    from inspector.core.reports import report
    from inspector.core.reports.clientreport import check_speaks, gated_status, named_replicas
    from inspector.core.reports.clients import clients_verdict
    from inspector.core.reports.gate import header_settings
    from inspector.core.reports.jsonreport import json_doc
    from inspector.core.verdicts.tools import ToolRegistry

    named = named_replicas(args.client or [])
    tools = ToolRegistry.from_file(args.tools) if args.tools else None
    settings = Settings(dialect=args.dialect, validation=args.validation, empty_id=args.empty_id)
    settings = header_settings(capture, settings, REGISTRY)
    analysis = Analysis.from_capture(capture, settings, tools, providers=REGISTRY)
    clients = clients_verdict(analysis)
    check_speaks(clients, named, analysis.dialect)
    code = gated_status(analysis, clients, named).code
    if args.json:
        return json_doc(analysis, source, clients, named), code
    lines = report.text_lines(analysis, source, sys.stdout.isatty(), clients, named)
    return (f"{line}\n" for line in lines), code


NO_DISPLAY = (
    "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset, and so is "
    "QT_QPA_PLATFORM): run it in a desktop session, or under a virtual X server "
    "(sudo apt-get install xvfb, then: xvfb-run -s '-screen 0 1280x800x24' toolcall-inspector "
    "open; sh scripts/qt-system-libs.sh installs the libraries a Qt window needs); "
    "'toolcall-inspector analyze FILE' works without a display"
)
"""What ``open`` says, before any Qt application exists, when there is no display at all."""


def no_display(environ: Mapping[str, str] | None = None) -> bool:
    """Is there no display a window could open on? Only where X11 or Wayland would provide
    one (not macOS or Windows), and only when Qt is not told which platform to use."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return False
    return not any(env.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


def open_gui(args: argparse.Namespace) -> int:
    """``toolcall-inspector open [PATH] [--screenshot PNG] …``: the desktop window. Without
    a display it says so in one line and exits 2; a screenshot renders offscreen instead."""
    if no_display():
        if not getattr(args, "screenshot", None):
            print(f"toolcall-inspector: {NO_DISPLAY}", file=sys.stderr)
            return 2
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # a picture needs no screen
    from inspector.ui.shell.app import run

    return run(
        getattr(args, "path", None),
        getattr(args, "screenshot", None),
        validation=getattr(args, "validation", None),
        empty_id=getattr(args, "empty_id", None),
        compare=getattr(args, "compare", False),
        view=getattr(args, "view", None),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point."""
    argv = list(sys.argv[1:] if argv is None else argv)
    first = argv[0] if argv else ""
    if argv[:2] == ["matrix", "diff"]:  # before the matrix parser, whose SPEC would take "diff"
        from inspector.cli.matrixdiff import matrix_diff

        return matrix_diff(argv[2:])
    if first and first not in SUBCOMMANDS and not first.startswith("-") and Path(first).exists():
        argv.insert(0, "open")
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "analyze":
            return analyze(args)
        if args.command == "record":
            return record(args)
        if args.command == "export":
            return export(args)
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
