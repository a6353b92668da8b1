"""A Bedrock profile's requests are signed with SigV4 from the usual AWS credential chain when
they are sent, over real loopback HTTP; the capture never holds a credential or a signature,
and no credentials is one line, not a traceback."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiohttp import web
from bedrock_fixtures import recorded
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from inspector.core.analysis.session import Analysis
from inspector.core.capture.reader import load
from inspector.core.capture.writer import CaptureWriter
from inspector.core.providers import BEDROCK_CONVERSE, REGISTRY
from inspector.core.requests.scenarios import Scenario, build_request, find_profile
from inspector.net.client import stream_attempt
from inspector.net.sigv4 import SigningError

KEY_ID, SECRET, TOKEN = (
    "AKIDEXAMPLE",
    "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    "FQoGZXIvYXdzEXAMPLE",
)


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Credentials in the environment only: no shared files, no instance metadata."""
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_SESSION_TOKEN", TOKEN)


@pytest.fixture
async def bedrock() -> AsyncIterator[tuple[str, list[tuple[Any, bytes]]]]:
    """A loopback stand-in for bedrock-runtime: notes each request, answers real frames."""
    seen: list[tuple[Any, bytes]] = []

    async def handle(request: web.Request) -> web.StreamResponse:
        seen.append((request, await request.read()))
        response = web.StreamResponse(
            headers={"content-type": "application/vnd.amazon.eventstream"}
        )
        await response.prepare(request)
        await response.write(recorded()[2].framed)
        await response.write_eof()
        return response

    app = web.Application()
    app.router.add_post("/model/{model}/converse-stream", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    yield f"http://{host}:{port}", seen
    await runner.cleanup()


def spec_for(url: str) -> Any:
    profile = replace(find_profile("bedrock"), base_url=url)
    return build_request(profile, Scenario("w", "weather", "What's the weather in Paris?"))


async def test_a_request_is_signed_when_sent_and_the_capture_holds_no_secret(
    aws_env: None, bedrock: tuple[str, list[tuple[Any, bytes]]], tmp_path: Path
) -> None:
    url, seen = bedrock
    spec = spec_for(url)
    assert spec.aws_region == "us-east-1" and spec.key_header is None
    path = tmp_path / "c.jsonl"
    async with httpx.AsyncClient(trust_env=False) as client:
        with CaptureWriter(path) as writer:
            await stream_attempt(client, spec, None, attempt=1, writer=writer,
                                 sink=lambda data, t: None)  # fmt: skip
    ((request, body),) = seen
    auth = request.headers["authorization"]
    assert auth.startswith(f"AWS4-HMAC-SHA256 Credential={KEY_ID}/")
    assert "/us-east-1/bedrock/aws4_request, SignedHeaders=" in auth
    assert request.headers["x-amz-security-token"] == TOKEN
    # the signature is botocore's own for these bytes and headers at that instant: again, equal
    signed = auth.split("SignedHeaders=")[1].split(",")[0].split(";")
    again = AWSRequest(method="POST", url=str(request.url), data=body,
                       headers={h: request.headers[h] for h in signed})  # fmt: skip
    again.context["timestamp"] = request.headers["x-amz-date"]
    signer = SigV4Auth(Credentials(KEY_ID, SECRET, TOKEN), "bedrock", "us-east-1")
    canonical = signer.canonical_request(again)
    expected = signer.signature(signer.string_to_sign(again, canonical), again)
    assert auth.endswith("Signature=" + expected)
    raw = path.read_bytes()
    for secret in (SECRET, TOKEN, KEY_ID, auth.rsplit("=", 1)[1]):
        assert secret.encode() not in raw
    capture = load(str(path))
    analysis = Analysis.from_capture(capture, providers=REGISTRY)
    assert analysis.dialect == BEDROCK_CONVERSE and len(analysis.final.verdicts) == 2


async def test_no_credentials_is_one_line_before_anything_is_sent(
    aws_env: None,
    bedrock: tuple[str, list[tuple[Any, bytes]]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name)
    url, seen = bedrock
    async with httpx.AsyncClient(trust_env=False) as client:
        with CaptureWriter(tmp_path / "c.jsonl") as writer, pytest.raises(SigningError) as caught:
            await stream_attempt(client, spec_for(url), None, attempt=1, writer=writer,
                                 sink=lambda data, t: None)  # fmt: skip
    assert seen == [] and "\n" not in str(caught.value)
    assert str(caught.value).startswith("no AWS credentials for SigV4")
