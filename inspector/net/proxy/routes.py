"""Where a proxied request goes, what it is, and what of it is secret.

- :class:`Upstream` is the base URL the proxy stands in front of. A request path that already
  starts with the base's path is sent to the base's origin as it is; any other path is
  appended to the base (every path under the upstream base). The agent is pointed at
  :meth:`Upstream.agent_url`: the proxy's origin with the upstream's path, so replacing the
  provider's origin by the proxy's in a base URL is all an agent needs.
- Headers go both ways unchanged, except the hop-by-hop ones (RFC 9110 §7.6.1: ``Connection``
  and every header it names, ``Keep-Alive``, ``Proxy-*``, ``TE``, ``Trailer``,
  ``Transfer-Encoding``, ``Upgrade``), ``Host`` (the upstream's own is sent) and ``Expect``
  (the proxy has read the body before it forwards it).
- A request is an LLM exchange (:class:`Route` with a ``dialect``) when the providers
  recognise its path (:func:`~inspector.core.providers.sniff_url`) and its body is a JSON
  object; the body gives the model and the tools. Anything else is forwarded as it is.
- Secrets (:func:`secrets_of`): the values of headers and URL parameters whose names the
  redaction rule calls secret (:mod:`inspector.core.capture.redaction`), the credential
  of an ``Authorization: Scheme credential`` value, credential-shaped header values whatever
  their name, the body's credential fields (``api_key`` …) and the upstream's user-info.
  They are forwarded, and redacted from everything recorded or shown.
- A body larger than :data:`INLINE_BODY` is not read before it is forwarded: its route is
  ``pending`` (an LLM exchange by its path and its first byte, its secrets those of its
  headers and URL), and :meth:`Route.read`, in a worker thread, reads it in pieces
  (:mod:`inspector.core.capture.pieces`), adds its credential fields to the secrets and
  redacts it once (:class:`~inspector.core.capture.redaction.RedactedBody`). Reading it never
  holds the event loop, nor the interpreter for long.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qsl, unquote, urlsplit

import orjson

from inspector.core.capture import pieces
from inspector.core.capture.redaction import (
    RedactedBody,
    is_secret_name,
    redact_body,
    redact_headers,
    redact_url,
    request_credentials,
)
from inspector.core.providers import REGISTRY, sniff_url
from inspector.core.requests.scenarios import RequestSpec
from inspector.core.verdicts.tools import listed_tools
from inspector.net.bodyworker import read_apart

HOP_BY_HOP: Final = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
"""Headers that describe one connection, never forwarded (plus those ``Connection`` names)."""
NOT_FORWARDED: Final = frozenset({"host", "expect"})
"""Request headers the proxy answers itself: the upstream gets its own ``Host``."""

Pairs = list[tuple[str, str]]

INLINE_BODY: Final = 1 << 20
"""A request body up to this many bytes is read on the loop (a millisecond or so); a larger
one is forwarded first and read in a worker (:meth:`Route.read`)."""
_OBJECT_START: Final = re.compile(rb"[ \t\r\n]*\{")


def end_to_end(headers: Iterable[tuple[str, str]], drop: frozenset[str] = frozenset()) -> Pairs:
    """``headers`` (name, value pairs, repeats kept in order) without the hop-by-hop ones,
    those the ``Connection`` header names, and ``drop``."""
    pairs = list(headers)
    named = {
        token.strip().lower()
        for name, value in pairs
        if name.lower() == "connection"
        for token in value.split(",")
    }
    skip = HOP_BY_HOP | named | drop
    return [(name, value) for name, value in pairs if name.lower() not in skip]


class ProxyError(ValueError):
    """A proxy setting that cannot be used: an upstream URL, a listen address (one line)."""


DEFAULT_LISTEN: Final = "127.0.0.1:8766"
"""Where a proxy listens unless told (next to the demo provider's 8765)."""


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT``, ``PORT`` or ``[::1]:PORT`` as (host, port); ProxyError
    otherwise (port 0: any free one)."""
    value = text.strip()
    host, sep, port = value.rpartition(":")
    if not sep:
        host, port = "", value
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ProxyError(f"the listen address takes HOST:PORT with a port 0-65535, not {text!r}")
    return host, int(port)


@dataclass(frozen=True)
class Upstream:
    """The base URL requests are forwarded under (see the module docstring)."""

    base: str
    """As given, without a trailing slash: ``https://api.openai.com/v1``."""

    @classmethod
    def parse(cls, url: str) -> Upstream:
        """The upstream at ``url`` (http or https, with a host); :class:`ProxyError`
        otherwise."""
        text = url.strip().rstrip("/")
        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018 (a bad port raises here)
        except ValueError:
            raise ProxyError(f"not a URL: {redact_url(url)!r}") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ProxyError(
                f"the upstream must be an http:// or https:// URL with a host, not "
                f"{redact_url(url)!r}"
            )
        if parts.query or parts.fragment:
            raise ProxyError("the upstream URL takes no query or fragment: give its base")
        return cls(text)

    @property
    def origin(self) -> str:
        parts = urlsplit(self.base)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def path(self) -> str:
        """The base's path, without a trailing slash (``/v1``; ``""`` for an origin)."""
        return urlsplit(self.base).path.rstrip("/")

    @property
    def local(self) -> bool:
        """A loopback upstream (never reached through a proxy from the environment)."""
        return urlsplit(self.base).hostname in ("127.0.0.1", "localhost", "::1")

    def url_for(self, raw_path: str) -> str:
        """The upstream URL of a request for ``raw_path`` (path and query, as received)."""
        path = raw_path if raw_path.startswith("/") else "/" + raw_path
        prefix = self.path
        bare = path.split("?", 1)[0]
        if not prefix or bare == prefix or bare.startswith(prefix + "/"):
            return self.origin + path
        return self.base + path

    def agent_url(self, proxy_origin: str) -> str:
        """The base URL to give the agent: the proxy's origin with the upstream's path."""
        return proxy_origin.rstrip("/") + self.path

    def shown(self) -> str:
        """The base with its credentials redacted (user-info, secret parameters)."""
        return redact_url(self.base)


def secrets_of(
    headers: Iterable[tuple[str, str]], url: str, body: dict[str, Any] | None = None
) -> tuple[str, ...]:
    """The credentials a request carries (see the module docstring), longest first."""
    headers = list(headers)
    found: set[str] = set(request_credentials(headers, body))  # ``api_key``, ``X-Tenant: sk-…``
    for name, value in headers:
        if is_secret_name(name) and value.strip():
            found.add(value.strip())
            scheme, _, credential = value.strip().partition(" ")
            if credential.strip() and scheme.isalpha():
                found.add(credential.strip())
    parts = urlsplit(url)
    for text in (parts.query, parts.fragment):
        for name, value in parse_qsl(text, keep_blank_values=False):
            if is_secret_name(name) and value:
                found.add(value)
    userinfo = parts.netloc.rpartition("@")[0]
    if userinfo:
        found.update(unquote(p) for p in userinfo.split(":", 1) if p)
    return tuple(sorted(found, key=lambda s: (-len(s), s)))


@dataclass(frozen=True)
class Route:
    """One request as the proxy forwards it and records it."""

    method: str
    raw_path: str
    """Path and query as the agent sent them."""
    url: str
    """The upstream URL (secrets included: it is what is sent)."""
    headers: Pairs
    """The request headers forwarded (secrets included)."""
    body: bytes
    """The request body, exactly as received."""
    secrets: tuple[str, ...]
    dialect: str | None = None
    """The provider whose endpoint this is; None: not an LLM exchange (forwarded only)."""
    request: dict[str, Any] | None = field(default=None, hash=False)
    """The body as a JSON object (a decoded copy when it was sent compressed), if it is one."""
    pending: bool = False
    """A large body not read yet (module doc): ``request`` is None, ``dialect`` a guess from
    the path and the body's first byte, ``secrets`` those of the headers and URL."""
    recorded: RedactedBody | None = field(default=None, hash=False, repr=False)
    """The body as recorded, once a large one was read (redacted once, in the worker)."""
    parts: tuple[bytes, ...] = field(default=(), hash=False, repr=False)
    """A large body as it was read (``body`` is then empty): :meth:`payload`, :meth:`joined`."""
    received: Pairs = field(default_factory=list, hash=False, repr=False)
    """The request headers as received (hop-by-hop ones too), for :meth:`read`."""

    @classmethod
    def of(
        cls, upstream: Upstream, method: str, raw_path: str, headers: Pairs, body: bytes,
        decoded: bytes | None = None,
    ) -> Route:  # fmt: skip
        """The route of a request (``decoded``: the body with its Content-Encoding undone)."""
        url = upstream.url_for(raw_path)
        forwarded = end_to_end(headers, NOT_FORWARDED)
        request = _json_object(body if decoded is None else decoded)
        dialect = sniff_url(url) if method == "POST" and request is not None else None
        secrets = secrets_of(headers, url, request)
        return cls(method, raw_path, url, forwarded, body, secrets, dialect, request)

    @classmethod
    def large(
        cls, upstream: Upstream, method: str, raw_path: str, headers: Pairs,
        parts: Sequence[bytes],
    ) -> Route:  # fmt: skip
        """The pending route of a request whose body, larger than :data:`INLINE_BODY`, came
        as ``parts`` (module doc): never joined on the loop, sent on piece by piece."""
        url = upstream.url_for(raw_path)
        forwarded = end_to_end(headers, NOT_FORWARDED)
        size = sum(map(len, parts))
        if not any(name.lower() == "content-length" for name, _ in forwarded):
            forwarded.append(("Content-Length", str(size)))  # as a body in one piece gets
        encoded = any(name.lower() == "content-encoding" for name, _ in headers)
        start = b"".join(parts[:4])[:64]  # the first bytes (a read is never empty)
        guess = encoded or _OBJECT_START.match(start) is not None  # what it may be
        dialect = sniff_url(url) if method == "POST" and guess else None
        return cls(method, raw_path, url, forwarded, b"", secrets_of(headers, url), dialect,
                   None, pending=True, parts=tuple(parts), received=list(headers))  # fmt: skip

    @property
    def size(self) -> int:
        """The body's size in bytes."""
        return len(self.body) + sum(map(len, self.parts))

    def payload(self) -> bytes | AsyncIterator[bytes] | None:
        """The body to send upstream: as received, a large one a :data:`SEND_STEP` at a
        time (each step is a copy into the socket's buffer; a whole 200 MB one would hold
        the loop for most of a second); None when there is none."""
        if self.parts:
            return _steps(self.parts)
        return self.body or None

    def joined(self) -> bytearray | bytes:
        """The whole body in one buffer, grown a part at a time (never one long copy, nor
        one long zeroing of a buffer made in advance): for a worker thread."""
        if not self.parts:
            return self.body
        out = bytearray()
        for part in self.parts:
            out += part
        return out

    @property
    def encoded(self) -> bool:
        """Was the body sent with a Content-Encoding?"""
        return any(name.lower() == "content-encoding" for name, _ in self.received)

    def read(self, plain: bytes | bytearray) -> Route:
        """A pending route with its body read (module doc; ``plain``: the body with its
        Content-Encoding undone): the route as :meth:`of` would have made it, its recorded
        body redacted already; a body that is no JSON object after all makes it a
        forwarded-only route. Run in a worker thread: nothing in it holds the interpreter
        for long."""
        if not self.pending:
            return self
        try:
            request = pieces.loads(plain, pause=_breather())
        except ValueError:  # orjson.JSONDecodeError
            request = None
        if not isinstance(request, dict):
            return dataclasses.replace(self, dialect=None, pending=False)
        secrets = secrets_of(self.received, self.url, request)
        redacted = redact_body(request, secrets, text=plain)
        recorded = RedactedBody(redacted, secrets, large=True)
        return dataclasses.replace(self, request=request, secrets=secrets, pending=False,
                                   recorded=recorded)  # fmt: skip

    def read_apart(self, folder: str | Path | None = None) -> Route:
        """:meth:`read`, done in the body worker's process (:mod:`inspector.net.bodyworker`):
        the same route, but for the recorded body, whose mapping holds only the body's small
        top-level members and whose ``json`` is the whole of it, redacted (in an unnamed
        temporary file in ``folder``, closed once the capture has it). Run in a worker
        thread; raises :class:`~inspector.net.bodyworker.WorkerFailed`."""
        if not self.pending:
            return self
        answer = read_apart(self.parts, self.secrets, self.received, folder,
                            loads=lambda line: pieces.loads(line, pause=_breather()))  # fmt: skip
        summary = answer.summary
        if answer.json is None:
            return dataclasses.replace(self, dialect=None, pending=False)
        secrets = tuple(summary["secrets"])
        recorded = RedactedBody(summary["recorded"], secrets, large=True, json=answer.json)
        return dataclasses.replace(self, request=summary["request"], secrets=secrets,
                                   pending=False, recorded=recorded)  # fmt: skip

    @property
    def key(self) -> str | None:
        """The credential the session is told is the key (the longest secret that is one
        word, as ``sk-…`` of ``Bearer sk-…``): the capture writer masks it wherever it shows
        as a word, which the secrets redacted from the request already take care of too."""
        return next((s for s in self.secrets if " " not in s), None)

    @property
    def path(self) -> str:
        """Path and query as the agent sent them, credentials redacted (as listed)."""
        return redact_url(self.raw_path, self.secrets)

    @property
    def shown_url(self) -> str:
        """The upstream URL with its credentials redacted."""
        return redact_url(self.url, self.secrets)

    @property
    def model(self) -> str | None:
        """The model asked for: the body's ``model``, else a ``/models/NAME:method`` path's
        (Gemini), else a ``/model/NAME/…`` path's (Bedrock)."""
        model = (self.request or {}).get("model")
        if isinstance(model, str):
            return model
        path = urlsplit(self.shown_url).path
        if "/models/" in path:
            return unquote(path.rsplit("/models/", 1)[1].split(":")[0]) or None
        if "/model/" in path:
            return unquote(path.rsplit("/model/", 1)[1].split("/")[0]) or None
        return None

    def recorded_headers(self) -> dict[str, str]:
        """The forwarded headers as a capture holds them (secrets redacted)."""
        return redact_headers(self.headers, self.secrets)

    def recorded_body(self) -> dict[str, Any]:
        """The JSON body with every secret string redacted (a copy; a large body's was made
        once, by :meth:`read`)."""
        if self.recorded is not None:
            return self.recorded
        body: dict[str, Any] = redact_body(self.request or {}, self.secrets)
        return body

    def spec(self) -> RequestSpec:
        """What the recording session is given: the request with its secrets redacted (the
        relay sends the agent's own; the session's copy is what the capture holds)."""
        return RequestSpec(self.method, self.shown_url, self.recorded_headers(),
                           self.recorded_body(), dialect=self.dialect)  # fmt: skip

    def tools_key(self) -> bytes | None:
        """The request's tool definitions as bytes (equal for equal tools), or None when it
        offers none (the session then judges against the tools its stream names, if any)."""
        listed = listed_tools(self.request or {})
        if not any(listed.values()):
            return None
        return orjson.dumps(listed)

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """The JSON body the agent gets for an error of the proxy's own: the provider's
        error shape for an LLM exchange, a plain ``{"error": {...}}`` otherwise."""
        if self.dialect is not None and self.dialect in REGISTRY:
            return REGISTRY.get(self.dialect).error_body(status, message)
        return {"error": {"message": message, "type": "proxy_error", "code": status}}


BREATH: Final = 0.0005
"""Seconds a worker reading a large body sleeps (module doc) once it has worked
:data:`BREATH_EVERY` seconds since it last did."""
BREATH_EVERY: Final = 0.002


def _breather() -> Callable[[], None]:
    """A pause for one reading: it lets the event loop have the interpreter now, if it waits
    for it (else it would wait up to the switch interval, 5 ms, at each hand-over), every
    couple of milliseconds of work, however small the steps (a body of 400,000 small
    messages takes 800,000 of them)."""
    last = time.monotonic()

    def pause() -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= BREATH_EVERY:
            time.sleep(BREATH)
            last = time.monotonic()

    return pause


SEND_STEP: Final = 1 << 20
"""Bytes of a large body handed to the upstream's socket at a time."""


async def _steps(parts: Sequence[bytes]) -> AsyncIterator[bytes]:
    for part in parts:
        view = memoryview(part)
        for at in range(0, len(view), SEND_STEP):
            yield bytes(view[at : at + SEND_STEP])


def _json_object(body: bytes) -> dict[str, Any] | None:
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
