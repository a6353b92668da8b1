"""The Clients view shows a client that hands calls over AND reports an error, both, in the
order the client emitted them (inspector/ui/clients/clients.py over
core/reports/clientdiff.py): the real window, the real vercel-ai replica, a recorded demo
stream whose keep-alive sits inside ``data:`` (the AI SDK's error part comes first, the call
is still handed over at the end)."""

from __future__ import annotations

from typing import Any

from clients.streams import CORPUS
from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction

from inspector.ui.clients.clients import NAME, WORD, ClientsPane
from inspector.ui.shell.mainwindow import MainWindow

KEEPALIVES = CORPUS / "openai-chat" / "demo-keepalives.jsonl"


def test_a_client_with_calls_and_an_error_shows_both_in_order(qtbot: Any) -> None:
    QSettings("toolcall-inspector", "toolcall-inspector").clear()
    w = MainWindow()
    w.persist_layout = False
    qtbot.addWidget(w)
    w.default_layout()
    w.show()
    assert w.open(str(KEEPALIVES))
    act = w.findChild(QAction, "action-clients")
    assert act is not None
    act.trigger()
    pane: ClientsPane = w.views.clients
    qtbot.waitUntil(lambda: pane.verdict is not None, timeout=20000)
    assert pane.verdict is not None
    names = [r.name for r in pane.verdict.replicas]
    row = names.index("vercel-ai")
    assert pane.table.item(row, NAME).text() == "vercel-ai"
    assert "raised with calls" in pane.table.item(row, WORD).text()
    assert pane.verdict.spoken("vercel-ai") == "raised before 2 calls"
    assert "vercel-ai (raised before 2 calls)" in pane.verdict.phrase()
    pane.select("vercel-ai")
    labels = [pane.calls.item(r, 1).text() for r in range(pane.calls.rowCount())]
    assert labels[:4] == ["raised", "#0 id", "#0 name", "#0 arguments"], labels
    assert pane.calls.item(0, 3).text().startswith("JSONParseError: JSON parsing failed")
    assert pane.calls.item(3, 3).text() == '{"city":"Paris"}'
    assert "raised before 2 calls: JSONParseError" in pane.title.text()
