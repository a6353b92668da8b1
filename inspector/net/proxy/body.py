"""The recording session's side of a relay: the upstream's answer as an httpx response whose
body is the relay's queued copy, decoded (:class:`RelayTransport`).

Invariants:
- The session sees the upstream's status and headers as received and the body with its
  Content-Encoding undone (a copy; the agent gets the bytes as received). A body that cannot
  be decoded is judged as received from there on.
- The body ends as the upstream's did: cleanly, with the upstream's error, or with
  :class:`~.relay.AgentGone` (a session cut short), except that an agent leaving once the
  stream was complete (the provider's end marker read) ends it cleanly: whoever hangs up after
  the end changes nothing. Where the agent left (:class:`~.relay.AgentLeft`), ``on_left`` is
  told before the bytes that follow.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
from httpx._decoders import ContentDecoder

from ..decoding import decoded, decoder_for
from .relay import AgentGone, AgentLeft, Relay

__all__ = ["RelayTransport", "decoded", "decoder_for"]


class _DecodedBody(httpx.AsyncByteStream):
    """The body a session reads: the relay's queued chunks, decoded, ended as the upstream's
    was; closing it detaches the session from the relay.

    Where the agent left, ``on_left`` is told (before the bytes that follow). An agent that
    left once the stream was complete (``complete()``: the provider's end marker was read)
    ends the body cleanly: whoever hangs up after the end changes nothing."""

    def __init__(self, relay: Relay, decoder: ContentDecoder, *,
                 on_left: Callable[[AgentLeft], None] | None = None,
                 complete: Callable[[], bool] | None = None) -> None:  # fmt: skip
        self._relay, self._decoder = relay, decoder
        self._decoding = True
        self._on_left, self._complete = on_left, complete

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            item = await self._relay.queued()
            if item is None:
                break
            if isinstance(item, AgentLeft):
                if self._on_left is not None:
                    self._on_left(item)
                continue
            if isinstance(item, BaseException):
                if isinstance(item, AgentGone) and self._complete and self._complete():
                    break
                raise item
            data = self._decode(item)
            if data:
                yield data
        tail = self._flush()
        if tail:
            yield tail

    def _decode(self, raw: bytes) -> bytes:
        if not self._decoding:
            return raw
        try:
            return self._decoder.decode(raw)
        except httpx.DecodingError:  # judged as received from here on; relayed regardless
            self._decoding = False
            return raw

    def _flush(self) -> bytes:
        if not self._decoding:
            return b""
        try:
            return self._decoder.flush()
        except httpx.DecodingError:
            return b""

    async def aclose(self) -> None:
        self._relay.detach()


class RelayTransport(httpx.AsyncBaseTransport):
    """What a session's httpx client sends through: whatever request the session builds,
    the relay's own request went upstream (the agent's, as received), and the session gets
    the upstream's answer with a decoded copy of its body."""

    def __init__(self, relay: Relay, *, on_left: Callable[[AgentLeft], None] | None = None,
                 complete: Callable[[], bool] | None = None) -> None:  # fmt: skip
        """``on_left`` and ``complete``: see :class:`_DecodedBody`."""
        self.relay = relay
        self._on_left, self._complete = on_left, complete

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        answer = await self.relay.head()
        headers = httpx.Headers(answer.headers)
        extensions: dict[str, Any] = {"http_version": answer.http_version.encode("ascii")}
        if answer.reason is not None:
            extensions["reason_phrase"] = answer.reason.encode("ascii", "replace")
        body = _DecodedBody(self.relay, decoder_for(headers), on_left=self._on_left,
                            complete=self._complete)  # fmt: skip
        return httpx.Response(answer.status, headers=headers, stream=body, extensions=extensions)
