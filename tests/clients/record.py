"""Re-record the corpus: one capture per demo scenario x dialect (``streams.demo_plan``).

Each capture is made by the project's own recording path, ``record``'s engine
(:func:`inspector.net.session.record_session`): the demo provider runs in-process on a
loopback port, paced at 0 s between frames (``x-demo-chunk-delay: 0``), with ``fault-stall``'s
stall at 0 s (``x-demo-stall: 0``: it then plays its whole stream); a reset is recorded as the
capture records it (an ``end`` record with reason ``error``).

Invariants:
- One request per capture (retry off): a client library sends one request and reads one
  response. The request offers the tools the scenario's calls need (``parallel``'s three
  tools; ``demo-zero-arg``: ``zero-arg``'s tool without parameters; ``demo-partial-args``:
  ``trip``'s nested ``plan_trip``), so the demo provider plays every call the scenario makes.
- Byte-stable: the demo's ``created`` timestamp is pinned (:data:`CREATED`), so re-recording
  an unchanged demo gives the same response bodies (only times, ports and dates differ).
- The corpus holds exactly the plan: stale captures are removed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from clients.streams import CORPUS, INVOKE, corpus_path, demo_plan
from inspector.core.providers import BEDROCK_CONVERSE
from inspector.core.requests.scenarios import (
    BUILTIN_PROFILES,
    Profile,
    RequestSpec,
    Scenario,
    find_scenario,
)
from inspector.net.demo import server as demo_server
from inspector.net.policy import LoopSettings
from inspector.net.session import LiveSession, headless_request, record_session

CREATED = 1_767_225_600
"""The pinned ``created`` time of every demo response (2026-01-01T00:00:00Z)."""
HEADERS = {"x-demo-chunk-delay": "0", "x-demo-stall": "0"}
SETTINGS = LoopSettings(retry=False, read_timeout=10.0, connect_timeout=5.0)


REQUESTS = {"demo-zero-arg": "zero-arg", "demo-partial-args": "trip"}
"""The demo scenarios recorded with another request than ``parallel``'s."""


def request_scenario(demo_scenario: str) -> Scenario:
    """What the recorded request asks for (see the module's invariants)."""
    return find_scenario(REQUESTS.get(demo_scenario, "parallel"))


def demo_profile(dialect: str) -> Profile:
    """The built-in demo profile of ``dialect``."""
    return next(p for p in BUILTIN_PROFILES if p.is_demo and p.dialect == dialect)


@contextlib.contextmanager
def pinned_clock() -> Iterator[None]:
    """The demo provider's ``created`` timestamps at :data:`CREATED` (its only clock read)."""
    with mock.patch.object(demo_server, "time", SimpleNamespace(time=lambda: CREATED)):
        yield


async def record_one(dialect: str, scenario: str, corpus: Path = CORPUS) -> Path:
    """Record ``scenario`` in ``dialect`` into the corpus; the capture's path."""
    out = corpus_path(dialect, scenario, corpus)
    out.parent.mkdir(parents=True, exist_ok=True)
    with pinned_clock():
        if scenario.endswith(INVOKE):
            await record_invoke(scenario.removesuffix(INVOKE), out)
        else:
            await record_session(demo_profile(dialect), request_scenario(scenario), out,
                                 SETTINGS, model=scenario, headers=HEADERS)  # fmt: skip
    return out


async def record_invoke(scenario: str, out: Path) -> None:
    """``scenario`` over Bedrock's InvokeModelWithResponseStream (what ``AnthropicBedrock``
    and ``@ai-sdk/amazon-bedrock/anthropic`` call): the Anthropic Messages request without
    ``model`` and ``stream`` (the path says both), ``anthropic_version`` as Bedrock wants it,
    to the demo's ``/model/{scenario}/invoke-with-response-stream``."""
    anthropic = demo_profile("anthropic")
    asked = request_scenario(scenario)
    async with headless_request(anthropic, asked, model=scenario, headers=HEADERS) as ready:
        spec, _key, _profile, meta = ready
        root = spec.url.split("/v1/", 1)[0]
        body = {k: v for k, v in spec.body.items() if k not in ("model", "stream")}
        headers = {k: v for k, v in spec.headers.items() if k != "anthropic-version"}
        invoke = RequestSpec("POST", f"{root}/model/{scenario}/invoke-with-response-stream",
                             {**headers, "accept": "application/vnd.amazon.eventstream"},
                             {**body, "anthropic_version": "bedrock-2023-05-31"}, None,
                             BEDROCK_CONVERSE)  # fmt: skip
        meta = {**meta, "profile": "demo-bedrock-invoke", "model": scenario + INVOKE}
        session = LiveSession(invoke, dialect=BEDROCK_CONVERSE, settings=SETTINGS,
                              capture_path=out, key=None, meta=meta)  # fmt: skip
        await session.run()


async def record_corpus(corpus: Path = CORPUS) -> list[Path]:
    """Record every pair of the plan (a few at a time) and remove stale captures."""
    plan = demo_plan()
    wanted = {corpus_path(d, s, corpus) for d, s in plan}
    for stale in set(corpus.glob("*/*.jsonl")) - wanted:
        stale.unlink()
    gate = asyncio.Semaphore(4)

    async def one(dialect: str, scenario: str) -> Path:
        async with gate:
            return await record_one(dialect, scenario, corpus)

    return list(await asyncio.gather(*(one(d, s) for d, s in plan)))
