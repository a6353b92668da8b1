"""Desktop entry point: the application, its palette, the excepthook, and screenshot mode.

Invariants:
- No exception reaches the user as a traceback. The excepthook logs it to stderr (one line
  plus the traceback only when TOOLCALL_INSPECTOR_DEBUG is set) and shows a message; the
  window keeps running.
- Screenshot mode is headless: it never waits on a dialog. The first dialog the window would
  show (cannot open the file, unknown dialect, an unexpected error …) is instead one line on
  stderr, and the process exits 2 once the event loop has ended cleanly (no PNG is written);
  otherwise the PNG is written and the exit is 0. Qt's offscreen-platform notices that are
  not problems stay off stderr.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Awaitable, Callable
from types import TracebackType

from PySide6.QtCore import QMessageLogContext, QTimer, QtMsgType, qInstallMessageHandler
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from inspector.core.base.settings import DEFAULT_EMPTY_ID, DEFAULT_MODE
from inspector.ui.base import dialogs
from inspector.ui.base.theme import apply_system_palette
from inspector.ui.shell.mainwindow import MainWindow


def install_excepthook(window: MainWindow | None) -> None:
    """Route uncaught exceptions to a message box instead of a traceback on the terminal."""

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        text = f"{kind.__name__}: {exc}"
        if os.environ.get("TOOLCALL_INSPECTOR_DEBUG"):
            traceback.print_exception(kind, exc, tb)
        if dialogs.headless_instead(f"unexpected error: {text}"):
            return  # the one line is the headless report's
        print(f"toolcall-inspector: unexpected error: {text}", file=sys.stderr)
        if window is not None and QApplication.instance() is not None:
            dialogs.unexpected_error(window, text)

    sys.excepthook = hook


def make_app() -> QApplication:
    """The QApplication (created once), with names for QSettings and the system palette."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
        app.setApplicationName("Tool-Call Inspector")
        app.setOrganizationName("toolcall-inspector")
        apply_system_palette(app)
        QGuiApplication.styleHints().colorSchemeChanged.connect(
            lambda _scheme: apply_system_palette(app)
        )
    return app


def run(
    path: str | None = None,
    screenshot: str | None = None,
    *,
    validation: str | None = None,
    empty_id: str | None = None,
    compare: bool = False,
    view: str | None = None,
) -> int:
    """Open the window (on ``path``, or a sample replaying) and run the event loop.

    With ``screenshot`` the run is headless (see the module docstring): exit 0 with the PNG
    written, or 2 with one line on stderr."""
    previous = qInstallMessageHandler(_quiet_offscreen) if screenshot else None
    try:
        return _run(path, screenshot, validation, empty_id, compare, view)
    finally:
        dialogs.go_headless(None)
        if screenshot:
            qInstallMessageHandler(previous)


def _run(
    path: str | None,
    screenshot: str | None,
    validation: str | None,
    empty_id: str | None,
    compare: bool,
    view: str | None = None,
) -> int:
    app = make_app()
    window = MainWindow()
    install_excepthook(window)
    if screenshot:  # a picture must not depend on the last session's settings
        window.persist_layout = False
        window.default_layout()
        validation, empty_id = validation or DEFAULT_MODE, empty_id or DEFAULT_EMPTY_ID
    if validation or empty_id:
        window._apply(
            persist=False,
            **{k: v for k, v in (("validation", validation), ("empty_id", empty_id)) if v},
        )
    if screenshot:
        window.show()
    else:
        window.show_fitted()

    def start(quit_with: Callable[[int], None]) -> None:
        if screenshot:
            dialogs.go_headless(_headless_report(window, quit_with))
        else:
            window.live.list_demo_models()  # the model list says what each demo model does
        if path:
            window.open(path)
        elif screenshot is None:
            window.start_default_live()
        if view:
            window.views.show_tab(view)  # a pane under the lanes (views.TABS)
        if compare and window.doc.replayer is not None:
            window.open_compare()
        if screenshot:
            _screenshot(window, screenshot, quit_with)

    return run_event_loop(app, start, window.aclose)


def _headless_report(window: MainWindow, quit_with: Callable[[int], None]) -> dialogs.Report:
    """Where dialogs go in screenshot mode: the first one's line to stderr, then the window
    closes (no screenshot) and the loop ends with exit 2."""
    said: list[str] = []

    def report(line: str) -> None:
        if not said:
            said.append(line)
            print(f"toolcall-inspector: {line}", file=sys.stderr, flush=True)
            quit_with(2)
            window.close()

    return report


_OFFSCREEN_NOTICES = ("This plugin does not support",)
"""What the offscreen platform says about features it lacks (window hints): not problems."""


def _quiet_offscreen(kind: QtMsgType, _context: QMessageLogContext, message: str) -> None:
    """Qt's messages to stderr as usual, but for the offscreen platform's notices."""
    if not message.startswith(_OFFSCREEN_NOTICES):
        print(message, file=sys.stderr)


def run_event_loop(
    app: QApplication,
    start: Callable[[Callable[[int], None]], None],
    cleanup: Callable[[], Awaitable[None]] | None = None,
) -> int:
    """Run Qt and asyncio as one loop (qasync), until the last window closes.

    Quitting resolves a future instead of calling ``app.exit()``: qasync's
    ``run_until_complete`` refuses a loop that stops before its future is done. Python 3.11
    has no ``asyncio.run(loop_factory=…)``, hence ``asyncio.Runner``. The loop is
    :func:`~inspector.ui.shell.loop.new_loop`'s: a nested Qt loop never steps one task inside
    another (which stalled live runs for good).
    """
    import asyncio

    from inspector.ui.shell.loop import new_loop

    async def main() -> int:
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        def quit_with(code: int) -> None:
            if not done.done():
                done.set_result(code)

        app.setQuitOnLastWindowClosed(False)
        app.lastWindowClosed.connect(lambda: quit_with(0))
        _quit_on_signals(app, quit_with)
        start(quit_with)
        code = await done
        if cleanup is not None:
            await cleanup()
        await _settle()
        return code

    with asyncio.Runner(loop_factory=new_loop) as runner:
        return runner.run(main())


def _quit_on_signals(app: QApplication, quit_with: Callable[[int], None]) -> None:
    """SIGINT (Ctrl+C in the terminal that started the window) and SIGTERM close the windows
    as File ▸ Quit does — a running session is cancelled and its capture gets its end record
    before the loop ends — and the exit code is 128 + the signal (130, 143). The loop's own
    handlers wake it at once (a plain Python handler would wait for the next Python call)."""
    import asyncio
    import signal

    loop = asyncio.get_running_loop()

    def on_signal(signum: int) -> None:
        quit_with(128 + signum)
        app.closeAllWindows()

    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, on_signal, int(sig))
        except (NotImplementedError, RuntimeError, ValueError):  # Windows, or not the main
            try:  # thread: the handler then runs at the loop's next Python call
                signal.signal(sig, lambda n, _f: loop.call_soon_threadsafe(on_signal, n))
            except ValueError:
                return


async def _settle() -> None:
    """Cancel and await whatever task is still pending once the window's own cleanup is done,
    so none is destroyed pending when the loop closes (asyncio would print a warning)."""
    import asyncio

    rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in rest:
        task.cancel()
    await asyncio.gather(*rest, return_exceptions=True)


def _screenshot(window: MainWindow, out: str, quit_with: Callable[[int], None]) -> None:
    """Render once the document is loaded, save the PNG, and quit."""

    def shoot() -> None:
        if not window.isVisible():  # a dialog ended the headless run (exit 2)
            return
        if window.doc.loading:
            QTimer.singleShot(100, shoot)
            return
        target = window.matrix or window._compare or window  # a secondary window shown
        ok = bool(target.grab().save(out, "PNG"))
        print(f"screenshot saved to {out}" if ok else f"could not write {out}", file=sys.stderr)
        quit_with(0 if ok else 2)
        window.close()

    QTimer.singleShot(400, shoot)
