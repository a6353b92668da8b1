"""OpenAI Responses streams of items that are not function calls (the scenarios of
:mod:`.items`), and the dialect's renderer.

- Hosted web search: ``output_item.added`` (``ws_…``, ``in_progress``),
  ``web_search_call.in_progress`` / ``.searching`` / ``.completed``, ``output_item.done`` with
  ``action`` (``search``, the query, its ``sources``), then the answer's message item with a
  ``url_citation`` (``output_text.annotation.added``), as ``openai-web-search-tool`` does.
- Built-in apply_patch: ``apply_patch_call`` (``apc_…``, ``operation`` with an empty
  ``diff``), ``apply_patch_call_operation_diff.delta`` events, ``.done`` with the whole diff,
  ``output_item.done`` with the operation, as ``openai-apply-patch-tool`` does.
- Custom tool: ``custom_tool_call`` (``ctc_…``, ``input: ""``),
  ``custom_tool_call_input.delta`` events, ``.done`` with the whole input, ``output_item.done``
  with it, as ``openai-custom-tool`` does and the openai package's event types say.

Invariants:
- :data:`VARIANTS` holds every Responses rendering: :data:`.responses.VARIANTS` (read when
  this module is imported) plus these; :func:`render` is the dialect's renderer. The
  existing renderings are untouched, byte for byte.
- ``sequence_number`` counts every event; ``output_index`` counts output items.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import items, responses
from .responses import Resp, stream
from .wire import Call, Frame, Turn, pieces, words


def _message(r: Resp, k: int, cite: int) -> tuple[list[Frame], dict[str, Any]]:
    """The answer's message item at output index ``k``, citing ``SOURCES[cite]`` over its
    first sentence: its events and its done item."""
    text = r.turn.text
    title, url, _ = items.SOURCES[cite]
    end = text.index(".") + 1 if "." in text else len(text)
    note = {"type": "url_citation", "end_index": end, "start_index": 0, "title": title,
            "url": url}  # fmt: skip
    ref = {"item_id": r.msg_id, "output_index": k, "content_index": 0}
    item: dict[str, Any] = {"id": r.msg_id, "type": "message", "status": "in_progress",
                            "content": [], "role": "assistant"}  # fmt: skip
    part: dict[str, Any] = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
    out: list[Frame] = [
        r.event("response.output_item.added", output_index=k, item=item),
        r.event("response.content_part.added", **ref, part=part),
    ]
    out += [r.event("response.output_text.delta", **ref, delta=w, logprobs=[]) for w in words(text)]
    out.append(r.event("response.output_text.annotation.added", **ref, annotation_index=0,
                       annotation=note))  # fmt: skip
    done_part = {**part, "annotations": [note], "text": text}
    done = {**item, "status": "completed", "content": [done_part]}
    out += [
        r.event("response.output_text.done", **ref, text=text, logprobs=[]),
        r.event("response.content_part.done", **ref, part=done_part),
        r.event("response.output_item.done", output_index=k, item=done),
    ]
    return out, done


def _web_search(r: Resp) -> list[Frame]:
    ws_id = "ws_" + r.turn.ids.hex(50)
    ref = {"output_index": 0, "item_id": ws_id}
    action = {"type": "search", "query": items.QUERY, "sources": items.sources()}
    done = {"id": ws_id, "type": "web_search_call", "status": "completed", "action": action}
    out = [
        *r.head(),
        r.event("response.output_item.added", output_index=0,
                item={"id": ws_id, "type": "web_search_call", "status": "in_progress"}),
        r.event("response.web_search_call.in_progress", **ref),
        r.event("response.web_search_call.searching", **ref),
        r.event("response.web_search_call.completed", **ref),
        r.event("response.output_item.done", output_index=0, item=done),
    ]  # fmt: skip
    message, said = _message(r, 1, 0)  # (Resp.completed would put the message item first)
    completed = r.event("response.completed", response=r.response("completed", [done, said]))
    return [*out, *message, completed]


def _patch_item(call: Call, status: str, diff: str) -> dict[str, Any]:
    return {"id": call.item_id, "type": "apply_patch_call", "status": status,
            "call_id": call.id, "operation": {**call.args, "diff": diff}}  # fmt: skip


def _apply_patch(r: Resp) -> list[Frame]:
    (call,) = r.turn.calls
    diff, ref = call.args["diff"], {"item_id": call.item_id, "output_index": 0}
    done = _patch_item(call, "completed", diff)
    out = [
        *r.head(),
        r.event("response.output_item.added", output_index=0,
                item=_patch_item(call, "in_progress", "")),
        *(r.event("response.apply_patch_call_operation_diff.delta", **ref, delta=p)
          for p in pieces(diff)),
        r.event("response.apply_patch_call_operation_diff.done", **ref, diff=diff),
        r.event("response.output_item.done", output_index=0, item=done),
    ]  # fmt: skip
    return [*out, r.completed([done])]


def _custom(r: Resp) -> list[Frame]:
    (call,) = r.turn.calls
    text, ref = call.args["input"], {"item_id": call.item_id, "output_index": 0}
    item = {"type": "custom_tool_call", "id": call.item_id, "call_id": call.id,
            "name": call.name, "input": ""}  # fmt: skip
    done = {**item, "input": text, "status": "completed"}
    out = [
        *r.head(),
        r.event("response.output_item.added", output_index=0, item=item),
        *(r.event("response.custom_tool_call_input.delta", **ref, delta=p) for p in pieces(text)),
        r.event("response.custom_tool_call_input.done", **ref, input=text),
        r.event("response.output_item.done", output_index=0, item=done),
    ]
    return [*out, r.completed([done])]


ITEMS: dict[str, Callable[[Resp], list[Frame]]] = {
    items.WEB_SEARCH: _web_search,
    items.APPLY_PATCH: _apply_patch,
    items.CUSTOM_SQL: _custom,
}
"""The item scenarios' renderings (they render with or without calls of the agent)."""

VARIANTS: dict[str, Callable[[Resp], list[Frame]]] = {**responses.VARIANTS, **ITEMS}
"""Every Responses rendering by scenario name; anything else streams conformingly."""


def render(turn: Turn) -> list[Frame]:
    """The frames for ``turn`` in this dialect."""
    r = Resp(turn)
    if turn.variant in ITEMS:
        return ITEMS[turn.variant](r)
    variant = VARIANTS.get(turn.variant)
    return variant(r) if variant is not None and turn.calls else stream(r)
