"""``toolcall-inspector analyze PATH``: judge a capture, a raw SSE body or a HAR headlessly.

Exit codes: the one table of :mod:`inspector.core.reports.exitcodes` (2 bad usage, unreadable,
not a stream, a ``--client`` that is unknown or does not speak the dialect; 1 an invalid call,
a failed request, an interrupted attempt, a body that is not UTF-8, a ``--client`` that breaks;
0 everything else, "not checked" included). A HAR's sessions: :mod:`.analyzehar`.

Invariant: the code is decided before the report is written; the report is written as it is
made (nothing that grows with the stream is built whole for output).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

from inspector.cli.progress import Progress
from inspector.core.analysis.session import Analysis
from inspector.core.base.errors import InspectorError
from inspector.core.base.settings import (
    AUTO,
    DEFAULT_EMPTY_ID,
    DEFAULT_MODE,
    EMPTY_ID_POLICIES,
    VALIDATION_MODES,
    dialect_choices,
)
from inspector.core.capture.format import CaptureError
from inspector.core.capture.records import Capture
from inspector.core.providers import REGISTRY
from inspector.core.reports import exitcodes

if TYPE_CHECKING:
    from inspector.cli.analyzeread import Fed


def add_analyze_parser(sub: Any) -> None:
    """The ``analyze`` subcommand's options, on the subparsers ``sub``."""
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
    a.add_argument("--dialect", choices=dialect_choices(REGISTRY), default=AUTO)
    a.add_argument(
        "--tools",
        metavar="FILE",
        help="tool definitions (any provider's shape) or a request body with tools",
    )
    a.add_argument("--validation", choices=VALIDATION_MODES, default=DEFAULT_MODE)
    a.add_argument(
        "--empty-id",
        choices=EMPTY_ID_POLICIES,
        default=DEFAULT_EMPTY_ID,
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
    a.add_argument(
        "--no-clients",
        action="store_true",
        help="a quick look: run no client replica (the JSON says clients_judged: false)",
    )


def analyze(args: argparse.Namespace) -> int:
    """``toolcall-inspector analyze``: the exit-code table of
    :mod:`inspector.core.reports.exitcodes` (a raw body that is not a stream is one line and
    exit 2, before any analysis). The code is decided before the report is written; the report
    is written as it is made."""
    from inspector.cli.analyzehar import emit
    from inspector.cli.analyzeread import read
    from inspector.core.replay.harsessions import is_har_file
    from inspector.core.reports.clientreport import ClientUsageError, named_replicas
    from inspector.core.reports.gate import check_stream

    if args.no_clients and args.client:
        raise ClientUsageError("--client judges a client; --no-clients judges none: pick one")
    named_replicas(args.client or [])  # an unknown client is refused before any reading
    if is_har_file(args.path):  # its LLM sessions, each judged as below (inspector.cli.analyzehar)
        from inspector.cli.analyzehar import analyze_har

        return analyze_har(args, lambda capture, source: _judge(args, capture, source))
    if args.entry is not None:
        raise InspectorError(f"{args.path}: --entry picks a session of a HAR file; this is none")
    progress = Progress()  # on stderr, when it is a terminal; cleared before the report
    try:
        with contextlib.suppress(OSError):
            progress.size = os.path.getsize(args.path)
        progress.begin("reading")
        capture, fed = read(args, progress)  # a large capture: read ahead and fed as read
        progress.chunks = sum(len(a.chunks) for a in capture.attempts)
        check_stream(capture, args.path)
        report, code = _judge(args, capture, args.path, progress, fed)
    finally:
        progress.close()
    emit(report, args.json)
    return code


def check_readable(path: str) -> None:
    """The exit-code table's "unreadable" row, as ``analyze`` applies it: InspectorError (one
    line, exit 2) for a file that cannot be read, a raw body that is not a stream, a HAR with
    no LLM session or whose one session cannot be shown. ``open --screenshot`` asks it too,
    so the same bad file gives exit 2 in both."""
    from inspector.core.capture.reader import load
    from inspector.core.replay.harsessions import is_har_file, load_sessions
    from inspector.core.reports.gate import check_stream

    if is_har_file(path):
        sessions = load_sessions(path)
        if not sessions.sessions:
            raise CaptureError(sessions.none_reason(), path=path)
        if len(sessions.sessions) == 1 and sessions.sessions[0].problem is not None:
            raise CaptureError(sessions.sessions[0].problem, path=path)
        return
    check_stream(load(path), path)


def _judge(
    args: argparse.Namespace,
    capture: Capture,
    source: str,
    progress: Progress | None = None,
    fed: Fed | None = None,
) -> tuple[Any, int]:
    """One capture judged as ``analyze`` asks: (the report, made as it is written: the lazy
    JSON document or the text's lines, each ended; the exit code, decided here). ``progress``
    is told each phase as it starts. ``fed``: the Analysis fed while the file was read, used
    when it was fed with the settings found here (else the capture is analysed whole)."""
    from inspector.cli.analyzeread import asked_settings, capture_settings
    from inspector.core.reports import report
    from inspector.core.reports.clientreport import check_speaks, gated_status, named_replicas
    from inspector.core.reports.clients import clients_verdict, not_judged
    from inspector.core.reports.gate import check_dialect
    from inspector.core.reports.jsonreport import json_doc
    from inspector.core.verdicts.tools import ToolRegistry

    named = named_replicas(args.client or [])
    tools = ToolRegistry.from_file(args.tools, REGISTRY) if args.tools else None
    settings = capture_settings(capture, asked_settings(args))
    check_dialect(capture, settings.dialect, source, REGISTRY)
    if fed is not None and fed[1] == settings:
        analysis = fed[0]
        if progress is not None:  # the ingest's rate is taken here: what follows is not it
            progress.begin("verdicts")
    else:
        del fed  # an Analysis fed with other settings: not held beside the new one
        if progress is not None:
            progress.begin("ingest")
        analysis = Analysis.from_capture(capture, settings, tools, providers=REGISTRY)
    if progress is not None and not args.no_clients:
        progress.begin("clients")
    clients = not_judged() if args.no_clients else clients_verdict(analysis)
    check_speaks(clients, named, analysis.dialect)
    code = gated_status(analysis, clients, named).code
    if args.json:
        return json_doc(analysis, source, clients, named), code
    lines = report.text_lines(analysis, source, sys.stdout.isatty(), clients, named)
    return (f"{line}\n" for line in lines), code
