"""``@ai-sdk/amazon-bedrock/anthropic`` over InvokeModelWithResponseStream
(inspector.core.clients.vercel_ai.bedrock_invoke): a Bedrock body of ``chunk`` frames is read
as the package reads it (each chunk's Anthropic event through ``@ai-sdk/anthropic``'s
transform), not as ConverseStream (which found no call in it); the goldens from the real
package hold every case of the corpus (``demo/bedrock-converse/*.invoke``)."""

from __future__ import annotations

from clients.streams import by_id, demo_streams

from inspector.core.clients.judge import run_replica
from inspector.core.clients.vercel_ai.bedrock_invoke import is_invoke, sse_datas
from inspector.core.clients.vercel_ai.replica import VercelAi


def test_an_invoke_stream_hands_over_the_anthropic_calls() -> None:
    streams = by_id(demo_streams())
    stream = streams["demo/bedrock-converse/demo-parallel.invoke"]
    exchange = stream.exchange()
    assert is_invoke(exchange)
    assert not is_invoke(streams["demo/bedrock-converse/demo-parallel"].exchange())
    result = run_replica(VercelAi(), exchange, stream.expected(), stream.view.failed)
    assert [c.name for c in result.calls] == ["get_weather", "get_time", "get_exchange_rate"]
    assert result.error is None


def test_a_second_event_on_its_own_line_is_a_field_the_sse_parser_ignores() -> None:
    assert sse_datas('{"a":1}') == ['{"a":1}']
    assert sse_datas('{"a":1}\n{"b":2}') == ['{"a":1}']
    assert sse_datas('{"a":1}\n\ndata: {"b":2}') == ['{"a":1}', '{"b":2}']
    assert sse_datas('{"a":\ndata: 1}') == ['{"a":\n1}']
