"""``toolcall-inspector demo-server``: the demo provider (quirky streams in every dialect, no API
key) in the foreground, until Ctrl+C (exit 0)."""

from __future__ import annotations

import argparse
from typing import Any


def add_demo_parser(sub: Any) -> None:
    """The ``demo-server`` subcommand's options, on the subparsers ``sub``."""
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


def demo_server(args: argparse.Namespace) -> int:
    """``toolcall-inspector demo-server``: serve the demo provider until Ctrl+C (exit 0)."""
    from inspector.net.demo import run_demo_server

    return run_demo_server(args.host, args.port, args.chunk_delay)
