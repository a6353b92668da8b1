"""``toolcall-inspector open [PATH]``: the desktop window, or its picture
(``--screenshot PNG``: rendered offscreen, then exit).

Invariants:
- Without a display it says so in one line, before any Qt application exists, and exits 2; a
  screenshot needs none (it renders offscreen).
- The window's modules are imported only here, when the window is asked for: every other
  subcommand starts without Qt.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from typing import Any

from inspector.core.base.settings import EMPTY_ID_POLICIES, VALIDATION_MODES

VIEWS = ("raw", "problems", "clients", "turn", "timeline")
"""The panes ``--view`` may put under the lanes: the window's own tabs
(:data:`inspector.ui.views.views.TABS`), spelled here so the command line starts without Qt."""


def add_open_parser(sub: Any) -> None:
    """The ``open`` subcommand's options, on the subparsers ``sub``."""
    o = sub.add_parser("open", help="open the desktop inspector")
    o.add_argument("path", nargs="?", help="a capture or raw SSE body to open")
    o.add_argument(
        "--screenshot",
        metavar="PNG",
        help="render the window once loaded, save it as PNG, and exit",
    )
    o.add_argument("--validation", choices=VALIDATION_MODES, help="judge under this mode")
    o.add_argument("--empty-id", choices=EMPTY_ID_POLICIES, help="empty-id handling")
    o.add_argument(
        "--compare",
        action="store_true",
        help="also open the side-by-side comparison (absent vs literal)",
    )
    o.add_argument(
        "--view",
        choices=VIEWS,
        help="the pane to show under the lanes (clients: what each client library makes of it)",
    )


NO_DISPLAY = (
    "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset, and so is "
    "QT_QPA_PLATFORM): run it in a desktop session, or under a virtual X server "
    "(sudo apt-get install xvfb, then: xvfb-run -s '-screen 0 1280x800x24' toolcall-inspector "
    "open; sh scripts/qt-system-libs.sh installs the libraries a Qt window needs); "
    "'toolcall-inspector analyze FILE' works without a display"
)
"""What ``open`` says, before any Qt application exists, when there is no display at all."""


def no_display(environ: Mapping[str, str] | None = None) -> bool:
    """Is there no display a window could open on? Only where X11 or Wayland would provide
    one (not macOS or Windows), and only when Qt is not told which platform to use."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return False
    return not any(env.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


def open_gui(args: argparse.Namespace) -> int:
    """``toolcall-inspector open [PATH] [--screenshot PNG] …``: the desktop window. Without
    a display it says so in one line and exits 2; a screenshot renders offscreen instead."""
    if no_display():
        if not getattr(args, "screenshot", None):
            print(f"toolcall-inspector: {NO_DISPLAY}", file=sys.stderr)
            return 2
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # a picture needs no screen
    path = getattr(args, "path", None)
    if getattr(args, "screenshot", None) and path and not _matrix(path):
        from inspector.cli.analyze import check_readable

        check_readable(path)  # the same bad file: exit 2 here as in analyze (one line)
    from inspector.ui.shell.app import run

    return run(
        getattr(args, "path", None),
        getattr(args, "screenshot", None),
        validation=getattr(args, "validation", None),
        empty_id=getattr(args, "empty_id", None),
        compare=getattr(args, "compare", False),
        view=getattr(args, "view", None),
    )


def _matrix(path: str) -> bool:
    """A matrix folder (or its matrix.json): the window's Matrix view opens it, so it is no
    capture for :func:`check_readable` to refuse (``make screenshots`` pictures one)."""
    from pathlib import Path

    from inspector.core.matrix.result import FILE_NAME

    p = Path(path)
    return (p / FILE_NAME).is_file() if p.is_dir() else p.name == FILE_NAME
