"""The proxy's client to its upstream: one pooled aiohttp session, its failures as httpx's.

Per chunk, aiohttp's client (its HTTP parser is compiled) costs a fraction of httpx's
(httpcore and h11 in Python), and :meth:`aiohttp.StreamReader.readany` hands over whatever
has arrived in one piece: a relay that fell behind catches up in one write instead of one per
upstream chunk, and one that keeps up gets each chunk the moment it arrives.

Invariants:
- The request goes out as the agent sent it: method, URL (not re-quoted), headers in order
  and body byte for byte (minus the hop-by-hop ones, :attr:`Route.headers`; a repeated name
  keeps its first spelling, :func:`outgoing_headers`); the client adds only
  ``Host`` and, for a body, its ``Content-Length``: no ``User-Agent``, ``Accept``,
  ``Accept-Encoding`` or ``Content-Type`` of its own, no cookies kept between requests, no
  redirect followed (the agent gets the 3xx), no body decoded.
- Connections are kept alive and reused (a pool without a limit); one whose body did not
  end cleanly is closed, never reused.
- User-info in the upstream URL is used only when the agent sent no ``Authorization``
  (:func:`with_user_info`): then as ``Authorization: Basic``; never beside the agent's own.
- Header bytes that are not UTF-8 are sent as received (:mod:`.headerbytes`).
- Environment proxies (``HTTP(S)_PROXY``, ``NO_PROXY``) apply to a remote upstream only, read
  once; ``.netrc`` never adds credentials.
- A failure leaves as the httpx exception the session runner maps
  (:func:`inspector.net.client.map_httpx_error`): ``ConnectTimeout``, ``ConnectError``,
  ``ReadTimeout`` (no data for the read timeout, before or after the headers),
  ``ReadError`` (a reset or a body cut short).
"""

from __future__ import annotations

import base64
import ssl
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote, urlsplit, urlunsplit
from urllib.request import getproxies, proxy_bypass

import aiohttp
import certifi
import httpx
from multidict import CIMultiDict
from yarl import URL

from .headerbytes import install
from .routes import Pairs, Route, Upstream

NOT_ADDED: Final = ("Accept", "Accept-Encoding", "User-Agent", "Content-Type")
"""Headers aiohttp would add to a request that has none: the agent's request goes as sent."""
LONGEST_HEADER: Final = 64 * 1024
"""The longest response header line accepted from the upstream (aiohttp's default: 8 KiB)."""


@dataclass(frozen=True)
class Answer:
    """The upstream's status line and headers, as received."""

    status: int
    reason: str | None
    headers: Pairs
    """Name, value pairs in order, repeats kept."""
    http_version: str
    """``HTTP/1.1``."""


class UpstreamClient:
    """Sends routes to one upstream over a shared pool (see the module docstring)."""

    def __init__(self, upstream: Upstream, *, connect_timeout: float, read_timeout: float) -> None:
        self.upstream = upstream
        self.timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=connect_timeout, sock_read=read_timeout
        )
        self._session: aiohttp.ClientSession | None = None
        self._proxy: str | None = None

    async def open(self) -> None:
        """Open the pool (on the running loop); calling it again does nothing."""
        if self._session is not None:
            return
        install()  # header bytes sent on as received (headerbytes.py)
        secure = urlsplit(self.upstream.base).scheme == "https"
        context = ssl.create_default_context(cafile=certifi.where()) if secure else True
        connector = aiohttp.TCPConnector(limit=0, ssl=context)
        self._session = aiohttp.ClientSession(
            connector=connector,
            timeout=self.timeout,
            auto_decompress=False,
            cookie_jar=aiohttp.DummyCookieJar(),
            trust_env=False,
            skip_auto_headers=NOT_ADDED,
            max_line_size=LONGEST_HEADER,
            max_field_size=LONGEST_HEADER,
        )
        self._proxy = None if self.upstream.local else environment_proxy(self.upstream.base)

    async def close(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await session.close()

    async def send(self, route: Route) -> aiohttp.ClientResponse:
        """Send ``route`` as received; the response once its headers arrived (its body is
        the caller's to read, then release or close). Raises httpx errors (module doc)."""
        assert self._session is not None, "open() first"
        url, headers = with_user_info(route.url, route.headers)
        try:
            return await self._session.request(
                route.method,
                URL(url, encoded=True),
                headers=headers,
                data=route.payload(),
                allow_redirects=False,
                proxy=self._proxy,
            )
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            raise as_httpx(exc, answered=False) from exc


def with_user_info(url: str, pairs: Pairs) -> tuple[str, CIMultiDict[str]]:
    """The URL without user-info and the headers to send: user-info in the upstream URL
    (``http://user:pass@host/v1``) becomes ``Authorization: Basic …`` only when the agent sent
    no ``Authorization`` of its own; the agent's is forwarded unchanged either way."""
    headers = outgoing_headers(pairs)
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, headers
    userinfo, _, host = parts.netloc.rpartition("@")
    bare = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    if "Authorization" not in headers:
        user, _, password = userinfo.partition(":")
        token = f"{unquote(user)}:{unquote(password)}".encode("utf-8", "surrogateescape")
        headers["Authorization"] = "Basic " + base64.b64encode(token).decode("ascii")
    return bare, headers


def outgoing_headers(pairs: Pairs) -> CIMultiDict[str]:
    """``pairs`` for aiohttp, every value in order: a name repeated with another spelling
    (``X-Trace`` then ``x-trace``) takes its first one, as aiohttp would otherwise keep only
    the last value of the two (header names are case-insensitive: the meaning is the same)."""
    spelt: dict[str, str] = {}
    headers: CIMultiDict[str] = CIMultiDict()
    for name, value in pairs:
        headers.add(spelt.setdefault(name.lower(), name), value)
    return headers


def answer_of(response: aiohttp.ClientResponse) -> Answer:
    version = response.version
    http = f"HTTP/{version.major}.{version.minor}" if version is not None else "HTTP/1.1"
    headers = [(k, v) for k, v in response.headers.items()]
    return Answer(response.status, response.reason, headers, http)


def environment_proxy(url: str) -> str | None:
    """The proxy the environment names for ``url`` (None: direct)."""
    parts = urlsplit(url)
    if parts.hostname and proxy_bypass(parts.hostname):
        return None
    return getproxies().get(parts.scheme)


def as_httpx(exc: BaseException, *, answered: bool) -> httpx.TransportError:
    """The httpx error for an aiohttp failure (``answered``: after the response's headers)."""
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return httpx.ConnectTimeout(str(exc) or "connect timeout")
    if isinstance(exc, TimeoutError):  # aiohttp's read timeout, before or after the headers
        return httpx.ReadTimeout(str(exc) or "read timeout")
    if isinstance(exc, aiohttp.ClientConnectorError):
        return httpx.ConnectError(str(exc.os_error) or str(exc))
    if isinstance(exc, aiohttp.InvalidURL | ValueError):
        return httpx.UnsupportedProtocol(f"cannot send the request: {exc}")
    if _reset(exc):
        return httpx.ReadError("the upstream reset the connection")
    if answered or isinstance(exc, aiohttp.ServerDisconnectedError):
        return httpx.RemoteProtocolError("the upstream closed the connection before the end")
    return httpx.ReadError(str(exc) or type(exc).__name__)


def _reset(exc: BaseException) -> bool:
    """Does a ConnectionResetError show in ``exc``, its causes or its message?"""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionResetError) or "ConnectionResetError" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
