"""The recording proxy the proxy's tests share (a module may still define its own ``proxy``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from inspector.net.proxy import RecordingProxy


@pytest.fixture
async def proxy(demo: str, tmp_path: Path) -> AsyncIterator[RecordingProxy]:
    """A recording proxy in front of a fresh demo provider, writing to ``tmp_path/captures``."""
    server = RecordingProxy(demo, captures=tmp_path / "captures")
    await server.start()
    yield server
    await server.stop()
