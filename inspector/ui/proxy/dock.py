"""The Proxy dock (Live ▸ Proxy…): start a proxy, copy the base URL to give the agent, stop
it, and the session list every proxy fills.

Invariants:
- The dock only calls the :class:`~.proxy.ProxyController`; it runs nothing. A controller has
  one dock, made when Live ▸ Proxy… first shows it (:func:`show_dock`).
- The session list is newest first. Its model reads the controller's exchanges when asked
  (``refresh`` on ``exchanges_changed``, four times a second at most): new rows are announced
  at the top as one range, the rest as one ``dataChanged``; fixed column widths (sizing to
  contents would read every row through Python).
- A verdict is a word of :mod:`inspector.core.reports.words` with its symbol, coloured as the
  views colour it (never by colour alone).
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDockWidget,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from inspector.core.base.settings import HEADER_TIMEOUT
from inspector.core.reports import words
from inspector.net.proxy import Exchange, RecordingProxy, parse_listen
from inspector.net.proxy.exchange import human_size
from inspector.net.proxy.relay import DRAIN
from inspector.ui.base import theme
from inspector.ui.proxy.proxy import LISTEN, ProxyController

_Index = QModelIndex | QPersistentModelIndex
DOCK_HEIGHT = 190
"""The Proxy dock's height at first (the controls beside the session list, under the lanes)."""
ROW_HEIGHT = 22
"""One line per request, as the raw wire table."""
_D = Qt.ItemDataRole
_LOOK = {
    "accepted": theme.VERDICT["valid"],
    "invalid": theme.VERDICT["invalid"],
    "failed": theme.VERDICT["invalid"],
    "streaming": theme.VERDICT["streaming"],
    "cancelled": theme.VERDICT["orphan"],
    "interrupted": theme.VERDICT["orphan"],
    "retried": theme.PRESENCE["repaired"],
    "accepted_degraded": theme.PRESENCE["repaired"],
}
"""Attempt word -> the (text, light, dark) entry whose colour it is shown in."""


class ProxySessions(QAbstractTableModel):
    """Every proxied request, newest first: time, method, path, model, status, dialect,
    verdict (with the calls) or, for a forwarded-only request, its size."""

    HEADERS = ("Time", "Method", "Path", "Model", "Status", "Dialect", "Verdict")
    WIDTHS = (62, 56, 190, 120, 48, 110, 150)

    def __init__(self, exchanges: list[Exchange], parent: Any = None) -> None:
        super().__init__(parent)
        self._exchanges = exchanges
        self._rows = 0

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == _D.DisplayRole:
            return self.HEADERS[section]
        return None

    def exchange(self, row: int) -> Exchange:
        """The exchange shown at ``row`` (newest first)."""
        return self._exchanges[self._rows - 1 - row]

    def refresh(self) -> None:
        """Announce the exchanges that arrived since (at the top) and news of the rest."""
        new = len(self._exchanges) - self._rows
        if new > 0:
            self.beginInsertRows(QModelIndex(), 0, new - 1)
            self._rows += new
            self.endInsertRows()
        if self._rows:
            last = self.index(self._rows - 1, len(self.HEADERS) - 1)
            self.dataChanged.emit(self.index(0, 0), last)

    def data(self, index: _Index, role: int = _D.DisplayRole) -> Any:
        if role not in (_D.DisplayRole, _D.ForegroundRole, _D.ToolTipRole):
            return None
        ex = self.exchange(index.row())
        column = index.column()
        if role == _D.ToolTipRole:
            return ex.line()
        if column == 6:
            return self._verdict(ex, role)
        if role != _D.DisplayRole:
            return None
        return _cells(ex)[column]

    @staticmethod
    def _verdict(ex: Exchange, role: int) -> Any:
        word = ex.verdict
        if role == _D.ForegroundRole:
            look = _LOOK.get(word or "")
            return theme.colour(look) if look is not None else None
        if word is None:
            return f"forwarded · {human_size(ex.size)}"
        calls = ex.calls or 0
        text = f"{words.label(word)} · {calls} call{'' if calls == 1 else 's'}"
        breaks = len(ex.breaks)
        return f"{text} · ✗ breaks {breaks} client{'s' if breaks != 1 else ''}" if breaks else text


def _cells(ex: Exchange) -> tuple[str, ...]:
    status = str(ex.status) if ex.status is not None else "…"
    clock = time.strftime("%H:%M:%S", time.localtime(ex.started))
    return (clock, ex.method, ex.path, ex.model or "–", status, ex.dialect or "–", "")


class ProxyRow(QWidget):
    """One running proxy: the base URL to give the agent, Copy and Stop, and (below) where
    it forwards to."""

    def __init__(self, proxy: RecordingProxy, controller: ProxyController) -> None:
        super().__init__()
        self.proxy = proxy
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setVerticalSpacing(0)
        self.url = QLineEdit(proxy.agent_url)
        self.url.setReadOnly(True)
        self.url.setToolTip("The base URL to give the agent (instead of the upstream's)")
        self.copy = QPushButton("Copy")
        self.copy.setToolTip("Copy the base URL to give the agent")
        self.copy.clicked.connect(self.copy_url)
        self.stop = QPushButton("Stop")
        self.stop.setToolTip("Stop this proxy (requests in flight are cut; captures kept)")
        self.stop.clicked.connect(lambda: controller.stop(proxy))
        upstream = QLabel(f"→ {proxy.upstream.shown()}")
        upstream.setEnabled(False)  # the secondary line: greyed
        grid.addWidget(self.url, 0, 0)
        grid.addWidget(self.copy, 0, 1)
        grid.addWidget(self.stop, 0, 2)
        grid.addWidget(upstream, 1, 0, 1, 3)

    def copy_url(self) -> None:
        QGuiApplication.clipboard().setText(self.proxy.agent_url)


class ProxyDock(QDockWidget):
    """Start proxies, see them, and the list of what went through them."""

    def __init__(self, controller: ProxyController, parent: QWidget) -> None:
        super().__init__("Proxy", parent)
        self.setObjectName("proxy-dock")
        self.controller = controller
        body = QWidget()
        columns = QHBoxLayout(body)  # the controls beside the list: a wide dock, low
        layout = QVBoxLayout()
        columns.addLayout(layout, 2)
        form = QGridLayout()
        settings = controller.host.settings
        self.upstream = QLineEdit(str(settings.value("proxy_upstream", "") or ""))
        self.upstream.setPlaceholderText("upstream, e.g. https://api.openai.com/v1")
        self.upstream.returnPressed.connect(self.start)
        self.listen = QLineEdit(LISTEN)
        self.listen.setToolTip("HOST:PORT to listen on (port 0: any free one)")
        self.listen.returnPressed.connect(self.start)
        self.start_button = QPushButton("Start")
        self.start_button.setToolTip("Start a proxy in front of the upstream")
        self.start_button.clicked.connect(self.start)
        self.demo_button = QPushButton("Demo")
        self.demo_button.setObjectName("proxy-demo")
        self.demo_button.setToolTip(
            "Start a proxy in front of the built-in demo provider (no key): point an agent at "
            "it to try the proxy"
        )
        self.demo_button.clicked.connect(self.start_demo)
        self.drain = QCheckBox("Read on when the agent hangs up")
        self.drain.setObjectName("proxy-drain")
        self.drain.setToolTip(
            "When an agent hangs up early, keep reading the upstream to its end "
            f"({DRAIN.describe()}) so the capture and the clients describe the whole stream; "
            "the provider keeps generating, and billing, meanwhile. Off: drop the upstream "
            "request at once. Stopping a proxy never drains."
        )
        self.drain.setChecked(bool(settings.value("proxy_drain", True, type=bool)))
        self.drain.toggled.connect(lambda on: settings.setValue("proxy_drain", on))
        self.header_timeout = QDoubleSpinBox()
        self.header_timeout.setObjectName("proxy-header-timeout")
        self.header_timeout.setRange(0.1, 3600.0)
        self.header_timeout.setDecimals(1)
        self.header_timeout.setSuffix(" s")
        self.header_timeout.setToolTip(
            "Header timeout: seconds a request's headers may take to arrive, from its first "
            f"byte (default {HEADER_TIMEOUT:g}); a client trickling them is sent 408 and its "
            "connection closed, so it cannot hold a socket forever"
        )
        saved = settings.value("proxy_header_timeout", HEADER_TIMEOUT, type=float)
        self.header_timeout.setValue(float(saved or HEADER_TIMEOUT))  # type: ignore[arg-type]
        self.header_timeout.valueChanged.connect(
            lambda value: settings.setValue("proxy_header_timeout", value)
        )
        form.addWidget(QLabel("Upstream"), 0, 0)
        form.addWidget(self.upstream, 0, 1, 1, 2)
        form.addWidget(self.demo_button, 0, 3)
        form.addWidget(QLabel("Listen"), 1, 0)
        form.addWidget(self.listen, 1, 1)
        form.addWidget(self.start_button, 1, 2)
        form.addWidget(self.drain, 2, 0, 1, 2)
        headers = QLabel("Header timeout")
        headers.setBuddy(self.header_timeout)
        form.addWidget(headers, 2, 2)
        form.addWidget(self.header_timeout, 2, 3)
        layout.addLayout(form)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.running = QVBoxLayout()
        layout.addLayout(self.running)
        layout.addStretch(1)
        self.rows: list[ProxyRow] = []
        self.model = ProxySessions(controller.exchanges, self)
        self.table = QTableView()
        self.table.setObjectName("proxy-sessions")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
        self.table.setWordWrap(False)
        for column, width in enumerate(ProxySessions.WIDTHS):
            self.table.setColumnWidth(column, width)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.clicked.connect(self.open_row)
        self.table.activated.connect(self.open_row)
        columns.addWidget(self.table, 5)
        self.setWidget(body)
        controller.proxies_changed.connect(self.show_proxies)
        controller.exchanges_changed.connect(self.model.refresh)
        controller.failed.connect(self.say)
        self.show_proxies()

    def start(self) -> None:
        """Start: a proxy in front of the upstream typed, on the listen address typed."""
        upstream = self.upstream.text().strip()
        if not upstream:
            self.say("Type the upstream's base URL first (e.g. https://api.openai.com/v1)")
            return
        if self.controller.start(upstream, self.listen.text(), drain=self.drain.isChecked(),
                                 header_timeout=self.header_timeout.value()):  # fmt: skip
            self.say("")

    def start_demo(self) -> None:
        """Demo: a proxy in front of the built-in demo provider."""
        self.say("")
        self.controller.start_demo(self.listen.text(), drain=self.drain.isChecked(),
                                   header_timeout=self.header_timeout.value())  # fmt: skip

    def say(self, text: str) -> None:
        self.message.setText(text)

    def show_proxies(self) -> None:
        """One row per running proxy; the listen field suggests the next free-looking port."""
        for row in self.rows:
            self.running.removeWidget(row)
            row.deleteLater()
        self.rows = [ProxyRow(p, self.controller) for p in self.controller.proxies]
        for row in self.rows:
            self.running.addWidget(row)
        ports = {p.port for p in self.controller.proxies}
        try:
            host, port = parse_listen(self.listen.text())
        except ValueError:
            return
        if port and port in ports:
            while port in ports:
                port += 1
            self.listen.setText(f"{host}:{port}")

    def open_row(self, index: QModelIndex) -> None:
        if index.isValid():
            self.controller.open(self.model.exchange(index.row()))


def show_dock(controller: ProxyController, window: QMainWindow) -> ProxyDock:
    """Live ▸ Proxy…: ``controller``'s dock at the bottom of ``window`` (made on first use, as a
    browser's network panel), shown and raised, its upstream box focused."""
    dock = controller.dock
    if not isinstance(dock, ProxyDock):
        dock = controller.dock = ProxyDock(controller, window)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        window.resizeDocks([dock], [DOCK_HEIGHT], Qt.Orientation.Vertical)
    dock.show()
    dock.raise_()
    dock.upstream.setFocus()
    return dock
