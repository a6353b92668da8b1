"""``toolcall-inspector demo-server``: run the demo provider in the foreground until Ctrl+C.

Invariants:
- Blocking; owns its own asyncio loop (``asyncio.run``). Ctrl+C or SIGTERM stops the server
  cleanly (in-flight streams are closed) and the function returns 0.
- Prints the base URL, the endpoints and how to point each SDK at it, then one line per request.
- A host/port that cannot be bound prints one line on stderr and returns 2.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from typing import Any, TextIO

from .scenarios import SCENARIOS
from .server import ENDPOINTS, DemoProvider


def banner(url: str) -> str:
    """What the server prints once it listens."""
    lines = [f"Tool-Call Inspector demo provider listening on {url}", ""]
    lines += [f"  {method:4} {path:55} {what}" for method, path, what in ENDPOINTS]
    lines += [
        "",
        f'  OpenAI SDK:    OpenAI(base_url="{url}/v1", api_key="demo")',
        f'  Anthropic SDK: Anthropic(base_url="{url}", api_key="demo")',
        f'  google-genai:  Client(api_key="demo", http_options={{"base_url": "{url}"}})',
        "",
        f"Pick a scenario with the request's model ({len(SCENARIOS)} of them, e.g. demo-clean, "
        "demo-glm-empty-string, fault-reset);",
        f"GET {url}/v1/models lists them all with the quirks they show. Ctrl+C stops.",
    ]
    return "\n".join(lines)


def run_demo_server(host: str, port: int, chunk_delay: float, out: TextIO | None = None) -> int:
    """Serve until interrupted; return the exit code (0 on Ctrl+C / SIGTERM)."""
    stream = out if out is not None else sys.stdout

    def log(record: dict[str, Any]) -> None:
        model = f" model={record['model']}" if record.get("model") else ""
        print(f"{record['method']} {record['path']}{model}", file=stream, flush=True)

    async def serve() -> None:
        provider = DemoProvider(host, port, chunk_delay)
        provider.on_request = log
        url = await provider.start()
        print(banner(url), file=stream, flush=True)
        stopped = asyncio.Event()
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
            loop.add_signal_handler(signal.SIGTERM, stopped.set)
        try:
            await stopped.wait()
        finally:
            await provider.stop()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(
            f"toolcall-inspector: cannot listen on {host}:{port}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    print("demo provider stopped", file=stream, flush=True)
    return 0
