"""Waiting for a proxied exchange to end: for the condition, with a bound only a hang reaches."""

from __future__ import annotations

import asyncio

from inspector.net.proxy import Exchange, RecordingProxy

HANG = 60.0
"""Seconds an exchange may take to end before the test fails as hung (a bound, not a speed:
the 250 polls of 20 ms it replaces were 5 s, a speed on a loaded machine)."""


async def ended(proxy: RecordingProxy) -> Exchange:
    """The last exchange once it has ended: its agent has had its answer (which the test
    awaited) and its recording has closed (set up after the first byte, closed after the
    last: never before the agent has it)."""
    ex = proxy.exchanges[-1]
    async with asyncio.timeout(HANG):
        while not ex.ended:
            await asyncio.sleep(0.02)
    return ex
