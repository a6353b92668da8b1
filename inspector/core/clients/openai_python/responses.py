"""openai-python's Responses stream helper: the tool-call items of what
``client.responses.stream()`` then ``get_final_response()`` hand over: every ``output`` item
but messages, reasoning and results (:mod:`.items`: ``function_call`` as ``call_id``,
``name``, ``arguments``; the others with their kind and wire type, hosted ones reported
beside the agent's calls).

Follows openai 3.57.0: ``openai/lib/streaming/responses/_responses.py``
(``ResponseStreamState.handle_event`` / ``accumulate_event``, ``AsyncResponseStream``) and
``openai/lib/_parsing/_responses.py`` (``parse_response``), over the events of
:mod:`inspector.core.clients.openai_sdk.sse`.

What the library does, modelled here:
- The first event must be ``response.created`` (else ``RuntimeError: Expected to have
  received `response.created` before `…```); a later lifecycle event naming another response
  id, a second ``output_item.added`` at one ``output_index``, a delta for an index never added,
  an item whose ``done`` changes its identity are ``RuntimeError`` with the library's words; a
  text or argument delta for an item of another type fails an ``assert``.
- Argument deltas are appended to the added item (``None += str`` is ``TypeError``), but what
  is handed over is the ``response.completed`` event's own ``response.output``, or, when it
  has none, the ``output_item.done`` items by ``output_index``. Without ``response.completed``
  (a ``response.failed``, an ``error`` event, a cut stream) ``get_final_response`` raises
  ``RuntimeError: Didn't receive a `response.completed` event.``; ``completed`` with an added
  item never done nor in its output is ``Cannot complete response with unfinished output
  items.``.

Not modelled: pydantic's lax coercion of a whole event that validates (an ``output_index``
sent as ``"0"`` is ``0`` to the library, ``"0"`` here); text formats and ``strict`` tools.
"""

from __future__ import annotations

from typing import Any, Final

from inspector.core.clients.base import ClientRaised, Exchange, HandedCall, Partial, as_text
from inspector.core.clients.openai_python.deltas import Pieces, fresh
from inspector.core.clients.openai_python.items import handed_item, is_call_item, shell_outputs
from inspector.core.clients.openai_python.mirror import as_arguments, not_string
from inspector.core.clients.openai_sdk.sse import SdkChunkRun, attr

_LIFECYCLE: Final = frozenset(
    {
        "response.created",
        "response.queued",
        "response.in_progress",
        "response.completed",
        "response.failed",
        "response.incomplete",
    }
)
_REPLACING: Final = ("response.created", "response.queued", "response.in_progress")
_NO_ID: Final = ("function_call", "custom_tool_call", "shell_call", "shell_call_output")
_CONFLICT: Final = "Response snapshot has conflicting output identities."


def _get(obj: Any, name: str) -> Any:
    """``getattr(obj, name, None)`` on a model built from ``obj``."""
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _to_dict(obj: Any) -> dict[str, Any]:
    """``obj.to_dict()``: a fresh copy (merging never touches the event it came from)."""
    if not isinstance(obj, dict):
        raise AttributeError(f"'{type(obj).__name__}' object has no attribute 'to_dict'")
    copied: dict[str, Any] = fresh(obj)
    return copied


def _identity(item: Any) -> tuple[Any, Any, Any]:
    call_id = _get(item, "call_id")
    kind = attr(item, "type")
    if kind in _NO_ID:
        return kind, None, call_id
    return kind, _get(item, "id"), call_id


def _compatible(previous: Any, replacement: Any) -> bool:
    previous_id = _get(previous, "id")
    return previous_id == _get(replacement, "id") or (
        previous_id is None and attr(previous, "type") in ("function_call", "custom_tool_call")
    )


class ResponsesRun(SdkChunkRun):
    """``ResponseStreamState`` over the SDK's events, mirrored as Partials."""

    def __init__(self, exchange: Exchange) -> None:
        super().__init__(exchange)
        self.snapshot: dict[str, Any] | None = None
        self.items: dict[Any, Any] = {}  # output_index -> the added item (mutated by deltas)
        self.done: dict[Any, Any] = {}  # output_index -> the done item
        self.positions: dict[tuple[Any, Any, Any], Any] = {}
        self.final: list[Any] | None = None  # the completed response's output
        self._only: Any = None
        """The one item the event changed (an argument delta's), else None."""
        self._looked: tuple[Any, int, dict[int, int]] = (None, 0, {})
        """The snapshot's output as last looked at, its length, and each function call's
        position among them (by ``id``)."""
        self._shown: list[tuple[tuple[str | None, str | None], Any, int] | None] = []
        """Per call shown: (id, name), the arguments value read and how many of its pieces
        (of a :class:`Pieces`), when the shown text is that value's; else None."""

    def chunk(self, data: Any) -> None:
        kind = attr(data, "type")
        self._only = None
        self._accumulate(data, kind)
        self._events(data, kind)
        self._mirror()

    def handed(self) -> list[HandedCall]:
        if self.final is None:
            raise ClientRaised("RuntimeError", "Didn't receive a `response.completed` event.")
        outputs = shell_outputs(self.final)
        return [
            _handed(item) if _get(item, "type") == "function_call" else handed_item(item, outputs)
            for item in self.final
            if is_call_item(item)
        ]

    # -- ResponseStreamState.accumulate_event ----------------------------------------------

    def _accumulate(self, event: Any, kind: Any) -> None:
        snapshot = self.snapshot
        if snapshot is None:
            if kind != "response.created":
                raise RuntimeError(f"Expected to have received `response.created` before `{kind}`")
            snapshot = self.snapshot = _to_dict(attr(event, "response"))
            if _get(snapshot, "output") is None:
                snapshot["output"] = []
            self.items = dict(enumerate(snapshot["output"]))
            return
        if kind in _LIFECYCLE and _get(attr(event, "response"), "id") != _get(snapshot, "id"):
            raise RuntimeError("Lifecycle response identity changed.")
        if kind in _REPLACING:
            self._replace(_get(attr(event, "response"), "output"))
        elif kind == "response.output_item.added":
            self._added(event)
        elif kind == "response.content_part.added":
            output = self._item(attr(event, "output_index"))
            if attr(output, "type") == "message":
                attr(output, "content").append(_to_dict(attr(event, "part")))
        elif kind == "response.output_text.delta":
            output = self._item(attr(event, "output_index"))
            if attr(output, "type") == "message":
                content = attr(output, "content")[attr(event, "content_index")]
                assert attr(content, "type") == "output_text"
                text = attr(content, "text")
                text += attr(event, "delta")
                content["text"] = text
        elif kind == "response.function_call_arguments.delta":
            output = self._item(attr(event, "output_index"))
            if attr(output, "type") == "function_call":
                _append(output, attr(event, "delta"))
                self._only = output
        elif kind == "response.output_item.done":
            self._item_done(attr(event, "item"), attr(event, "output_index"))
        elif kind == "response.completed":
            self._completed(attr(event, "response"))

    def _replace(self, output: Any) -> None:
        replacements: dict[tuple[Any, Any, Any], Any] = {}
        for item in output or []:
            identity = _identity(item)
            if identity in replacements:
                raise RuntimeError(_CONFLICT)
            replacements[identity] = item
        for identity, replacement in replacements.items():
            index = self.positions.get(identity)
            if index is not None:
                if not _compatible(self.done[index], replacement):
                    raise RuntimeError(_CONFLICT)
                self.done[index] = replacement

    def _added(self, event: Any) -> None:
        assert self.snapshot is not None
        item = _get(event, "item")
        if item is None:
            return
        index = attr(event, "output_index")
        if index in self.items:
            raise RuntimeError(f"Duplicate response output index {index}.")
        if attr(item, "type") in ("function_call", "message"):
            item = _to_dict(item)
        self.snapshot["output"].append(item)
        self.items[index] = item

    def _item_done(self, item: Any, index: Any) -> None:
        added = self.items.get(index)
        if added is not None and (
            _identity(added) != _identity(item) or not _compatible(added, item)
        ):
            raise RuntimeError("Completed output item identity changed.")
        identity = _identity(item)
        position = self.positions.get(identity)
        if position is not None and position != index:
            raise RuntimeError(_CONFLICT)
        previous = self.done.get(index)
        if previous is not None:
            del self.positions[_identity(previous)]
        self.done[index] = item
        self.positions[identity] = index

    def _completed(self, response: Any) -> None:
        output = _get(response, "output")
        final = {_identity(item): item for item in output or []}
        for item in self.done.values():
            found = final.get(_identity(item))
            if found is not None and not _compatible(item, found):
                raise RuntimeError("Completed response output identity changed.")
        for index, item in self.items.items():
            found = final.get(_identity(item))
            if index not in self.done and (found is None or not _compatible(item, found)):
                raise RuntimeError("Cannot complete response with unfinished output items.")
        if output is None:
            output = [self.done[index] for index in sorted(self.done)]
        self.final = _parsed_output(output)

    def _item(self, index: Any) -> Any:
        try:
            return self.items[index]
        except KeyError:
            raise RuntimeError(
                f"Received a content event for output index {index} before receiving its "
                "output item"
            ) from None

    # -- ResponseStreamState.handle_event ----------------------------------------------------

    def _events(self, event: Any, kind: Any) -> None:
        if kind in ("response.output_text.delta", "response.output_text.done"):
            output = self._item(attr(event, "output_index"))
            assert attr(output, "type") == "message"
            content = attr(output, "content")[attr(event, "content_index")]
            assert attr(content, "type") == "output_text"
            if kind == "response.output_text.done":
                attr(output, "phase")
        elif kind == "response.function_call_arguments.delta":
            output = self._item(attr(event, "output_index"))
            assert attr(output, "type") == "function_call"
        elif kind in _LIFECYCLE and kind != "response.completed":
            response = attr(event, "response")
            if _get(response, "output") is None:
                if kind in ("response.failed", "response.incomplete"):
                    sorted(self.items.keys() | self.done.keys())
                if not isinstance(response, dict):
                    raise AttributeError(
                        f"'{type(response).__name__}' object has no attribute 'output'"
                    )

    def _mirror(self) -> None:
        """``calls``: the function calls the library holds (the snapshot's, then the final).
        While the snapshot's output is the same list, only the items appended to it since and
        the item an argument delta changed are looked at (items are only appended, never
        replaced or retyped, and only argument deltas change a function call)."""
        if self.final is not None:
            items = [i for i in self.final if _get(i, "type") == "function_call"]
        elif self.snapshot is not None:
            output = self.snapshot["output"]
            listed, count, where = self._looked
            if listed is output and count <= len(output) and self._follow(output, count, where):
                return
            items = [i for i in output if _get(i, "type") == "function_call"]
            self._looked = (output, len(output), {id(i): p for p, i in enumerate(items)})
        else:
            return
        for pos, item in enumerate(items):
            if not self._grown(pos, item):
                self._mirror_one(pos, item)

    def _follow(self, output: list[Any], count: int, where: dict[int, int]) -> bool:
        """Mirror the function calls appended to ``output`` past ``count`` and the one item
        an argument delta changed; False when that item is not among those shown."""
        start = len(where)
        new = [i for i in output[count:] if _get(i, "type") == "function_call"]
        where.update((id(item), start + k) for k, item in enumerate(new))
        self._looked = (output, len(output), where)
        for k, item in enumerate(new):
            if not self._grown(start + k, item):
                self._mirror_one(start + k, item)
        if self._only is None:
            return True
        pos = where.get(id(self._only))
        if pos is not None and not self._grown(pos, self._only):
            self._mirror_one(pos, self._only)
        return pos is not None

    def _grown(self, pos: int, item: Any) -> bool:
        """The call at ``pos`` shown without reading its text whole: its id and name as shown,
        its arguments the same string, or the same :class:`Pieces` with pieces added (shown as
        one more part). False when it must be read whole."""
        shown = self._shown[pos] if pos < len(self._shown) else None
        value = _get(item, "arguments")
        if shown is None or type(value) not in (str, Pieces):
            return False
        try:
            ident = (as_text(_get(item, "call_id")), as_text(_get(item, "name")))
        except ValueError:
            return False
        was, count = shown[1], shown[2]
        if ident != shown[0]:
            return False
        if value is was:
            if type(value) is str:
                return True
        elif not (type(value) is Pieces and count == 0 and value.parts[0] is was):
            return False
        else:
            count = 1  # a string turned into pieces by its first delta
        assert isinstance(value, Pieces)
        added = "".join(value.parts[count:])
        if added:
            self.calls[pos].add(added)
            self.touched.add(pos)
        self._shown[pos] = (shown[0], value, len(value.parts))
        return True

    def _mirror_one(self, pos: int, item: Any) -> None:
        """The call at ``pos`` read whole and compared with what is shown."""
        now = _mirrored(item)
        value = _get(item, "arguments")
        text = value.text() if type(value) is Pieces else value if type(value) is str else None
        shown = None  # the shown text is this value's: later pieces can be added to it
        if text is not None and text == now.arguments:
            shown = ((now.id, now.name), value, len(value.parts) if type(value) is Pieces else 0)
        if pos >= len(self.calls):
            self.calls.append(Partial(now.id, now.name, [now.arguments]))
            self._shown.append(shown)
            self.touched.add(pos)
            return
        self._shown[pos] = shown
        held = self.calls[pos]
        before = held.arguments
        if (held.id, held.name, before) == (now.id, now.name, now.arguments):
            return
        if now.arguments.startswith(before):
            held.add(now.arguments[len(before) :])
        else:
            held.parts = [now.arguments]
            held.rewritten += 1
        held.id, held.name = now.id, now.name
        self.touched.add(pos)


def _append(output: dict[str, Any], delta: Any) -> None:
    """``output.arguments += delta`` (Python's ``+=`` on whatever the values are: a string
    delta onto string arguments is kept as a piece)."""
    arguments: Any = output.get("arguments")
    if type(delta) is str and type(arguments) in (str, Pieces):
        if type(arguments) is str:
            arguments = output["arguments"] = Pieces(arguments)
        arguments.parts.append(delta)
        return
    if type(arguments) is Pieces:
        arguments = arguments.text()
    arguments += delta
    output["arguments"] = arguments


def _parsed_output(output: Any) -> list[Any]:
    """``parse_response``'s walk over the final output (what it reads, it may fail on)."""
    out = []
    for item in output or []:
        kind = attr(item, "type")
        if kind == "message":
            for part in attr(item, "content") or []:
                if attr(part, "type") == "output_text":
                    _to_dict(part)
                    attr(item, "phase")
            _to_dict(item)
        elif kind == "function_call":
            _to_dict(item)
            attr(item, "name")
            attr(item, "namespace")
        out.append(item)
    return out


def _handed(item: Any) -> HandedCall:
    """``item.call_id``, ``item.name``, ``item.arguments`` as the agent reads them."""
    arguments = _get(item, "arguments")
    return HandedCall(
        as_text(_get(item, "call_id")),
        as_text(_get(item, "name")),
        as_arguments(arguments),
        object=not_string(arguments),
    )


def _mirrored(call: Any) -> HandedCall:
    """:func:`_handed` for the prefix check: a value even ``str()`` cannot show (an integer
    past Python's digit limit) shows as nothing, where the agent reading it would raise."""
    try:
        return _handed(call)
    except ValueError:
        return HandedCall(None, None, "")
