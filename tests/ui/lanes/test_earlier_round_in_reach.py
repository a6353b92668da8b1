"""At the end of a tool loop the view shows the last round, a text answer without calls: the
lanes say so and keep the earlier round's calls one click away (a link that shows them, as a
pick in the Attempts pane would), instead of "No tool calls in this attempt." with round 1's
lanes gone from sight."""

from __future__ import annotations

import pytest
import qasync

from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import run_live


@pytest.fixture
def window(window: MainWindow) -> MainWindow:
    """The shared fresh window (tests/ui/conftest.py), its demo paced fast, at 1280x800."""
    window.live.demo_chunk_delay = 0.002
    window.resize(1280, 800)
    return window


def test_the_last_rounds_placeholder_links_to_the_calls_of_the_round_before(
    window: MainWindow, qloop: qasync.QEventLoop
) -> None:
    window.live_bar.select("demo", "demo-parallel", "filesystem")
    window.live_bar.loop.setChecked(True)

    run_live(window, qloop)
    analysis = window.doc.analysis
    assert analysis is not None and [a.round for a in analysis.attempts] == [1, 2]
    first, last = analysis.attempts
    assert window.doc.view is not None and window.doc.view.number == last.number
    assert not last.state.calls and len(first.state.calls) == 3
    placeholder = window.lanes._empty
    assert placeholder.isVisible()
    said = placeholder.text()
    assert said.startswith("No tool calls in round 2: the model answered in text.")
    assert f'href="attempt:{first.number}"' in said and "3 tool calls of round 1" in said

    placeholder.linkActivated.emit(f"attempt:{first.number}")  # the user follows the link
    assert window.doc.view is not None and window.doc.view.number == first.number
    shown = [lane for lane in window.lanes.lanes if not lane.isHidden()]
    assert [lane.call.name for lane in shown] == [c.name for c in first.state.calls]
    assert not placeholder.isVisible()
    current = window.views.attempts.currentItem()
    assert current is not None and current.text(0) == "Attempt 1"
    assert current.parent() is not None and current.parent().text(0) == "Round 1"
