"""``toolcall-inspector proxy``: the recording proxy in the foreground, one line per request.

Exit codes: 0 when stopped by Ctrl+C or SIGTERM (the normal way to end a server), 2 when it
cannot start (a bad upstream URL or listen address, an address in use, a captures folder that
cannot be made).

Invariants:
- Ctrl+C and SIGTERM stop it the same way, whatever signal dispositions the process
  inherited (:func:`.record.run_interruptible`): every exchange in flight is
  cancelled, so its capture gets its ``cancelled`` end record and is closed, then one
  "stopped" line says how many requests went through and where the captures are.
- Nothing printed holds a credential: paths are listed with their secrets redacted, and
  errors are built from redacted URLs.
- One line per request, printed when the agent has had its answer (``Exchange.line``: time,
  method, path, model, status, then calls and verdict, or the size of a forwarded request).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.core.base.errors import InspectorError
from inspector.core.base.settings import (
    DEFAULT_MODE,
    DRAIN_BYTES,
    DRAIN_SECONDS,
    HEADER_TIMEOUT,
    VALIDATION_MODES,
)

if TYPE_CHECKING:
    from inspector.net.proxy import RecordingProxy
    from inspector.net.proxy.looplag import LoopLag

MIB = 1024 * 1024

DEFAULT_LISTEN = "127.0.0.1:8766"
"""Next to the demo provider's 8765 (as :data:`inspector.net.proxy.DEFAULT_LISTEN`)."""
DEFAULT_CAPTURES = "captures"


def add_proxy_parser(sub: Any) -> None:
    """The ``proxy`` subcommand's options, on the subparsers ``sub``."""
    p = sub.add_parser(
        "proxy",
        help="a recording proxy: point an agent at it, see and keep its LLM streams",
        description="Forward every request to the upstream unchanged and stream each answer "
        "back chunk by chunk; record every LLM request (chat/completions, responses, messages, "
        "generateContent, Bedrock's converse-stream: binary bodies byte for byte) as a capture "
        "judged against the request's own tools. Keys pass "
        "through and are never written (docs/proxy.md). Ctrl+C or SIGTERM stops it.",
    )
    p.add_argument(
        "--upstream",
        required=True,
        metavar="URL",
        help="the provider's base URL, e.g. https://api.openai.com/v1",
    )
    p.add_argument(
        "--listen",
        default=DEFAULT_LISTEN,
        metavar="HOST:PORT",
        help=f"address to listen on (default {DEFAULT_LISTEN}; port 0: any free one)",
    )
    p.add_argument(
        "--captures",
        default=DEFAULT_CAPTURES,
        metavar="DIR",
        help=f"folder for the captures (default ./{DEFAULT_CAPTURES})",
    )
    p.add_argument("--validation", choices=VALIDATION_MODES, default=DEFAULT_MODE)
    p.add_argument(
        "--read-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds without a byte from the upstream before giving up (default 60)",
    )
    p.add_argument(
        "--no-drain",
        action="store_true",
        help="when the agent hangs up early, drop the upstream request at once (default: keep "
        "reading it to its end, bounded, so the capture holds the whole stream; the provider "
        "keeps generating, and billing, meanwhile)",
    )
    p.add_argument(
        "--drain-seconds",
        type=float,
        default=DRAIN_SECONDS,
        metavar="S",
        help=f"read on at most this long once the agent left (default {DRAIN_SECONDS:g})",
    )
    p.add_argument(
        "--drain-mb",
        type=float,
        default=DRAIN_BYTES / MIB,
        metavar="MB",
        help=f"read on at most this many MiB once the agent left (default {DRAIN_BYTES // MIB})",
    )
    p.add_argument(
        "--header-timeout",
        type=float,
        default=HEADER_TIMEOUT,
        metavar="S",
        help="seconds a request's headers may take to arrive, from its first byte (default "
        f"{HEADER_TIMEOUT:g}); a client trickling them is sent 408 and its connection closed",
    )
    p.add_argument(
        "--loop-lag",
        metavar="FILE",
        help="measure how long the proxy's event loop is held (a 2 ms ticker) and write every "
        "stall to FILE (JSON) when stopped: for bench/proxy_body.py",
    )
    p.add_argument(
        "--connect-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds to connect to the upstream (default 10)",
    )


def proxy(args: argparse.Namespace) -> int:
    """``toolcall-inspector proxy``: serve until Ctrl+C / SIGTERM (exit 0); 2 if it cannot
    start."""
    from inspector.cli.record import Interrupted, run_interruptible
    from inspector.net.proxy import Drain, ProxyError, RecordingProxy, parse_listen
    from inspector.net.proxy.looplag import LoopLag

    try:
        host, port = parse_listen(args.listen)
    except ProxyError as exc:
        raise InspectorError(f"--listen: {exc}") from None
    if args.read_timeout <= 0 or args.connect_timeout <= 0:
        raise InspectorError("--read-timeout and --connect-timeout take a positive number")
    if args.header_timeout <= 0:
        raise InspectorError("--header-timeout takes a positive number of seconds")
    if args.drain_seconds <= 0 or args.drain_mb <= 0:
        raise InspectorError("--drain-seconds and --drain-mb take a positive number")
    drain = Drain(not args.no_drain, args.drain_seconds, int(args.drain_mb * MIB))
    try:
        server = RecordingProxy(
            args.upstream,
            host=host,
            port=port,
            captures=args.captures,
            validation=args.validation,
            connect_timeout=args.connect_timeout,
            read_timeout=args.read_timeout,
            drain=drain,
            header_timeout=args.header_timeout,
            on_end=lambda ex: print(ex.line(), flush=True),
        )
    except ProxyError as exc:
        raise InspectorError(f"--upstream: {exc}") from None
    try:
        Path(args.captures).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InspectorError(f"cannot use {args.captures} for captures: {exc.strerror}") from None
    lag = LoopLag() if args.loop_lag else None
    try:
        run_interruptible(_serve(server, lag))
    except Interrupted:
        pass
    except OSError as exc:
        print(f"toolcall-inspector: cannot listen on {args.listen}: {exc.strerror or exc}",
              file=sys.stderr)  # fmt: skip
        return 2
    finally:
        if lag is not None:
            try:
                lag.write(args.loop_lag)
            except OSError as exc:
                print(f"toolcall-inspector: cannot write {args.loop_lag}: {exc.strerror}",
                      file=sys.stderr)  # fmt: skip
    recorded = sum(1 for ex in server.exchanges if ex.recorded)
    print(f"proxy stopped: {len(server.exchanges)} request(s), {recorded} recorded "
          f"(captures: {args.captures})", flush=True)  # fmt: skip
    return 0


def banner(server: RecordingProxy) -> str:
    """What the proxy prints once it listens."""
    upstream = server.upstream.shown()
    return "\n".join(
        [
            f"Tool-Call Inspector proxy listening on {server.origin}, forwarding to {upstream}",
            f"  the agent's base URL: {server.agent_url}   (instead of {upstream})",
            f"  captures: {server.captures}",
            f"  an agent that hangs up early: the upstream is read on {server.drain.describe()}"
            if server.drain.on
            else "  an agent that hangs up early: the upstream request is dropped (--no-drain)",
            "time  method  path  model  status  calls  verdict   (Ctrl+C stops)",
        ]
    )


async def _serve(server: RecordingProxy, lag: LoopLag | None = None) -> None:
    await server.start()
    if lag is not None:
        lag.start()
    try:
        print(banner(server), flush=True)
        await asyncio.Event().wait()  # until cancelled by a signal
    finally:
        if lag is not None:
            await lag.stop()
        await server.stop()
