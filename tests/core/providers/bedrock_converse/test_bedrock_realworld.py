"""Every real recorded Bedrock ConverseStream stream, read as recorded (JSON lines) and framed
into real event-stream frames: each call of its ``.json`` exactly (id, name, arguments), the
text-only ones with no call and no false alarm; frames split at a sample of offsets give the
same analysis."""

from __future__ import annotations

from typing import Any

import pytest
from bedrock_fixtures import Recorded, recorded

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load_bytes
from inspector.core.providers import BEDROCK_CONVERSE, REGISTRY

STREAMS = recorded()
QUIRKS = {"amazon-bedrock-tool-no-args": {"zero_arg_empty_string"}}
"""Quirks the recordings really show: the no-argument call streams ``""`` (as Anthropic's
does), not ``{}``. Every other stream shows none."""


def _calls(analysis: Analysis) -> list[dict[str, Any]]:
    return [
        {"id": v.call.id, "name": v.call.name, "item": v.call.kind, "arguments": v.call.arguments}
        for v in analysis.final.verdicts
    ]


def _expected(rec: Recorded) -> list[dict[str, Any]]:
    return [{k: c[k] for k in ("id", "name", "item", "arguments")} for c in rec.calls]


def test_all_twelve_streams_and_their_fourteen_calls_are_there() -> None:
    assert len(STREAMS) == 12 and sum(len(r.calls) for r in STREAMS) == 14


@pytest.mark.parametrize("form", ["lines", "frames"])
@pytest.mark.parametrize("dialect", ["auto", BEDROCK_CONVERSE])
@pytest.mark.parametrize("rec", STREAMS, ids=lambda r: r.name)
def test_each_call_is_read_exactly(rec: Recorded, dialect: str, form: str) -> None:
    body = rec.lines if form == "lines" else rec.framed
    analysis = Analysis.from_capture(load_bytes(body), Settings(dialect), providers=REGISTRY)
    assert analysis.dialect == BEDROCK_CONVERSE and analysis.warnings == []
    assert _calls(analysis) == _expected(rec)
    final = analysis.final
    assert all(v.valid for v in final.verdicts)
    assert {q.code for q in final.quirks} == QUIRKS.get(rec.name, set())
    assert final.state.errors == []
    reason = final.state.finish_reason
    assert reason == ("tool_use" if rec.calls else "end_turn")


@pytest.mark.parametrize("rec", STREAMS, ids=lambda r: r.name)
def test_frames_split_at_a_sample_of_offsets_analyse_alike(rec: Recorded) -> None:
    body = rec.framed
    whole = Analysis.from_capture(load_bytes(body), providers=REGISTRY)
    for at in sorted({1, 5, 12, 13, len(body) // 3, len(body) // 2, len(body) - 3}):
        analysis = Analysis(providers=REGISTRY)
        analysis.begin_attempt()
        analysis.feed(body[:at])
        analysis.feed(body[at:])
        analysis.end()
        assert analysis.dialect == BEDROCK_CONVERSE, f"split at {at}"
        assert _calls(analysis) == _calls(whole), f"split at {at}"
        assert "".join(analysis.final.state.text) == "".join(whole.final.state.text)
        assert {q.code for q in analysis.final.quirks} == {q.code for q in whole.final.quirks}
