"""``toolcall-inspector serve CAPTURE|HAR|BODY``: answer the recorded exchange as a provider.

Prints the URL it listens on (127.0.0.1 on a port the OS picks unless ``--listen`` says
otherwise), how to point each SDK at it, then one line per request answered, until Ctrl+C or
SIGTERM (exit 0). What it answers and in which order: :mod:`inspector.net.serve.server`.
A capture that cannot be read, a bad ``--speed``/``--listen`` or an address that cannot be
bound is one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from typing import TYPE_CHECKING, Any, TextIO

from inspector.core.base.errors import InspectorError
from inspector.core.capture.records import Capture
from inspector.net.serve.plan import SPEEDS, Reply, Speed, parse_speed

if TYPE_CHECKING:
    from inspector.net.serve.server import Served


def add_serve_parser(sub: Any) -> None:
    """The ``serve`` subcommand's options, on the subparsers ``sub``."""
    s = sub.add_parser(
        "serve",
        help="answer a recorded exchange as a provider (point any client at it, no key)",
        description="Answer a capture's recorded exchanges as a provider: the same status, "
        "headers and body bytes, at the recorded pace or faster; several attempts in order.",
    )
    s.add_argument("path", help="a capture (.jsonl), a HAR, or a raw response body")
    s.add_argument(
        "--speed",
        default="1",
        metavar="|".join(SPEEDS),
        help="1: the recorded pace (default); 10: ten times faster; max: no waits",
    )
    s.add_argument(
        "--listen",
        default="127.0.0.1:0",
        metavar="HOST:PORT",
        help="address to bind (default 127.0.0.1 on a free port)",
    )
    s.add_argument("--entry", type=int, metavar="N", help="of a HAR: the session at entry N")


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` or ``PORT`` (host 127.0.0.1); InspectorError otherwise."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or int(port) > 65535:
        raise InspectorError(f"--listen {text!r}: give HOST:PORT (PORT 0 picks a free one)")
    return host, int(port)


def banner(url: str, capture: Capture, name: str) -> str:
    """What ``serve`` prints once it listens."""
    n = len(capture.attempts)
    lines = [
        f"Serving {name} ({n} attempt{'s' * (n != 1)}, answered in order) on {url}",
        "",
        f'  OpenAI SDK:    OpenAI(base_url="{url}/v1", api_key="unused")',
        f'  Anthropic SDK: Anthropic(base_url="{url}", api_key="unused")',
        f'  google-genai:  Client(api_key="unused", http_options={{"base_url": "{url}"}})',
        "",
        "Any path is answered; turn the client's retries off. Ctrl+C stops.",
    ]
    return "\n".join(lines)


def served_line(served: Served, reply: Reply) -> str:
    """One request answered: ``POST /v1/chat/completions -> attempt 1: 200, 1234 bytes``."""
    what = "no response (reset)" if reply.status is None else f"{reply.status}"
    if reply.status is not None:
        what += f", {len(reply.body)} bytes" + (", then a reset" if reply.reset else "")
    other = f" (recorded on {served.recorded_path})" if served.other_path else ""
    return f"{served.method} {served.path} -> attempt {served.attempt}: {what}{other}"


def serve(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``toolcall-inspector serve``: serve until interrupted (0), or one line and 2."""
    from inspector.api import load

    stream = out if out is not None else sys.stdout
    speed = parse_speed(args.speed)
    host, port = parse_listen(args.listen)
    capture = load(args.path, entry=args.entry)
    try:
        asyncio.run(_serve(capture, args.path, speed, host, port, stream))
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        raise InspectorError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    print("stopped", file=stream, flush=True)
    return 0


async def _serve(
    capture: Capture, name: str, speed: Speed, host: str, port: int, out: TextIO
) -> None:
    from inspector.net.serve.server import CaptureServer  # aiohttp: only to serve

    server = CaptureServer(capture, speed=speed, host=host, port=port)
    server.on_served = lambda served, reply: print(served_line(served, reply), file=out, flush=True)
    url = await server.start()
    print(banner(url, capture, name), file=out, flush=True)
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
        loop.add_signal_handler(signal.SIGTERM, stopped.set)
    try:
        await stopped.wait()
    finally:
        await server.stop()
