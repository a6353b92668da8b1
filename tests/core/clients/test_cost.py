"""``inspector/core/clients/cost.py``: the window's estimate of the replicas' cost counts a
plain stream's clients as judged from its reading, not as replays."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import real_fixture

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load
from inspector.core.clients import cost as cost_module
from inspector.core.clients.cost import SECONDS_PER_EVENT, cost
from inspector.core.providers import REGISTRY


def analysis(body: bytes, tmp: Path, dialect: str) -> Analysis:
    path = tmp / "body.sse"
    path.write_bytes(body)
    return Analysis.from_capture(load(str(path)), Settings(dialect=dialect), providers=REGISTRY)


def events(a: Analysis) -> int:
    return sum(len(v.state.events) for v in a.attempts)


@pytest.mark.parametrize(
    ("name", "dialect", "speaking"),
    [
        ("responses-gpt-5-1-function-call", "openai-responses", 2),
        ("anthropic-tool-use", "anthropic", 2),
        ("gpt-4o-two-tools-usage-chunk", "openai-chat", 6),
    ],
)
def test_a_plain_stream_costs_its_reading_not_its_replays(
    name: str, dialect: str, speaking: int, tmp_path: Path
) -> None:
    body = real_fixture(name).read_bytes()
    plain = analysis(body, tmp_path, dialect)
    total, slowest = cost(plain)
    replayed = events(plain) * speaking * SECONDS_PER_EVENT
    assert 0 < total < replayed / 3
    assert slowest < events(plain) * SECONDS_PER_EVENT / 10
    # the same stream with a comment first is not plain: every client is counted replayed
    other = analysis(b": keep-alive\n\n" + body, tmp_path, dialect)
    assert cost(other) == pytest.approx(
        (events(other) * speaking * SECONDS_PER_EVENT, events(other) * SECONDS_PER_EVENT)
    )


def test_an_attempt_too_long_to_probe_is_counted_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cost_module, "PROBE_EVENTS", 3)
    a = analysis(real_fixture("anthropic-tool-use").read_bytes(), tmp_path, "anthropic")
    assert cost(a)[0] == pytest.approx(events(a) * 2 * SECONDS_PER_EVENT)
