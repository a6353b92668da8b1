"""``toolcall-inspector record`` (and ``record --loop``): its options, its run, its signals.

Exit codes: 0 every call valid, 1 an invalid call, 2 an error (the capture, when one was
started, is kept and named on the one stderr line), 130 / 143 interrupted by Ctrl+C / SIGTERM.

Invariant (interruption): Ctrl+C and SIGTERM end a run the same way, whatever signal
dispositions the process inherited: the main task is cancelled, so the session writes its
``cancelled`` end record and closes the capture, and one line "interrupted (capture: FILE)"
follows. SIGTERM is handled by the event loop itself (``loop.add_signal_handler``), not by
raising SIGINT: a process started with SIGINT ignored (``cmd &`` from a non-interactive shell)
would otherwise never stop on SIGTERM. SIGINT keeps what it inherited: asyncio cancels the
task on it when it is Python's default handler, and an ignored SIGINT stays ignored.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from inspector.core.base.errors import InspectorError
from inspector.core.base.settings import DEFAULT_MODE, VALIDATION_MODES
from inspector.core.capture.redaction import mask_secrets

T = TypeVar("T")


def add_record_parser(sub: Any) -> None:
    """The ``record`` subcommand's options, on the subparsers ``sub``."""
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
    r.add_argument("--validation", choices=VALIDATION_MODES, default=DEFAULT_MODE)
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


class Interrupted(Exception):
    """The run was stopped by ``signum`` (SIGINT or SIGTERM) and its task cancelled."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def run_interruptible(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` on a new event loop; Ctrl+C or SIGTERM cancel it (see the module doc) and
    raise :class:`Interrupted` once it has finished cancelling."""
    received: list[int] = []

    async def guarded() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None

        def on_terminate() -> None:
            received.append(signal.SIGTERM)
            task.cancel()

        try:
            loop.add_signal_handler(signal.SIGTERM, on_terminate)
        except (NotImplementedError, RuntimeError, ValueError):  # no POSIX signals here
            return await main
        try:
            return await main
        finally:
            loop.remove_signal_handler(signal.SIGTERM)

    try:
        with asyncio.Runner() as runner:
            result = runner.run(guarded())
    except KeyboardInterrupt:
        raise Interrupted(received[-1] if received else signal.SIGINT) from None
    except asyncio.CancelledError:
        if not received:
            raise
        raise Interrupted(received[-1]) from None
    if received:  # cancelled, but the run swallowed it: it still stopped on a signal
        raise Interrupted(received[-1])
    return result


def _interrupted(kept: str, signum: int) -> int:
    """The one line for an interrupted ``record``; exit 128 + the signal (130 or 143)."""
    print(f"toolcall-inspector: interrupted{kept}", file=sys.stderr)
    return 128 + signum


def _failed(error: object, out: str, secrets: tuple[str, ...], kept: str) -> int:
    """The one stderr line for a run that failed (the key masked, should a server echo it)."""
    where = kept if Path(out).is_file() else ""
    print(f"toolcall-inspector: {mask_secrets(str(error), secrets)}{where}", file=sys.stderr)
    return 2


def _say(line: str, secrets: tuple[str, ...]) -> None:
    print(mask_secrets(line, secrets), flush=True)


def _secrets(profile: Any) -> tuple[str, ...]:
    """The key, masked in what ``record`` prints: its lines quote URLs and server messages,
    which may hold it (a model named like the key, a server that echoes it)."""
    from inspector.core.capture.redaction import request_credentials
    from inspector.net.session import resolve_key

    key = resolve_key(profile)
    extra = request_credentials(profile.headers, profile.options)  # ``api_key`` in options …
    return tuple(dict.fromkeys([key, *extra] if key else extra))


def record(args: argparse.Namespace) -> int:
    """``toolcall-inspector record``: exit 0 all valid, 1 any invalid, 2 error (capture kept)."""
    from inspector.core.reports import report
    from inspector.core.requests.scenarios import find_profile, find_scenario, load_profiles
    from inspector.net.policy import LoopSettings
    from inspector.net.session import record_session

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
    secrets = _secrets(profile)
    try:
        session = run_interruptible(
            record_session(profile, scenario, args.out, settings, model=args.model,
                           headers=headers, on_attempt=lambda line: _say(line, secrets))
        )  # fmt: skip
    except Interrupted as stop:
        return _interrupted(kept, stop.signum)
    if session.error is not None:
        return _failed(session.error, args.out, secrets, kept)
    text = report.to_text(session.analysis, args.out, colour=sys.stdout.isatty())
    sys.stdout.write(mask_secrets(text, secrets))
    if _recording_stopped(session, args.out):
        return 2
    return 0 if session.analysis.all_valid else 1


def _recording_stopped(session: Any, out: str) -> bool:
    """One stderr line when the capture could not be written to the end (a full disk): the
    report above is the stream's own; the capture ends at its last whole record."""
    writer = getattr(session, "writer", None)
    failed = writer.failed if writer is not None else None
    if failed is None:
        return False
    print(f"toolcall-inspector: recording stopped: {failed} ({out} ends at its last whole "
          "record; the report above is the whole stream's)", file=sys.stderr)  # fmt: skip
    return True


def _say_if_not_played(profile: Any, model: str | None) -> None:
    """One line when the demo model does not play its own behaviour on the profile's dialect
    (the window's Live bar says the same; :mod:`inspector.net.demo.applies`)."""
    from inspector.net.demo.applies import NotPlayed
    from inspector.net.demo.scenarios import SCENARIOS

    scenario = SCENARIOS.get(model or profile.model) if profile.is_demo else None
    note = NotPlayed.of(scenario.to_model(), profile.dialect) if scenario else None
    if note is not None:
        print(f"note: {note.about()}", flush=True)


def _record_loop(
    args: argparse.Namespace,
    profile: Any,
    scenario: Any,
    settings: Any,
    headers: dict[str, str],
    kept: str,
) -> int:
    """``record --loop``: the rounds, then the report; exit 0 / 1 (an invalid call) / 2."""
    from inspector.core.reports import report
    from inspector.net.toolloop import record_loop
    from inspector.net.tools import ToolBox, scenario_options

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
    try:
        loop = run_interruptible(
            record_loop(profile, scenario, args.out, settings, tools=tools,
                        max_steps=args.max_steps, sequential=args.sequential, model=args.model,
                        headers=headers)
        )  # fmt: skip
    except Interrupted as stop:
        return _interrupted(kept, stop.signum)
    secrets = _secrets(profile)
    text = report.to_text(loop.analysis, args.out, colour=sys.stdout.isatty())
    sys.stdout.write(mask_secrets(text, secrets))
    if loop.error is not None:
        return _failed(loop.error, args.out, secrets, kept)
    if _recording_stopped(loop, args.out):
        return 2
    return 0 if loop.analysis.all_valid else 1
