"""The ``google-genai`` replica: the ``function_call`` parts an agent collects from
``client.models.generate_content_stream(...)`` (each chunk's ``function_calls``).

Follows google-genai 3.6.1 (httpx2 transport, as installed without the ``aiohttp`` extra):
``google/genai/_api_client.py`` (``_SseLineDecoder``, ``HttpResponse._iter_response_stream``,
``_RawJsonLineBuffer``, ``request_streamed``), ``google/genai/errors.py`` (``APIError``),
``google/genai/models.py`` (``_GenerateContentResponse_from_mldev``) and
``GenerateContentResponse.function_calls`` in ``google/genai/types.py``.

What the SDK does, modelled here:
- Any status but 200 raises before the body is read: ``ClientError`` (4xx), ``ServerError``
  (5xx), else ``APIError``; the message is ``<status> <error.status>. <body as a Python repr>``
  (a body that is not JSON reads ``{'message': <text>, 'status': <reason phrase>}``). The
  content type is never looked at.
- Its own line reader: lines end at CR, LF or CRLF; undecodable bytes become U+FFFD (no
  error). It is **not** an SSE parser: only a line starting ``data: `` (with the space) is
  data; a blank line hands over the data lines so far, joined with newlines. Every other
  line (a comment ``: OPENROUTER PROCESSING``, ``event:``, ``id:``, ``data:`` without a space)
  is buffered as raw JSON until its braces balance, then handed over as it is. So an ordinary
  SSE comment dies: ``json.loads`` fails and the SDK raises ``UnknownApiResponseError: Failed
  to parse response as JSON. Raw response: : OPENROUTER PROCESSING``. At the end of the body,
  the raw buffer and then unfinished data are handed over too (a last event needs no blank
  line).
- A handed-over JSON object whose first key is ``error`` raises ``APIError`` by
  ``error.code`` (as for a status; a code that is not a number raises ``TypeError``).
- Each chunk is converted and validated (pydantic): a wrong type on the way to a function
  call (``candidates[].content.parts[].functionCall.{id,name,args}``, ``parts``, ``text``)
  raises ``ValidationError``. Calls come from the first candidate only, whole, one per
  ``functionCall`` part: ``id`` (None unless sent), ``name``, and ``args`` as compact JSON
  (``null`` when absent); nothing is merged across chunks (Gemini 3's ``partialArgs`` parts
  are handed over as they come). ``executableCode`` parts of the first candidate (code the
  provider runs) are reported as hosted items, their code as the input.
- A body cut short raises httpx2's ``ReadError: [Errno 104] Connection reset by peer`` (or
  ``ReadTimeout``) after the last whole line; what was not finished is not handed over.

Not modelled: automatic continuation (only streams carrying a ``continuationToken`` use it),
and validation of fields off the function-call path (usage, safety ratings, finish reason).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from http import HTTPStatus
from typing import Any, ClassVar, Final

from inspector.core.base.kinds import CallKind
from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.clients.base import (
    ClientRaised,
    Exchange,
    HandedCall,
    Partial,
    Replica,
    ReplicaRun,
)
from inspector.core.clients.pins import Pins, lines, pinned
from inspector.core.providers import GEMINI

PYDANTIC: Final = "2.14"
"""The pydantic version in the validation errors' links (the goldens' environment)."""
_TOP_KEYS: Final = (
    "sdkHttpResponse", "candidates", "modelVersion", "promptFeedback", "responseId",
    "usageMetadata", "modelStatus",
)  # fmt: skip
_MESSAGES: Final = {
    "model_attributes_type": "Input should be a valid dictionary or object to extract fields from",
    "dict_type": "Input should be a valid dictionary",
    "list_type": "Input should be a valid list",
    "string_type": "Input should be a valid string",
}

Segment = tuple[int, str]
"""``(seq, text)``: one piece the SDK hands to ``json.loads``, pinned to its inspector event."""


def status_error(exchange: Exchange) -> ClientRaised | None:
    """What the SDK raises before reading the body (None for status 200)."""
    status = exchange.status
    if status == 0:
        return ClientRaised("ConnectError", "[Errno 111] Connection refused")
    if status == 200:
        return None
    try:
        body: Any = json.loads(exchange.body)
    except json.JSONDecodeError:
        try:
            reason = HTTPStatus(status).phrase
        except ValueError:
            reason = ""
        body = {"message": exchange.body.decode("utf-8", "replace"), "status": reason}
    except (RecursionError, ValueError) as exc:  # not caught by the SDK either
        return ClientRaised(type(exc).__name__, str(exc))
    try:
        return api_error(status, body)
    except RecursionError as exc:
        return ClientRaised("RecursionError", str(exc))


def api_error(code: Any, body: Any) -> ClientRaised:
    """``APIError.raise_error(code, body)``: the class by code, its ``str()``."""
    if not isinstance(code, int | float):
        kind = "NoneType" if code is None else type(code).__name__
        return ClientRaised(
            "TypeError", f"'<=' not supported between instances of 'int' and '{kind}'"
        )
    name = (
        "ClientError" if 400 <= code < 500 else "ServerError" if 500 <= code < 600 else "APIError"
    )
    if isinstance(body, list) and len(body) == 1:
        body = body[0]
    status = _lookup(body, "status")
    shown = code if code else _lookup(body, "code")
    return ClientRaised(name, f"{shown} {status}. {body}")


def _lookup(body: Any, key: str) -> Any:
    """``body.get(key, body.get('error', {}).get(key))``; None where that raises."""
    try:
        inner = body.get("error", {}).get(key, None)
        return body.get(key, inner)
    except AttributeError:
        return None


def cut_raise(exchange: Exchange) -> ClientRaised | None:
    """What httpx2 raises when the body ends early (None for a clean end)."""
    why = (exchange.transport_error or "").lower()
    if "read timeout" in why or "timed out" in why:
        return ClientRaised("ReadTimeout", "timed out")
    if why.startswith("connection broken") or "reset" in why:
        return ClientRaised("ReadError", "[Errno 104] Connection reset by peer")
    return None


_RAW_IN_STRING: Final = re.compile(r'["\\]')
_RAW_OUTSIDE: Final = re.compile(r'["{}]')


class _RawJson:
    """``_RawJsonLineBuffer``: lines kept until their braces balance outside strings."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0
        self.in_string = False
        self.escaped = False

    def add(self, line: str) -> str | None:
        i, n = 0, len(line)
        while i < n:  # only quotes, backslashes and braces are visited
            if self.in_string and self.escaped:
                self.escaped, i = False, i + 1
                continue
            found = (_RAW_IN_STRING if self.in_string else _RAW_OUTSIDE).search(line, i)
            if found is None:
                break
            c, i = found.group(), found.end()
            if self.in_string:
                self.escaped, self.in_string = c == "\\", c == "\\"
            elif c == '"':
                self.in_string = True
            else:
                self.depth += 1 if c == "{" else -1
        self.lines.append(line)
        return self.flush() if self.depth == 0 else None

    def flush(self) -> str:
        chunk = "".join(self.lines)
        self.__init__()  # type: ignore[misc]
        return chunk


def segments(exchange: Exchange) -> list[Segment]:
    """Every piece the SDK parses, in order, pinned (see the module's invariants)."""
    if not exchange.body:
        return _from_events(exchange.events)
    pins = Pins(exchange.events)
    cut = cut_raise(exchange) is not None
    raw, data, out = _RawJson(), list[str](), list[Segment]()
    for _, end, line_bytes, ended in lines(exchange.body):
        if cut and not ended:
            break
        line = line_bytes.decode("utf-8", "replace")
        if not line:
            if data:
                out.append((pins.at(end), "\n".join(data)))
                data = []
        elif line.startswith("data: "):
            data.append(line[6:])
        else:
            chunk = raw.add(line)
            if chunk is not None:  # handed over mid-event, as its line ends
                out.append((pins.within(end), chunk))
    if not cut:
        last = pins.at(len(exchange.body))
        remaining = raw.flush()
        out += [(last, remaining)] if remaining else []
        out += [(last, "\n".join(data))] if data else []
    return out


def _from_events(events: Sequence[SSEEvent]) -> list[Segment]:
    out: list[Segment] = []
    for ev in events:
        if ev.kind == EventKind.EVENT:
            out.append((ev.seq, ev.data))
        elif ev.kind == EventKind.COMMENT:
            out.append((ev.seq, ":" + ev.comment))
    return out


def _getv(data: Any, key: str) -> Any:
    """``getv(data, [key])`` (``_common.get_value_by_path``) on a JSON value."""
    if not data:
        return None
    if isinstance(data, bool | int | float):
        raise ClientRaised("TypeError", f"argument of type '{type(data).__name__}' is not iterable")
    if key not in data:
        return None
    if isinstance(data, str):
        raise ClientRaised("TypeError", "string indices must be integers, not 'str'")
    if isinstance(data, list):
        raise ClientRaised("TypeError", "list indices must be integers or slices, not str")
    return data[key]


def candidates(chunk: Any) -> list[Any]:
    """The candidates' ``content`` values after ``_GenerateContentResponse_from_mldev``."""
    found = None
    for key in _TOP_KEYS:
        value = _getv(chunk, key)
        found = value if key == "candidates" else found
    if found is None:
        return []
    if isinstance(found, bool | int | float):
        raise ClientRaised("TypeError", f"'{type(found).__name__}' object is not iterable")
    return [_getv(item, "content") for item in found]


def _invalid(errors: list[tuple[str, str, Any]]) -> ClientRaised:
    count = f"{len(errors)} validation error{'s' if len(errors) > 1 else ''}"
    lines_ = [f"{count} for GenerateContentResponse"]
    for loc, kind, value in errors:
        shown = repr(value)
        if isinstance(value, str) and len(shown) > 50:
            shown = shown[:25] + "..." + shown[-24:]
        lines_ += [
            loc,
            f"  {_MESSAGES[kind]} [type={kind}, input_value={shown}, "
            f"input_type={type(value).__name__}]",
            f"    For further information visit https://errors.pydantic.dev/{PYDANTIC}/v/{kind}",
        ]
    return ClientRaised("ValidationError", "\n".join(lines_))


def function_calls(contents: list[Any]) -> list[dict[str, Any]]:
    """The first candidate's ``functionCall`` objects, after validating every candidate's
    path to them (``ValidationError`` as pydantic words it)."""
    errors: list[tuple[str, str, Any]] = []
    calls: list[dict[str, Any]] = []
    for n, content in enumerate(contents):
        where = f"candidates.{n}.content"
        if content is None:
            continue
        if not isinstance(content, dict):
            errors.append((where, "model_attributes_type", content))
            continue
        parts = content.get("parts")
        if parts is not None and not isinstance(parts, list):
            errors.append((f"{where}.parts", "list_type", parts))
            continue
        for k, part in enumerate(parts or []):
            at = f"{where}.parts.{k}"
            if not isinstance(part, dict):
                errors.append((at, "model_attributes_type", part))
                continue
            code = part.get("executableCode")
            if n == 0 and isinstance(code, dict):
                calls.append({_CODE: code})
            fc = part.get("functionCall")
            if fc is not None and not isinstance(fc, dict):
                errors.append((f"{at}.functionCall", "model_attributes_type", fc))
            elif fc is not None:
                for key, kind in (
                    ("id", "string_type"),
                    ("args", "dict_type"),
                    ("name", "string_type"),
                ):
                    value = fc.get(key)
                    if value is not None and not isinstance(
                        value, str if kind == "string_type" else dict
                    ):
                        errors.append((f"{at}.functionCall.{key}", kind, value))
                if n == 0:
                    calls.append(fc)
            text = part.get("text")
            if text is not None and not isinstance(text, str):
                errors.append((f"{at}.text", "string_type", text))
    if errors:
        raise _invalid(errors)
    return calls


_CODE: Final = "executableCode"
HOSTED: Final = CallKind.HOSTED


class _Run(ReplicaRun):
    def __init__(self, exchange: Exchange) -> None:
        super().__init__()
        self.exchange = exchange
        self.segments = segments(exchange)
        self.next = 0
        self.hosted: list[tuple[int, HandedCall]] = []
        """``executableCode`` parts (code the provider runs), with how many calls came
        before each."""

    def feed(self, event: SSEEvent) -> None:
        while self.next < len(self.segments) and self.segments[self.next][0] <= event.seq:
            self.step()

    def relevant(self, events: Sequence[SSEEvent]) -> Iterable[SSEEvent]:
        """Only the events a segment is pinned to (see ``SdkChunkRun.relevant``)."""
        return pinned(events, [seg[0] for seg in self.segments])

    def finish(self) -> list[HandedCall]:
        while self.next < len(self.segments):
            self.step()
        cut = cut_raise(self.exchange)
        if cut is not None:
            raise cut
        handed = [c.handed() for c in self.calls]
        for pos, item in reversed(self.hosted):  # each at its place among the calls
            handed.insert(pos, item)
        return handed

    def step(self) -> None:
        text = self.segments[self.next][1]
        self.next += 1
        try:
            self.chunk(text)
        except (RecursionError, ValueError) as exc:  # Python's own, as in the SDK's process
            raise ClientRaised(type(exc).__name__, str(exc)) from None

    def chunk(self, text: str) -> None:
        """One piece: parsed, checked for an error object, its calls collected."""
        try:
            chunk = json.loads(text)
        except json.JSONDecodeError:
            raise ClientRaised(
                "UnknownApiResponseError", f"Failed to parse response as JSON. Raw response: {text}"
            ) from None
        if isinstance(chunk, dict) and next(iter(chunk), None) == "error":
            error = chunk["error"]
            if not isinstance(error, dict):
                kind = "NoneType" if error is None else type(error).__name__
                raise ClientRaised("AttributeError", f"'{kind}' object has no attribute 'get'")
            raise api_error(error.get("code"), chunk)
        for fc in function_calls(candidates(chunk)):
            if _CODE in fc:  # the provider ran it: reported beside the calls
                code = fc[_CODE].get("code")
                text = code if isinstance(code, str) else ""
                self.hosted.append((len(self.calls), HandedCall(None, None, text, HOSTED, _CODE)))
                continue
            args = json.dumps(fc.get("args"), separators=(",", ":"), ensure_ascii=False)
            self.calls.append(Partial(fc.get("id"), fc.get("name"), [args]))
            self.touched.add(len(self.calls) - 1)


class GoogleGenai(Replica):
    """``generate_content_stream``'s function-call parts, collected (see the module)."""

    name: ClassVar[str] = "google-genai"
    library: ClassVar[str] = "google-genai"
    version: ClassVar[str] = "3.6.1"
    follows: ClassVar[str] = (
        "google/genai/_api_client.py (_SseLineDecoder, _iter_response_stream, "
        "request_streamed), google/genai/models.py, GenerateContentResponse.function_calls"
    )
    dialects: ClassVar[frozenset[str]] = frozenset({GEMINI})
    plain: ClassVar[frozenset[str]] = frozenset({GEMINI})
    summary: ClassVar[str] = (
        "google-genai: generate_content_stream()'s function_call parts; its line reader "
        "takes an SSE comment for JSON and raises"
    )

    def plain_calls(
        self, calls: Sequence[HandedCall], tools: frozenset[str] | None
    ) -> Sequence[HandedCall] | None:
        """Each call's ``args`` as the SDK writes them (``json.dumps`` compact of the value
        ``json.loads`` read: the plain reading's text holds that value); None should one not
        be written so (then it is replayed)."""
        out = []
        for call in calls:
            try:
                text = json.dumps(json.loads(call.arguments), separators=(",", ":"),
                                  ensure_ascii=False)  # fmt: skip
            except (ValueError, RecursionError):
                return None
            out.append(call if text == call.arguments else replace(call, arguments=text))
        return out

    def open(self, exchange: Exchange) -> ReplicaRun:
        raised = status_error(exchange)
        if raised is not None:
            raise raised
        return _Run(exchange)
