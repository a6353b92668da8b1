"""The real recorded Bedrock ConverseStream streams (../shared/fixtures/realworld/amazon-bedrock),
read through a loader that fails loudly, and framed into real event-stream frames.

The fixtures hold one wrapped payload a line (``{"contentBlockDelta": {…}}``, as the AI SDK's
tests feed them); on the real wire each payload is one frame whose ``:event-type`` is the key
and whose payload is the value: :func:`framed` builds exactly that.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import SHARED

from inspector.core.providers.bedrock_converse.eventstream import event_frame

BEDROCK = SHARED / "fixtures" / "realworld" / "amazon-bedrock"


@dataclass(frozen=True)
class Recorded:
    name: str
    lines: bytes
    """The stream as recorded: one wrapped JSON payload a line."""
    calls: list[dict[str, Any]]
    """Every tool-call item of its ``.json``: id, name, item, client_side, arguments."""

    @property
    def framed(self) -> bytes:
        return framed(self.lines)


def framed(lines: bytes) -> bytes:
    """Each wrapped payload as one event frame (``:event-type`` its key, payload its value)."""
    out = bytearray()
    for line in lines.splitlines():
        if line.strip():
            ((kind, inner),) = orjson.loads(line).items()
            out += event_frame(kind, orjson.dumps(inner))
    return bytes(out)


def recorded() -> list[Recorded]:
    """Every Bedrock stream with its calls, sorted by name; fails the caller (or the collection
    of its module) when the folder is missing or holds none."""
    paths = sorted(BEDROCK.glob("*.sse"))
    if not paths:
        state = "is empty" if BEDROCK.is_dir() else "is missing"
        pytest.fail(
            f"the real Bedrock streams folder {BEDROCK} {state}: the tests read them from "
            "../shared/fixtures/realworld beside the checkout",
            pytrace=False,
        )
    out = []
    for path in paths:
        meta = json.loads(Path(path.with_suffix(".json")).read_text())
        out.append(Recorded(path.stem, path.read_bytes(), meta["calls"]))
    return out
