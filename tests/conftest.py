"""Shared test helpers: the recorded provider streams, the demo provider, Qt hygiene.

The real recordings are not copied into the project: they sit in ``../shared/fixtures/real``
beside the checkout (as they do for developers and CI). A test that reads them fails when they
are missing: an empty folder must never turn "every recorded stream passes" into "nothing ran".
"""

from __future__ import annotations

import os
import signal
import tempfile
import weakref
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from inspector.net.demo import DemoProvider

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if os.environ["QT_QPA_PLATFORM"] == "offscreen":  # Qt's offscreen screen is 800×800: the
    # tests' is a laptop's 1280×800 (tests/ui/shell/test_walkthrough.py checks that it is)
    LAPTOP_SCREEN = Path(__file__).resolve().parent / "offscreen-1280x800.json"
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={LAPTOP_SCREEN}"
# QSettings (recent files, layout) must never touch the developer's own configuration.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="tci-test-config-")

TESTS = Path(__file__).resolve().parent  # the tests' own data: clients/corpus, har/ …
REPO = TESTS.parent
SHARED = REPO.parent / "shared"
REAL_FIXTURES = SHARED / "fixtures" / "real"


def real_fixture(name: str) -> Path:
    """Path of a recorded stream in ../shared/fixtures/real (``name`` with or without .sse)."""
    path = REAL_FIXTURES / (name if name.endswith((".sse", ".json")) else name + ".sse")
    if not path.exists():
        pytest.fail(f"missing shared fixture {path}")
    return path


def one_fast_per(cases: list[Any], key: Any) -> list[Any]:
    """``cases`` as pytest parameters: the first case of each ``key(case)`` runs in ``make
    test``, the others behind ``-m slow`` (``make test-slow``). For a sweep whose cases repeat
    one behaviour over many inputs: every behaviour keeps a case in ``make test``."""
    seen: set[Any] = set()
    out = []
    for case in cases:
        k = key(case)
        out.append(case if k not in seen else pytest.param(*case, marks=pytest.mark.slow))
        seen.add(k)
    return out


def all_real_fixtures() -> list[Path]:
    """Every recorded .sse stream, sorted by name; never empty.

    Fails the calling test (or the collection of its module, when used to parametrise) if the
    folder is missing or holds no stream, so a checkout without ``../shared`` cannot pass by
    iterating over nothing.
    """
    paths = sorted(REAL_FIXTURES.glob("*.sse"))
    if not paths:
        state = "is empty" if REAL_FIXTURES.is_dir() else "is missing"
        pytest.fail(
            f"the recorded provider streams folder {REAL_FIXTURES} {state}: the tests read the "
            "real recordings from ../shared/fixtures/real beside the checkout",
            pytrace=False,
        )
    return paths


# -- the demo provider: one fresh server per test ------------------------------------------------


@pytest.fixture
async def demo_provider() -> AsyncIterator[DemoProvider]:
    """A fresh demo provider on a loopback port (it remembers conversations to tell retries
    apart, so tests never share one). Its default pacing is 0 s between frames: a test that
    wants a paced stream sets ``x-demo-chunk-delay`` on its request."""
    from inspector.net.demo import DemoProvider

    provider = DemoProvider("127.0.0.1", port=0, chunk_delay=0)
    await provider.start()
    try:
        yield provider
    finally:
        await provider.stop()


@pytest.fixture
def demo(demo_provider: DemoProvider) -> str:
    """The base URL (``http://127.0.0.1:PORT``) of a fresh demo provider."""
    return demo_provider.url


# -- Qt: fail any test that leaves a QTimer running (napari's guard against leaked timers) --

_TIMERS: weakref.WeakSet[Any] = weakref.WeakSet()


def _install_timer_tracking() -> None:
    from PySide6.QtCore import QTimer

    original = QTimer.start

    def tracking_start(self: QTimer, *args: Any) -> None:
        _TIMERS.add(self)
        original(self, *args)

    QTimer.start = tracking_start  # type: ignore[method-assign]


def running_timers() -> list[Any]:
    """Timers started through QTimer.start that are still alive and active."""
    import shiboken6

    return [t for t in list(_TIMERS) if shiboken6.isValid(t) and t.isActive()]


_install_timer_tracking()


@pytest.fixture(autouse=True)
def no_leftover_qt_timers(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a Qt test: close every window; any timer still running fails the test."""
    yield
    if "qtbot" not in request.fixturenames:
        return
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is not None:
        QApplication.closeAllWindows()
        app.processEvents()
    left = running_timers()
    for t in left:
        t.stop()
    if left:
        names = ", ".join(f"{type(t.parent()).__name__}.{t.objectName() or 'timer'}" for t in left)
        pytest.fail(f"test left {len(left)} QTimer(s) running after its windows closed: {names}")


@pytest.fixture(scope="session", autouse=True)
def _ctrl_c_reaches_children() -> None:
    """A test run started in the background (``make test &``, a CI step behind ``&``) inherits
    SIGINT ignored, and every child process it starts would ignore the Ctrl+C a test sends it.
    Handling SIGINT here makes children start with the default action (a handler is reset at
    exec; an ignore is not), so the Ctrl+C tests do not depend on how pytest was started."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def _qasync_loop(qapp: Any) -> Iterator[Any]:
    """One qasync loop for the whole run, closed before the QApplication goes (qasync's close
    needs its signals alive). Closing a window never quits the application, as in the app."""
    import asyncio

    from inspector.ui.shell.loop import new_loop

    qapp.setQuitOnLastWindowClosed(False)  # as the app runs (ui/shell/app.py: run_event_loop):
    # closing the last window would quit Qt, which stops the shared loop mid-test
    loop = new_loop()  # the window's own loop (ui/shell/loop.py)
    yield loop
    asyncio.set_event_loop(None)
    loop.close()


@pytest.fixture
def qloop(_qasync_loop: Any) -> Any:
    """Qt and asyncio as one loop, as in the app (live runs, Start buttons and the tool loop
    need it): the run's qasync loop, made current for this test (pytest-asyncio's own tests
    set and unset the current loop in between)."""
    import asyncio

    asyncio.set_event_loop(_qasync_loop)
    return _qasync_loop
