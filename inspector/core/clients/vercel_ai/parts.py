"""What ``streamText``'s ``fullStream`` hands over, for the provider packages beyond
``@ai-sdk/openai-compatible``: ``tool-call`` parts (the agent's, and the provider-executed
ones, ``providerExecuted``: hosted items) and ``error`` parts, in the order they are emitted.

Invariants (what the SDK does, modelled here; each provider's transform in its module):
- Every dispatched SSE event's data goes through ``JSON.parse`` (V8, :mod:`.v8_json`); a
  failure is an ``error`` part (``JSONParseError``) and the stream goes on.
- A provider's transform emits each ``tool-call`` part with its input as text; ``streamText``
  parses it (blank is ``{}``; text that does not parse is handed over *invalid*, as it is):
  :func:`~.replica.handed_arguments`.
- The outcome is every ``tool-call`` part AND the first ``error`` part (or thrown error),
  with how many calls came before it (:meth:`~..base.ReplicaRun.report`); a thrown error
  ends the stream, the calls before it handed over all the same
  (:attr:`~..base.ClientRaised.handed`).
- While the stream arrives, ``calls`` holds the agent's calls as parts are emitted (for the
  driver's prefix check); hosted items join only the hand-over.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from inspector.core.base.kinds import CallKind
from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.clients.base import ClientRaised, Exchange, HandedCall, Partial, ReplicaRun
from inspector.core.clients.pins import of_kind
from inspector.core.clients.vercel_ai.common import (
    cut_raise,
    handed_arguments,
    json_parse_error,
    secure_parse,
)
from inspector.core.clients.vercel_ai.v8_json import JsSyntaxError, stringify

_NO_OUTPUT: Final = "No output generated. The model stream ended without a finish chunk."


def provider_stream_error(error: Any) -> ClientRaised:
    """An ``error`` event's error as ``fullStream`` carries it: ``StreamProviderError`` with
    the error's ``message``."""
    message = error.get("message") if isinstance(error, dict) else None
    return ClientRaised("StreamProviderError", "undefined" if message is None else str(message))


class PartsRun(ReplicaRun):
    """One provider transform feeding ``fullStream``: subclasses read each parsed chunk
    (:meth:`chunk`) and call :meth:`emit` for each ``tool-call`` part."""

    no_output: bool = False
    """The provider's flush emits no ``finish`` for a body that held no chunk, so ``ai``
    adds ``NoOutputGeneratedError`` (the Anthropic provider; the others finish anyway)."""

    def __init__(self, exchange: Exchange) -> None:
        super().__init__()
        self.exchange = exchange
        self.handed: list[HandedCall] = []
        self.stopped = False
        """A transform that stops reading (an invalid message sequence): nothing more."""
        self.chunks = 0
        """Chunks read (a stream with none and no error ends with ``NoOutputGeneratedError``)."""

    def relevant(self, events: Sequence[SSEEvent]) -> Iterable[SSEEvent]:
        return of_kind(events, EventKind.EVENT)

    def feed(self, event: SSEEvent) -> None:
        if event.kind != EventKind.EVENT or self.stopped or event.data == "[DONE]":
            return
        try:
            value = secure_parse(event.data)
        except JsSyntaxError as exc:
            self.report(json_parse_error(event.data, exc), len(self.handed))
            return
        except RecursionError:
            self.throw(ClientRaised("RangeError", "Maximum call stack size exceeded"))
        self.chunks += 1
        if isinstance(value, dict):
            try:
                self.chunk(value)
            except ClientRaised as raised:
                self.throw(raised)
            except (AttributeError, KeyError, TypeError, IndexError) as exc:
                self.throw(ClientRaised("TypeError", str(exc)))

    def chunk(self, value: dict[str, Any]) -> None:
        """One parsed chunk (a JSON object)."""
        raise NotImplementedError

    def emit(self, id_: Any, name: Any, text: str, hosted: bool = False) -> None:
        """A ``tool-call`` part with input ``text``, as ``streamText`` hands it over."""
        tools = self.exchange.tools
        arguments = handed_arguments(text, hosted or tools is None or name in tools)
        id_ = id_ if isinstance(id_, str) or id_ is None else str(id_)
        name = name if isinstance(name, str) or name is None else str(name)
        if hosted:
            self.handed.append(HandedCall(id_, name, arguments, CallKind.HOSTED))
            return
        pos = len(self.calls)
        id_ = self.same_id(pos, id_)
        call = HandedCall(id_, name, self.same_text(pos, arguments))
        self.handed.append(call)
        self.calls.append(Partial(call.id, call.name, call.arguments))
        self.touched.add(pos)

    def error_part(self, error: ClientRaised) -> None:
        """An ``error`` part: reported, and the stream goes on."""
        self.report(error, len(self.handed))

    def throw(self, error: ClientRaised) -> None:
        """The transform throws: the stream ends with ``error``, the calls so far handed."""
        raise ClientRaised(error.type, error.message, list(self.handed))

    def finish(self) -> list[HandedCall]:
        cut = cut_raise(self.exchange)
        if cut is not None:
            self.throw(cut)
        if self.no_output and not self.chunks and self.reported is None:  # no terminal chunk
            self.error_part(ClientRaised("NoOutputGeneratedError", _NO_OUTPUT))
        return self.handed


def js_stringify(value: Any) -> str:
    """``JSON.stringify(value)`` (``undefined`` for None is written ``{}`` by the callers)."""
    return stringify(value)


def nonempty_object(value: Any) -> bool:
    """``value && Object.keys(value).length > 0`` for a JSON value."""
    if isinstance(value, dict):
        return bool(value)
    if isinstance(value, list | str):
        return bool(value)
    return bool(value)
