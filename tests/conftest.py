"""Shared test helpers: where the recorded provider streams live.

The real recordings are not copied into the project: they sit in ``../shared/fixtures/real``
beside the checkout (as they do for developers and CI).
"""

from __future__ import annotations

import os
import tempfile
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# QSettings (recent files, layout) must never touch the developer's own configuration.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="tci-test-config-")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
REAL_FIXTURES = SHARED / "fixtures" / "real"


def real_fixture(name: str) -> Path:
    """Path of a recorded stream in ../shared/fixtures/real (``name`` with or without .sse)."""
    path = REAL_FIXTURES / (name if name.endswith((".sse", ".json")) else name + ".sse")
    if not path.exists():
        pytest.fail(f"missing shared fixture {path}")
    return path


def all_real_fixtures() -> list[Path]:
    """Every recorded .sse stream, sorted by name."""
    return sorted(REAL_FIXTURES.glob("*.sse"))


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
