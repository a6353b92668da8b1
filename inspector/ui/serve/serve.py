"""File ▸ Serve this capture…: the capture on show answered as a provider on loopback, its
base URL shown with Copy (as the proxy's is), each request answered listed, and Stop.

Invariants:
- One server at a time: serving again stops the last one first. The controller runs the
  server on the window's loop (:class:`~inspector.net.serve.server.CaptureServer`); the panel
  only calls the controller.
- Stop (the panel's button, closing the panel, closing the window) closes the listener and
  every connection; :meth:`ServeController.aclose` awaits it, so nothing (socket, task) is
  left behind, and no timer is ever started (the panel is told of each request by a signal).
- A capture that cannot be served (nothing on show, no attempt) is one information line.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
)

from inspector.net.serve.plan import Reply
from inspector.net.serve.server import CaptureServer, Served
from inspector.ui.base.dialogs import headless_instead
from inspector.ui.document.host import Host
from inspector.ui.document.onshow import capture_on_show

TITLE = "Serve this capture"


class ServeController(QObject):
    """Runs at most one :class:`CaptureServer` for the window."""

    started = Signal(str)
    """The base URL, once listening."""
    served = Signal(str)
    """One line per request answered."""
    stopped = Signal(str)
    """Why it stopped (a failure's message, or "stopped")."""

    def __init__(self, host: Host) -> None:
        super().__init__(host.window())
        self.host = host
        self.server: CaptureServer | None = None
        self.panel: ServePanel | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def url(self) -> str:
        return self.server.url if self.server is not None else ""

    def serve(self) -> bool:
        """File ▸ Serve this capture…: serve what is on show and show the panel."""
        capture = capture_on_show(self.host)
        if capture is None or not capture.attempts:
            text = "Nothing to serve: open a capture (or a HAR session, or a raw body) first."
            if not headless_instead(f"{TITLE}: {text}"):
                QMessageBox.information(self.host.window(), TITLE, text)
            return False
        self.stop()
        server = CaptureServer(capture, speed=1.0)
        server.on_served = lambda s, r: self.served.emit(served_line(s, r))
        self.server = server
        if self.panel is None:
            self.panel = ServePanel(self)
        self.panel.begin(capture.path or self.host.doc.path or "the capture", len(capture.attempts))
        self._spawn(self._listen(server))
        return True

    async def _listen(self, server: CaptureServer) -> None:
        try:
            url = await server.start()
        except OSError as exc:
            self.server = None
            self.stopped.emit(f"Cannot listen: {exc.strerror or exc}")
            return
        self.host.statusBar().showMessage(f"Serving the capture on {url}", 10_000)
        self.started.emit(url)

    def stop(self) -> None:
        """Stop serving (idempotent); :meth:`aclose` awaits the server's end."""
        server, self.server = self.server, None
        if server is not None:
            self._spawn(server.stop())
            self.stopped.emit("stopped")

    async def aclose(self) -> None:
        """Stop and await every task: no socket or task is left."""
        self.stop()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def served_line(served: Served, reply: Reply) -> str:
    """``POST /v1/chat/completions → attempt 1 (200, 1234 bytes)``."""
    what = "no response" if reply.status is None else f"{reply.status}, {len(reply.body)} bytes"
    other = f"; recorded on {served.recorded_path}" if served.other_path else ""
    return f"{served.method} {served.path} → attempt {served.attempt} ({what}{other})"


class ServePanel(QDialog):
    """The base URL with Copy, what was answered, and Stop; closing it stops serving."""

    def __init__(self, controller: ServeController) -> None:
        super().__init__(controller.host.window())
        self.setObjectName("serve-panel")
        self.setWindowTitle(TITLE)
        self.controller = controller
        self.what = QLabel()
        self.what.setWordWrap(True)
        self.url = QLineEdit()
        self.url.setReadOnly(True)
        self.url.setObjectName("serve-url")
        self.copy = QPushButton("Copy")
        self.copy.setObjectName("serve-copy")
        self.copy.clicked.connect(self.copy_url)
        self.stop = QPushButton("Stop")
        self.stop.setObjectName("serve-stop")
        self.stop.clicked.connect(controller.stop)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(500)
        self.hint = QLabel(
            "Give a client this base URL (add /v1 for the OpenAI SDKs) and turn its retries "
            "off: each request gets the next recorded attempt, in order."
        )
        self.hint.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.url, 1)
        row.addWidget(self.copy)
        row.addWidget(self.stop)
        layout = QVBoxLayout(self)
        layout.addWidget(self.what)
        layout.addLayout(row)
        layout.addWidget(self.hint)
        layout.addWidget(self.log, 1)
        self.resize(560, 300)
        controller.started.connect(self._started)
        controller.served.connect(self.log.appendPlainText)
        controller.stopped.connect(self._stopped)

    def begin(self, name: str, attempts: int) -> None:
        self.what.setText(f"Serving {name} ({attempts} attempt{'s' * (attempts != 1)})…")
        self.url.clear()
        self.copy.setEnabled(False)
        self.stop.setEnabled(True)
        self.show()
        self.raise_()

    def copy_url(self) -> None:
        QGuiApplication.clipboard().setText(self.url.text())
        self.controller.host.statusBar().showMessage(f"Copied {self.url.text()}", 5_000)

    def _started(self, url: str) -> None:
        self.url.setText(url)
        self.copy.setEnabled(True)

    def _stopped(self, why: str) -> None:
        self.stop.setEnabled(False)
        self.log.appendPlainText(why)

    def closeEvent(self, event: Any) -> None:
        self.controller.stop()
        super().closeEvent(event)
