"""The ``vercel-ai`` replica: the tool calls ``streamText`` (``ai`` 7.0.173) hands over in
``fullStream`` from an ``@ai-sdk/openai-compatible`` 3.0.92 chat model (this module), an
``@ai-sdk/anthropic`` 4.0.105 model (:mod:`.anthropic`), an ``@ai-sdk/openai`` 4.0.118
Responses model (:mod:`.responses`) or an ``@ai-sdk/google`` 4.0.121 model (:mod:`.gemini`),
by the stream's dialect (the other three's parts: :mod:`.parts`); ``@ai-sdk/cohere`` and
``@ai-sdk/amazon-bedrock`` (ConverseStream: :mod:`.bedrock`; its ``/anthropic`` entry over
InvokeModelWithResponseStream: :mod:`.bedrock_invoke`).

Follows ``@ai-sdk/openai-compatible``'s ``src/chat/openai-compatible-chat-language-model.ts``
(``doStream``); ``@ai-sdk/provider-utils`` 5.0.81: ``postToApi``,
``createJsonErrorResponseHandler``, ``parseJsonEventStream``, ``secureJsonParse`` and
``StreamingToolCallTracker`` (:mod:`.tracker`); ``eventsource-parser`` 3.1.1; and
``ai``'s ``parseToolCall`` and ``normalizeStreamProviderError``.

What the SDK does, modelled here:
- A status that is not 2xx: ``APICallError`` whose message is the body's ``error.message``
  (when the body is JSON of the OpenAI error shape), else the status text. The content type
  is never looked at.
- The body is decoded leniently (invalid UTF-8 becomes U+FFFD) and parsed as SSE (comments
  and event names ignored; a last event without its blank line is never dispatched). Each
  event's data, but ``[DONE]``, goes through ``JSON.parse`` (V8: :mod:`.v8_json`; a
  ``data: : OPENROUTER PROCESSING`` keep-alive is ``JSONParseError: JSON parsing failed:
  Text: : OPENROUTER PROCESSING. Error message: SyntaxError: Unexpected token ':', …``) and
  the chunk schema (:mod:`.zod_chunk`: arguments sent as an object are a
  ``TypeValidationError``). A chunk with an ``error`` key is a ``StreamProviderError`` with
  its message. Each of these is an ``error`` part in ``fullStream``; the stream goes on, and
  the calls are still handed over at its end (the outcome is both).
- Tool-call deltas are assembled by :mod:`.tracker` (which may throw), and handed
  over only when the stream ends, in index order; then a stream that never sent a
  ``finish_reason`` adds ``InvalidResponseDataError: Response stream ended without a finish
  reason.`` A body cut short throws ``APICallError: Failed to process successful response``.
- ``streamText`` parses each call's arguments (``JSON.parse`` plus secure-json-parse's
  ``__proto__`` / ``constructor.prototype`` check; blank arguments are ``{}``): a call whose
  arguments parse is handed over with them as ``JSON.stringify`` writes them (keys in
  JavaScript's order, numbers as JavaScript prints them); one whose arguments do not is
  handed over *invalid*, its arguments the raw text (the agent gets a ``tool-error``); so is
  a call to a tool the request did not declare (``Exchange.tools``; a name split across
  chunks is its first piece), its blank arguments ``""``, not ``{}``.

The result is every ``tool-call`` part AND the first ``error`` part (or thrown error), in the
order ``fullStream`` emits them (an error part comes before the calls, which are handed over
when the stream ends). Where the request's tools are unknown (a raw body), every name counts
as declared. Not modelled: the SDK's retries (the runner sets ``maxRetries: 0``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from http import HTTPStatus
from typing import Any, ClassVar, Final

from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.clients.base import (
    LONG_TEXT,
    ClientRaised,
    Exchange,
    HandedCall,
    Replica,
    ReplicaRun,
)
from inspector.core.clients.pins import of_kind
from inspector.core.clients.plain.compact import rewritten
from inspector.core.clients.vercel_ai.anthropic import AnthropicRun
from inspector.core.clients.vercel_ai.bedrock_invoke import bedrock_run
from inspector.core.clients.vercel_ai.cohere import CohereRun, cohere_status_error
from inspector.core.clients.vercel_ai.common import (
    CUT,
    _cut,
    handed_arguments,
    json_parse_error,
    secure_parse,
)
from inspector.core.clients.vercel_ai.gemini import GeminiRun
from inspector.core.clients.vercel_ai.responses import ResponsesRun
from inspector.core.clients.vercel_ai.tracker import GENERATED, Tracked, Tracker, js_trim
from inspector.core.clients.vercel_ai.v8_json import JsSyntaxError, number_text, stringify
from inspector.core.clients.vercel_ai.zod_chunk import ERROR, check_chunk, issues
from inspector.core.providers import (
    ANTHROPIC,
    BEDROCK_CONVERSE,
    COHERE_V2,
    GEMINI,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
)

_NO_FINISH: Final = "Response stream ended without a finish reason."
_CUT: Final = CUT


def status_error(exchange: Exchange) -> ClientRaised | None:
    """The ``APICallError`` for a status that is not 2xx (None for 2xx)."""
    status = exchange.status
    if status == 0:
        return ClientRaised("APICallError", "Cannot connect to API: connect ECONNREFUSED")
    if 200 <= status < 300:
        return None
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = ""
    text = exchange.body.decode("utf-8", "replace")
    if not js_trim(text):
        return ClientRaised("APICallError", reason)
    try:
        body = secure_parse(text)
    except JsSyntaxError:
        return ClientRaised("APICallError", reason)
    if issues(ERROR, body, []):
        return ClientRaised("APICallError", reason)
    return ClientRaised("APICallError", body["error"]["message"])


def provider_error(error: Any) -> ClientRaised:
    """A chunk's ``error`` value as ``fullStream``'s error part carries it
    (``normalizeStreamProviderError``, then the class name and message an agent sees)."""
    if isinstance(error, dict):
        inner = error.get("error")
        details = inner if isinstance(inner, dict) else error
        if isinstance(details.get("message"), str):
            return ClientRaised("StreamProviderError", details["message"])
        return ClientRaised("Object", "[object Object]")
    if error is None:
        return ClientRaised("object", "null")
    kinds = {bool: "Boolean", str: "String", float: "Number", list: "Array"}
    return ClientRaised(kinds.get(type(error), "Object"), js_string(error))


def js_string(value: Any) -> str:
    """``String(value)`` for a JSON value."""
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int | float):
        return number_text(float(value))
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    return "[object Object]" if isinstance(value, dict) else "null"


class _Run(ReplicaRun):
    def __init__(self, exchange: Exchange) -> None:
        super().__init__()
        self.exchange = exchange
        self.tracker = Tracker(self.calls, self.touched)
        self.finished = False
        self.last = _unterminated_last(exchange)

    @property
    def expected(self) -> Sequence[HandedCall]:
        """The inspector's calls, held by the tracker (no reference back to the run: a run
        and its tracker in a cycle would outlive the run until a garbage collection)."""
        return self.tracker.expected

    @expected.setter
    def expected(self, calls: Sequence[HandedCall]) -> None:
        self.tracker.expected = calls

    def relevant(self, events: Sequence[SSEEvent]) -> Iterable[SSEEvent]:
        """Only dispatched events: comments and errors are never read (picked without
        building the others, where the events can say which they are; a block at a time)."""
        return of_kind(events, EventKind.EVENT)

    def feed(self, event: SSEEvent) -> None:
        if event.kind != EventKind.EVENT or event.seq == self.last or event.data == "[DONE]":
            return
        try:
            self.chunk(event.data)
        except RecursionError:  # a value nested deeper than Python's stack (not V8's)
            raise ClientRaised("RangeError", "Maximum call stack size exceeded") from None

    def chunk(self, data: str) -> None:
        """One event's data, as the provider's stream transform reads it: a chunk that does not
        parse, fails the schema or carries an ``error`` is an ``error`` part (reported, and
        the stream goes on); the tracker's own errors are thrown."""
        try:
            chunk = check_chunk(secure_parse(data))
        except JsSyntaxError as exc:
            self.report(json_parse_error(data, exc), 0)  # calls are handed over at the end
            return
        except ClientRaised as invalid:  # the schema's TypeValidationError
            self.report(invalid, 0)
            return
        if isinstance(chunk, dict) and "error" in chunk:
            self.report(provider_error(chunk["error"]), 0)
            return
        choices = chunk.get("choices") or []
        choice = choices[0] if choices else None
        if not isinstance(choice, dict):
            return
        self.finished = self.finished or choice.get("finish_reason") is not None
        delta = choice.get("delta")
        if isinstance(delta, dict):
            for d in delta.get("tool_calls") or []:
                self.tracker.delta(d)

    def finish(self) -> list[HandedCall]:
        if self.exchange.transport_error and _cut(self.exchange.transport_error):
            raise ClientRaised("APICallError", _CUT)
        order = self.tracker.finish()
        if not self.finished and self.reported is None:
            raise ClientRaised("InvalidResponseDataError", _NO_FINISH)
        try:
            return [_handed(t, self.exchange.tools) for t in order]
        except RecursionError:
            raise ClientRaised("RangeError", "Maximum call stack size exceeded") from None


def _handed(call: Tracked, tools: frozenset[str] | None) -> HandedCall:
    """:func:`handed_arguments` of a call: its text dropped once parsed when long (not held
    twice while written again), else handed over itself when written the same."""
    text, call.parts = call.arguments, ""
    if tools is not None and call.name not in tools:  # undeclared: NoSuchToolError, invalid
        return HandedCall(call.id, call.name, handed_arguments(text, declared=False))
    if not js_trim(text):
        return HandedCall(call.id, call.name, "{}")
    try:
        value = secure_parse(text)
    except JsSyntaxError:
        return HandedCall(call.id, call.name, text)
    text = text if len(text) < LONG_TEXT else ""  # (a long one dropped before it is written)
    written = stringify(value)
    return HandedCall(call.id, call.name, text if written == text else written)


def _unterminated_last(exchange: Exchange) -> int | None:
    """The ``seq`` of a last event with no blank line after it (eventsource-parser never
    dispatches it; a trailing CR is held back for an LF that never comes), else None."""
    body, events = exchange.body, exchange.events
    last = next(
        (events[k] for k in range(len(events) - 1, -1, -1) if events[k].kind == EventKind.EVENT),
        None,
    )  # (read from the end: only the events after the last one are looked at)
    if not body or last is None or last.end < len(body):
        return None
    tail = body[last.start :].removesuffix(b"\r")  # a last CR waits for its LF forever
    if tail.endswith(b"\r\n"):
        tail = tail[:-2]
    elif tail.endswith((b"\r", b"\n")):
        tail = tail[:-1]
    ended = tail.endswith((b"\r", b"\n"))
    return None if ended else last.seq


class VercelAi(Replica):
    """``streamText``'s tool calls over the openai-compatible provider (see the module)."""

    name: ClassVar[str] = "vercel-ai"
    library: ClassVar[str] = "ai"
    version: ClassVar[str] = "7.0.173"
    follows: ClassVar[str] = (
        "@ai-sdk/openai-compatible src/chat/openai-compatible-chat-language-model.ts (doStream), "
        "@ai-sdk/anthropic anthropic-messages-language-model.ts, @ai-sdk/openai "
        "openai-responses-language-model.ts, @ai-sdk/google google-generative-ai-language-model"
        ".ts, @ai-sdk/cohere cohere-chat-language-model.ts, @ai-sdk/provider-utils "
        "src/streaming-tool-call-tracker.ts, ai 7.0.173 parseToolCall"
    )
    dialects: ClassVar[frozenset[str]] = frozenset(
        {OPENAI_CHAT, ANTHROPIC, OPENAI_RESPONSES, GEMINI, COHERE_V2, BEDROCK_CONVERSE}
    )
    plain: ClassVar[frozenset[str]] = frozenset({OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC, GEMINI})
    summary: ClassVar[str] = (
        "Vercel AI SDK: streamText over @ai-sdk/openai-compatible 3.0.92, @ai-sdk/anthropic "
        "4.0.105, @ai-sdk/openai 4.0.118 (Responses), @ai-sdk/google 4.0.121, @ai-sdk/cohere "
        "4.0.81 or @ai-sdk/amazon-bedrock 5.0.139 (ConverseStream, and InvokeModel through its"
        " /anthropic entry); its tool-call "
        "parts (provider-executed ones as hosted items) and its first error part, in order"
    )

    def plain_calls(
        self, calls: Sequence[HandedCall], tools: frozenset[str] | None
    ) -> Sequence[HandedCall] | None:
        """Each call with its arguments parsed and written again as the AI SDK hands them
        over (:func:`_handed`); None when one names a tool the request did not declare (the
        AI SDK's ``NoSuchToolError``) or does not parse: then it is replayed. A call without
        an id (Gemini's) gets ``generateId()``'s, as the provider gives it."""
        out = []
        for call in calls:
            if tools is not None and call.name not in tools:
                return None
            if call.id is None:
                call = replace(call, id=GENERATED)
            if not js_trim(call.arguments):  # blank: {} for a declared tool (:func:`_handed`)
                out.append(replace(call, arguments="{}"))
                continue
            written = rewritten(call.arguments, js=True)  # the same, at C speed, where it can
            if written is None:
                try:
                    written = stringify(secure_parse(call.arguments))
                except Exception:  # any refusal: the replay says what it is
                    return None
            out.append(call if written == call.arguments else replace(call, arguments=written))
        return out

    def open(self, exchange: Exchange) -> ReplicaRun:
        raised = _STATUS.get(exchange.dialect, status_error)(exchange)
        if raised is not None:
            raise raised
        return _RUNS.get(exchange.dialect, _Run)(exchange)


_RUNS: Final[dict[str | None, Callable[[Exchange], ReplicaRun]]] = {
    ANTHROPIC: AnthropicRun,
    OPENAI_RESPONSES: ResponsesRun,
    GEMINI: GeminiRun,
    COHERE_V2: CohereRun,
    BEDROCK_CONVERSE: bedrock_run,
}
"""The provider package's transform for each dialect (Chat Completions: :class:`_Run`)."""
_STATUS: Final[dict[str | None, Callable[[Exchange], ClientRaised | None]]] = {
    COHERE_V2: cohere_status_error,
    BEDROCK_CONVERSE: cohere_status_error,
}
"""A provider package whose failed-response handler reads another error shape than
OpenAI's ``error.message`` (the others: :func:`status_error`)."""
