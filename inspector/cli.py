"""Command-line entry points: thin wrappers over core (analyze) and ui (open).

Invariant: no exception reaches the user as a traceback. Bad input or usage prints one line on
stderr and exits 2; ``analyze`` follows the one exit-code table of
:mod:`inspector.core.reports.exitcodes` (2 bad usage, unreadable, not a stream; 1 an invalid
call, a failed request, an interrupted attempt; 0 everything else, "not checked" included).
Set TOOLCALL_INSPECTOR_DEBUG=1 to see tracebacks of unexpected errors.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from inspector.core.analysis.session import DIALECT_CHOICES, VALIDATION_MODES, Analysis, Settings
from inspector.core.base.errors import InspectorError
from inspector.core.calls.accumulator import EMPTY_ID_POLICIES
from inspector.core.providers import REGISTRY
from inspector.core.reports import exitcodes

from . import __version__

SUBCOMMANDS = ("analyze", "open", "record", "demo-server")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="toolcall-inspector",
        description="See how an LLM provider streams tool calls, fragment by fragment.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    a = sub.add_parser(
        "analyze",
        help="judge a capture or raw SSE body headlessly",
        description="Judge a capture or a raw SSE body headlessly.",
        epilog="exit status:\n" + exitcodes.table_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    a.add_argument("path", help="a capture (.jsonl), or a raw SSE body (curl -N output)")
    a.add_argument("--dialect", choices=DIALECT_CHOICES, default="auto")
    a.add_argument(
        "--tools",
        metavar="FILE",
        help="tool definitions (any provider's shape) or a request body with tools",
    )
    a.add_argument("--validation", choices=VALIDATION_MODES, default="structural")
    a.add_argument(
        "--empty-id",
        choices=EMPTY_ID_POLICIES,
        default="absent",
        help='absent: treat "" ids as omitted; literal: look them up (the classic bug)',
    )
    a.add_argument("--json", action="store_true", help="one JSON document on stdout")
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
    r = sub.add_parser(
        "record",
        help="run a live session headlessly and write its capture",
        description="Run a live session headlessly and write its capture. The key comes from "
        "the profile's key variable (e.g. OPENAI_API_KEY; key_env in --profiles), else the OS "
        "keyring; it is never written: credential headers, URL parameters and the key itself "
        "are redacted (docs/captures.md). Ctrl+C or SIGTERM stops the session with one line "
        "and a complete capture.",
    )
    r.add_argument(
        "--profile",
        required=True,
        help="a profile name (demo, demo-anthropic, openai, ollama, ...)",
    )
    r.add_argument("--scenario", required=True, help="a shipped scenario name or a .json file")
    r.add_argument("--out", required=True, metavar="FILE", help="the capture to write")
    r.add_argument("--model", help="override the profile's model (demo: the demo scenario)")
    r.add_argument("--validation", choices=VALIDATION_MODES, default="structural")
    r.add_argument("--no-retry", action="store_true", help="never retry an invalid response")
    r.add_argument(
        "--read-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds without a byte before giving up (default 60)",
    )
    r.add_argument("--profiles", metavar="FILE", help="extra profiles (a JSON list)")
    r.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME:VALUE",
        help="an extra request header (repeatable)",
    )
    r.add_argument(
        "--loop",
        action="store_true",
        help="run the built-in demo tools and continue over rounds (a tool loop)",
    )
    r.add_argument(
        "--sequential",
        action="store_true",
        help="with --loop: dispatch tools after the stream ends, not as calls close",
    )
    r.add_argument(
        "--max-steps",
        type=int,
        default=10,
        metavar="N",
        help="with --loop: stop after N rounds (default 10)",
    )
    r.add_argument(
        "--slow-tool",
        action="append",
        default=[],
        metavar="NAME:SECONDS",
        help="with --loop: delay a tool's handler (repeatable)",
    )
    r.add_argument(
        "--disable-tool",
        action="append",
        default=[],
        metavar="NAME",
        help="with --loop: neither offer nor run this tool (repeatable)",
    )
    d = sub.add_parser("demo-server", help="run the demo provider (quirky streams, no API key)")
    d.add_argument("--port", type=int, default=8765, help="port to listen on (0: any free one)")
    d.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    d.add_argument(
        "--chunk-delay",
        type=float,
        default=0.03,
        metavar="S",
        help="seconds between streamed events (default 0.03)",
    )
    return p


def record(args: argparse.Namespace) -> int:
    """``toolcall-inspector record``: exit 0 all valid, 1 any invalid, 2 error (capture kept)."""
    import asyncio

    from inspector.core.reports import report
    from inspector.core.requests.scenarios import find_profile, find_scenario, load_profiles

    from .net.policy import LoopSettings
    from .net.session import record_session

    profile = find_profile(args.profile, load_profiles(args.profiles) if args.profiles else None)
    scenario = find_scenario(args.scenario)
    if any(":" not in h for h in args.header) or args.read_timeout <= 0:
        raise InspectorError("--header takes NAME:VALUE and --read-timeout a positive number")
    headers = {n.strip(): v.strip() for n, _, v in (h.partition(":") for h in args.header)}
    settings = LoopSettings(
        not args.no_retry, read_timeout=args.read_timeout, tool_argument_validation=args.validation
    )
    kept = f" (capture: {args.out})"
    _say_if_not_played(profile, args.model)
    if args.loop:
        return _record_loop(args, profile, scenario, settings, headers, kept)
    if args.sequential or args.slow_tool or args.disable_tool:
        raise InspectorError("--sequential, --slow-tool and --disable-tool need --loop")
    with _terminate_as_interrupt() as signals:
        try:
            session = asyncio.run(
                record_session(
                    profile,
                    scenario,
                    args.out,
                    settings,
                    model=args.model,
                    headers=headers,
                    on_attempt=lambda line: print(line, flush=True),
                )
            )
        except KeyboardInterrupt:
            return _interrupted(kept, signals)
    if session.error is not None:
        where = kept if Path(args.out).is_file() else ""
        print(f"toolcall-inspector: {session.error}{where}", file=sys.stderr)
        return 2
    sys.stdout.write(report.to_text(session.analysis, args.out, colour=sys.stdout.isatty()))
    return 0 if session.analysis.all_valid else 1


def _say_if_not_played(profile: Any, model: str | None) -> None:
    """One line when the demo model does not play its own behaviour on the profile's dialect
    (the window's Live bar says the same; :mod:`inspector.net.demo.applies`)."""
    from .net.demo.applies import NotPlayed
    from .net.demo.scenarios import SCENARIOS

    scenario = SCENARIOS.get(model or profile.model) if profile.is_demo else None
    note = NotPlayed.of(scenario.to_model(), profile.dialect) if scenario else None
    if note is not None:
        print(f"note: {note.about()}", flush=True)


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[list[int]]:
    """While ``record`` runs, SIGTERM does what Ctrl+C does: it raises SIGINT, so asyncio
    cancels the session (its capture gets its ``end`` record and is closed) and
    KeyboardInterrupt follows. Yields the list of SIGTERMs received (for the exit code)."""
    received: list[int] = []

    def on_terminate(signum: int, _frame: object) -> None:
        received.append(signum)
        signal.raise_signal(signal.SIGINT)

    try:
        previous = signal.signal(signal.SIGTERM, on_terminate)
    except ValueError:  # not the main thread: leave signals alone
        yield received
        return
    try:
        yield received
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupted(kept: str, signals: list[int]) -> int:
    """The one line for an interrupted ``record``; exit 128 + the signal (130 or 143)."""
    print(f"toolcall-inspector: interrupted{kept}", file=sys.stderr)
    return 128 + (signals[-1] if signals else signal.SIGINT)


def _record_loop(
    args: argparse.Namespace,
    profile: Any,
    scenario: Any,
    settings: Any,
    headers: dict[str, str],
    kept: str,
) -> int:
    """``record --loop``: the rounds, then the report; exit 0 / 1 (an invalid call) / 2."""
    import asyncio

    from inspector.core.reports import report

    from .net.toolloop import record_loop
    from .net.tools import ToolBox, scenario_options

    if args.max_steps < 1:
        raise InspectorError("--max-steps takes a number >= 1")
    tools = ToolBox.builtin()
    try:
        tools.configure(scenario_options(args.scenario))
    except ValueError as exc:
        raise InspectorError(f"scenario {args.scenario!r}: {exc}") from None
    try:
        for name in args.disable_tool:
            tools.disable(name)
        for item in args.slow_tool:
            name, _, seconds = item.partition(":")
            tools.set_slow(name, float(seconds or 1.0))
    except KeyError as exc:
        names = ", ".join(tools.names())
        raise InspectorError(f"unknown tool {exc} (built-in: {names})") from None
    except ValueError:
        raise InspectorError("--slow-tool takes NAME:SECONDS (seconds >= 0)") from None
    with _terminate_as_interrupt() as signals:
        try:
            loop = asyncio.run(
                record_loop(
                    profile,
                    scenario,
                    args.out,
                    settings,
                    tools=tools,
                    max_steps=args.max_steps,
                    sequential=args.sequential,
                    model=args.model,
                    headers=headers,
                )
            )
        except KeyboardInterrupt:
            return _interrupted(kept, signals)
    sys.stdout.write(report.to_text(loop.analysis, args.out, colour=sys.stdout.isatty()))
    if loop.error is not None:
        where = kept if Path(args.out).is_file() else ""
        print(f"toolcall-inspector: {loop.error}{where}", file=sys.stderr)
        return 2
    return 0 if loop.analysis.all_valid else 1


def demo_server(args: argparse.Namespace) -> int:
    """``toolcall-inspector demo-server``: serve the demo provider until Ctrl+C (exit 0)."""
    from .net.demo import run_demo_server

    return run_demo_server(args.host, args.port, args.chunk_delay)


def analyze(args: argparse.Namespace) -> int:
    """``toolcall-inspector analyze``: the exit-code table of :mod:`.core.reports.exitcodes`
    (a raw body that is not a stream is one line and exit 2, before any analysis)."""
    import orjson

    from inspector.core.capture.reader import load
    from inspector.core.reports import report
    from inspector.core.reports.gate import check_stream, header_settings
    from inspector.core.verdicts.tools import ToolRegistry

    capture = load(args.path)
    check_stream(capture, args.path)
    tools = ToolRegistry.from_file(args.tools) if args.tools else None
    settings = Settings(dialect=args.dialect, validation=args.validation, empty_id=args.empty_id)
    settings = header_settings(capture, settings, REGISTRY)
    analysis = Analysis.from_capture(capture, settings, tools, providers=REGISTRY)
    if args.json:
        doc = report.to_json(analysis, source=args.path)
        sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        sys.stdout.write(report.to_text(analysis, args.path, colour=sys.stdout.isatty()))
    sys.stdout.flush()
    return exitcodes.session_status(analysis).code


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
    from .ui.app import run

    return run(
        getattr(args, "path", None),
        getattr(args, "screenshot", None),
        validation=getattr(args, "validation", None),
        empty_id=getattr(args, "empty_id", None),
        compare=getattr(args, "compare", False),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point."""
    argv = list(sys.argv[1:] if argv is None else argv)
    first = argv[0] if argv else ""
    if first and first not in SUBCOMMANDS and not first.startswith("-") and Path(first).exists():
        argv.insert(0, "open")
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "analyze":
            return analyze(args)
        if args.command == "record":
            return record(args)
        if args.command == "demo-server":
            return demo_server(args)
        return open_gui(args)
    except InspectorError as exc:
        print(f"toolcall-inspector: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the last line of defence: one line, never a traceback
        if os.environ.get("TOOLCALL_INSPECTOR_DEBUG"):
            raise
        print(f"toolcall-inspector: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
