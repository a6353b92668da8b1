"""The Clients view, the clients' headline and the lane badges, on real widgets over the real
samples: which client libraries a stream breaks, how, and where (inspector/ui/clients/).

Tests that need particular replicas name them (:func:`need`) and fail saying which are not
registered yet, rather than passing over an empty list.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import real_fixture
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction

from inspector.core.base.resources import resource
from inspector.core.clients import registry
from inspector.core.clients.registry import LITERAL_MATCHES
from inspector.core.reports.words import CLIENT_BREAKS
from inspector.ui.base.models import SEQ_ROLE
from inspector.ui.clients.clients import DIVERGES, NAME, TINT, WORD, ClientsPane
from inspector.ui.clients.follow import NOT_RUN, RUNNING
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import WAIT_MS

SAMPLES = resource("samples")
INDEX_0 = SAMPLES / "ollama-parallel-calls-index-0.jsonl"
"""The demo's parallel calls on index 0: three calls, one index."""
GLM = SAMPLES / "glm-empty-string-continuations.jsonl"
"""Continuations with an id of "": what the empty-id toggle is about."""
ANTHROPIC = SAMPLES / "anthropic-parallel-tool-use.jsonl"
CHAT = ("openai-python", "litellm", "langchain", "vercel-ai", "by-id", "by-index")
"""The replicas of OpenAI-compatible chat clients."""
RETRY = SAMPLES / "retry-truncated-then-valid.jsonl"
"""Two attempts: the first cut short, the retry whole."""


def need(*names: str) -> None:
    """Fail, naming them, when replicas this test needs are not registered (yet)."""
    have = [r.name for r in registry.REPLICAS]
    missing = [n for n in names if n not in have]
    if missing:
        registered = ", ".join(have) or "none"
        pytest.fail(
            f"needs the client replica(s) {', '.join(missing)} in "
            f"inspector/core/clients/registry.py REPLICAS (registered: {registered})",
            pytrace=False,
        )


@pytest.fixture
def window(qtbot: Any) -> MainWindow:
    QSettings("toolcall-inspector", "toolcall-inspector").clear()  # empty-id absent
    w = MainWindow()
    w.persist_layout = False
    qtbot.addWidget(w)
    w.default_layout()
    w.show()
    return w


def shown(w: MainWindow, path: Path) -> ClientsPane:
    """Open ``path`` and bring the Clients view to the front through View ▸ Clients."""
    assert w.open(str(path))
    act = w.findChild(QAction, "action-clients")
    assert act is not None and act.shortcut().toString() == "Ctrl+L"
    act.trigger()
    assert w.tabs.currentWidget() is w.views.clients
    return w.views.clients


def rows(pane: ClientsPane) -> dict[str, tuple[str, str, str]]:
    """Replica name -> (word cell, name cell, diverges cell), as the table shows them."""
    assert pane.verdict is not None
    t = pane.table
    return {
        r.name: tuple(t.item(row, col).text() for col in (WORD, NAME, DIVERGES))  # type: ignore[misc]
        for row, r in enumerate(pane.verdict.replicas)
    }


def test_the_view_lists_every_replica_in_order(window: MainWindow) -> None:
    assert len(registry.REPLICAS) >= 2, registry.REPLICAS
    pane = shown(window, INDEX_0)
    names = [pane.table.item(row, NAME).text() for row in range(pane.table.rowCount())]
    verdict = pane.verdict
    assert verdict is not None
    assert names == [verdict.shown_name(r.name) for r in registry.REPLICAS]
    unverified = [r.name for r in registry.REPLICAS if r.name not in registry.VERIFIED]
    assert all(f"{n} (unverified)" in names for n in unverified), names


def test_parallel_calls_on_index_0_are_merged_with_the_chunk_and_the_calls_beside(
    window: MainWindow,
) -> None:
    need("openai-python", "litellm", "by-index")
    pane = shown(window, INDEX_0)
    table = rows(pane)
    for name in ("openai-python", "litellm", "by-index"):
        word, _name, where = table[name]
        assert word == "✗ merged", (name, table[name])
        assert where.startswith("chunk "), (name, where)
    status = window.statusBar().currentMessage()
    assert "valid — breaks " in status and "by-index (merged)" in status, status
    pane.select("by-index")
    assert "merged 3 calls into 1" in pane.title.text()
    calls = pane.calls
    marks = [calls.item(r, 0).text() for r in range(calls.rowCount())]
    values = {calls.item(r, 1).text(): calls.item(r, 3).text() for r in range(calls.rowCount())}
    assert marks.count("≠") == 9, marks  # 3 positions x (id, name, arguments): all differ
    assert values["#0 name"] == "get_weatherget_weatherget_weather"
    assert values["#1 id"] == values["#2 arguments"] == "— (no call)"
    assert calls.item(0, 2).background().color().name() in TINT  # colour, and the ≠ above


@pytest.mark.parametrize(
    "path, clients",
    [
        (real_fixture("gpt-4o-two-tools-usage-chunk"), CHAT),  # recorded from OpenAI
        (ANTHROPIC, ("anthropic-sdk",)),
    ],
    ids=["openai", "anthropic"],
)
def test_a_clean_stream_is_agreed_on_by_every_client_that_speaks_it(
    window: MainWindow, path: Path, clients: tuple[str, ...]
) -> None:
    need(*clients)
    pane = shown(window, path)
    table = rows(pane)
    for name in clients:
        assert table[name][0] == "✓ agrees" and table[name][2] == "—", table[name]
    assert all(w in ("✓ agrees", "n/a") for w, _n, _d in table.values()), table
    assert "every client agrees" in window.statusBar().currentMessage()
    assert window.lanes.lanes and all(lane.clients.isHidden() for lane in window.lanes.lanes)


def test_chat_only_clients_say_n_a_on_an_anthropic_stream_never_agree(window: MainWindow) -> None:
    need(*CHAT)
    pane = shown(window, ANTHROPIC)
    table = rows(pane)
    chat_only = [r.name for r in registry.REPLICAS if "anthropic" not in r.dialects]
    assert set(CHAT) - {"vercel-ai"} <= set(chat_only)  # the AI SDK reads Anthropic too
    for name in chat_only:
        word, _shown, where = table[name]
        assert word == "n/a" and "✓" not in word and where == "—", (name, table[name])
    pane.select("by-index")
    assert pane.calls.rowCount() == 1 and "n/a here" in pane.calls.item(0, 1).text()


def test_a_click_on_the_diverging_chunk_selects_it_in_the_lanes_and_the_raw_wire(
    window: MainWindow, qtbot: Any
) -> None:
    need("by-index")
    pane = shown(window, INDEX_0)
    assert pane.verdict is not None
    seq = pane.verdict.results["by-index"].diverges_at
    assert seq is not None and seq > 0
    pane.select("by-index")
    row = pane.table.currentRow()
    cell = pane.table.visualItemRect(pane.table.item(row, DIVERGES)).center()
    qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=cell)
    assert window.raw.table.currentIndex().row() == seq
    selected = [
        lane.model.data(lane.table.currentIndex(), SEQ_ROLE)
        for lane in window.lanes.lanes
        if lane.table.currentIndex().isValid()
    ]
    assert selected == [seq], selected
    window.raw.select_seq(0)  # elsewhere; the button goes back there
    assert pane.show_chunk.isVisible() and pane.show_chunk.text() == f"Show chunk {seq}"
    qtbot.mouseClick(pane.show_chunk, Qt.MouseButton.LeftButton)
    assert window.raw.table.currentIndex().row() == seq


def _chunk(
    index: int, id_: str | None, name: str | None, args: str, finish: str | None = None
) -> bytes:
    call: dict[str, Any] = {"index": index, "function": {"arguments": args}}
    if id_ is not None:
        call |= {"id": id_, "type": "function"}
    if name is not None:
        call["function"]["name"] = name
    body = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    delta = {"tool_calls": [call]} if finish is None else {}
    body["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def test_the_badge_is_on_the_lane_whose_call_a_client_gets_wrong(
    window: MainWindow, tmp_path: Path
) -> None:
    """Call 1 repeats its id in every chunk: openai-python and a loop keyed by index double
    that id, and only that one."""
    need("openai-python", "by-index")
    body = (
        _chunk(0, "call_a", "get_time", "")
        + _chunk(0, None, None, "{}")
        + _chunk(1, "call_b", "get_weather", '{"city":')
        + _chunk(1, "call_b", None, ' "Lima"}')
        + _chunk(1, None, None, "", finish="tool_calls")
        + b"data: [DONE]\n\n"
    )
    path = tmp_path / "id-every-chunk.sse"
    path.write_bytes(body)
    assert window.open(str(path))
    lanes = window.lanes.lanes
    assert len(lanes) == 2
    assert lanes[0].clients.isHidden()
    badge = lanes[1].clients
    assert not badge.isHidden() and badge.text().startswith("✗ ") and "client" in badge.text()
    assert badge.text() == "✗ 2 clients", badge.text()
    for name in ("openai-python", "by-index"):
        assert f"{name}: doubled id" in badge.toolTip(), badge.toolTip()
    window._apply(persist=False, validation="off")  # a re-judge: the badge comes back
    assert not window.lanes.lanes[1].clients.isHidden() and window.lanes.lanes[0].clients.isHidden()


def test_the_replicas_never_run_while_the_stream_arrives(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    follower = window.views.clients_follower
    ran: list[bool] = []  # streaming? at each run
    refreshed: list[bool] = []
    import inspector.ui.clients.follow as follow

    real_verdict, real_refresh = follow.clients_verdict, follower.refresh

    def verdict(*args: Any) -> Any:
        ran.append(window.doc.streaming)
        return real_verdict(*args)

    def refresh() -> None:
        refreshed.append(window.doc.streaming)
        real_refresh()

    monkeypatch.setattr(follow, "clients_verdict", verdict)
    monkeypatch.setattr(follower, "refresh", refresh)
    window.views.show_clients()  # on show: it would be filled if anything ran
    window.open(str(INDEX_0), play=True)
    # Asked while the replay clock runs, whatever the machine's speed: the views ask on
    # their own throttled schedule (a busy machine may reach the end before they do), so the
    # test asks once itself, before the first tick.
    assert window.doc.streaming
    window.doc.replayer.step(2)  # some chunks in, the clock still running
    follower.refresh()
    assert follower.state == "streaming" and not ran
    qtbot.waitUntil(lambda: not window.doc.playing, timeout=WAIT_MS)
    assert True in refreshed, refreshed  # asked while streaming ...
    assert ran and not any(ran), ran  # ... and ran only once it stood still
    assert follower.verdict is not None and window.views.clients.verdict is follower.verdict


def test_a_large_capture_is_judged_by_the_clients_only_when_asked(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("inspector.ui.clients.follow.AUTO_SECONDS", 0.0)  # any cost is too much
    pane = shown(window, INDEX_0)
    assert pane.verdict is None and pane.run.isVisible()
    assert NOT_RUN in window.statusBar().currentMessage()
    qtbot.mouseClick(pane.run, Qt.MouseButton.LeftButton)
    follower = window.views.clients_follower
    assert follower.state == "running" and RUNNING in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: follower.state == "judged", timeout=WAIT_MS)
    assert pane.verdict is follower.verdict is not None
    status = window.statusBar().currentMessage()
    assert NOT_RUN not in status and RUNNING not in status and "valid — " in status


def test_a_mid_size_session_is_judged_one_replica_per_tick(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each replica alone fits the budget, all of them do not: the window keeps answering
    between runs, and the status says how far they got."""
    need(*CHAT)
    monkeypatch.setattr("inspector.core.clients.cost.SECONDS_PER_EVENT", 1.0)  # 1 s an event
    monkeypatch.setattr("inspector.ui.clients.follow.AUTO_SECONDS", 10.0)  # the sample has 7
    follower = window.views.clients_follower
    seen: list[str] = []
    window.statusBar().messageChanged.connect(seen.append)
    pane = shown(window, INDEX_0)
    assert follower.state == "running" and pane.verdict is None
    assert f"{RUNNING} (0 of {len(CHAT)})" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: follower.state == "judged", timeout=WAIT_MS)
    assert pane.verdict is follower.verdict is not None
    assert pane.verdict.words["by-index"] == "merged"
    steps = {m.split(RUNNING)[1].split(")")[0] for m in seen if RUNNING in m}
    assert {f" (1 of {len(CHAT)}", f" ({len(CHAT) - 1} of {len(CHAT)}"} <= steps, steps


def test_closing_the_window_mid_run_stops_the_replicas(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A window closed while the replicas run tick by tick leaves no timer behind."""
    need(*CHAT)
    monkeypatch.setattr("inspector.core.clients.cost.SECONDS_PER_EVENT", 1.0)
    monkeypatch.setattr("inspector.ui.clients.follow.AUTO_SECONDS", 10.0)
    follower = window.views.clients_follower
    shown(window, INDEX_0)
    assert follower.state == "running" and follower._tick.isActive()
    window.close()
    assert not follower._tick.isActive() and follower.state == "none"


def test_the_empty_id_toggle_names_the_replica_literal_reproduces(window: MainWindow) -> None:
    need(LITERAL_MATCHES)
    box = window.bar.empty_id
    literal = box.findData("literal")
    assert LITERAL_MATCHES in box.itemText(literal)
    assert LITERAL_MATCHES in str(box.itemData(literal, Qt.ItemDataRole.ToolTipRole))
    pane = shown(window, GLM)
    assert pane.verdict is not None and pane.verdict.words[LITERAL_MATCHES] in CLIENT_BREAKS
    window._apply(persist=False, empty_id="literal")  # the lanes now read as by-id does
    # the clients are still compared with the conforming reading: by-id still breaks, and
    # no client that gets the right calls is said to break
    assert pane.verdict is not None and pane.verdict.words[LITERAL_MATCHES] in CLIENT_BREAKS
    assert pane.verdict.broken == [LITERAL_MATCHES]
    assert f"empty-id literal (as {LITERAL_MATCHES})" in window.statusBar().currentMessage()


def test_open_view_names_every_pane_under_the_lanes(monkeypatch: pytest.MonkeyPatch) -> None:
    """``open --view clients --screenshot X`` (make screenshots) reaches the window."""
    from inspector import cli
    from inspector.ui.views.views import TABS

    asked: list[object] = []
    monkeypatch.setattr(
        "inspector.ui.shell.app.run", lambda *_a, **kw: asked.append(kw["view"]) or 0
    )
    for name in TABS:
        assert cli.main(["open", str(INDEX_0), "--view", name, "--screenshot", "x.png"]) == 0
    assert asked == list(TABS) and "clients" in TABS


def test_show_tab_brings_the_clients_view_to_the_front(window: MainWindow) -> None:
    window.views.show_tab("raw")
    assert window.tabs.currentWidget() is window.raw
    window.views.show_tab("clients")
    assert window.tabs.currentWidget() is window.views.clients


def test_a_chunk_of_another_attempt_shows_that_attempt_first(window: MainWindow) -> None:
    """The verdict may describe an earlier attempt than the one on show (the first a client
    disagrees on): the jump shows that attempt's lanes and selects it in the attempts tree."""
    assert window.open(str(RETRY))
    a = window.doc.analysis
    assert a is not None and len(a.attempts) == 2 and window.doc.view is a.attempts[1]
    seq = a.attempts[0].verdicts[0].call.fragments[-1].seq
    window.views.clients_follower.jump(1, seq)
    assert window.doc.view is a.attempts[0]
    assert window.lanes.bound_to is a.attempts[0]
    assert window.raw.table.currentIndex().row() == seq
    assert window.attempts.currentItem().data(0, Qt.ItemDataRole.UserRole)[0] == 1


def test_a_plain_session_is_judged_unasked_where_its_replays_would_be_too_long(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window's estimate counts a plain stream's clients as judged from its reading: at
    1 s an event its replays would take minutes, yet it is judged at once, unasked."""
    need("openai-python", "vercel-ai")
    monkeypatch.setattr("inspector.core.clients.cost.SECONDS_PER_EVENT", 1.0)  # 1 s an event
    follower = window.views.clients_follower
    pane = shown(window, real_fixture("responses-gpt-5-1-function-call"))
    assert follower.state == "judged" and pane.verdict is follower.verdict is not None
    assert not pane.run.isVisible()
    assert NOT_RUN not in window.statusBar().currentMessage()
