"""Where a raw body in a provider's own framing (Bedrock's binary frames, not SSE) is cut into
replay steps: after each wire event that framing's decoder cuts.

:func:`cutter` picks the finder for a raw body: :class:`~.cuts.CutFinder` (SSE's lines, the
default) unless the dialect forced, or the body's first bytes as the providers recognise them
(:meth:`~inspector.core.base.provider.Provider.recognises` with ``Head(data=…)``), name a
provider with a framing of its own; then :class:`FrameCuts`.

Invariants:
- The cuts are exactly the ends of the events the framing's decoder emits for the whole body,
  increasing (the decoder cuts the same events whatever the chunking, so feeding it a slice at
  a time changes nothing); a step is then one frame.
- Scanning feeds at most ``size`` bytes a call (:meth:`FrameCuts.scan`), like ``CutFinder``.
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.provider import Framing, Head, Providers
from inspector.core.base.settings import AUTO
from inspector.core.events.sse import SSE
from inspector.core.providers.sniff import recognise
from inspector.core.replay.cuts import CutFinder, offsets

_PROBE = 4096


class FrameCuts:
    """The cuts of ``body`` in ``framing`` (see the module docstring); the same interface as
    :class:`~.cuts.CutFinder` (``scan``, ``cuts``, ``pos``, ``done``)."""

    def __init__(self, body: bytes, framing: Framing) -> None:
        self.body = body
        self.cuts = offsets(len(body))
        """The cuts found so far."""
        self.pos = 0
        """Bytes fed to the decoder so far."""
        self.done = False
        self._decoder = framing.decoder()

    def scan(self, size: int) -> bool:
        """Feed the next ``size`` bytes (at least one); True once the whole body is cut."""
        if self.done:
            return True
        end = min(len(self.body), self.pos + max(size, 1))
        events = self._decoder.feed(self.body[self.pos : end])
        self.pos = end
        if end >= len(self.body):
            events += self._decoder.close()
            self.done = True
        cuts = self.cuts
        for ev in events:
            if not cuts or ev.end > cuts[-1]:
                cuts.append(ev.end)
        return self.done


def cutter(body: bytes, dialect: str, providers: Providers) -> Any:
    """The cut finder of a raw ``body`` read as ``dialect`` (see the module docstring)."""
    if dialect != AUTO:
        framing = providers.get(dialect).framing
    else:
        found = recognise(providers, Head((), body[:_PROBE]))
        framing = found.framing if found is not None else SSE
    return CutFinder(body) if framing.name == SSE.name else FrameCuts(body, framing)
