"""A raw body of Bedrock frames replays one frame a step (the window's loader and a plain
replay alike), and an SSE body is cut as before."""

from __future__ import annotations

import pytest
from bedrock_fixtures import recorded

from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load_bytes
from inspector.core.events.sse import SSE
from inspector.core.providers.bedrock_converse.eventstream import EventStreamDecoder
from inspector.core.replay.loading import ProgressiveLoad
from inspector.core.replay.replayer import Replayer, replay_plan

BODY = recorded()[2].framed


def frames(body: bytes) -> list[bytes]:
    decoder = EventStreamDecoder()
    return [body[ev.start : ev.end] for ev in decoder.feed(body) + decoder.close()]


def test_a_raw_bedrock_body_replays_one_frame_a_step() -> None:
    plan = replay_plan(load_bytes(BODY))
    steps = [plan[i].data for i in range(len(plan))]
    assert len(steps) == 12 and steps == frames(BODY)
    replayer = Replayer(load_bytes(BODY))
    replayer.step(4)  # the first call's opener is in, its arguments are not
    (call,) = replayer.analysis.final.state.calls
    assert (call.id, call.arguments) == ("weather-tool-1", "")
    replayer.finish()
    assert [c.arguments for c in replayer.analysis.final.state.calls] == [
        '{"location":"San Francisco"}', '{"location":"London"}'
    ]  # fmt: skip


@pytest.mark.parametrize("dialect", ["auto", "bedrock-converse"])
def test_the_windows_loader_cuts_a_raw_bedrock_body_at_its_frames(dialect: str) -> None:
    load = ProgressiveLoad(BODY, "b.bin", Settings(dialect))
    while not load.step(1.0):
        pass
    assert load.replayer is not None
    plan = load.replayer.plan
    assert [plan[i].data for i in range(len(plan))] == frames(BODY)


def test_an_sse_body_is_still_cut_at_its_events() -> None:
    body = b'data: {"a":1}\n\ndata: {"b":2}\n\n'
    plan = replay_plan(load_bytes(body))
    decoder = SSE.decoder()
    assert [plan[i].data for i in range(len(plan))] == [
        body[ev.start : ev.end] for ev in decoder.feed(body) + decoder.close()
    ]
