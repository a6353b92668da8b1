"""``toolcall-inspector export CAPTURE --har OUT``: any capture as HAR 1.2.

CAPTURE is anything the inspector opens: a capture (a live session's, ``record``'s, the
proxy's), a raw SSE body (``curl -N`` output), or a HAR (its LLM sessions are written again,
redacted: a way to clean a HAR before attaching it to a bug report; ``--entry N`` keeps one).
The HAR written keeps every body byte and, in ``_chunks``, every chunk's time
(:mod:`inspector.core.capture.harexport`); ``open``/``analyze`` read it back with timing.

Invariants:
- Secrets are redacted by the capture rule, whatever the input held; OUT is written whole or
  not at all; ``--har -`` writes to stdout.
- Bad input is one line on stderr and exit 2 (the caller's), never a traceback; a raw body
  that is not a stream is refused as ``analyze`` refuses it. A HAR session whose body the
  exporter left out is not written (an empty body would be a lie): one line says so.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import UTC, datetime
from typing import Any

from inspector.core.capture import harexport
from inspector.core.capture.format import CaptureError
from inspector.core.capture.reader import load
from inspector.core.capture.records import Capture
from inspector.core.replay.harsessions import is_har_file, load_sessions
from inspector.core.reports.gate import check_stream


def add_export_parser(sub: Any) -> None:
    """The ``export`` subcommand (``sub``: the parser's subparsers)."""
    e = sub.add_parser(
        "export",
        help="write a capture as HAR 1.2 (secrets redacted, per-chunk times kept)",
        description="Write a capture, a raw SSE body or a HAR's LLM sessions as HAR 1.2: "
        "secrets redacted, bodies kept byte for byte (base64 when not UTF-8), each chunk's "
        "time in the _chunks field.",
    )
    e.add_argument("path", help="a capture (.jsonl), a raw SSE body, or a HAR file")
    e.add_argument("--har", metavar="OUT", required=True, help="the HAR to write ('-': stdout)")
    e.add_argument(
        "--entry", type=int, metavar="N", help="of a HAR: only the session starting at entry N"
    )


def export(args: argparse.Namespace) -> int:
    """``toolcall-inspector export``: 0 once OUT is written; errors raise (exit 2)."""
    captures, left_out = captures_of(args.path, args.entry)
    for line in left_out:
        print(f"toolcall-inspector: not exported: {line}", file=sys.stderr)
    if not captures:
        raise CaptureError("nothing to export", path=args.path)
    started = _mtime(args.path)
    har = harexport.to_har(captures, started=started)
    entries = len(har["log"]["entries"])
    if args.har == "-":
        sys.stdout.buffer.write(harexport.dumps(har))
        sys.stdout.flush()
        return 0
    size = harexport.write(args.har, har)
    sessions = f"{len(captures)} session{'s' * (len(captures) != 1)}"
    print(
        f"toolcall-inspector: wrote {args.har}: {entries} entr{'ies' if entries != 1 else 'y'} "
        f"({sessions}, {size} bytes), secrets redacted",
        file=sys.stderr,
    )
    return 0


def captures_of(path: str, entry: int | None = None) -> tuple[list[Capture], list[str]]:
    """The captures a file holds (a HAR: its LLM sessions, or the one at ``entry``), and one
    line for each session that cannot be exported."""
    if not is_har_file(path):
        if entry is not None:
            raise CaptureError("--entry picks a session of a HAR file; this is none", path=path)
        capture = load(path)
        check_stream(capture, path)
        return [capture], []
    sessions = load_sessions(path)
    if not sessions.sessions:
        raise CaptureError(sessions.none_reason(), path=path)
    chosen = [sessions.pick(entry)] if entry is not None else sessions.sessions
    kept = [s.capture for s in chosen if not s.missing]
    return kept, [s.problem or s.label for s in chosen if s.missing]


def _mtime(path: str) -> datetime | None:
    """When the file was last written: the start of a capture that records none (raw)."""
    try:
        return datetime.fromtimestamp(os.stat(path).st_mtime, UTC)
    except (OSError, ValueError):
        return None
