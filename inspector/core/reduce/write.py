"""A reduced capture as bytes: a capture file (header, then each attempt's records) or, for a
raw body, the body alone, so the reduced file is in the format the original was.

Invariants: records are written as the capture format has them (``request``/``response``/
``attempt``/``event``/``end`` verbatim from the original, chunks as ``text`` when UTF-8 else
``b64``), attempts renumbered from 1 in order; the header gains ``meta.reduced`` saying what
was kept and from what, and nothing else changes. Nothing is redacted here: a capture never
held a secret (:mod:`inspector.core.capture.redaction`), and a reduced one holds less.
"""

from __future__ import annotations

import base64
from typing import Any

import orjson

from inspector.core.capture.records import Attempt, Capture


def dump(capture: Capture, attempts: list[Attempt], reduced: dict[str, Any] | None = None) -> bytes:
    """The bytes of a capture holding ``attempts`` (see the module docstring)."""
    if capture.kind == "raw-sse":
        return b"".join(data for a in attempts for _, data in a.chunks)
    header = dict(capture.header)
    if reduced is not None:
        header["meta"] = {**capture.meta, "reduced": reduced}
    lines = [orjson.dumps(header)]
    for number, attempt in enumerate(attempts, 1):
        for record in _records(attempt):
            lines.append(orjson.dumps({**record, "attempt": number}))
    return b"\n".join(lines) + b"\n"


def _records(attempt: Attempt) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    if attempt.reason is not None or attempt.extra:
        records.append({"type": "attempt", "reason": attempt.reason,
                        "recovery_action": attempt.recovery_action, **attempt.extra})  # fmt: skip
    if attempt.request is not None:
        records.append(attempt.request)
    if attempt.response is not None:
        records.append(attempt.response)
    timed: list[tuple[float, int, dict[str, Any]]] = []
    for i, (t, data) in enumerate(attempt.chunks):
        timed.append((t, 2 * i, _chunk(t, data)))
    for i, event in enumerate(attempt.events):
        timed.append((float(event.get("t") or 0.0), 2 * i + 1, event))
    records += [record for _, _, record in sorted(timed, key=lambda x: (x[0], x[1]))]
    if attempt.end is not None:
        records.append(attempt.end)
    return records


def _chunk(t: float, data: bytes) -> dict[str, Any]:
    try:
        return {"type": "chunk", "t": t, "text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"type": "chunk", "t": t, "b64": base64.b64encode(data).decode("ascii")}
