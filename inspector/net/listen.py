"""Listening on a loopback port with aiohttp: the one way the demo provider and ``serve`` open
theirs; and the one way the demo provider, ``serve`` and the proxy reset a connection.

Invariant: a site that fails to start leaves no runner behind (its cleanup runs before the
error propagates); the URL reports the port the OS chose for port 0, with an IPv6 host in
brackets.
"""

from __future__ import annotations

import contextlib
import socket
import struct

from aiohttp import web


async def listen(
    app: web.Application, host: str, port: int, shutdown_timeout: float
) -> tuple[web.AppRunner, int, str]:
    """Start ``app`` on ``host:port`` (0: the OS picks); return its runner, port and URL."""
    runner = web.AppRunner(
        app, access_log=None, handler_cancellation=True, shutdown_timeout=shutdown_timeout
    )
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    bound_host, bound_port = runner.addresses[0][:2]
    shown = bound_host if ":" not in bound_host else f"[{bound_host}]"
    return runner, bound_port, f"http://{shown}:{bound_port}"


def reset(request: web.Request) -> None:
    """Abort ``request``'s connection with a TCP reset (SO_LINGER 0): the peer sees the body
    cut off (ECONNRESET), never a clean end. Nothing happens on a connection already closing."""
    transport = request.transport
    if transport is None or transport.is_closing():
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()
