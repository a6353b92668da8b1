"""``toolcall-inspector report CAPTURE [--for provider|client:NAME] --out DIR [--pytest]``:
a bug report for the people who can fix it (:mod:`inspector.core.reports.bugreport`).

Writes into DIR: ``report.md``, the capture it describes (``capture.jsonl``, or
``capture.sse`` for a raw body, byte for byte), the reproduction script for the client
(``repro.py``, or ``repro.mjs`` for vercel-ai) and with ``--pytest`` ``test_regression.py``.
The client is ``--for client:NAME``; for ``--for provider`` (the default) the first client
library the stream breaks, else the first that speaks its dialect. Exit 0 written; 2 bad usage
or an unreadable capture (one line).
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
        description="Write a bug report in Markdown for the people who can fix the stream's fault.",
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
    from inspector.core.reports.bugreport.markdown import report_markdown
    from inspector.core.reports.bugreport.regression import regression_test
    from inspector.core.reports.bugreport.scripts import script_for

    target = str(args.target)
    if target != "provider" and not target.startswith("client:"):
        raise InspectorError(f"--for {target!r}: give provider or client:NAME")
    result = analyze(
        args.path, validation=args.validation, empty_id=args.empty_id, entry=args.entry
    )
    clients = result.clients
    names = [r.name for r in clients.replicas]
    if target.startswith("client:"):
        client = target.split(":", 1)[1]
        if client not in names:
            raise InspectorError(f"--for {target}: no client {client!r}; one of {', '.join(names)}")
        if client not in clients.applicable:
            raise InspectorError(f"--for {target}: {client} does not speak {result.dialect}")
    else:
        broken = [n for n in clients.broken if n in clients.applicable]
        if not (broken or clients.applicable):
            raise InspectorError(f"{args.path}: no client library speaks {result.dialect}")
        client = (broken or clients.applicable)[0]
    capture = result.capture
    body = capture.request_body if isinstance(capture.request_body, dict) else {}
    model = str(capture.meta.get("model") or body.get("model") or "model")
    calls = [c for c in result.calls]
    tool_names = list(dict.fromkeys(str(c.name) for c in calls if c.name)) or ["tool"]
    request = next((a.request for a in capture.attempts if a.request), None) or {}
    from urllib.parse import urlsplit

    path = urlsplit(str(request.get("url") or "")).path or "/v1/chat/completions"
    responses = path.rstrip("/").endswith("/responses")  # the OpenAI SDK's other API
    script_name, script = script_for(client, model, tool_names, responses, path)
    out = Path(args.out)
    capture_name = "capture.sse" if capture.kind == "raw-sse" else "capture.jsonl"
    try:
        out.mkdir(parents=True, exist_ok=True)
        kept = Path(args.path).read_bytes() if args.entry is None else _har_session(capture)
        (out / capture_name).write_bytes(kept)
        (out / script_name).write_text(script)
        (out / "report.md").write_text(
            report_markdown(
                capture,
                result.analysis,
                clients,
                target=target,
                capture_name=capture_name,
                script_name=script_name,
                script=script,
                client=client,
            )
        )
        written = ["report.md", capture_name, script_name]
        if args.pytest:
            expected = [(c.id, c.name, c.arguments) for c in calls]
            what = ", ".join(result.quirk_codes) or "its calls"
            (out / "test_regression.py").write_text(
                regression_test(client, capture_name, script_name, what, expected)
            )
            written.append("test_regression.py")
    except OSError as exc:
        raise InspectorError(f"{out}: cannot write: {exc.strerror or exc}") from exc
    print(f"wrote {', '.join(str(out / w) for w in written)} (client: {client})", file=sys.stdout)
    return 0


def _har_session(capture: Any) -> bytes:
    from inspector.core.reduce.write import dump

    return dump(capture, list(capture.attempts))
