"""``toolcall-inspector report CAPTURE [--for provider|client:NAME] --out DIR [--pytest]``:
a bug report for the people who can fix it (:mod:`inspector.core.reports.bugreport`).

Writes into DIR: ``report.md``, the capture it describes (``capture.jsonl``, or
``capture.sse`` for a raw body, byte for byte), the reproduction script for the client
(``repro.py``, or ``repro.mjs`` for vercel-ai) and with ``--pytest`` ``test_regression.py``.
The client: :func:`~inspector.core.reports.bugreport.bundle.choose_client`. Exit 0 written;
2 bad usage or an unreadable capture (one line).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from inspector.core.base.errors import InspectorError
from inspector.core.base.settings import (
    DEFAULT_EMPTY_ID,
    DEFAULT_MODE,
    EMPTY_ID_POLICIES,
    VALIDATION_MODES,
)


def add_report_parser(sub: Any) -> None:
    """The ``report`` subcommand's options, on the subparsers ``sub``."""
    r = sub.add_parser(
        "report",
        help="write a bug report (Markdown), a reproduction script and a regression test",
        description="Write a bug report in Markdown for the people who can fix the stream.",
    )
    r.add_argument("path", help="a capture (.jsonl; reduce it first), a HAR or a raw body")
    r.add_argument("--for", dest="target", default="provider", metavar="provider|client:NAME")
    r.add_argument("--out", required=True, metavar="DIR", help="the folder to write into")
    r.add_argument("--pytest", action="store_true", help="also write test_regression.py")
    r.add_argument("--entry", type=int, metavar="N", help="of a HAR: the session at entry N")
    r.add_argument("--validation", choices=VALIDATION_MODES, default=DEFAULT_MODE)
    r.add_argument("--empty-id", choices=EMPTY_ID_POLICIES, default=DEFAULT_EMPTY_ID)


def report(args: argparse.Namespace) -> int:
    """``toolcall-inspector report``: 0 written, 2 otherwise (one line on stderr)."""
    from inspector.api import analyze
    from inspector.core.reduce.write import dump
    from inspector.core.reports.bugreport.bundle import bundle

    target = str(args.target)
    if target != "provider" and not target.startswith("client:"):
        raise InspectorError(f"--for {target!r}: give provider or client:NAME")
    result = analyze(
        args.path, validation=args.validation, empty_id=args.empty_id, entry=args.entry
    )
    made = bundle(result.capture, result.analysis, result.clients, target)
    out = Path(args.out)
    files = {"report.md": made.markdown, made.script_name: made.script}
    if args.pytest:
        files["test_regression.py"] = made.test
    capture = result.capture
    kept = Path(args.path).read_bytes() if args.entry is None else dump(capture, capture.attempts)
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / made.capture_name).write_bytes(kept)
        for name, text in files.items():
            (out / name).write_text(text)
    except OSError as exc:
        raise InspectorError(f"{out}: cannot write: {exc.strerror or exc}") from exc
    written = ", ".join(str(out / n) for n in ["report.md", made.capture_name, *list(files)[1:]])
    print(f"wrote {written} (client: {made.client})", file=sys.stdout)
    return 0
