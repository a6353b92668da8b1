"""The capture format, and its shared names: the header's format string, the error type.

A capture is JSONL (UTF-8): a header line (``{"format": "toolcall-inspector-capture",
"version": 1, ...}``) then one record per line, each with a ``type`` and a 1-based ``attempt``
(a retry is a second physical request, hence a new attempt): ``request``, ``response``,
``chunk``, ``attempt``, ``event``, ``end``. A chunk holds its bytes as ``text`` when they are
valid UTF-8, else as ``b64``, with ``t``, the seconds since its attempt's request.

Invariant: this module depends on nothing else of the capture code, so the writer
(:mod:`inspector.core.capture.writer`), the records (:mod:`inspector.core.capture.records`)
and the reader (:mod:`inspector.core.capture.reader`) can all use it.
"""

from __future__ import annotations

from typing import Final

from inspector.core.base.errors import InspectorError

FORMAT: Final = "toolcall-inspector-capture"
TOOL: Final = "toolcall-inspector"
REDACTED: Final = "REDACTED"


class CaptureError(InspectorError):
    """A capture (or body) that cannot be opened; ``str()`` is one line for the user."""

    def __init__(
        self,
        reason: str,
        *,
        path: str | None = None,
        line: int | None = None,
        offset: int | None = None,
    ) -> None:
        self.reason = " ".join(reason.splitlines())
        self.path = path
        self.line = line
        """1-based line number of the offending line, or None."""
        self.offset = offset
        """Byte offset of the start of that line, or None."""
        super().__init__(self._message())

    def _message(self) -> str:
        parts = [p for p in (self.path, self.line and f"line {self.line}") if p]
        return ": ".join([*parts, self.reason])

    def __str__(self) -> str:
        return self._message()

    def located(self, path: str, line: int | None, offset: int | None) -> CaptureError:
        """A copy with the location filled in where this error has none."""
        if self.line is not None:
            line, offset = self.line, self.offset
        return CaptureError(self.reason, path=self.path or path, line=line, offset=offset)
