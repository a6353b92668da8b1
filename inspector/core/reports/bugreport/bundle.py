"""Everything ``report`` writes, made once for the command line and the window: which client
the script and the regression test are for, the script, the Markdown and the frozen calls.

Invariant: the client is ``client:NAME`` when asked (it must speak the dialect); for
``provider`` the first client library the stream breaks, else the first that speaks its
dialect (:func:`choose_client`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from inspector.core.analysis.session import Analysis
from inspector.core.base.errors import InspectorError
from inspector.core.capture.records import Capture
from inspector.core.reports.bugreport.markdown import report_markdown
from inspector.core.reports.bugreport.regression import regression_test
from inspector.core.reports.bugreport.scripts import script_for
from inspector.core.reports.clients import ClientsVerdict


@dataclass(frozen=True)
class Bundle:
    """A report's files: (name, text) each, and who it is for."""

    client: str
    capture_name: str
    script_name: str
    script: str
    markdown: str
    test: str


def choose_client(clients: ClientsVerdict, target: str, dialect: str | None) -> str:
    """The client of the script and the test (see the module docstring)."""
    names = [r.name for r in clients.replicas]
    if target.startswith("client:"):
        client = target.split(":", 1)[1]
        if client not in names:
            raise InspectorError(f"--for {target}: no client {client!r}; one of {', '.join(names)}")
        if client not in clients.applicable:
            raise InspectorError(f"--for {target}: {client} does not speak {dialect}")
        return client
    if target != "provider":
        raise InspectorError(f"--for {target!r}: give provider or client:NAME")
    broken = [n for n in clients.broken if n in clients.applicable]
    if not (broken or clients.applicable):
        raise InspectorError(f"no client library speaks {dialect}")
    return (broken or clients.applicable)[0]


def bundle(capture: Capture, analysis: Analysis, clients: ClientsVerdict, target: str) -> Bundle:
    """The report's files for ``capture`` judged as ``analysis`` (see the module docstring)."""
    client = choose_client(clients, target, analysis.dialect)
    body = capture.request_body if isinstance(capture.request_body, dict) else {}
    model = str(capture.meta.get("model") or body.get("model") or "model")
    verdicts = [v for v in analysis.final.verdicts if not v.orphan]
    calls: list[tuple[Any, Any, str]] = [
        (v.call.id, v.call.name, v.call.arguments) for v in verdicts
    ]
    names = list(dict.fromkeys(str(name) for _, name, _ in calls if name)) or ["tool"]
    request = next((a.request for a in capture.attempts if a.request), None) or {}
    path = urlsplit(str(request.get("url") or "")).path or "/v1/chat/completions"
    responses = path.rstrip("/").endswith("/responses")  # the OpenAI SDK's other API
    script_name, script = script_for(client, model, names, responses, path)
    capture_name = "capture.sse" if capture.kind == "raw-sse" else "capture.jsonl"
    markdown = report_markdown(capture, analysis, clients, target=target,
                               capture_name=capture_name, script_name=script_name,
                               script=script, client=client)  # fmt: skip
    codes = list(
        dict.fromkeys(q.code for r in analysis.rounds for v in r.attempts for q in v.quirks)
    )
    test = regression_test(
        client, capture_name, script_name, ", ".join(codes) or "its calls", calls
    )
    return Bundle(client, capture_name, script_name, script, markdown, test)
