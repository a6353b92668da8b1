"""LangChain's and the AI SDK's arguments written again by orjson (``plain/compact.py``) are
exactly what their own writers give, wherever it says it applies: every character is escaped
alike by all three writers, and on random JSON texts (escapes, every kind of number, keys
JavaScript orders apart, ``__proto__``, repeated keys, deep nesting) each replica's
``plain_calls`` gives the same calls with the shortcut as without it."""

from __future__ import annotations

import json
import random
import sys
from typing import Any

import pytest

from inspector.core.clients.base import HandedCall
from inspector.core.clients.langchain import merge
from inspector.core.clients.plain import compact
from inspector.core.clients.plain.compact import forget, rewritten, writes
from inspector.core.clients.vercel_ai import replica as vercel
from inspector.core.clients.vercel_ai.v8_json import stringify


def test_every_character_is_written_alike_by_the_three_writers() -> None:
    """Each writer escapes a character alone, whatever is around it: equal on every code
    point (but the surrogates, which orjson never reads) is equal on every string."""
    import orjson

    differ = []
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        mine = orjson.dumps(char).decode()
        if mine != json.dumps(char, ensure_ascii=False) or mine != stringify(char):
            differ.append(code)
    assert differ == []


def _string(rng: random.Random) -> str:
    pool = ['"', "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "日", "🚀", "\u2028", "a", "/"]
    return "".join(rng.choice(pool) for _ in range(rng.randrange(0, 8)))


def _key(rng: random.Random) -> str:
    return rng.choice(
        ["a", "b", "0", "12", "4294967295", "1x", "__proto__", "constructor", _string(rng)]
    )


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return _string(rng)
    if kind == 1:
        return rng.choice([0, -1, 7, 2**53, 2**53 + 1, -(2**53) - 1, 2**63 - 1, -(2**63)])
    if kind == 2:
        return rng.choice([0.5, 1.0, -0.0, 1e21, 1e-7, 123456789.125])
    if kind == 3:
        return rng.choice([True, False, None])
    if kind in (4, 5):
        return _string(rng)
    if kind == 6:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {_key(rng): _value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _text(rng: random.Random) -> str:
    value = {_key(rng): _value(rng) for _ in range(rng.randrange(1, 5))}
    text = json.dumps(
        value,
        ensure_ascii=rng.random() < 0.5,
        separators=rng.choice([(",", ":"), (", ", ": ")]),
    )
    if rng.random() < 0.1:  # a key written twice
        text = text[:-1] + ', "a": 1, "a": "again"}' if len(text) > 2 else '{"a": 1, "a": 2}'
    return text


def _calls(text: str) -> list[HandedCall]:
    return [HandedCall("call_1", "f", text)]


def _outcome(replica: Any, text: str) -> Any:
    calls = replica.plain_calls(_calls(text), frozenset({"f"}))
    return None if calls is None else [(c.id, c.name, c.arguments) for c in calls]


@pytest.mark.parametrize(
    ("replica", "module"),
    [(merge.LangChainReplica(), merge), (vercel.VercelAi(), vercel)],
    ids=["langchain", "vercel-ai"],
)
def test_each_replica_hands_over_the_same_calls_with_and_without_the_shortcut(
    replica: Any, module: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(replica.name)
    texts = [_text(rng) for _ in range(3000)]
    texts += ['{"a":' + "[" * 300 + "]" * 300 + "}", '{"n": 1e400}', '{"big": 1' + "0" * 30 + "}"]
    fast = [_outcome(replica, t) for t in texts]
    forget()
    monkeypatch.setattr(module, "rewritten", lambda text, js: None)
    slow = [_outcome(replica, t) for t in texts]
    assert fast == slow
    taken = [rewritten(t, js=module is vercel) is not None for t in texts]
    assert 0 < sum(taken) < len(texts)  # neither vacuous nor everywhere


def test_where_the_writing_is_refused() -> None:
    forget()
    assert rewritten('{"a": "x", "b": [1, true, null]}', js=True) == '{"a":"x","b":[1,true,null]}'
    assert rewritten('{"a": 1.5}', js=False) is None  # a float: Python and orjson write it apart
    assert rewritten('{"a": 9007199254740993}', js=False) == '{"a":9007199254740993}'
    assert rewritten('{"a": 9007199254740993}', js=True) is None  # no double holds it
    assert rewritten('{"1": 0, "a": 1}', js=True) is None  # JavaScript puts "1" first
    assert rewritten('{"__proto__": {}}', js=True) is None
    assert rewritten('{"a": "\\ud800"}', js=False) is None  # a lone surrogate: orjson refuses
    assert rewritten("[1]", js=False) is None  # not an object
    assert rewritten('{"a":' + "[" * 300 + "]" * 300 + "}", js=False) is None  # too deep


def test_a_writing_is_made_once_and_known_as_the_texts() -> None:
    forget()
    text = '{"k": "v", "n": 2}'
    first = rewritten(text, js=False)
    assert first is not None and rewritten(text, js=True) is first
    assert writes(text, first)
    assert not writes(text, '{"k":"v","n":3}')
    assert not writes('{"k": "v", "n": 2} ', first)  # another text: nothing kept for it
    forget()
    assert not writes(text, first)
    assert len(compact._KEPT) == 0
    for k in range(compact.KEPT + 10):
        rewritten(f'{{"k": {k}}}', js=False)
    assert len(compact._KEPT) == compact.KEPT
