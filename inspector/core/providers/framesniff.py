"""The ``auto`` dialect's framing: a body's first bytes decide how it is framed.

Every built-in stream but one is server-sent events; a provider with a framing of its own
(Bedrock's binary event-stream frames) is recognised from the body's first bytes
(:attr:`~inspector.core.base.provider.Head.data`), before any event is cut.
:class:`SniffingDecoder` holds the first bytes until the providers can tell (a provider that
proves it, or the only likely one, by the sniffer's rule), then hands them to the chosen
framing's decoder, and names that provider to the ``auto`` dialect when its framing is not
SSE. Anything else, or any doubt, is SSE, exactly as before.

Invariants:
- Chunking never changes the decision: it is taken once the held bytes hold the probe, or at
  the end of the body, and reads the probe alone: the first line (with its line end) or the
  first :data:`DECIDE_AT` bytes, whichever is shorter; the first 256 bytes of a body whose
  first byte is zero (binary); the whole body when it is shorter.
- Nothing is lost or reordered: the held bytes are fed to the chosen decoder first, as one
  chunk at the time of the chunk that decided; offsets stay absolute.
- Once decided, :attr:`SniffingDecoder.decided` is the chosen decoder: the stream feeds it
  directly from then on (:class:`~inspector.core.calls.stream.StreamState` swaps it in).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from inspector.core.base.model import SSEEvent
from inspector.core.base.provider import FrameDecoder, Framing, Head, Providers
from inspector.core.events.sse import SSE

DECIDE_AT: Final = 4096
"""Bytes held at most before deciding (a JSON line or a frame's prelude and headers fit)."""
_BINARY_AT: Final = 256  # a zero-led start: enough for a prelude and Bedrock's headers


class SniffingDecoder:
    """A FrameDecoder that picks the framing from the body's first bytes (see the module)."""

    def __init__(self, providers: Providers, choose: Callable[[], Any], recognise: Any) -> None:
        self._providers = providers
        self._choose = choose  # a weak reference to the dialect's callback (no cycle)
        self._recognise = recognise
        self._held: list[bytes] = []
        self._size = 0
        self.decided: FrameDecoder | None = None
        """The chosen framing's decoder, once decided."""
        self.framing: Framing = SSE
        """The chosen framing (SSE until another is chosen)."""

    # -- the FrameDecoder protocol, before the decision ----------------------------------

    @property
    def offset(self) -> int:
        return self.decided.offset if self.decided is not None else self._size

    @property
    def fresh(self) -> bool:
        return self.decided.fresh if self.decided is not None else True

    @property
    def marked(self) -> int:
        return self.decided.marked if self.decided is not None else 0

    @property
    def plain(self) -> Any:
        return self.decided.plain if self.decided is not None else None

    def feed(self, data: bytes, t: float = 0.0) -> list[SSEEvent]:
        """Hold ``data`` until the framing is decided; then what the chosen decoder gives."""
        if self.decided is not None:
            return self.decided.feed(data, t)
        if not data:
            return []
        self._held.append(data)
        self._size += len(data)
        held = b"".join(self._held)
        if _probe(held) is None:
            return []
        return self._decide(held, t)

    def feed_many(
        self, chunks: Sequence[tuple[float, bytes]], bounds: list[int] | None = None
    ) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        for i, (t, data) in enumerate(chunks):
            if self.decided is not None:
                rest = chunks[i:]
                return out + self.decided.feed_many(rest, bounds[i:] if bounds else None)
            out += self.feed(data, t)
        return out

    def feed_plain(self, chunks: Sequence[tuple[float, bytes]], bounds: list[int]) -> Any:
        return self.decided.feed_plain(chunks, bounds) if self.decided is not None else None

    def close(self, t: float | None = None) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        if self.decided is None:
            out = self._decide(b"".join(self._held), t or 0.0)
        assert self.decided is not None
        return out + self.decided.close(t)

    # -- the decision --------------------------------------------------------------------

    def _decide(self, held: bytes, t: float) -> list[SSEEvent]:
        self._held = []
        probe = _probe(held)
        found = self._recognise(self._providers, Head((), held if probe is None else probe))
        if found is not None and found.framing.name != SSE.name:
            self.framing = found.framing
            chose = self._choose()
            if chose is not None:
                chose(found)
        self.decided = self.framing.decoder()
        return self.decided.feed(held, t) if held else []


def _probe(held: bytes) -> bytes | None:
    """The bytes the decision reads, or None while ``held`` may still grow into them."""
    if held[:1] == b"\x00":
        return held[:_BINARY_AT] if len(held) >= _BINARY_AT else None
    ends = [i for i in (held.find(b"\n", 0, DECIDE_AT), held.find(b"\r", 0, DECIDE_AT)) if i >= 0]
    if ends:
        return held[: min(ends) + 1]
    return held[:DECIDE_AT] if len(held) >= DECIDE_AT else None


class SniffingFraming:
    """The framing of one ``auto`` body: see :class:`SniffingDecoder`."""

    name = "auto"
    reads_back = True  # SSE's, the likely outcome; a chosen framing that does not is swapped in

    def __init__(self, providers: Providers, choose: Callable[[], Any], recognise: Any) -> None:
        """``choose``: a ``WeakMethod`` of the dialect's callback, given the chosen provider
        (the dialect holds this framing: a strong reference back would be a cycle)."""
        self._args = (providers, choose, recognise)

    def decoder(self) -> SniffingDecoder:
        return SniffingDecoder(*self._args)
