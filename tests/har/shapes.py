"""HAR files in the shapes real tools write, built around a response body and its request.

Each builder reproduces what its tool is known to write (the quirks a reader must survive),
from the HAR 1.2 spec (http://www.softwareishard.com/blog/har-12-spec/) and from public
sources read for it:

- Chrome DevTools (creator ``WebInspector``): ``ChromeDevTools/devtools-frontend``
  ``front_end/models/har/Log.ts`` and ``Writer.ts`` (``_initiator``, ``_priority``,
  ``_resourceType``, ``_transferSize``, ``_error``, ``_connectionId``, ``-1`` timings,
  ``http/2.0`` with ``:authority`` pseudo-headers, a body that is not valid text written as
  base64; a "sanitized" export drops ``authorization`` and ``cookie``); mitmproxy's test file
  ``test/mitmproxy/data/har_files/chrome.har`` (``text/html`` itself written base64, pages);
  the preflight ``OPTIONS`` entry (``_resourceType: "preflight"``) before a cross-origin POST
  to ``api.openai.com/v1/chat/completions``, as in a Chrome HAR posted to
  ``jonrhall/openai-streaming-hooks`` issue 6; no ``content.text`` for some event streams.
- Firefox DevTools: ``devtools/client/netmonitor/src/har/har-builder.js`` (``version`` 1.1 in
  older builds, ``browser`` beside ``creator``, ``content.size`` -1, a dated offset like
  ``+02:00``, ``comment: "Response bodies are not included."`` when bodies are left out).
- mitmproxy: ``mitmproxy/addons/savehar.py`` (creator ``mitmproxy exporthar`` 0.1, timings
  ``connect``/``ssl`` null, ``+00:00`` dates, ``postData.params`` beside ``text``,
  ``text: null`` for a body it streamed, ``.zhar`` = zlib) and the newer creator
  ``mitmproxy`` 11.x with microsecond dates (``invalid_content_encoding.har``).
- Charles: mitmproxy's ``charles.har`` (creator ``Charles Proxy`` 4.6.3,
  ``_charlesStatus: "COMPLETE"``, ``redirectURL: null``, ``headersSize: 0``, ``-07:00`` dates,
  every ``/`` in strings escaped as ``\\/`` by its JSON writer).
- Proxyman (creator ``Proxyman``): no public fixture was found; built from the spec's
  required fields only, with the optional ``cache``/``timings`` left out, as minimal writers do.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any

from inspector.core.base.provider import WireRequest
from inspector.core.providers import REGISTRY

BASES = {
    "openai-chat": "https://api.openai.com/v1",
    "openai-responses": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com/v1",
    "gemini": "https://generativelanguage.googleapis.com/v1beta",
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
KEY = "sk-canary-0123456789abcdef"
"""The key every shape's request carries (in a header or the URL): no output may hold it."""


def wire(dialect: str, model: str = "some-model") -> WireRequest:
    """The streaming request this project's provider module builds for ``dialect``."""
    messages = [{"role": "user", "content": "Weather in Oslo?"}]
    return REGISTRY.get(dialect).request(BASES[dialect], model, messages, TOOLS)


def pairs(headers: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in headers.items()]


def _request(w: WireRequest, headers: dict[str, str], version: str) -> dict[str, Any]:
    text = json.dumps(w.body)
    return {
        "method": "POST",
        "url": w.url,
        "httpVersion": version,
        "headers": pairs(headers),
        "queryString": [],
        "cookies": [],
        "headersSize": -1,
        "bodySize": len(text.encode()),
        "postData": {"mimeType": "application/json", "text": text},
    }


def _auth(w: WireRequest) -> dict[str, str]:
    """The key as each provider takes it (a header; Gemini: ``x-goog-api-key``)."""
    if "anthropic" in w.url:
        return {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
    if "googleapis" in w.url:
        return {"x-goog-api-key": KEY}
    return {"authorization": f"Bearer {KEY}"}


def chrome(body: bytes | None, w: WireRequest, *, sanitized: bool = False) -> dict[str, Any]:
    """Chrome DevTools' "Save all as HAR (with content)": a preflight, then the POST."""
    headers = {":authority": "api.openai.com", ":method": "POST", ":path": "/v1/x"}
    headers.update({":scheme": "https", "content-type": "application/json"})
    if not sanitized:
        headers.update(_auth(w))
    content: dict[str, Any] = {"size": len(body or b"x" * 999), "mimeType": "text/event-stream"}
    if body is not None:
        content.update(text=base64.b64encode(body).decode(), encoding="base64")
    chrome_extras = {"_initiator": {"type": "script"}, "_priority": "High"}
    timings = {"blocked": 1.5, "dns": -1, "ssl": -1, "connect": -1, "send": 0.2, "wait": 310.0}
    timings.update(receive=880.4, _blocked_queueing=1.1)
    response = {"status": 200, "statusText": "", "httpVersion": "http/2.0"}
    response.update(headers=pairs({"content-type": "text/event-stream; charset=utf-8"}))
    response.update(cookies=[], content=content, redirectURL="", headersSize=-1, bodySize=-1)
    response.update(_transferSize=len(body or b"") + 400, _error=None)
    post = {
        **chrome_extras,
        "_resourceType": "fetch",
        "_connectionId": "1234",
        "cache": {},
        "pageref": "page_1",
        "request": _request(w, headers, "http/2.0"),
        "response": response,
        "serverIPAddress": "104.18.7.192",
        "startedDateTime": "2025-03-01T10:00:00.250Z",
        "time": 1192.1,
        "timings": timings,
    }
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "WebInspector", "version": "537.36"},
            "pages": [
                {
                    "startedDateTime": "2025-03-01T10:00:00.000Z",
                    "id": "page_1",
                    "title": "http://localhost:5173/",
                    "pageTimings": {"onContentLoad": 63.4, "onLoad": 447.7},
                }
            ],
            "entries": [_preflight(w), post, _page_script()],
        }
    }


def _preflight(w: WireRequest) -> dict[str, Any]:
    return {
        "_initiator": {"type": "preflight", "url": w.url, "requestId": "59205.10"},
        "_priority": "High",
        "_resourceType": "preflight",
        "cache": {},
        "request": {
            "method": "OPTIONS",
            "url": w.url,
            "httpVersion": "http/2.0",
            "headers": pairs({"access-control-request-method": "POST"}),
            "queryString": [],
            "cookies": [],
            "headersSize": -1,
            "bodySize": 0,
        },
        "response": {
            "status": 200,
            "statusText": "",
            "httpVersion": "http/2.0",
            "headers": [],
            "cookies": [],
            "content": {"size": 0, "mimeType": "x-unknown"},
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
            "_transferSize": 0,
            "_error": None,
        },
        "startedDateTime": "2025-03-01T10:00:00.200Z",
        "time": 40.0,
        "timings": {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 40},
    }


def _page_script() -> dict[str, Any]:
    """An ordinary page resource (a script, its text base64 as Chrome writes it)."""
    js = b"console.log('hi')\n"
    return {
        "_resourceType": "script",
        "cache": {},
        "request": {
            "method": "GET",
            "url": "http://localhost:5173/main.js",
            "httpVersion": "",
            "headers": [],
            "queryString": [],
            "cookies": [],
            "headersSize": -1,
            "bodySize": 0,
        },
        "response": {
            "status": 200,
            "statusText": "OK",
            "httpVersion": "http/1.1",
            "headers": [],
            "cookies": [],
            "content": {
                "size": len(js),
                "mimeType": "text/javascript",
                "text": base64.b64encode(js).decode(),
                "encoding": "base64",
            },
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": len(js),
        },
        "startedDateTime": "2025-03-01T10:00:00.100Z",
        "time": 3.0,
        "timings": {"send": 0, "wait": 2, "receive": 1},
    }


def firefox(body: bytes | None, w: WireRequest) -> dict[str, Any]:
    """Firefox's "Save All As HAR" (bodies included unless ``body`` is None)."""
    content: dict[str, Any] = {"mimeType": "text/event-stream", "size": -1}
    if body is None:
        content["comment"] = "Response bodies are not included."
    else:
        content.update(size=len(body), text=body.decode("utf-8"))
    entry = {
        "pageref": "page_1",
        "startedDateTime": "2025-03-01T11:00:00.123+02:00",
        "time": 950,
        "request": {**_request(w, {"Host": "x", **_auth(w)}, "HTTP/3"), "bodySize": 0},
        "response": {
            "status": 200,
            "statusText": "OK",
            "httpVersion": "HTTP/3",
            "headers": pairs({"content-type": "text/event-stream"}),
            "cookies": [],
            "content": content,
            "redirectURL": "",
            "headersSize": 151,
            "bodySize": -1,
        },
        "cache": {},
        "timings": {
            "blocked": 0,
            "dns": 0,
            "connect": 0,
            "ssl": 0,
            "send": 0,
            "wait": 300,
            "receive": 650,
        },
        "serverIPAddress": "2606:4700::6812:7c0",
        "connection": "443",
    }
    firefox = {"name": "Firefox", "version": "128.0"}
    page = {
        "startedDateTime": "2025-03-01T11:00:00.000+02:00",
        "id": "page_1",
        "title": "chat",
        "pageTimings": {"onContentLoad": -1, "onLoad": -1},
    }
    log = {"version": "1.1", "creator": firefox, "browser": firefox, "pages": [page]}
    return {"log": {**log, "entries": [entry]}}


def mitmproxy(body: bytes | None, w: WireRequest, *, newer: bool = False) -> dict[str, Any]:
    """mitmproxy's save.har (``newer``: the 11.x creator and dates); ``body`` None: it
    streamed the response and kept no body (``text: null``)."""
    request = _request(w, {"Host": "api.example", **_auth(w)}, "HTTP/1.1")
    request["postData"]["params"] = []
    request["headersSize"] = 300
    content = {"size": len(body or b""), "compression": 0, "mimeType": "text/event-stream"}
    content["text"] = body.decode("utf-8") if body is not None else None
    creator = {"name": "mitmproxy exporthar", "version": "0.1", "comment": "mitmproxy version 10.1"}
    if newer:
        creator = {"name": "mitmproxy", "version": "11.0.2", "comment": ""}
    started = "2025-03-01T10:00:00.050195+00:00" if newer else "2025-03-01T10:00:00+00:00"
    return {
        "log": {
            "version": "1.2",
            "creator": creator,
            "pages": [],
            "entries": [
                {
                    "startedDateTime": started,
                    "time": 1204.7,
                    "request": request,
                    "response": {
                        "status": 200,
                        "statusText": "OK",
                        "httpVersion": "HTTP/1.1",
                        "cookies": [],
                        "headers": pairs({"Content-Type": "text/event-stream"}),
                        "content": content,
                        "redirectURL": "",
                        "headersSize": 150,
                        "bodySize": len(body or b""),
                    },
                    "cache": {},
                    "timings": {
                        "connect": None,
                        "ssl": None,
                        "send": 1.1,
                        "receive": 900.2,
                        "wait": 303.4,
                    },
                    "serverIPAddress": "127.0.0.1",
                }
            ],
        }
    }


def zhar(har: dict[str, Any]) -> bytes:
    """A ``.zhar``: the HAR's JSON, zlib-compressed at level 9 (as mitmproxy writes it)."""
    return zlib.compress(json.dumps(har, indent=2).encode(), 9)


def charles(body: bytes, w: WireRequest) -> bytes:
    """Charles 4.6's export, as the bytes it writes (``/`` escaped as ``\\/``)."""
    entry = {
        "startedDateTime": "2025-03-01T02:00:00.482-07:00",
        "time": 1107,
        "request": {
            **_request(w, {"Host": "api.example", **_auth(w)}, "HTTP/1.1"),
            "headersSize": 68,
        },
        "response": {
            "_charlesStatus": "COMPLETE",
            "status": 200,
            "statusText": "OK",
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": pairs({"Content-Type": "text/event-stream", "Connection": "keep-alive"}),
            "content": {
                "size": len(body),
                "mimeType": "text/event-stream",
                "text": body.decode("utf-8"),
            },
            "redirectURL": None,
            "headersSize": 0,
            "bodySize": len(body),
        },
        "serverIPAddress": "13.35.121.50",
        "cache": {},
        "timings": {"dns": 43, "connect": 37, "ssl": 26, "send": 1, "wait": 24, "receive": 976},
    }
    har = {
        "log": {
            "version": "1.2",
            "creator": {"name": "Charles Proxy", "version": "4.6.3"},
            "entries": [entry],
        }
    }
    return json.dumps(har, indent=4).replace("/", "\\/").encode()


def proxyman(body: bytes, w: WireRequest) -> dict[str, Any]:
    """A minimal writer's HAR: the spec's required request/response fields, nothing more."""
    entry = {
        "startedDateTime": "2025-03-01T10:00:00Z",
        "request": {
            "method": "POST",
            "url": w.url,
            "headers": pairs(_auth(w)),
            "postData": {"mimeType": "application/json", "text": json.dumps(w.body)},
        },
        "response": {
            "status": 200,
            "headers": pairs({"content-type": "text/event-stream"}),
            "content": {
                "size": len(body),
                "mimeType": "text/event-stream",
                "text": body.decode("utf-8"),
            },
        },
    }
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "Proxyman", "version": "5.0.0"},
            "entries": [entry],
        }
    }
