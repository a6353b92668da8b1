"""The thin Qt models: Qt's own model tester on each, and row-range inserts per flush."""

from __future__ import annotations

from typing import Any

from conftest import real_fixture
from PySide6.QtCore import Qt

from inspector.core.analysis.session import Analysis
from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY
from inspector.core.replay.replayer import Replayer
from inspector.core.reports.report import findings
from inspector.ui.base.models import SEQ_ROLE, EventsModel, FindingsModel, FragmentsModel


def _analysis(name: str) -> Analysis:
    return Analysis.from_capture(load(real_fixture(name)), providers=REGISTRY)


def test_events_model_passes_qt_model_tester(qtmodeltester: Any) -> None:
    model = EventsModel()
    model.set_events(_analysis("anthropic-tool-no-args").final.state.events)
    assert model.rowCount() > 10
    qtmodeltester.check(model, force_py=True)


def test_fragments_model_passes_qt_model_tester(qtmodeltester: Any) -> None:
    view = _analysis("qwen3-max-empty-id-continuations").final
    model = FragmentsModel()
    model.set_call(view.state.calls[0], view.state.events)
    assert model.rowCount() == 4
    qtmodeltester.check(model, force_py=True)


def test_findings_model_passes_qt_model_tester(qtmodeltester: Any) -> None:
    analysis = _analysis("qwen3-max-empty-id-continuations")
    model = FindingsModel()
    model.set_findings(findings(analysis))
    assert model.rowCount() == 3
    qtmodeltester.check(model, force_py=True)


def test_sync_inserts_one_row_range_per_flush(qtbot: Any) -> None:
    """Feeding many chunks between flushes announces them as ONE rowsInserted range."""
    replayer = Replayer(load(real_fixture("deepseek-reasoner-token-args")))
    model = EventsModel()
    inserted: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _p, first, last: inserted.append((first, last)))
    replayer.step(1)
    model.set_events(replayer.analysis.attempts[-1].state.events)
    replayer.step(20)  # twenty chunks arrive between two flushes
    model.sync()
    replayer.step(5)
    model.sync()
    model.sync()  # nothing new: no signal
    assert inserted == [(1, 20), (21, 25)]


def test_fragment_rows_show_identity_as_received(qtbot: Any) -> None:
    view = _analysis("glm-5-2-empty-name-continuation").final
    model = FragmentsModel()
    model.set_call(view.state.calls[0], view.state.events)
    cell = lambda r, c: model.data(model.index(r, c))  # noqa: E731
    assert cell(0, 2) == "chatcmpl-tool-9f149c74c42f265b" and cell(0, 3) == "webSearchTool"
    assert cell(1, 2) == "(omitted)" and cell(1, 3) == '""'
    assert model.data(model.index(1, 0), SEQ_ROLE) == 1
    assert model.data(model.index(1, 3), Qt.ItemDataRole.ForegroundRole) is not None
    assert cell(1, 6) == "complete"
