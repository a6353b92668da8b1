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
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import parse_qsl, unquote, urlsplit

import orjson

from inspector.core.capture.redaction import (
    is_secret_name,
    redact_body,
    redact_headers,
    redact_url,
    request_credentials,
)
from inspector.core.providers import REGISTRY, sniff_url
from inspector.core.requests.scenarios import RequestSpec
from inspector.core.verdicts.tools import listed_tools

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
        """The JSON body with every secret string redacted (a copy)."""
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


def _json_object(body: bytes) -> dict[str, Any] | None:
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
