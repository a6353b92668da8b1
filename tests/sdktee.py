"""What an SDK read, byte for byte: an HTTP client of the SDK's own HTTP package whose
transport is the real network one, keeping a copy of every response body as it is read.
Shared by the SDK-parity and proxy tests."""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any


def http_lib(sdk: ModuleType) -> ModuleType:
    """The httpx-compatible package ``sdk``'s HTTP client is built on (httpx or httpx2)."""
    base = next(c for c in sdk.DefaultAsyncHttpxClient.__mro__ if c.__name__ == "AsyncClient")
    return importlib.import_module(base.__module__.split(".")[0])


class Tee:
    """``lib``'s real network transport, keeping a copy of every response body as it is read.

    Only a pass-through: requests go over loopback TCP exactly as the SDK sends them.
    """

    def __init__(self, lib: ModuleType) -> None:
        self.bodies: list[bytearray] = []
        bodies = self.bodies

        class Copy(lib.AsyncByteStream):  # type: ignore[name-defined,misc]
            def __init__(self, inner: Any, sink: bytearray) -> None:
                self._inner, self._sink = inner, sink

            async def __aiter__(self) -> AsyncIterator[bytes]:
                async for chunk in self._inner:
                    self._sink += chunk
                    yield chunk

            async def aclose(self) -> None:
                await self._inner.aclose()

        class Transport(lib.AsyncBaseTransport):  # type: ignore[name-defined,misc]
            def __init__(self) -> None:
                self._inner = lib.AsyncHTTPTransport()

            async def handle_async_request(self, request: Any) -> Any:
                response = await self._inner.handle_async_request(request)
                sink = bytearray()
                bodies.append(sink)
                return lib.Response(
                    response.status_code,
                    headers=response.headers,
                    stream=Copy(response.stream, sink),
                    extensions=response.extensions,
                )

            async def aclose(self) -> None:
                await self._inner.aclose()

        self.client = lib.AsyncClient(transport=Transport(), trust_env=False)
        """An ``AsyncClient`` of ``lib`` to hand to the SDK."""

    def last_body(self) -> bytes:
        """The last body the SDK read, whole."""
        return bytes(self.bodies[-1])
