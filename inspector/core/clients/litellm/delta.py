"""What LiteLLM's ``Delta`` (``litellm/types/utils.py``) makes of one streamed delta's tool
calls, and the pydantic checks LiteLLM runs on a chunk, over the openai SDK's leniently built
chunk models (a JSON object is read as the model; anything else is not one).

Follows litellm 1.110.2: ``Delta.__init__``, ``ChatCompletionDeltaToolCall``,
``ChatCompletionDeltaCustomToolCall``, ``Function`` and ``Usage``.

Invariants:
- :func:`fragments` accepts a tool call only as pydantic does: an id, type and name that are
  strings or null, an index that is a lax integer (null: the count of index-less entries
  before it in the delta), a ``function`` object whose arguments are a string, null (``""``)
  or an object (``json.dumps``-ed); a ``custom`` call's name and input strings or null.
  Anything else raises :class:`Invalid`, and LiteLLM drops the whole delta. Entries that are
  no JSON object are left out.
- :func:`attr` reads a model's field as Python would: None when absent, AttributeError (worded
  as Python words it) on what is no model.
- :class:`KeyCall` is what ``stream_chunk_builder`` makes of one (choice, index) key's
  fragments, fed them in order: the last non-empty id and name, the argument pieces.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from inspector.core.clients.base import HandedCall, Partial
from inspector.core.clients.pydantic.words import lax_int, line, validation_error


@dataclass(slots=True)
class Frag:
    """One validated tool-call fragment of a returned chunk."""

    choice: Any
    index: int
    id: str | None
    type: str | None
    name: str | None
    arguments: str
    custom: bool = False
    """A custom tool call: ``name`` is its ``custom.name``, ``arguments`` its ``custom.input``."""


@dataclass(slots=True)
class KeyCall(Partial):
    """One (choice, index) key of ``stream_chunk_builder``'s ``get_combined_tool_content``,
    and a :class:`Partial` (a choice-0 call the driver reads is this very object while the
    two hold the same: no second object per call)."""

    custom: str | None = None
    inputs: list[str] | None = None
    """A custom call's input pieces (None until one comes)."""

    def starts(self, frag: Frag) -> bool:
        """This call, for choice 0 (exactly), holds what a new call the driver reads would
        after ``frag``, its first: no custom fragment, the same id and name."""
        return (
            type(frag.choice) is int
            and frag.choice == 0
            and self.custom is None
            and self.inputs is None
            and self.id == (frag.id or None)
            and self.name == (frag.name or None)
        )

    def take(self, frag: Frag) -> None:
        """The last non-empty id and name win; argument (or input) text is joined."""
        self.id = frag.id or self.id
        if frag.custom:
            self.custom = frag.name or self.custom
        else:
            self.name = frag.name or self.name
        if frag.arguments:
            if not frag.custom:
                self.add(frag.arguments)
            elif self.inputs is None:
                self.inputs = [frag.arguments]
            else:
                self.inputs.append(frag.arguments)

    def handed_over(self) -> HandedCall | None:
        """The call as handed over (custom first), None when LiteLLM drops it."""
        if self.id and self.custom:
            return HandedCall(self.id, self.custom, "".join(self.inputs or ()))
        if self.id and self.name:
            return HandedCall(self.id, self.name, self.arguments or "{}")
        return None


def delta_empty(delta: Any, text: Any) -> bool:
    """``is_delta_empty`` on choice 0's rebuilt ``Delta``."""
    if delta is None:
        return True
    calls, function_call = delta.get("tool_calls"), delta.get("function_call")
    if calls is None and function_call is None:
        return not text
    if isinstance(calls, list | tuple):
        try:
            fragments(0, calls)
        except Invalid:
            return True  # Delta(): empty
    return False


class Invalid(Exception):
    """pydantic refused the delta: LiteLLM drops it whole."""


def attr(model: Any, name: str) -> Any:
    """An attribute of an SDK model built leniently from JSON (None when absent)."""
    if isinstance(model, dict):
        return model.get(name)
    raise AttributeError(f"'{type(model).__name__}' object has no attribute '{name}'")


def _index(value: Any) -> int:
    """pydantic's lax ``int`` (the value is not null)."""
    index, problem = lax_int(value)
    if problem is not None or index is None:
        raise Invalid
    return index


def _optional_str(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise Invalid
    return value


def fragments(choice: Any, tool_calls: Any) -> list[Frag]:
    """``Delta(tool_calls=…)``: the validated fragments; Invalid when pydantic refuses."""
    out: list[Frag] = []
    missing = 0
    for tc in tool_calls:
        if not isinstance(tc, dict):
            continue  # neither a dict nor a tool call object: left out
        if tc.get("index") is None:
            index, missing = missing, missing + 1
        else:
            index = _index(tc["index"])
        cid, kind = _optional_str(tc.get("id")), _optional_str(tc.get("type"))
        if kind == "custom" or tc.get("custom") is not None:
            custom = tc.get("custom")
            if not isinstance(custom, dict):
                raise Invalid
            name, text = _optional_str(custom.get("name")), _optional_str(custom.get("input"))
            out.append(Frag(choice, index, cid, kind, name, text or "", custom=True))
            continue
        function = tc.get("function")
        if not isinstance(function, dict):
            raise Invalid
        arguments = function.get("arguments")
        if arguments is None and isinstance(function.get("parameters"), dict):
            arguments = function["parameters"]
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments)
        elif arguments is None:
            arguments = ""
        elif not isinstance(arguments, str):
            raise Invalid
        name = _optional_str(function.get("name"))
        out.append(Frag(choice, index, cid, kind or "function", name, arguments))
    return out


def check_usage(usage: Any) -> None:
    """``litellm.Usage(**usage.model_dump())``: its token counts (``or 0``) must be integers;
    raises pydantic's ``ValidationError``."""
    if not isinstance(usage, dict):
        return
    errors = []
    for name in ("completion_tokens", "prompt_tokens", "total_tokens"):
        value = usage.get(name) or 0
        problem = lax_int(value)[1]
        if problem is not None:
            errors.append(line(name, problem, value))
    if errors:
        raise validation_error("Usage", errors)
