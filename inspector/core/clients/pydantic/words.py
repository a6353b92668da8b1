"""pydantic's lax validation of the few field types client libraries check on streamed data,
and its ``ValidationError`` wording, for replicas whose library raises one.

Follows pydantic 2.14 (pydantic-core), as the installed LiteLLM and LangChain use it.

Invariants:
- ``int`` accepts an integer (a boolean too), a float with no fractional part and a string of
  digits (surrounding blanks allowed); anything else is refused with pydantic's own message
  and error type. ``str`` accepts only a string.
- :func:`validation_error` words the error as ``str(ValidationError)``: a head line counting
  the errors, then per error its location, message, ``[type=…, input_value=…, input_type=…]``
  (the value's ``repr``, cut to its first 25 and last 24 bytes when longer than 50) and the
  documentation link.
"""

from __future__ import annotations

import math
import re
from typing import Any, Final

from inspector.core.clients.base import ClientRaised

DOCS: Final = "https://errors.pydantic.dev/2.14/v/"
_DIGITS: Final = re.compile(r"\s*[+-]?\d+\s*")

Problem = tuple[str, str]
"""(message, error type) of one refused value."""


def lax_int(value: Any) -> tuple[int | None, Problem | None]:
    """``int | None`` in lax mode: (the value, None), or (None, the problem)."""
    if value is None or isinstance(value, int):
        return (None if value is None else int(value)), None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None, ("Input should be a finite number", "finite_number")
        if value.is_integer():
            return int(value), None
        return None, (
            "Input should be a valid integer, got a number with a fractional part",
            "int_from_float",
        )
    if isinstance(value, str):
        if _DIGITS.fullmatch(value):
            return int(value), None
        return None, (
            "Input should be a valid integer, unable to parse string as an integer",
            "int_parsing",
        )
    return None, ("Input should be a valid integer", "int_type")


def str_problem(value: Any) -> Problem | None:
    """``str | None``: None when ``value`` is accepted."""
    if value is None or isinstance(value, str):
        return None
    return "Input should be a valid string", "string_type"


def line(loc: str, problem: Problem, value: Any) -> str:
    """One error of a ``ValidationError``, as pydantic words it."""
    message, kind = problem
    shown = repr(value)
    raw = shown.encode()
    if len(raw) > 50:
        shown = raw[:25].decode(errors="ignore") + "..." + raw[-24:].decode(errors="ignore")
    return (
        f"{loc}\n  {message} [type={kind}, input_value={shown}, "
        f"input_type={type(value).__name__}]\n    For further information visit {DOCS}{kind}"
    )


def validation_error(model: str, lines: list[str]) -> ClientRaised:
    """``ValidationError`` for ``model`` with ``lines`` (at least one)."""
    n = len(lines)
    head = f"{n} validation error{'s' if n > 1 else ''} for {model}"
    return ClientRaised("ValidationError", "\n".join([head, *lines]))
