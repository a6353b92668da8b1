"""Each new item kind live in the real window: a demo session (demo provider on loopback, the
qasync loop) of every item scenario fills lanes that say their kind, mute what the provider
runs and show what the stream reported beside it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import qasync

from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import live_ended, until


@pytest.fixture
def window(
    qtbot: Any, qloop: qasync.QEventLoop, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MainWindow]:
    monkeypatch.setattr("inspector.ui.live.live.captures_dir", lambda: tmp_path)
    w = MainWindow()
    w.live.demo_chunk_delay = 0.002
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    yield w
    qloop.run_until_complete(w.aclose())


def run_live(
    window: MainWindow,
    qloop: qasync.QEventLoop,
    profile: str,
    model: str,
    scenario: str = "weather",
) -> None:
    window.live_bar.select(profile, model, scenario)

    async def session() -> None:
        window.start_live()
        await until(lambda: live_ended(window))

    qloop.run_until_complete(session())
    done = window.live.session
    assert done is not None and done.state == "done", done.error


@pytest.mark.parametrize(
    ("profile", "model", "lanes"),
    [
        ("demo-responses", "demo-web-search", [("hosted by the provider", "web_search_call")]),
        ("demo-anthropic", "demo-web-search", [("hosted by the provider", "server_tool_use")]),
        ("demo-responses", "demo-apply-patch", [("built-in tool", "apply_patch_call")]),
        ("demo-responses", "demo-custom-sql", [("custom tool", "custom_tool_call")]),
        (
            "demo-anthropic",
            "demo-programmatic",
            [("hosted by the provider", "server_tool_use"), ("function call", "tool_use")],
        ),
    ],
)
def test_a_live_demo_session_shows_each_kind(
    window: MainWindow, qloop: qasync.QEventLoop, profile: str, model: str, lanes: Any
) -> None:
    run_live(window, qloop, profile, model)
    shown = window.lanes.lanes
    assert len(shown) == len(lanes)
    for lane, (words, item_type) in zip(shown, lanes, strict=True):
        kind = lane.header.text().split("<br>")[0]  # the header's first line says the kind
        assert words in kind and f"</span> <code>{item_type}</code>" in kind
        hosted = words.startswith("hosted")
        assert bool(lane.property("hosted")) == hosted and lane.autoFillBackground() == hosted
    if model == "demo-web-search":
        (lane,) = shown
        assert "reported by the stream" in lane.reported_line.text()
        assert "3 sources" in lane.reported_line.text() or "3 items" in lane.reported_line.text()
        assert "forecast.example" in lane.reported.toPlainText()
    if model == "demo-custom-sql":
        (lane,) = shown
        assert lane.model.free_text and "✖" not in lane.status.text()
    if model == "demo-programmatic":
        assert "called by <code>code_execution_20250825</code>" in shown[1].header.text()


@pytest.mark.parametrize("model", ["demo-custom-sql", "demo-clean"])
def test_a_live_custom_tool_is_judged_against_the_grammar_the_request_declared(
    window: MainWindow, qloop: qasync.QEventLoop, model: str
) -> None:
    """The ``sql`` request scenario declares ``write_sql`` with its Lark grammar: the lane is
    a custom tool's, checked against that grammar ("valid"), never "not checked" (a request
    declaring no format) nor invalid JSON."""
    from inspector.core.reports import words

    run_live(window, qloop, "demo-responses", model, "sql")
    (lane,) = window.lanes.lanes
    assert "custom tool" in lane.header.text().split("<br>")[0]
    assert words.label("valid") in lane.status.text()
    assert words.label("not checked") not in lane.status.text()
    (verdict,) = window.doc.analysis.final.verdicts
    assert verdict.call.name == "write_sql" and verdict.call.arguments.startswith("SELECT ")
