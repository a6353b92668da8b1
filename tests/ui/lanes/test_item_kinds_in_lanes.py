"""Lanes say each item's kind and wire type in full words, mute what the provider runs, show
the results the stream carried beside the call and a custom tool's input as text: the real
window (pytest-qt) on the recorded realworld streams (the loader fails loudly without them)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import real_fixture
from PySide6.QtWidgets import QWidget
from realworld.loader import REALWORLD

from inspector.ui.base.models import SEQ_ROLE, FragmentsModel
from inspector.ui.lanes.lane import LaneWidget
from inspector.ui.shell.mainwindow import MainWindow


@pytest.fixture
def window(qtbot: Any) -> MainWindow:
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    return w


def realworld(name: str) -> str:
    path = next(REALWORLD.glob(f"*/{name}.sse"), None)
    assert path is not None, f"missing realworld stream {name} under {REALWORLD}"
    return str(path)


def kind_text(lane: LaneWidget) -> str:
    """The header's first line: where the kind badge and the item type are."""
    return lane.header.text().split("<br>")[0]


def tab_titles(lane: LaneWidget) -> list[str]:
    return [lane.tabs.tabText(i) for i in range(lane.tabs.count())]


def muted(lane: LaneWidget) -> bool:
    bg = lane.palette().color(lane.backgroundRole())
    window_bg = lane.window().palette().color(lane.window().backgroundRole())
    return bool(lane.property("hosted")) and lane.autoFillBackground() and bg != window_bg


def test_hosted_web_searches_are_muted_lanes_with_their_results_beside_them(
    window: MainWindow,
) -> None:
    assert window.open(realworld("openai-web-search-tool.1"))
    lanes = window.lanes.lanes
    assert len(lanes) == 6
    for lane in lanes:
        assert "hosted by the provider" in kind_text(lane)
        assert "web_search_call" in kind_text(lane)
        assert muted(lane)
        assert "none: the item type names it" in lane.header.text()
        assert lane.reported_line.isVisibleTo(lane)
        assert "reported by the stream" in lane.reported_line.text()
        assert "Reported" in tab_titles(lane)
    first = lanes[0]
    assert "completed" in first.reported_line.text() and "10 sources" in first.reported_line.text()
    reported = json.loads(first.reported.toPlainText())
    assert reported["item_type"] == "web_search_call"
    assert reported["action"]["sources"][0]["url"].startswith("https://www.wired.com/")
    attempt = window.attempts.topLevelItem(0)
    rows = [attempt.child(i).text(0) for i in range(attempt.childCount())]
    assert rows and all(r.endswith("web_search_call · hosted") for r in rows)
    status = window.statusBar().currentMessage()
    assert "0 agent calls · 6 hosted items" in status  # the headline counts them apart
    assert "0 agent call(s) · 6 hosted item(s), 0 invalid" in status


def test_a_custom_tools_input_is_text_never_judged_as_json(window: MainWindow) -> None:
    assert window.open(realworld("openai-custom-tool.1"))
    (lane,) = window.lanes.lanes
    assert "custom tool" in kind_text(lane) and "custom_tool_call" in kind_text(lane)
    assert not muted(lane)
    model = lane.model
    assert model.free_text
    col = FragmentsModel.JSON_COLUMN
    states = {model.data(model.index(r, col)) for r in range(model.rowCount())}
    assert states == {FragmentsModel.FREE_TEXT}
    assert model.data(model.index(0, FragmentsModel.JSON_COLUMN), SEQ_ROLE) is not None
    lane.tabs.setCurrentWidget(lane.parsed)  # the Parsed tab shows the input as it is
    assert lane.parsed.toPlainText() == "SELECT * FROM users WHERE age > 25"
    assert lane._highlighter.document() is None  # not coloured as JSON
    assert "INVALID" not in lane.status.text() and "✖" not in lane.status.text()
    assert "1 agent call · 0 hosted items" in window.statusBar().currentMessage()


def test_a_built_in_apply_patch_is_the_agents_call_with_its_own_badge(window: MainWindow) -> None:
    assert window.open(realworld("openai-apply-patch-tool.1"))
    (lane,) = window.lanes.lanes
    assert "built-in tool" in kind_text(lane) and "apply_patch_call" in kind_text(lane)
    assert not muted(lane) and not lane.model.free_text  # its operation is JSON
    assert lane._highlighter.document() is lane.parsed.document()
    assert "valid" in lane.status.text()
    assert "the agent runs" in lane.header.toolTip()


def test_programmatic_calls_say_who_called_them(window: MainWindow) -> None:
    assert window.open(realworld("anthropic-programmatic-tool-calling.1"))
    lanes = window.lanes.lanes
    server, *calls = lanes
    assert "hosted by the provider" in kind_text(server) and "server_tool_use" in kind_text(server)
    assert muted(server) and "code_execution_tool_result" in server.reported_line.text()
    assert len(calls) == 14
    for lane in calls:
        assert "function call" in kind_text(lane) and "tool_use" in kind_text(lane)
        assert "called by <code>code_execution_20250825</code>" in kind_text(lane)
        assert not muted(lane) and not lane.reported_line.isVisibleTo(lane)
    attempt = window.attempts.topLevelItem(0)
    names = [attempt.child(i).text(0) for i in range(attempt.childCount())]
    assert names[0].endswith("code_execution · hosted") and names[1].endswith("rollDie")


def test_a_lane_reused_for_function_calls_loses_the_hosted_look(window: MainWindow) -> None:
    assert window.open(realworld("anthropic-web-search-tool.1"))
    (lane,) = window.lanes.lanes
    assert muted(lane) and "Reported" in tab_titles(lane)
    assert window.open(str(real_fixture("anthropic-tool-use")))  # the same lane, a function call
    (again,) = window.lanes.lanes
    assert again is lane
    assert "function call" in kind_text(lane) and "tool_use" in kind_text(lane)
    assert not muted(lane) and not lane.property("hosted")
    assert "Reported" not in tab_titles(lane) and not lane.reported_line.isVisibleTo(lane)
    assert "1 call(s), 0 invalid" in window.statusBar().currentMessage()  # as it always read


def test_the_kind_adds_no_row_to_a_lane(window: MainWindow) -> None:
    """The badge is on the header's first line: a lane is as tall as a function call's,
    whatever its kind (a row of its own pushed lanes past a short lane area); only results
    the stream reported add their line."""
    assert window.open(realworld("openai-code-interpreter-tool.1"))
    lane = window.lanes.lanes[0]
    assert "code_interpreter_call" in kind_text(lane) and "#0" in kind_text(lane)
    assert lane.findChild(QWidget, "lane-kind") is None
    assert lane.model.free_text  # a code interpreter's code is text, not JSON
    assert window.open(realworld("openai-apply-patch-tool.1"))  # built-in, no results
    assert window.lanes.lanes[0] is lane and "built-in tool" in kind_text(lane)
    built_in = lane.minimumSizeHint().height()
    assert window.open(str(real_fixture("anthropic-tool-use")))
    assert window.lanes.lanes[0] is lane and "function call" in kind_text(lane)
    assert lane.minimumSizeHint().height() == built_in
