"""``serve`` stands in for the provider: the real openai, anthropic and google-genai SDKs,
pointed at a served capture, read the recorded body byte for byte and hand over the same calls
(or raise the same error) as they did on the original session (their goldens,
``tests/clients/goldens``).

Each stream is served by :class:`~inspector.net.serve.server.CaptureServer` at full speed. Two
requests go to it: the SDK's own HTTP package (httpx or the SDK's vendored httpx2, through
:class:`sdktee.Tee`) reads the body whole, then the real SDK runs as an agent would
(``tests/clients/real``). ``make test`` serves a few streams of each dialect; every demo
scenario and every recording in ``../shared/fixtures/real`` is the ``-m slow`` sweep.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
import sdktee
from clients.compare import mismatch
from clients.real import RUNNERS
from clients.streams import Stream, all_streams
from clients.verify import golden_path
from conftest import all_real_fixtures

from inspector.net.serve.server import CaptureServer

SDKS = ("openai-python", "anthropic-sdk", "google-genai")
QUICK = {
    "demo/openai-chat/demo-glm-empty-string",
    "demo/openai-chat/fault-reset",
    "demo/openai-responses/demo-parallel",
    "demo/anthropic/demo-clean",
    "demo/anthropic/fault-500",
    "demo/gemini/demo-parallel",
    "real/qwen3-max-empty-id-continuations",
    "real/gemini-3-function-call",
    "real/anthropic-tool-use",
}
"""What ``make test`` serves: each dialect, a quirk, a cut stream and an HTTP error."""


def _golden(replica: str) -> dict[str, Any]:
    return dict(json.loads(golden_path(replica).read_text())["streams"])


def _cases(quick: bool) -> list[Any]:
    streams = all_streams(all_real_fixtures())
    cases = []
    for replica in SDKS:
        golden = _golden(replica)
        runner = RUNNERS[replica]
        for stream in streams:
            ours = stream.dialect in runner.dialects and stream.id in golden
            if ours and quick == (stream.id in QUICK):
                cases.append(pytest.param(replica, stream, id=f"{replica}:{stream.id}"))
    return cases


def _sdk(replica: str) -> ModuleType:
    if replica == "openai-python":
        import openai

        return openai
    if replica == "anthropic-sdk":
        import anthropic

        return anthropic
    import httpx  # google-genai reads with httpx itself

    return httpx


async def _raw_read(replica: str, url: str) -> bytes | None:
    """The body as the SDK's own HTTP package reads it; None when the read ends in an error
    (a served reset: then only the SDK's outcome is compared)."""
    lib = _sdk(replica)
    tee = sdktee.Tee(lib if replica == "google-genai" else sdktee.http_lib(lib))
    try:
        async with tee.client.stream("POST", url + "/v1/x", json={}) as response:
            async for _ in response.aiter_raw():
                pass
        return tee.last_body()
    except Exception:
        return None
    finally:
        await tee.client.aclose()


async def _check(replica: str, stream: Stream) -> None:
    golden = _golden(replica)[stream.id]
    server = CaptureServer(stream.capture, speed=None)
    url = await server.start()
    try:
        body = await _raw_read(replica, url)
        recorded = stream.source.body
        if body is not None:
            assert body == recorded, (
                f"{stream.id}: {len(body)} bytes read, {len(recorded)} recorded"
            )
        else:
            assert stream.source.end is not None and stream.source.end.get("reason") != "eof"
        got = await RUNNERS[replica].run(url, stream)
    except Exception as exc:  # the SDK's own error is the outcome, as the goldens record it
        from clients.real import raised

        got = {"calls": [], "error": raised(exc)}
    finally:
        await server.stop()
    problem = mismatch(stream.id, golden, got, who=f"{replica} through serve")
    assert problem is None, problem
    assert [s.attempt for s in server.served] == [stream.source.number] * 2


@pytest.mark.parametrize(("replica", "stream"), _cases(quick=True))
async def test_an_sdk_reads_a_served_capture_as_it_read_the_session(
    replica: str, stream: Stream
) -> None:
    await _check(replica, stream)


@pytest.mark.slow
@pytest.mark.parametrize(("replica", "stream"), _cases(quick=False))
async def test_every_recorded_capture_served_to_every_sdk(replica: str, stream: Stream) -> None:
    await _check(replica, stream)
