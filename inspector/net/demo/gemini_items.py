"""Gemini ``streamGenerateContent`` streams of the items of :mod:`.items` the dialect has, and
the dialect's renderer.

- Code execution: an event with an ``executableCode`` part (``language: PYTHON``, the whole
  code: Gemini sends a part whole), the next with its ``codeExecutionResult`` (``outcome:
  OUTCOME_OK``, ``output``), then the answer's text and ``finishReason: STOP``, as the Gemini
  API reference's code execution parts and google-genai's ``ExecutableCode`` /
  ``CodeExecutionResult`` types say. The request's tools get no call.

Invariants:
- :data:`VARIANTS` holds every Gemini rendering: :data:`.gemini.VARIANTS` plus these;
  :func:`render` is the dialect's renderer. The existing renderings are untouched, byte for
  byte.
"""

from __future__ import annotations

from collections.abc import Callable

from . import gemini, items
from .gemini import Generate, stream
from .wire import Frame, Turn


def _code_execution(g: Generate) -> list[Frame]:
    code = {"executableCode": {"language": "PYTHON", "code": items.GEMINI_CODE}}
    ran = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": items.GEMINI_OUTPUT}}
    return [g.event([code]), g.event([ran]), *g.text(), g.finish()]


ITEMS: dict[str, Callable[[Generate], list[Frame]]] = {items.CODE_EXECUTION: _code_execution}
"""The item scenarios' renderings (they render with or without calls of the agent)."""

VARIANTS: dict[str, Callable[[Generate], list[Frame]]] = {**gemini.VARIANTS, **ITEMS}
"""Every Gemini rendering by scenario name; anything else streams conformingly."""


def render(turn: Turn) -> list[Frame]:
    """The frames for ``turn`` in this dialect."""
    g = Generate(turn)
    if turn.variant in ITEMS:
        return ITEMS[turn.variant](g)
    variant = VARIANTS.get(turn.variant)
    return variant(g) if variant is not None and turn.calls else stream(g)
