"""What a capture never holds: the one redaction rule for headers and URLs.

The capture writer applies it to every request and response record (and the live session to
its capture's meta); a recording proxy uses the same functions. The rule:

- **By name.** A header, or a URL query or fragment parameter, is secret when its name
  (case-insensitive; a parameter's name percent-decoded) contains one of
  :data:`SECRET_WORDS` — auth, key, token, secret, bearer, signature, session, cookie,
  password, credential — or is one of the short names in :data:`SECRET_NAMES` (``sig``: an
  Azure SAS signature; ``pwd``, ``passwd``). Its whole value becomes ``"REDACTED"``.
- **Allowlist** (:func:`carries_no_secret`): names that match but carry no secret are kept —
  any name containing ``ratelimit`` (``x-ratelimit-remaining-tokens``,
  ``anthropic-ratelimit-…``: counts and times), ``idempotency-key`` (a request id the client
  chose) and ``www-authenticate`` (the server's challenge: a scheme, a realm, an error; never
  the client's credential).
- **Session ids are redacted** (``x-session-id``, ``mcp-session-id``, ``session_id=``): some
  gateways and MCP servers accept the session id alone as proof of who is calling, so it is a
  credential there, and a capture loses nothing it needs without the value.
- **URL user-info** (``user:password@``) becomes ``REDACTED@``.
- **The key itself, wherever it shows** (``secrets``): a header value, query or fragment value
  equal to it, or containing it as a whole token (delimited by the start or end, white space
  or one of ``, ; : = " ' / ? & # @``, as in ``Bearer KEY``), is replaced as a whole, whatever
  its name; in a path segment only the token is (``models/KEY:stream`` gives
  ``models/REDACTED:stream``). Never a substring: a short key such as ``x`` leaves
  ``x-demo-…``, ``xml`` and ``x-ray`` alone (``-`` joins a word, it does not end one).
- **Request bodies** (:func:`redact_json`): walked as JSON, every string value that equals the
  key or holds it as a whole token becomes ``"REDACTED"`` (object keys, numbers and the
  rest stay; the body carries the tools under test). A body that is not JSON has the key's
  whole tokens masked; a body that is not text (``body_b64``) is stored as sent.
- Not redacted: response chunks (the bytes as received: the capture is evidence).

:func:`key_exposure` is the live session's key check: where the key shows in a request's
headers or URL values, compared the same way (whole values and whole tokens, never a
substring, never the body).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any, Final
from urllib.parse import quote, unquote, unquote_plus, urlsplit, urlunsplit

from inspector.core.capture.format import REDACTED

SECRET_WORDS: Final = (
    "auth", "key", "token", "secret", "bearer", "signature", "session", "cookie", "password",
    "credential",
)  # fmt: skip
"""A name containing one of these (case-insensitive) is secret, unless allowlisted."""
SECRET_NAMES: Final = frozenset({"sig", "pwd", "passwd"})
"""Short names that are secret although they contain none of :data:`SECRET_WORDS`."""
NOT_SECRET_WORDS: Final = ("ratelimit", "idempotency-key", "www-authenticate")
"""The allowlist: a name containing one of these carries no secret (see the module doc)."""

_DELIMITERS: Final = "\\s,;:=\"'/?&#@"

Headers = Mapping[str, str] | Mapping[bytes, bytes] | Iterable[tuple[str | bytes, str | bytes]]
"""Headers as given: a mapping (``httpx.Headers`` too) or (name, value) pairs."""


def carries_no_secret(name: str) -> bool:
    """Is ``name`` on the allowlist (it matches a secret word but carries no secret)?"""
    lower = name.lower()
    return any(word in lower for word in NOT_SECRET_WORDS)


def is_secret_name(name: str) -> bool:
    """Is a header or parameter called ``name`` secret by name (see the module doc)?"""
    lower = name.lower()
    if lower in SECRET_NAMES:
        return True
    return any(word in lower for word in SECRET_WORDS) and not carries_no_secret(lower)


@functools.lru_cache(maxsize=32)
def _token(secret: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![^{_DELIMITERS}]){re.escape(secret)}(?![^{_DELIMITERS}])")


def holds_secret(value: str, secrets: Collection[str]) -> bool:
    """Does ``value`` equal one of ``secrets`` or contain one as a whole token?"""
    return any(s and (value == s or _token(s).search(value)) for s in secrets)


def mask_secrets(text: str, secrets: Collection[str]) -> str:
    """``text`` with every whole-token occurrence of a secret replaced by ``REDACTED`` (for
    the inspector's own messages, which may quote a server that echoed the key)."""
    for secret in secrets:
        if secret:
            text = _token(secret).sub(REDACTED, text)
    return text


def _text(value: str | bytes) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)


def _pairs(headers: Headers | None) -> Iterable[tuple[str, str]]:
    items = headers.items() if isinstance(headers, Mapping) else (headers or ())
    return ((_text(name), _text(value)) for name, value in items)


def redact_headers(headers: Headers | None, secrets: Collection[str] = ()) -> dict[str, str]:
    """Headers as a plain dict with every secret value replaced by ``"REDACTED"``.

    Names keep the spelling first seen; repeated names (compared case-insensitively) are
    joined with ", ". Names and values given as bytes are decoded as Latin-1.
    """
    out: dict[str, str] = {}
    spelling: dict[str, str] = {}
    for name, raw in _pairs(headers):
        secret = is_secret_name(name)
        value = REDACTED if secret or holds_secret(raw, secrets) else raw
        key = spelling.setdefault(name.lower(), name)
        if key not in out:
            out[key] = value
        elif not secret:
            out[key] = f"{out[key]}, {value}"
    return out


def _param_is_secret(name: str, value: str, secrets: Collection[str]) -> bool:
    return is_secret_name(unquote_plus(name)) or holds_secret(unquote_plus(value), secrets)


_SEPARATORS: Final = re.compile(r"([&;])")
"""Query parameters are separated by ``&``, or by ``;`` (the older HTML form rule)."""
_PCHAR: Final = "!$&'()*+,;=:@"
"""What a path segment may hold unquoted besides letters, digits and ``-._~`` (RFC 3986)."""


def _redact_pairs(text: str, secrets: Collection[str]) -> str:
    pieces = _SEPARATORS.split(text)
    for i in range(0, len(pieces), 2):  # the odd ones are the separators
        piece = pieces[i]
        name, eq, value = piece.partition("=")
        if eq and _param_is_secret(name, value, secrets):
            pieces[i] = f"{name}={REDACTED}"
        elif not eq and holds_secret(unquote_plus(piece), secrets):
            pieces[i] = REDACTED
    return "".join(pieces)


def _redact_segment(segment: str, secrets: Collection[str]) -> str:
    text = unquote(segment)
    if not holds_secret(text, secrets):
        return segment
    return quote(mask_secrets(text, secrets), safe=_PCHAR)


def _redact_path(path: str, secrets: Collection[str]) -> str:
    if not secrets:
        return path
    return "/".join(_redact_segment(s, secrets) for s in path.split("/"))


def redact_json(value: Any, secrets: Collection[str]) -> Any:
    """A copy of the JSON value ``value`` in which every string that equals one of
    ``secrets`` or holds one as a whole token is ``"REDACTED"`` (walked without recursion,
    so any depth is fine; ``value`` itself is never changed)."""
    secrets = [s for s in secrets if s]
    if not secrets:
        return value
    if isinstance(value, str):
        return REDACTED if holds_secret(value, secrets) else value
    if not isinstance(value, Mapping | list | tuple):
        return value
    root: dict[Any, Any] | list[Any] = _copy(value)
    stack = [root]
    while stack:
        node = stack.pop()
        for k, item in list(node.items() if isinstance(node, dict) else enumerate(node)):
            if isinstance(item, str):
                if holds_secret(item, secrets):
                    node[k] = REDACTED
            elif isinstance(item, Mapping | list | tuple):
                node[k] = copied = _copy(item)
                stack.append(copied)
    return root


def redact_meta(meta: Mapping[str, Any], secrets: Collection[str]) -> dict[str, Any]:
    """A capture header's ``meta`` with ``secrets`` redacted: its ``url`` as any URL is
    (:func:`redact_url`: a host that happens to spell the key stays), every other value as
    JSON (:func:`redact_json`: a ``model`` equal to the key becomes ``"REDACTED"``)."""
    return {
        name: redact_url(value, secrets)
        if name == "url" and isinstance(value, str)
        else redact_json(value, secrets)
        for name, value in meta.items()
    }


def _copy(container: Mapping[Any, Any] | list[Any] | tuple[Any, ...]) -> Any:
    return dict(container) if isinstance(container, Mapping) else list(container)


def redact_url(url: str, secrets: Collection[str] = ()) -> str:
    """``url`` with secret query and fragment values, user-info and ``secrets`` redacted.

    Anything else is kept byte for byte; a URL that cannot be parsed becomes "REDACTED".
    """
    secrets = [s for s in secrets if s]
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rpartition('@')[2]}"
    path = _redact_path(parts.path, secrets)
    query, fragment = _redact_pairs(parts.query, secrets), _redact_pairs(parts.fragment, secrets)
    if (netloc, path, query, fragment) == (parts.netloc, parts.path, parts.query, parts.fragment):
        return url
    return urlunsplit((parts.scheme, netloc, path, query, fragment))


def key_exposure(url: str, headers: Headers | None, key: str | None) -> str | None:
    """Where ``key`` shows in a request's header values or URL query values, compared whole
    (a value equal to it, or holding it as a whole token): e.g. "header 'X-Extra'", or None.

    Never a substring, never the body: a short key (``x``, ``demo``) is not "found" in a
    request that merely contains those letters.
    """
    if not key:
        return None
    for name, value in _pairs(headers):
        if holds_secret(value, (key,)):
            return f"header {name!r}"
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    for text in (parts.query, parts.fragment):
        for piece in _SEPARATORS.split(text)[::2]:
            name, eq, value = piece.partition("=")
            name, value = (name, value) if eq else ("", piece)
            if holds_secret(unquote_plus(value), (key,)):
                return f"URL parameter {unquote_plus(name)!r}" if name else "the URL"
    return None
