"""The SDK's ``json.loads`` read by orjson where both agree (openai_sdk.wire.sdk_loads and
Dispatches.value): on random texts, valid and broken, the same values (types, float bits,
key order, the duplicate-key winner) and the same refusals (type and message) as the stdlib."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from inspector.core.clients.base import Exchange
from inspector.core.clients.openai_sdk.wire import decode, sdk_loads

_NUMBERS = (
    "0", "-0", "-0.0", "1e400", "-1e400", "1e-400", "4.9e-324", "2.2250738585072011e-308",
    "1.7976931348623157e308", "9007199254740993", "999999999999999999", "1234567890123456789",
    "-9223372036854775809", "18446744073709551616", "123456789012345678901234567890", "0.1",
    "1E5", "1e+5", "3.141592653589793238462643383279", "NaN", "Infinity", "-Infinity", "01",
)  # fmt: skip
_STRINGS = (
    '""', '"lookup"', '"\\ud800"', '"\\udc00\\ud800"', '"\\ud83d\\ude00"', '"\\u0000"',
    '"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\u2028é☃"', '"\\x"', '"\x01"', '"\x7f"', '"\\u12"',
)  # fmt: skip


def _value(rng: random.Random, depth: int) -> str:
    roll = rng.random()
    if depth > 3 or roll < 0.3:
        return rng.choice(_NUMBERS)
    if roll < 0.5:
        return rng.choice(_STRINGS)
    if roll < 0.6:
        return rng.choice(("true", "false", "null"))
    if roll < 0.8:
        items = [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
        return "[" + ",".join(items) + "]"
    keys = [rng.choice(('"a"', '"b"', '"id"', '""', '"\\u0061"')) for _ in range(rng.randrange(5))]
    return "{" + ",".join(f"{k}:{_value(rng, depth + 1)}" for k in keys) + "}"


def _mutated(rng: random.Random, text: str) -> str:
    roll = rng.random()
    if roll < 0.6 or not text:
        return text
    at = rng.randrange(len(text))
    if roll < 0.75:
        return text[:at] + text[at + 1 :]
    if roll < 0.9:
        return text[:at] + rng.choice(' ,:[]{}"\\e.-0\ufeff\x0c') + text[at:]
    return rng.choice((" ", "\t\n", "\ufeff", "")) + text + rng.choice((" ", "\r\n", "x", ""))


def _outcome(loads: Any, text: str) -> tuple[str, str]:
    try:
        value = loads(text)
    except (ValueError, RecursionError) as exc:
        return type(exc).__name__, str(exc)
    return "ok", _typed(value)


def _typed(value: Any) -> str:
    """``repr`` that tells 1 from 1.0, -0.0 from 0.0 and shows key order."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{k!r}:{_typed(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_typed(v) for v in value) + "]"
    if isinstance(value, float):
        return f"float({value.hex()})"
    return f"{type(value).__name__}({value!r})"


def test_sdk_loads_is_the_stdlibs_json_loads_on_random_texts() -> None:
    rng = random.Random(20260417)
    texts = [_mutated(rng, _value(rng, 0)) for _ in range(4000)]
    texts += ["[" * 3000 + "]" * 3000, '{"a":1,"b":2,"a":3}', "\ufeff{}", ""]
    differ = [t for t in texts if _outcome(sdk_loads, t) != _outcome(json.loads, t)]
    assert differ == []
    accepted = sum(_outcome(json.loads, t)[0] == "ok" for t in texts)
    assert 1000 < accepted < len(texts)  # both kinds of text were tried


def test_a_bodys_dispatch_values_are_the_stdlibs() -> None:
    rng = random.Random(7)
    datas = [_value(rng, 0) for _ in range(300)]
    datas = [d for d in datas if _outcome(json.loads, d)[0] == "ok"]
    body = "".join(f"data: {d}\n\n" for d in datas).encode()
    wire = decode(Exchange((), body))
    assert len(wire) == len(datas) and any("18446744073709551616" in d for d in datas)
    assert [_typed(wire.value(i)) for i in range(len(wire))] == [
        _typed(json.loads(d)) for d in datas
    ]
    assert wire.long_digits is True  # (read per dispatch)
    short = [d for d in datas if not re.search("[0-9]{19}", d)]
    wire = decode(Exchange((), "".join(f"data: {d}\n\n" for d in short).encode()))
    assert [_typed(wire.value(i)) for i in range(len(wire))] == [
        _typed(json.loads(d)) for d in short
    ]
    assert wire.long_digits is False and len(wire) > 100  # (read by orjson from the body)
