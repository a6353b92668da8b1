"""Small hand-written bodies for the item-kind tests: a Responses stream with given output
items (and, optionally, the response's own tool list), analysed as a raw body."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspector.core.analysis.session import Analysis
from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY


def sse(events: list[dict[str, Any]]) -> bytes:
    """``event: TYPE`` / ``data: JSON`` frames, as the Responses API sends them."""
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def responses_body(items: list[dict[str, Any]], tools: list[Any] | None = None) -> bytes:
    """A whole Responses stream: created, each item added then done, completed."""
    resp = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
    if tools is not None:
        resp["tools"] = tools
    events: list[dict[str, Any]] = [{"type": "response.created", "response": resp}]
    for i, item in enumerate(items):
        opened = {k: v for k, v in item.items() if k not in ("arguments", "input", "action")}
        if "arguments" in item and isinstance(item["arguments"], str):
            opened["arguments"] = ""
        if "input" in item:
            opened["input"] = ""
        events.append({"type": "response.output_item.added", "output_index": i, "item": opened})
        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
    events.append({"type": "response.completed", "response": {**resp, "status": "completed"}})
    return sse(events)


def analyse(tmp_path: Path, body: bytes, name: str = "body.sse") -> Analysis:
    path = tmp_path / name
    path.write_bytes(body)
    return Analysis.from_capture(load(path), providers=REGISTRY)
