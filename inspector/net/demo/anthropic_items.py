"""Anthropic Messages streams of server tools and programmatic calls (the scenarios of
:mod:`.items`), and the dialect's renderer.

- Hosted web search: a ``server_tool_use`` block (``srvtoolu_01…``, ``web_search``, ``input:
  {}``) whose query streams as ``input_json_delta``, a ``web_search_tool_result`` block that
  arrives whole in its ``content_block_start`` (``web_search_result`` entries), the answer's
  text block, and ``message_delta`` with ``end_turn`` and ``usage.server_tool_use``, as
  ``anthropic-web-search-tool`` does.
- Programmatic tool calling: a text block, a ``server_tool_use`` ``code_execution`` block with
  ``caller: {"type": "direct"}`` whose code streams, then the agent's ``tool_use`` block with
  ``caller`` (``code_execution_20250825`` and the server tool's id), its input whole in
  ``content_block_start``; ``message_delta`` says ``tool_use`` and names the ``container``. A
  follow-up's call arrives whole inside ``message_start.content`` (stop reason there, then
  ``message_stop``), as ``anthropic-programmatic-tool-calling`` does.

Invariants:
- :data:`VARIANTS` holds every Anthropic rendering: :data:`.anthropic.VARIANTS` (read when
  this module is imported) plus these; :func:`render` is the dialect's renderer. The existing
  renderings are untouched, byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import anthropic, items
from .anthropic import Messages, stream
from .wire import Call, Frame, Turn, dumps, pieces, words

EXPIRES = "2026-01-01T00:00:00Z"
"""The container's expiry the demo names (a fixed time: streams are pure)."""


def _server(m: Messages, index: int, block: dict[str, Any], given: str) -> list[Frame]:
    """A server tool block whose input streams: start (``input: {}``), ``""``, pieces, stop."""
    return [
        m.event("content_block_start", index=index, content_block={**block, "input": {}}),
        m.json(index, ""),
        *(m.json(index, p) for p in pieces(given)),
        m.stop(index),
    ]


def _text(m: Messages, index: int, text: str) -> list[Frame]:
    start = m.event("content_block_start", index=index, content_block={"type": "text", "text": ""})
    body = [m.delta(index, {"type": "text_delta", "text": w}) for w in words(text)]
    return [start, *body, m.stop(index)]


def _end(m: Messages, reason: str, **delta: Any) -> list[Frame]:
    usage = {"output_tokens": m.turn.output_tokens, "server_tool_use": {"web_search_requests":
             1 if m.turn.variant == items.WEB_SEARCH else 0}}  # fmt: skip
    return [
        m.event("message_delta", delta={"stop_reason": reason, "stop_sequence": None, **delta},
                usage=usage),
        m.event("message_stop"),
    ]  # fmt: skip


def _web_search(m: Messages) -> list[Frame]:
    ids = m.turn.ids
    use = {"type": "server_tool_use", "id": "srvtoolu_01" + ids.token(22), "name": "web_search"}
    query = '{"query": "' + items.QUERY + '"}'
    found = [
        {"type": "web_search_result", "title": title, "url": url,
         "encrypted_content": ids.token(48), "page_age": age}
        for title, url, age in items.SOURCES
    ]  # fmt: skip
    result = {"type": "web_search_tool_result", "tool_use_id": use["id"], "content": found}
    return [
        m.start(),
        *_server(m, 0, use, query),
        m.event("content_block_start", index=1, content_block=result),
        m.stop(1),
        *_text(m, 2, m.turn.text),
        *_end(m, "end_turn"),
    ]


def _caller(call: Call) -> dict[str, Any]:
    return {"type": items.CODE_TOOL, "tool_id": call.item_id}


def _container(m: Messages) -> dict[str, Any]:
    return {"id": "container_011" + m.turn.ids.token(21), "expires_at": EXPIRES}


def _programmatic(m: Messages) -> list[Frame]:
    call = m.turn.calls[0]
    code = items.CODE.format(tool=call.name, args=call.args)
    use = {"type": "server_tool_use", "id": call.item_id, "name": "code_execution",
           "caller": {"type": "direct"}}  # fmt: skip
    block = {"type": "tool_use", "id": call.id, "name": call.name, "input": call.args,
             "caller": _caller(call)}  # fmt: skip
    given = '{"code": ' + dumps(code) + "}"
    return [
        m.start(),
        *_text(m, 0, m.turn.text),
        *_server(m, 1, use, given),
        m.event("content_block_start", index=2, content_block=block),
        m.stop(2),
        *_end(m, "tool_use", container=_container(m)),
    ]


def _next_call(m: Messages) -> list[Frame]:
    """A call made while the code still runs: whole inside ``message_start``."""
    call = m.turn.calls[0]
    block = {"type": "tool_use", "id": call.id, "name": call.name, "input": call.args,
             "caller": _caller(call)}  # fmt: skip
    message = {
        "model": m.turn.model, "id": m.id, "type": "message", "role": "assistant",
        "content": [block], "container": _container(m), "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 0, "output_tokens": 0,
                  "server_tool_use": {"web_search_requests": 0}},
    }  # fmt: skip
    return [m.event("message_start", message=message), m.event("message_stop")]


ITEMS: dict[str, Callable[[Messages], list[Frame]]] = {
    items.WEB_SEARCH: _web_search,
    items.PROGRAMMATIC: _programmatic,
    items.NEXT_CALL: _next_call,
}
"""The item scenarios' renderings (they render with or without calls of the agent)."""

VARIANTS: dict[str, Callable[[Messages], list[Frame]]] = {**anthropic.VARIANTS, **ITEMS}
"""Every Anthropic rendering by scenario name; anything else streams conformingly."""


def render(turn: Turn) -> list[Frame]:
    """The frames for ``turn`` in this dialect."""
    m = Messages(turn)
    if turn.variant in ITEMS:
        return ITEMS[turn.variant](m)
    variant = VARIANTS.get(turn.variant)
    return variant(m) if variant is not None and turn.calls else stream(m)
