"""Whether an outcome (a replica's, or a real library's re-run) matches its golden.

The rule (``goldens/README.md`` says it for people):
- the calls are equal exactly: the same count, and per call the same ``id``, ``name`` and
  ``arguments`` strings (no JSON equivalence: the string is what the agent gets);
- the error is equal: both none, or the same ``type`` and, unless the golden marks its
  message ``"varies": true`` (verify saw two runs word it differently: a port, a request id),
  the same ``message``.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.core.clients.judge import ClientResult

Outcome = dict[str, Any]


def outcome_of(result: ClientResult) -> Outcome:
    """A replica's result in the golden's shape (``error_after`` with calls AND an error,
    ``hosted`` when the library handed over any of the provider's own items)."""
    error = result.error
    out: Outcome = {
        "calls": [c.to_json() for c in result.calls],
        "error": None if error is None else {"type": error.type, "message": error.message},
    }
    if error is not None and result.calls:
        out["error_after"] = result.error_after
    if result.hosted:
        out["hosted"] = [c.to_json() for c in result.hosted]
    return out


def same_error(golden: dict[str, Any] | None, got: dict[str, Any] | None) -> bool:
    """The rule's error half."""
    if golden is None or got is None:
        return golden is got
    if golden["type"] != got["type"]:
        return False
    return bool(golden.get("varies")) or golden["message"] == got["message"]


def mismatch(stream_id: str, golden: Outcome, got: Outcome, who: str = "replica") -> str | None:
    """None when ``got`` matches ``golden``; else a message naming the stream, both sides."""
    if (
        golden["calls"] == got["calls"]
        and same_error(golden["error"], got["error"])
        and golden.get("error_after") == got.get("error_after")
        and golden.get("hosted", []) == got.get("hosted", [])
    ):
        return None
    return (
        f"{stream_id}: the {who} differs from the golden\n"
        f"  golden: {json.dumps(golden, ensure_ascii=False)}\n"
        f"  {who}: {json.dumps(got, ensure_ascii=False)}"
    )
