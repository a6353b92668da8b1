"""What one turn of the event loop may hold while a large file loads (pytest-qt, offscreen),
checked by counting work, never by timing it: each tick of the loader does one thing (a slice
of reading and feeding, a view flush, or a piece of whole-stream work ahead of the views),
lanes are built a few per flush, a lane's buffer never joins a whole call, the views' rebind
at the end finds the verdicts and quirks worked out, and the client replicas never run while
the file loads."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from inspector.core.analysis import attempt
from inspector.core.replay import loading
from inspector.core.replay.sources import LoadingSource
from inspector.ui.clients import follow as clientsfollow
from inspector.ui.document import document
from inspector.ui.lanes.parts import BUFFER_TAIL, TailBuffer, tail_of
from inspector.ui.loading import progressive
from inspector.ui.loading.progressive import ProgressiveOpen
from inspector.ui.shell.mainwindow import MainWindow
from inspector.ui.views import views

CALLS = 6
PIECES = 40


def _chunk(index: int, args: str, head: bool = False, finish: str | None = None) -> bytes:
    call: dict[str, Any] = {"index": index, "function": {"arguments": args}}
    if head:
        call |= {"id": f"call_{index}", "type": "function"}
        call["function"]["name"] = f"tool_{index}"
    delta = {"tool_calls": [call]} if finish is None else {}
    body = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    body["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
    return b"data: " + json.dumps(body).encode() + b"\n\n"


@pytest.fixture
def body(tmp_path: Path) -> Path:
    """A raw body of CALLS parallel calls, each PIECES fragments long, streamed in turn."""
    chunks = []
    for i in range(CALLS):
        chunks.append(_chunk(i, '{"text": "', head=True))
        chunks += [_chunk(i, f"piece {n} of call {i}, ") for n in range(PIECES)]
        chunks.append(_chunk(i, '"}'))
    chunks += [_chunk(0, "", finish="tool_calls"), b"data: [DONE]\n\n"]
    path = tmp_path / "many-calls.sse"
    path.write_bytes(b"".join(chunks))
    return path


@pytest.fixture
def ticks(monkeypatch: pytest.MonkeyPatch) -> dict[int, list[str]]:
    """What each tick of the loader did, by tick number (patched before the window exists:
    the timer connects to the method when the window is made)."""
    done: dict[int, list[str]] = defaultdict(list)
    count = [0]

    def tick(self: ProgressiveOpen) -> None:
        count[0] += 1
        real_slice(self)

    def record(kind: str, real: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            done[count[0]].append(kind)
            return real(*args, **kwargs)

        return wrapper

    real_slice = ProgressiveOpen._slice
    monkeypatch.setattr(ProgressiveOpen, "_slice", tick)
    monkeypatch.setattr(LoadingSource, "step", record("step", LoadingSource.step))
    monkeypatch.setattr(
        views.DocumentViews, "on_flush", record("flush", views.DocumentViews.on_flush)
    )
    monkeypatch.setattr(attempt, "detect", record("quirks", attempt.detect))
    monkeypatch.setattr(
        views.DocumentViews, "on_rejudged", record("rebind", views.DocumentViews.on_rejudged)
    )
    return done


@pytest.fixture
def window(qtbot: Any, monkeypatch: pytest.MonkeyPatch, ticks: Any) -> MainWindow:
    return progressive_window(qtbot, monkeypatch)


def progressive_window(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch, width: int = 1400
) -> MainWindow:
    """A shown window in which every file opens progressively, one read or feed a slice, a
    flush whenever one may come and the views' heavy jobs unthrottled (the load-turn tests')."""
    monkeypatch.setattr(document, "PROGRESSIVE_BYTES", 0)
    monkeypatch.setattr(progressive, "LOAD_SLICE", 0.0)
    monkeypatch.setattr(progressive, "LOAD_FLUSH", 0.0)
    monkeypatch.setattr(loading, "STEPS_PER_FEED", 8)
    monkeypatch.setattr(loading, "SPLIT_BYTES", 4096)
    monkeypatch.setattr(views, "HEAVY_PERIOD", dict.fromkeys(views.HEAVY_PERIOD, 0.0))
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(width, 900)
    w.show()
    return w


def test_each_tick_does_one_thing_and_the_end_rebinds_from_what_was_worked_out(
    window: MainWindow, qtbot: Any, body: Path, ticks: dict[int, list[str]]
) -> None:
    assert window.open(str(body))
    qtbot.waitUntil(lambda: not window.doc.loading, timeout=20_000)
    kinds = {k: set(v) for k, v in ticks.items()}
    steps = [k for k, v in kinds.items() if "step" in v]
    flushes = [k for k, v in kinds.items() if "flush" in v]
    assert len(steps) > 10 and len(flushes) > 10, (len(steps), len(flushes))
    assert not set(steps) & set(flushes)  # never a slice of core work and a flush at once
    (end,) = [k for k, v in kinds.items() if "rebind" in v and k > 0]  # (0: the load's own,
    # before the first tick) the replay goes on show ...
    assert kinds[end] == {"rebind"}, kinds[end]  # ... alone in its tick, and finds the
    # quirks worked out: they were, in a tick of their own, after the last slice
    (quirks,) = [k for k, v in kinds.items() if "quirks" in v and k > steps[-1]]
    assert steps[-1] < quirks < end and kinds[quirks] == {"quirks"}
    assert len(window.lanes.lanes) == CALLS
    assert window.doc.replayer is not None and window.doc.replayer.at_end


def test_lanes_are_built_a_few_per_flush_while_the_file_loads(
    window: MainWindow, qtbot: Any, body: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[int] = []
    real = views.DocumentViews.on_flush

    def on_flush(self: views.DocumentViews) -> None:
        before = len(self.lanes.lanes)
        real(self)
        built.append(len(self.lanes.lanes) - before)

    monkeypatch.setattr(views.DocumentViews, "on_flush", on_flush)
    window.views.doc.flushed.disconnect()
    window.views.doc.flushed.connect(window.views.on_flush)
    assert window.open(str(body))
    qtbot.waitUntil(lambda: not window.doc.loading, timeout=20_000)
    assert sum(built) >= 3, built  # lanes came while the file loaded ...
    assert max(built) <= views.LANES_PER_FLUSH, built  # ... a few at a time
    assert len(window.lanes.lanes) == CALLS


def test_the_client_replicas_never_run_while_a_file_loads(
    window: MainWindow, qtbot: Any, body: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(clientsfollow, "AUTO_SECONDS", 1e9)  # any cost is fine: run at once
    ran: list[bool] = []  # loading? at each run
    real = clientsfollow.clients_verdict

    def verdict(*args: Any) -> Any:
        ran.append(window.doc.loading)
        return real(*args)

    monkeypatch.setattr(clientsfollow, "clients_verdict", verdict)
    window.views.show_clients()  # on show: it would be filled if anything ran
    assert window.open(str(body))
    follower = window.views.clients_follower
    qtbot.waitUntil(lambda: window.doc.loading and follower.state == "streaming", timeout=20_000)
    qtbot.waitUntil(lambda: not window.doc.loading, timeout=20_000)
    assert ran and not any(ran), ran  # ran, once the whole file was in
    assert window.views.clients_follower.state == "judged"


class _LongCall:
    """A call as a lane buffer reads it; its whole text must never be asked for."""

    def __init__(self, parts: list[str]) -> None:
        self.parts, self.length = parts, sum(map(len, parts))

    @property
    def arguments(self) -> str:
        raise AssertionError("the buffer joined the whole call")


def test_a_lane_buffer_shows_the_tail_from_the_last_pieces_only(qtbot: Any) -> None:
    parts = [f"<{i:04d}>" for i in range(1000)]  # 6 characters each
    whole = "".join(parts)
    assert tail_of(parts, 100) == whole[-100:]
    assert tail_of(parts, 6000) == whole and tail_of(parts, 9000) == whole
    assert tail_of([], 10) == "" and tail_of(["abc"], 2) == "bc"
    buffer = TailBuffer()
    qtbot.addWidget(buffer)
    call: Any = _LongCall(parts)
    buffer.show_call(call)
    assert buffer.toPlainText() == whole[-BUFFER_TAIL:]
    assert buffer.start == len(whole) - BUFFER_TAIL and buffer.shown == len(whole)
    parts += ["<more>"] * 1000  # far more than the tail arrived: shown afresh, from the pieces
    call.length += 6000
    buffer.follow(call, streaming=True)  # ... but not while out of sight and streaming
    assert buffer.toPlainText() == whole[-BUFFER_TAIL:]
    buffer.follow(call)  # the stream stands still: it catches up
    assert buffer.toPlainText() == "".join(parts)[-BUFFER_TAIL:]
    parts += ["<last>"] * 1000
    call.length += 6000
    buffer.show()
    qtbot.waitExposed(buffer)
    buffer.follow(call, streaming=True)  # in sight: shown afresh while streaming too
    assert buffer.toPlainText() == "".join(parts)[-BUFFER_TAIL:]


def test_a_long_streams_timeline_row_does_not_grow_with_the_stream() -> None:
    from inspector.core.analysis.session import Analysis
    from inspector.core.base.settings import Settings
    from inspector.core.providers import REGISTRY
    from inspector.ui.timeline.timeline import STREAM_TICKS, bands

    a = Analysis(Settings(), providers=REGISTRY)
    n = 3 * STREAM_TICKS + 5
    for i in range(n):
        a.feed(b": keep-alive\n\n", i / 1000)
    (band,) = bands(a)
    ticks = [b.t0 for b in band.bars if b.row == 0]
    assert STREAM_TICKS // 2 < len(ticks) <= STREAM_TICKS + 1
    assert ticks[0] == 0.0 and ticks[-1] == (n - 1) / 1000 and ticks == sorted(ticks)


def test_the_turn_panes_text_appends_what_arrived_and_shows_another_list_afresh(
    qtbot: Any,
) -> None:
    from inspector.ui.panes.panes import PiecesText

    pane = PiecesText()
    qtbot.addWidget(pane)
    text = ["Hello", ", "]
    pane.follow(text)
    assert pane.toPlainText() == "Hello, "
    text.append("world")
    pane.setPlainText("(stale)")  # only what arrived is appended: the rest is not rewritten
    pane.follow(text)
    assert pane.toPlainText() == "(stale)world"
    pane.follow(["another ", "attempt"])
    assert pane.toPlainText() == "another attempt"
    pane.follow(None)
    assert pane.toPlainText() == ""


def test_thousands_of_calls_get_a_page_of_lanes_and_the_others_are_reached(
    qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspector.ui.lanes import lanes as lanes_module

    monkeypatch.setattr(lanes_module, "MAX_LANES", 4)
    chunks = [_chunk(i, f'{{"n": {i}}}', head=True) for i in range(10)]
    path = tmp_path / "ten-calls.sse"
    path.write_bytes(b"".join([*chunks, _chunk(0, "", finish="tool_calls"), b"data: [DONE]\n\n"]))
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    assert w.open(str(path))
    lanes = w.lanes
    assert [lane.call.slot for lane in lanes.lanes if lane.call] == [0, 1, 2, 3]
    hint = lanes.hint.text()
    assert lanes.hint.isVisible() and hint.startswith("lanes 1–4 of 10") and hint.endswith("→")
    w.views.show_call(9)  # the Attempts tree picks a call past the lanes: they page to it
    assert [lane.call.slot for lane in lanes.lanes if lane.call] == [8, 9]
    assert lanes.hint.text() == "lanes 9–10 of 10 ↺"  # a click goes back to the first
    lanes.hint.click()
    assert [lane.call.slot for lane in lanes.lanes if lane.call] == [0, 1, 2, 3]
    for _ in range(8):  # the hint scrolls to the lanes out of sight, then to the next page
        lanes.scroll_to_next()
        qtbot.wait(20)  # the scroll and the layout happen
        if lanes.first:
            break
    assert [lane.call.slot for lane in lanes.lanes if lane.call] == [4, 5, 6, 7]
    w.views.show_call(9)
    seq = w.doc.view.state.calls[5].fragments[0].seq
    w.views.select(seq)  # an event of a call past the lanes: its lane comes, selected
    lane = next(lane for lane in lanes.lanes if lane.call and lane.call.slot == 5)
    assert lane.table.currentIndex().row() == 0
    assert [lane.call.slot for lane in lanes.lanes if lane.call] == [4, 5, 6, 7]
    tree = w.attempts
    assert tree.topLevelItem(0).childCount() == 10  # the tree lists every call (up to 200)
