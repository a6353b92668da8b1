"""The capture format's shared names: the header's format string, the error type.

Invariant: this module depends on nothing else of the capture code, so the writer
(:mod:`inspector.core.capture.writer`) and the reader (:mod:`inspector.core.capture.reader`) can
both use it.
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
