"""``v8_json.stringify`` writes every string as ``JSON.stringify`` does, whichever writer it
takes (C for text with no surrogate, the escape model otherwise): on random strings of the
characters that matter (quotes, backslashes, every control character, DEL, U+2028, lone and
paired surrogates, astral characters), the same text as the model escaping each character."""

from __future__ import annotations

import random

from inspector.core.clients.vercel_ai.v8_json import _NEEDS_ESCAPE, _escaped, _joined, stringify

ALPHABET = ['"', "\\", "/", "\x7f", "\u2028", "é", "日", "😀", "\ud83d", "\ude00", "a", " "] + [
    chr(c) for c in range(0x20)
]


def model(s: str) -> str:
    """What ``JSON.stringify`` writes for ``s``: each character the model escapes, escaped."""
    return '"' + _NEEDS_ESCAPE.sub(_escaped, _joined(s)) + '"'


def test_every_string_is_written_as_the_escape_model_writes_it() -> None:
    rng = random.Random(30)
    with_surrogates = without = 0
    for _ in range(3000):
        s = "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(12)))
        assert stringify(s) == model(s), repr(s)
        assert stringify({s: [s]}) == "{" + model(s) + ":[" + model(s) + "]}", repr(s)
        if any("\ud800" <= c <= "\udfff" for c in s):
            with_surrogates += 1
        elif _NEEDS_ESCAPE.search(s):
            without += 1
    assert with_surrogates > 100 and without > 100


def test_a_control_character_is_written_in_lowercase_hex_and_the_named_ones_by_name() -> None:
    assert stringify("\x1f\n\t\b\f\r\x00") == '"\\u001f\\n\\t\\b\\f\\r\\u0000"'
    assert stringify('say "hi" C:\\') == '"say \\"hi\\" C:\\\\"'
    assert stringify("\ud83d\ude00 \ud83d") == '"😀 \\ud83d"'
