"""What a capture never holds, nor anything written or printed: the one redaction rule.

Every writer and printer uses it: the capture writer (request, response and chunk records,
the header's meta, end errors), the recording proxy and ``record`` (their printed lines), HAR
export and import, the matrix's files and ``scrub``. The rule:

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
  gateways and MCP servers accept the session id alone as proof of who is calling.
- **URL user-info** (``user:password@``) becomes ``REDACTED@``.
- **The session's own keys, by value, wherever they occur** (``secrets``). A key of
  :data:`VALUE_SCAN_MIN` characters or more is found as a substring, at any boundary: followed
  by ``.``, a newline, a quote, an escape or the end of the text (OpenAI's "Incorrect API key
  provided: sk-…." is masked). A shorter one (a local server's placeholder: ``x``, ``demo``)
  is found only as a whole word (not next to a letter, digit, ``_`` or ``-``, nor before
  ``.`` and a letter), so it leaves ``x-demo-…``, ``xml`` and ``demo.example`` alone. A
  header value, query or fragment value holding a key is replaced whole; in a path segment
  only the key is.
- **Credential-shaped values, whatever their name** (:mod:`.credentials`: ``sk-``,
  ``sk-ant-``, ``sk-proj-``, ``AIza``, ``AKIA``/``ASIA``, ``xai-``, ``gsk_``, ``hf_``, GitHub,
  GitLab and Slack tokens, JWTs …): in header values, URLs, error texts and printed lines
  (:func:`mask_secrets`), and in the request body outside its content (below).
- **Request bodies** (:func:`redact_body`): every string holding a key becomes
  ``"REDACTED"`` at any depth; the credential fields :data:`CREDENTIAL_FIELDS` (``api_key``,
  ``apiKey``, ``key``, ``token``, ``access_token``, ``secret``, ``password`` …) are redacted
  by name, and credential-shaped strings by shape, everywhere but inside the content fields
  :data:`CONTENT_FIELDS` (``tools``, ``messages``, schemas, arguments: ``max_tokens``,
  ``budget_tokens``, ``prompt_cache_key`` stay as sent). A body that is not JSON has keys and
  shapes masked; a body that is not text is stored as sent.
- **Response bodies** (:func:`find_keys`): only the session's own keys (of
  :data:`VALUE_SCAN_MIN` characters or more), masked in what is *written* by ``*`` of the same
  length, so offsets, framing and JSON stay as received; the record lists the masked byte
  ranges. The bytes forwarded to an agent are never masked.

:func:`key_exposure` is the live session's key check: where the key shows in a request's
headers or URL values (never the body).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any, Final, Protocol
from urllib.parse import quote, unquote, unquote_plus, urlsplit, urlunsplit

from inspector.core.capture import pieces
from inspector.core.capture.credentials import SHAPE, holds_shape, mask_shapes, might_hold_shape
from inspector.core.capture.format import REDACTED
from inspector.core.capture.keyscan import (
    FRAGMENT_MIN,
    MASK_BYTE,
    VALUE_SCAN_MIN,
    body_keys,
    find_keys,
    json_text_lacks,
    mask_body,
)

__all__ = [
    "CONTENT_FIELDS",
    "CREDENTIAL_FIELDS",
    "FRAGMENT_MIN",
    "MASK_BYTE",
    "SECRET_NAMES",
    "SECRET_WORDS",
    "VALUE_SCAN_MIN",
    "Headers",
    "RedactedBody",
    "body_keys",
    "carries_no_secret",
    "find_keys",
    "holds_credential",
    "holds_secret",
    "is_secret_name",
    "json_text_lacks",
    "key_exposure",
    "mask_body",
    "mask_secrets",
    "redact_body",
    "redact_headers",
    "redact_json",
    "redact_meta",
    "redact_url",
    "request_credentials",
]  # fmt: skip
"""The rule's public names; the body scan's are :mod:`.keyscan`'s, exported from here."""

SECRET_WORDS: Final = (
    "auth", "key", "token", "secret", "bearer", "signature", "session", "cookie", "password",
    "credential",
)  # fmt: skip
"""A name containing one of these (case-insensitive) is secret, unless allowlisted."""
SECRET_NAMES: Final = frozenset({"sig", "pwd", "passwd"})
"""Short names that are secret although they contain none of :data:`SECRET_WORDS`."""
NOT_SECRET_WORDS: Final = ("ratelimit", "idempotency-key", "www-authenticate")
"""The allowlist: a name containing one of these carries no secret (see the module doc)."""

CREDENTIAL_FIELDS: Final = frozenset(
    {
        "api_key", "apikey", "api-key", "key", "token", "access_token", "accesstoken",
        "refresh_token", "id_token", "session_token", "secret", "client_secret", "password",
        "authorization",
    }
)  # fmt: skip
"""Request-body fields redacted by name (compared lower-cased), outside :data:`CONTENT_FIELDS`."""
CONTENT_FIELDS: Final = frozenset(
    {
        "tools", "functions", "tool_choice", "function_call", "messages", "input", "contents",
        "system", "systemInstruction", "system_instruction", "instructions", "prompt",
        "response_format", "text", "toolConfig", "tool_config", "generationConfig",
        "generation_config", "tool_resources", "parallel_tool_calls",
    }
)  # fmt: skip
"""Top-level request-body fields that are the content under test: only keys by value there."""
Headers = Mapping[str, str] | Mapping[bytes, bytes] | Iterable[tuple[str | bytes, str | bytes]]
"""Headers as given: a mapping (``httpx.Headers`` too) or (name, value) pairs."""


def carries_no_secret(name: str) -> bool:
    """Is ``name`` on the allowlist (it matches a secret word but carries no secret)?"""
    lower = name.lower()
    return any(word in lower for word in NOT_SECRET_WORDS)


@functools.lru_cache(maxsize=1024)
def is_secret_name(name: str) -> bool:
    """Is a header or parameter called ``name`` secret by name (see the module doc)? Cached:
    the same few names come back on every request of a HAR or a proxy."""
    lower = name.lower()
    if lower in SECRET_NAMES:
        return True
    return any(word in lower for word in SECRET_WORDS) and not carries_no_secret(lower)


@functools.lru_cache(maxsize=64)
def _token(secret: str) -> re.Pattern[str]:
    if len(secret) >= VALUE_SCAN_MIN:
        return re.compile(re.escape(secret))
    word = r"A-Za-z0-9_\-"
    return re.compile(rf"(?<![{word}.]){re.escape(secret)}(?![{word}])(?!\.[A-Za-z0-9])")


def holds_secret(value: str, secrets: Collection[str]) -> bool:
    """Does ``value`` hold one of ``secrets`` (see the module doc: a long one anywhere, a
    short one as a word)?"""
    return any(s and (value == s or _token(s).search(value)) for s in secrets)


def holds_credential(value: str, secrets: Collection[str]) -> bool:
    """Does ``value`` hold one of ``secrets`` or a credential-shaped word?"""
    return holds_secret(value, secrets) or holds_shape(value)


def mask_secrets(text: str, secrets: Collection[str] = ()) -> str:
    """``text`` with every occurrence of a key (module doc) and every credential-shaped word
    replaced by ``REDACTED``: for error texts and every line printed or written as text."""
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = _token(secret).sub(REDACTED, text)
    return mask_shapes(text, REDACTED)


def _text(value: str | bytes) -> str:
    """A header name or value as text: bytes as Latin-1; a byte that is not UTF-8 (a lone
    surrogate, as aiohttp decodes one) as ``\\xNN``, so the text can be written as JSON."""
    if isinstance(value, bytes):
        return value.decode("latin-1")
    text = str(value)
    if not text.isascii():
        try:
            raw = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a surrogate no decoder made: replaced
            raw = text.encode("utf-8", "replace")
        text = raw.decode("utf-8", "backslashreplace")
    return text


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
        value = REDACTED if secret or holds_credential(raw, secrets) else raw
        key = spelling.setdefault(name.lower(), name)
        if key not in out:
            out[key] = value
        elif not secret:
            out[key] = f"{out[key]}, {value}"
    return out


def _param_is_secret(name: str, value: str, secrets: Collection[str]) -> bool:
    return is_secret_name(unquote_plus(name)) or holds_credential(unquote_plus(value), secrets)


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
        elif not eq and holds_credential(unquote_plus(piece), secrets):
            pieces[i] = REDACTED
    return "".join(pieces)


def _redact_segment(segment: str, secrets: Collection[str]) -> str:
    text = unquote(segment)
    if not holds_credential(text, secrets):
        return segment
    return quote(mask_secrets(text, secrets), safe=_PCHAR)


def _redact_path(path: str, secrets: Collection[str]) -> str:
    if not secrets and not might_hold_shape(path):
        return path
    return "/".join(_redact_segment(s, secrets) for s in path.split("/"))


class SerializedBody(Protocol):
    """A body's JSON kept outside the mapping (:class:`~.apart.JsonFile`)."""

    def pieces(self) -> Iterable[bytes]: ...

    def copy_to(self, fd: int) -> int: ...

    def close(self) -> None: ...


class RedactedBody(dict[str, Any]):
    """A request body (a JSON object) already redacted by :func:`redact_body` against
    ``secrets``. The rule is idempotent: redacting it again against those secrets, or fewer,
    gives an equal body, so :func:`redact_body` and :func:`redact_json` then return it as it
    is (a large body is redacted once, in a worker, not again by every writer). ``large``: its
    writers serialize it in pieces, off the event loop (:mod:`.pieces`).

    ``json``: the whole redacted body already serialized (``orjson.dumps`` of it, as pieces),
    when it was read and redacted in another process (the proxy's large bodies): the mapping
    itself then holds only the body's small top-level members (its model, tools, settings:
    what a session reads), never the whole of it, and writers write :meth:`in_pieces`. Where
    the whole body is needed after all (redacted against a secret it was not), :meth:`whole`
    reads it back from ``json``."""

    def __init__(self, body: Mapping[str, Any], secrets: Collection[str], *,
                 large: bool = False, json: SerializedBody | None = None) -> None:  # fmt: skip
        super().__init__(body)
        self.secrets = frozenset(s for s in secrets if s)
        self.large = large
        self.json = json

    def covers(self, secrets: Collection[str]) -> bool:
        """Was it redacted against every one of ``secrets``?"""
        return all(not s or s in self.secrets for s in secrets)

    def in_pieces(self) -> Iterable[bytes]:
        """The whole body's JSON (``orjson.dumps`` of it) as pieces, none over about a MB."""
        return self.json.pieces() if self.json is not None else pieces.dumps(self)

    def whole(self) -> dict[str, Any]:
        """The whole body as a mapping (read back from ``json`` when there is one: long, for a
        worker thread; only for a redaction the body was not made for)."""
        if self.json is None:
            return self
        value: dict[str, Any] = pieces.loads(b"".join(self.json.pieces()))
        return value


def redact_json(value: Any, secrets: Collection[str]) -> Any:
    """A copy of the JSON value ``value`` in which every string that equals one of
    ``secrets`` or holds one as a whole token is ``"REDACTED"`` (walked without recursion,
    so any depth is fine; ``value`` itself is never changed)."""
    if isinstance(value, RedactedBody) and value.covers(secrets):
        return value
    secrets = [s for s in secrets if s]
    if not secrets:
        return value
    if isinstance(value, str):
        return REDACTED if holds_secret(value, secrets) else value
    if not isinstance(value, Mapping | list | tuple):
        return value
    root: dict[Any, Any] | list[Any] = _copy(value, secrets)
    stack = [root]
    while stack:
        node = stack.pop()
        for k, item in list(node.items() if isinstance(node, dict) else enumerate(node)):
            if isinstance(item, str):
                if holds_secret(item, secrets):
                    node[k] = REDACTED
            elif isinstance(item, Mapping | list | tuple):
                node[k] = copied = _copy(item, secrets)
                stack.append(copied)
    return root


def redact_body(
    body: Any, secrets: Collection[str], *, text: bytes | bytearray | None = None
) -> Any:
    """A copy of a request body (a JSON value) as written: keys by value at any depth
    (:func:`redact_json`); outside :data:`CONTENT_FIELDS`, credential fields by name and
    credential-shaped strings too (module doc). ``body`` itself is never changed.

    ``text``: the JSON text ``body`` was read from. Where it provably holds none of
    ``secrets`` (:func:`~.keyscan.json_text_lacks`), no string of the content fields can
    (nor any member name), so they are kept as they are (shared, not walked): the same body,
    at the cost of a byte search instead of a walk of every string."""
    if isinstance(body, RedactedBody) and body.covers(secrets):
        return body
    if not isinstance(body, Mapping):
        return redact_json(body, secrets)
    lacking = text is not None and json_text_lacks(text, secrets)
    out: dict[Any, Any] = {}
    for name, value in (dict(body) if lacking else _copy(body, secrets)).items():
        if name in CONTENT_FIELDS:
            out[name] = value if lacking else redact_json(value, secrets)
        else:
            out[name] = _redact_config(value, secrets)
        if isinstance(name, str) and name.lower() in CREDENTIAL_FIELDS and _is_set(value):
            out[name] = REDACTED
    return out


def _is_set(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool) and value != ""


def _redact_config(value: Any, secrets: Collection[str]) -> Any:
    """A copy of a body field that is no content: keys, credential fields by name and
    credential-shaped strings redacted at any depth (walked without recursion)."""
    if isinstance(value, str):
        return REDACTED if holds_credential(value, secrets) else value
    if not isinstance(value, Mapping | list | tuple):
        return value
    root: dict[Any, Any] | list[Any] = _copy(value, secrets)
    stack = [root]
    while stack:
        node = stack.pop()
        for k, item in list(node.items() if isinstance(node, dict) else enumerate(node)):
            named = isinstance(node, dict) and isinstance(k, str) and k.lower() in CREDENTIAL_FIELDS
            if named and _is_set(item):
                node[k] = REDACTED
            elif isinstance(item, str):
                if holds_credential(item, secrets):
                    node[k] = REDACTED
            elif isinstance(item, Mapping | list | tuple):
                node[k] = copied = _copy(item, secrets)
                stack.append(copied)
    return root


def redact_meta(meta: Mapping[str, Any], secrets: Collection[str]) -> dict[str, Any]:
    """A capture header's ``meta`` with ``secrets`` redacted: its ``url`` as any URL is
    (:func:`redact_url`: a host that happens to spell the key stays), every other value as
    JSON (:func:`redact_json`: a ``model`` equal to the key becomes ``"REDACTED"``)."""
    return {
        name: redact_url(value, secrets)
        if name in ("url", "upstream") and isinstance(value, str)
        else _redact_config(value, secrets)
        for name, value in meta.items()
    }


def _copy(
    container: Mapping[Any, Any] | list[Any] | tuple[Any, ...], secrets: Collection[str]
) -> Any:
    """A shallow copy; an object's member name holding a key is masked too (a name made
    equal to another by that gets ``#2``, ``#3`` …: no member is lost)."""
    if not isinstance(container, Mapping):
        return list(container)
    out: dict[Any, Any] = {}
    for name, value in container.items():
        if isinstance(name, str) and secrets and holds_secret(name, secrets):
            masked, n = mask_secrets(name, secrets), 2
            name = masked
            while name in out or name in container:
                name, n = f"{masked}#{n}", n + 1
        out[name] = value
    return out


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


def request_credentials(headers: Headers | None, body: Any) -> list[str]:
    """Credentials a request carries besides its key header, to be masked wherever they show
    (a response that echoes them too): the string values of the body's top-level
    :data:`CREDENTIAL_FIELDS` (``api_key`` …) and credential-shaped words in header values."""
    found: list[str] = []
    if isinstance(body, Mapping):
        for name, value in body.items():
            named = isinstance(name, str) and name.lower() in CREDENTIAL_FIELDS
            if named and isinstance(value, str) and value.strip() and value != REDACTED:
                found.append(value.strip())
    for _, value in _pairs(headers):
        found.extend(m.group(0) for m in SHAPE.finditer(value))
    return found


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
