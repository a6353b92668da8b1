"""Stage 1, bytes -> events: the incremental Server-Sent Events decoder (WHATWG rules), the
default framing (:data:`.sse.SSE`; a provider that frames its bytes otherwise brings its own
:class:`~inspector.core.base.provider.Framing`).

Owns framing only (lines, fields, comments, byte ranges, invalid UTF-8 as a decode error);
what an event's data means is the provider's business, one layer up. :mod:`.sse` decodes,
:mod:`.lines` holds its line-level helpers, and :mod:`.log` keeps a stream's events compactly
(:class:`~inspector.core.events.log.EventLog`, what ``StreamState.events`` is), reading a plain
data event's data back from the chunks :mod:`.held` keeps references to.
"""
