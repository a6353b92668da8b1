"""The Matrix view (Live ▸ Matrix…), real widgets on the app's one loop: a small real matrix at
demo chunk delay 0 fills the grid live (coalesced, on the view's clock), a click opens a
cell's capture in the main window's lanes, Cancel keeps finished cells, reruns (cell, row,
failed) refill only their cells, a saved folder opens again, two matrices compare, the three
exports are written, and the spec builder's buttons work."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from inspector.core.matrix.cells import CellRun, ErrorInfo
from inspector.core.matrix.result import load_result
from inspector.net.matrix.default import default_spec
from inspector.ui.matrix.matrix import BUTTONS, MatrixWindow
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import until

MODELS = ["demo-clean", "demo-parallel-index-0", "fault-500"]
SCENARIOS = ["weather", "parallel"]


@pytest.fixture
def window(
    qtbot: Any, qloop: qasync.QEventLoop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MainWindow]:
    monkeypatch.setattr("inspector.ui.live.live.captures_dir", lambda: tmp_path / "captures")
    QSettings("toolcall-inspector", "toolcall-inspector").clear()
    w = MainWindow()
    w.persist_layout = False
    qtbot.addWidget(w)
    w.show()
    yield w
    w.doc.pause()
    qloop.run_until_complete(w.aclose())


def _matrix(w: MainWindow) -> MatrixWindow:
    w.findChild(type(w.menuBar().actions()[0]), "action-matrix").trigger()
    m = w.matrix
    assert m is not None and m.isVisible()
    m.runs.demo_chunk_delay = 0
    m.use_spec(default_spec(MODELS, SCENARIOS))
    return m


def _texts(m: MatrixWindow) -> list[list[str]]:
    g = m.grid
    return [
        [g.item(r, c).text() if g.item(r, c) else "" for c in range(g.columnCount())]
        for r in range(g.rowCount())
    ]


def _every_word_fits_and_the_key_explains_it(m: MatrixWindow) -> None:
    """No cell or header is cut ("cut ar…"): each line of its text fits its column in the
    grid's font; the key under the grid shows every cell word."""
    g, metrics = m.grid, m.grid.fontMetrics()
    for c in range(g.columnCount()):
        if g.isColumnHidden(c):  # a client column n/a on every row (test_matrix_view_audience)
            continue
        room = g.columnWidth(c) - 8  # the item's own margins
        head = g.horizontalHeaderItem(c)
        lines = head.text().split("\n") if head is not None else []
        for r in range(g.rowCount()):
            lines += g.item(r, c).text().split("\n")
        for line in lines:
            assert metrics.horizontalAdvance(line) <= room, (c, line, room)
    assert m.legend.isVisible()
    for word in ("✔ pass", "◐ quirk", "✗ breaks clients", "≠ wrong calls", "✖ error", "✓ agrees"):
        assert word in m.legend.text(), word


def test_a_real_matrix_fills_live_and_a_click_opens_its_capture(
    window: MainWindow, qloop: qasync.QEventLoop, qtbot: Any
) -> None:
    m = _matrix(window)
    assert m.grid.rowCount() == 3 and m.grid.columnCount() == 2 + 8  # + the client group
    assert all(t.startswith("… pending") for t in _texts(m)[0][:2])
    flushes: list[int] = []
    real_flush = m.grid.flush
    m.grid.flush = lambda: flushes.append(real_flush()) or flushes[-1]  # type: ignore[method-assign]
    showed: list[object] = []
    real_show = m.grid.show_result
    m.grid.show_result = lambda r: showed.append(r) or real_show(r)  # type: ignore[method-assign]
    qtbot.mouseClick(m.buttons["run"], Qt.MouseButton.LeftButton)
    assert m.runs.running and not m.buttons["run"].isEnabled() and m.buttons["cancel"].isEnabled()
    assert m.runs.runner is not None and m.grid.result is m.runs.runner.result
    assert showed == []  # the empty grid laid out alike was adopted, not refilled
    qloop.run_until_complete(m.runs.wait())
    assert m.result is not None and not m.grid.adopt(m.result)  # it has runs: refilled
    texts = _texts(m)
    assert m.result is not None and m.result.scenarios == ["parallel", "weather"]
    assert texts[0][1].startswith("✔ pass\n1/1"), texts[0]  # demo-clean x weather
    assert texts[0][0].startswith("✔ pass\n1/1"), texts[0]  # the calls parallel asks for
    assert "run 1: pass" in m.grid.item(0, 0).toolTip(), m.grid.item(0, 0).toolTip()
    assert texts[2][0].startswith("✖ error\n0/1"), texts[2]  # fault-500: its error class
    assert "ProviderHTTPError" in m.grid.item(2, 0).toolTip(), m.grid.item(2, 0).toolTip()
    assert texts[0][2] == "✓ 2/2\nagrees", texts[0]  # openai-python over demo-clean
    assert sum(flushes) >= 6 and len([f for f in flushes if f]) < 6 * 2 + 2  # coalesced
    _every_word_fits_and_the_key_explains_it(m)
    assert m.progress.value() == m.progress.maximum() == 6
    folder = m.folder
    assert folder is not None
    for name in ("matrix.json", "matrix.md", "matrix.html"):
        assert (folder / name).is_file(), name
    assert "Matrix finished" in m.status.text()
    rect = m.grid.visualItemRect(m.grid.item(0, 1))
    qtbot.mouseClick(m.grid.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.doc.path is not None and window.doc.path.startswith(str(folder / "captures"))
    assert window.doc.analysis is not None and window.doc.analysis.attempts

    # a client column: the row's first run that client got wrong, in the Clients view
    litellm = 2 + m.result.replicas.index("litellm")
    assert m.grid.item(1, litellm).text().startswith("✗"), m.grid.item(1, litellm).text()
    rect = m.grid.visualItemRect(m.grid.item(1, litellm))  # demo-parallel-index-0: merged
    qtbot.mouseClick(m.grid.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert "demo-parallel-index-0" in (window.doc.path or "")
    assert window.views.tabs.currentWidget() is window.views.clients

    # rerun: the failed cells only (fault-500's), then a row and a cell; others untouched
    kept = load_result(folder).cell("demo-clean", "weather").runs[0].capture
    whole = m.result.duration
    qtbot.mouseClick(m.buttons["rerun_failed"], Qt.MouseButton.LeftButton)
    assert m.grid.item(2, 0).text().startswith("… pending"), (
        m.status.text(),
        m.buttons["rerun_failed"].isEnabled(),
    )
    qloop.run_until_complete(m.runs.wait())
    assert m.grid.item(2, 0).text().startswith("✖ error")
    assert m.result is not None and m.result.cell("demo-clean", "weather").runs[0].capture == kept
    m.grid.setCurrentCell(1, 1)
    for name in ("rerun_cell", "rerun_row"):
        qtbot.mouseClick(m.buttons[name], Qt.MouseButton.LeftButton)
        assert m.runs.running, name
        qloop.run_until_complete(m.runs.wait())
    assert not _texts(m)[1][1].startswith("…")
    # the export after reruns says the matrix's whole running time, not the last rerun's
    assert m.result.duration > whole
    assert m.export_to(str(folder / "export"))
    md = (folder / "export" / "matrix.md").read_text(encoding="utf-8")
    assert f"took {m.result.duration:.1f} s" in md, md.splitlines()[2]

    # a saved folder opens again, through the main window's open path
    other = MainWindow()
    qtbot.addWidget(other)
    assert other.open(str(folder))
    assert other.matrix is not None and _texts(other.matrix)[0][0] == texts[0][0]
    other.close()


def test_cancel_keeps_finished_cells_and_compare_marks_changes(
    window: MainWindow, qloop: qasync.QEventLoop, qtbot: Any, tmp_path: Path
) -> None:
    m = _matrix(window)
    spec = m.spec  # slow enough to cancel mid-way (the request's header decides the pace)
    slow = [
        replace(t, profile=replace(t.profile, headers={**t.profile.headers,
                                                       "x-demo-chunk-delay": "0.05"}))
        for t in spec.targets
    ]  # fmt: skip
    m.use_spec(replace(spec, targets=tuple(slow)))

    async def cancel_after_first() -> None:
        await until(lambda: m.result is not None and any(c.runs for c in m.result))
        # a flush later, the cells whose sessions started say so (or every cell has ended)
        await until(
            lambda: (
                any("▶ running" in row for t in _texts(m) for row in t)
                or all(c.runs for c in m.result)
            )  # type: ignore[union-attr]
        )
        qtbot.mouseClick(m.buttons["cancel"], Qt.MouseButton.LeftButton)
        await m.runs.wait()

    qtbot.mouseClick(m.buttons["run"], Qt.MouseButton.LeftButton)
    qloop.run_until_complete(cancel_after_first())
    assert m.result is not None
    words = [c.word for c in m.result]
    assert any(w != "pending" for w in words), words  # finished cells kept
    assert not any("running" in text for row in _texts(m) for text in row)  # pending again
    assert "cancelled" in m.status.text()
    assert m.buttons["run"].isEnabled() and not m.buttons["cancel"].isEnabled()
    saved = load_result(m.folder)  # type: ignore[arg-type]
    assert [c.word for c in saved] == words

    # compare: the saved matrix before, one finished cell changed after
    before = m.folder
    cell = next(c for c in m.result if c.runs)
    worse = cell.word != "error"
    run = CellRun(1, "error", None, error=ErrorInfo("ReadTimeout", "no byte"))
    cell.runs = [run if worse else CellRun(1, "pass", None)]
    m.grid.show_result(m.result)
    assert m.compare_with(str(before))
    r = [x.name for x in m.result.rows].index(cell.target)
    c = m.result.scenarios.index(cell.scenario)
    assert ("▼ worse" if worse else "▲ better") in m.grid.item(r, c).text()
    assert m.grid.item(r, c).font().bold()
    assert "changed" in m.status.text()
    qtbot.mouseClick(m.buttons["clear_comparison"], Qt.MouseButton.LeftButton)
    assert "▼" not in m.grid.item(r, c).text() and "▲" not in m.grid.item(r, c).text()
    out = tmp_path / "exported"
    assert m.export_to(str(out))
    assert {p.name for p in out.iterdir()} >= {"matrix.json", "matrix.md", "matrix.html"}
    assert not m.compare_with(str(tmp_path / "nowhere"))
    assert "cannot read" in m.status.text()


def test_every_button_and_the_spec_builder(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    spec_file = tmp_path / "spec.json"
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: ""))
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(spec_file), ""))
    )
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(spec_file), ""))
    )
    m = _matrix(window)
    for _text, name, _tip in BUTTONS:  # with nothing run: no exception, a line says why
        if m.buttons[name].isEnabled() and name not in ("run", "edit_spec"):
            qtbot.mouseClick(m.buttons[name], Qt.MouseButton.LeftButton)
    assert not m.runs.running
    qtbot.mouseClick(m.buttons["edit_spec"], Qt.MouseButton.LeftButton)
    d = m.spec_dialog
    assert d is not None and d.isVisible()
    assert d.targets_box.count() > len(MODELS)  # the defaults offered beside the spec's own
    d.runs.setValue(2)
    d.validation.setCurrentText("strict")
    qtbot.mouseClick(d.save_button, Qt.MouseButton.LeftButton)
    assert '"runs": 2' in spec_file.read_text()
    ticks = d.tick_buttons
    for which, box in (("targets", d.targets_box), ("scenarios", d.scenarios_box)):
        qtbot.mouseClick(ticks[f"{which}-all"], Qt.MouseButton.LeftButton)
        states = {box.item(i).checkState() for i in range(box.count())}
        assert states == {Qt.CheckState.Checked}, which
        qtbot.mouseClick(ticks[f"{which}-none"], Qt.MouseButton.LeftButton)
        states = {box.item(i).checkState() for i in range(box.count())}
        assert states == {Qt.CheckState.Unchecked}, which
    qtbot.mouseClick(ticks["scenarios-all"], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(d.use_button, Qt.MouseButton.LeftButton)  # nothing ticked: Use says why
    assert "Tick at least one" in d.error.text() and d.isVisible()
    qtbot.mouseClick(d.load_button, Qt.MouseButton.LeftButton)  # the saved spec comes back
    qtbot.mouseClick(d.use_button, Qt.MouseButton.LeftButton)
    assert not d.isVisible()
    assert m.spec.runs == 2 and m.spec.validation == "strict"
    assert [t.name for t in m.spec.targets] == MODELS
    assert "3 targets × 2 scenarios × 2 run(s)" in m.status.text()
    qtbot.mouseClick(m.buttons["edit_spec"], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(m.spec_dialog.cancel_button, Qt.MouseButton.LeftButton)  # type: ignore[union-attr]
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "matrix.json").write_text('{"format_version": 7}')
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(lambda *a: said.append(a[-1])))
    m.close()
    assert not window.open(str(bad)) and "format_version" in said[0]  # one line, said
    assert not m.isVisible()
    spec_file.write_text("{}")
    qtbot.mouseClick(m.buttons["edit_spec"], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(m.spec_dialog.load_button, Qt.MouseButton.LeftButton)  # type: ignore[union-attr]
    assert "targets" in m.spec_dialog.error.text()  # type: ignore[union-attr]
