"""JsonProgress: error reasons and offsets, state after every fragment, and, by hypothesis,
agreement with the stdlib parser and independence from how the text is split."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.calls.jsonprogress import JsonError, JsonProgress, first_error

PROPERTY = settings(max_examples=200, deadline=None)


def fed(*pieces: str) -> JsonProgress:
    progress = JsonProgress()
    for piece in pieces:
        progress.feed(piece)
    return progress


def split(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def state(p: JsonProgress) -> tuple[Any, ...]:
    """Everything observable, for comparing two trackers."""
    return (p.depth, p.in_string, p.complete, p.empty, p.top_level, p.length, p.byte_length,
            p.error, p.end(), p.snapshot(), p.label())  # fmt: skip


def _reject_constant(name: str) -> None:
    raise ValueError(f"non-RFC constant {name}")


def stdlib_accepts(text: str) -> bool:
    """json.loads accepts the text, NaN/Infinity/-Infinity excluded (RFC 8259, like orjson)."""
    try:
        json.loads(text, parse_constant=_reject_constant)
    except ValueError:  # JSONDecodeError included
        return False
    return True


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


# -- tables -------------------------------------------------------------------------------

ERRORS = [  # text, char offset, byte offset, reason
    ('{"a":"é"}}', 9, 10, "unexpected '}' after the end of the JSON value at byte 10"),
    ("{} x", 3, 3, "unexpected 'x' after the end of the JSON value at byte 3"),
    ("12 3", 3, 3, "unexpected '3' after the end of the JSON value at byte 3"),
    ("01", 1, 1, "unexpected '1' after the end of the JSON value at byte 1"),
    ("[01]", 2, 2, "unexpected '1' at byte 2 (expected ',' or ']')"),
    ("[1,]", 3, 3, "unexpected ']' at byte 3 (expected a value)"),
    ("[,", 1, 1, "unexpected ',' at byte 1 (expected a value or ']')"),
    ("[1 2]", 3, 3, "unexpected '2' at byte 3 (expected ',' or ']')"),
    ('{"é": 1 "b": 2}', 8, 9, "unexpected '\"' at byte 9 (expected ',' or '}')"),
    ('{"a" 1}', 5, 5, "unexpected '1' at byte 5 (expected ':')"),
    ("{,}", 1, 1, "unexpected ',' at byte 1 (expected a string key or '}')"),
    ('{"a":1,}', 7, 7, "unexpected '}' at byte 7 (expected a string key)"),
    ("{'a': 1}", 1, 1, "unexpected \"'\" at byte 1 (expected a string key or '}')"),
    ("[1}", 2, 2, "unexpected '}' at byte 2 (expected ',' or ']')"),
    ('{"a":]', 5, 5, "unexpected ']' at byte 5 (expected a value)"),
    ("NaN", 0, 0, "unexpected 'N' at byte 0 (expected a value)"),
    ("-Infinity", 1, 1, "unexpected 'I' at byte 1 (expected a digit)"),
    ("[.5]", 1, 1, "unexpected '.' at byte 1 (expected a value or ']')"),
    ("+1", 0, 0, "unexpected '+' at byte 0 (expected a value)"),
    ("1.e5", 2, 2, "unexpected 'e' at byte 2 (expected a digit)"),
    ("1ex", 2, 2, "unexpected 'x' at byte 2 (expected a digit or a sign)"),
    ("1e+]", 3, 3, "unexpected ']' at byte 3 (expected a digit)"),
    ('["ü", tru e]', 9, 10, "unexpected ' ' at byte 10 (expected 'true')"),
    ("nulL", 3, 3, "unexpected 'L' at byte 3 (expected 'null')"),
    ("truex", 4, 4, "unexpected 'x' after the end of the JSON value at byte 4"),
    ('"ab\\q"', 4, 4, "invalid escape '\\q' at byte 4"),
    ('["😀", "\\x"]', 8, 11, "invalid escape '\\x' at byte 11"),
    ('"\\\n"', 2, 2, "invalid escape '\\' + U+000A at byte 2"),
    ('"\\u12g4"', 5, 5, "invalid \\u escape: unexpected 'g' at byte 5 (expected a hex digit)"),
    ('"\\u004"', 6, 6, "invalid \\u escape: unexpected '\"' at byte 6 (expected a hex digit)"),
    ('"a\nb"', 2, 2, "control character U+000A inside a string at byte 2"),
    ('{"é\t": 1}', 3, 4, "control character U+0009 inside a string at byte 4"),
    ('"\x00"', 1, 1, "control character U+0000 inside a string at byte 1"),
    ("\ufeff{}", 0, 0, "unexpected U+FEFF at byte 0 (expected a value)"),
    ("[1,\x0b2]", 3, 3, "unexpected U+000B at byte 3 (expected a value)"),
    ('{"ключ": nul}', 12, 16, "unexpected '}' at byte 16 (expected 'null')"),
]


@pytest.mark.parametrize(("text", "char_offset", "offset", "reason"), ERRORS)
def test_error_reason_and_offsets(text: str, char_offset: int, offset: int, reason: str) -> None:
    assert utf8_len(text[:char_offset]) == offset  # the table itself is consistent
    p = fed(text)
    assert p.error == JsonError(offset, char_offset, reason)
    assert p.end() == p.error
    assert p.label() == f"error: {reason}"
    assert not p.complete
    assert first_error(text) == p.error
    assert fed(*text).error == p.error  # one character at a time


END_ERRORS = [  # text, where, depth (the offset is the end of the text)
    ("{", "an object", 1),
    ('{"a"', "an object", 1),
    ('{"a":', "an object", 1),
    ("[[], ", "an array", 1),
    ('{"a": "é', "a string", 1),
    ('{"a": [1, {"b": "xé', "a string", 3),
    ('"ab\\', "a string escape", 0),
    ('["\\u00', "a string escape", 1),
    ("-", "a number", 0),
    ("[1.", "a number", 1),
    ("1e-", "a number", 0),
    ("[2", "a number", 1),
    ("tr", "a literal", 0),
    ('{"a": fals', "a literal", 1),
]


@pytest.mark.parametrize(("text", "where", "depth"), END_ERRORS)
def test_end_of_input(text: str, where: str, depth: int) -> None:
    p = fed(text)
    assert p.error is None
    assert not p.complete
    b = utf8_len(text)
    reason = f"unexpected end of input inside {where} at byte {b} (depth {depth})"
    assert p.end() == JsonError(b, len(text), reason)
    assert p.end() == p.end()  # end() changes nothing
    assert p.error is None
    assert first_error(text) == p.end()


@pytest.mark.parametrize("code", range(0x20))
def test_every_control_character_is_an_error_inside_strings(code: int) -> None:
    for plain in ("", "x" * 100):  # after a short and after a long run of plain characters
        text = '["é", "' + plain + chr(code) + '"]'
        k = 7 + len(plain)
        reason = f"control character U+{code:04X} inside a string at byte {k + 1}"
        for p in (fed(text), fed(*text), fed(text[:7], text[7:])):
            assert p.error == JsonError(k + 1, k, reason)


def test_the_empty_id_bugs_lone_open_brace() -> None:
    p = fed("{")
    assert (p.complete, p.error, p.depth, p.in_string, p.empty) == (False, None, 1, False, False)
    assert p.snapshot() == (1, False, False, False)
    assert p.label() == "open: depth 1"
    reason = "unexpected end of input inside an object at byte 1 (depth 1)"
    assert p.end() == JsonError(1, 1, reason)


VALID = ["{}", "[]", "12", "-0", "0.5e-3", "1E+2", '"x"', "true", "false", "null", " {} \n\t\r",
         '"\\ud800"', '"\\uD83D\\uDE00\\/\\b\\f\\n\\r\\t\\"\\\\"', "[[[]]]", '{"a":[1,{"b":null}]}',
         '{"": ""}', '"\ud800 raw surrogate, é, 😀, \x7f"', "1" * 5000]  # fmt: skip


@pytest.mark.parametrize("text", VALID)
def test_valid_texts_are_complete(text: str) -> None:
    p = fed(text)
    assert (p.complete, p.error, p.end(), p.depth, p.label()) == (True, None, None, 0, "complete")
    assert state(fed(*text)) == state(p)


def test_number_at_top_level_stays_complete_as_it_grows() -> None:
    p = JsonProgress()
    seen = []
    for piece in ["1", "2", "3", ".", "5", "e", "-", "7", " ", "\n"]:
        p.feed(piece)
        seen.append(p.complete)
    assert seen == [True, True, True, False, True, False, False, True, True, True]
    assert p.end() is None


def test_empty_and_whitespace() -> None:
    for text in ["", " ", " \t\r\n "]:
        p = fed(text)
        assert (p.empty, p.complete, p.top_level) == (True, False, None)
        assert p.error is None and p.end() is None
        assert p.label() == "empty"
    assert not fed(" x").empty and not fed("[").empty


@pytest.mark.parametrize(("pieces", "kind"), [
    (["  ", "\n{"], "object"), (["[1"], "array"), (['"'], "string"), (["-"], "number"),
    (["0"], "number"), (["t"], "literal"), (["nu"], "literal"), (["x"], None), ([" "], None),
])  # fmt: skip
def test_top_level(pieces: list[str], kind: str | None) -> None:
    assert fed(*pieces).top_level == kind


def test_state_after_each_fragment() -> None:
    p = JsonProgress()
    labels = []
    for piece in ['{"ke', 'y"', " :", ' [1, "a\\', 'u00e9"', ", {", "}", "]", "}", "  "]:
        p.feed(piece)
        labels.append((p.depth, p.in_string, p.label()))
    assert labels == [
        (1, True, "open: in string (depth 1)"),
        (1, False, "open: depth 1"),
        (1, False, "open: depth 1"),
        (2, True, "open: in string escape (depth 2)"),
        (2, False, "open: depth 2"),
        (3, False, "open: depth 3"),
        (2, False, "open: depth 2"),
        (1, False, "open: depth 1"),
        (0, False, "complete"),
        (0, False, "complete"),
    ]
    assert fed("[1, tr").label() == "open: in literal (depth 1)"
    assert fed("[1, 2").label() == "open: in number (depth 1)"


def test_lengths_count_characters_and_utf8_bytes() -> None:
    p = fed('{"k": "é', "😀", '\ud800"}')
    # é takes 2 bytes, 😀 4, a lone surrogate 3 (as "surrogatepass" encodes it)
    assert (p.length, p.byte_length, p.complete) == (12, 18, True)


def test_first_error_is_sticky_and_later_input_only_counted() -> None:
    p = fed("[1,", "]")
    error = p.error
    assert error is not None and error.char_offset == 3
    before = p.snapshot()
    p.feed('"é')
    p.feed("]]]")
    assert p.error is error
    assert p.snapshot() == before
    assert (p.length, p.byte_length) == (9, 10)


def test_every_two_and_three_way_split_gives_the_same_state() -> None:
    texts = ['{"a\\u00e9": [1.5e-3, -0, true, null, "x\\"y"], "b": {}}',
             '[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 013]',
             '{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": [1, 2], "g": tru']  # fmt: skip
    for text in texts:
        whole = state(fed(text))
        for i, j in itertools.combinations_with_replacement(range(len(text) + 1), 2):
            assert state(fed(text[:i], text[i:j], text[j:])) == whole, (text, i, j)


def test_long_runs_take_the_bulk_path_with_the_same_result() -> None:
    rows = [{f"k{i}": [i, {"x": [-i - 0.5, "v\n"]}, None], "n": i} for i in range(50)]
    text = json.dumps({"rows": rows, "flat": list(range(100))})
    # errors late in runs that the regexes would otherwise take whole
    edits = [('"k48": [48', '"k48": [048'), (", 98,", ", 98,,"), ('"n": 49', '"n": 49.'),
             ('null], "n": 47', 'nul], "n": 47')]  # fmt: skip
    assert stdlib_accepts(text) and fed(text).complete
    assert state(fed(text)) == state(fed(*text))
    for old, new in edits:
        bad = text.replace(old, new)
        error = fed(bad).error
        assert error is not None and error.char_offset >= bad.index(new)
        assert state(fed(bad)) == state(fed(*bad))
        assert first_error(bad[: error.char_offset + 1]) == error


_HEADS = [  # after a ',': nested containers, every kind of scalar, escapes, empty containers
    '[0, {"k": [1, -2.5e+3, true], "é": {"n": null, "s": "x\\u00e9\\n"}}, [[], {}, [0, false]], ',
    '{"o": 0, "p": {"k": [1, -2.5e+3, true], "é": {"n": null}}, "q": [[], {}, [0]], "r": "z", ',
]


@pytest.mark.parametrize("head", _HEADS)
def test_bulk_runs_agree_with_the_automaton_on_every_single_edit(head: str) -> None:
    """A text long enough that the bulk regexes scan ``head`` in one piece, one character
    at a time none do: every deletion, substitution and insertion in ``head`` must give the
    same state either way."""
    if head.startswith("{"):
        tail = json.dumps({f"t{i}": [i, "s"] for i in range(30)})[1:]
    else:
        tail = json.dumps(list(range(100)))[1:]
    assert stdlib_accepts(head + tail)
    for i in range(len(head)):
        for edited in [head[:i] + head[i + 1 :]] + [
            head[:i] + c + head[i + skip :] for c in '[]{}:,"0.-etn x' for skip in (0, 1)
        ]:
            text = edited + tail
            reference = fed(*text[: len(edited) + 10], text[len(edited) + 10 :])
            assert state(fed(text)) == state(reference), text[: len(edited)]


# -- properties ---------------------------------------------------------------------------

_scalars = (st.none() | st.booleans() | st.integers(-(10**20), 10**20)
            | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8))  # fmt: skip


def _containers(kids: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(kids, max_size=5) | st.dictionaries(st.text(max_size=5), kids, max_size=5)


_values = st.recursive(_scalars, _containers, max_leaves=20)
_ws = st.text(alphabet=" \t\n\r", max_size=2)


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    """A JSON text: json.dumps of any value with random separators, indent and ensure_ascii."""
    text = json.dumps(
        draw(_values),
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, None, 0, 2, "\t"])),
        separators=(draw(_ws) + "," + draw(_ws), draw(_ws) + ":" + draw(_ws)),
    )
    return draw(_ws) + text + draw(_ws)


@st.composite
def fragmented(draw: st.DrawFn, texts: st.SearchStrategy[str]) -> list[str]:
    text = draw(texts)
    return split(text, draw(st.lists(st.integers(0, len(text)), max_size=len(text) + 2)))


@PROPERTY
@given(fragmented(json_texts()))
def test_json_values_in_fragments_never_error_and_track_every_prefix(pieces: list[str]) -> None:
    text, p, done = "".join(pieces), JsonProgress(), 0
    for piece in pieces:  # state after each random fragment
        p.feed(piece)
        done += len(piece)
        assert p.error is None
        assert p.complete == stdlib_accepts(text[:done])
    assert p.complete and p.end() is None
    q = JsonProgress()
    for k, c in enumerate(text, 1):  # and after every character
        q.feed(c)
        assert q.error is None
        assert q.complete == stdlib_accepts(text[:k]), text[:k]
    assert state(q) == state(p)


_JSONISH = '{}[]:,"\\ \t\n\r0123456789-+.eEtrufalsnbu/aAfF' + "xNI\x00\x1f\x7fé😀\ud800\ufeff"


# Closes an array opened before a text, long enough for the bulk regexes to look at the text.
_LONG_TAIL = ", " + json.dumps([0, "s", {"k": [1.5, None, {}]}, [True, []]] * 12)[1:]


@st.composite
def jsonish_texts(draw: st.DrawFn) -> str:
    """Random mixes of JSON characters, or a valid text with a few characters changed,
    either alone or as the first element of a long array."""
    if draw(st.booleans()):
        text = draw(st.text(alphabet=_JSONISH, max_size=40))
    else:
        text = draw(json_texts())
        for _ in range(draw(st.integers(1, 3))):
            i = draw(st.integers(0, len(text)))
            c = draw(st.sampled_from(_JSONISH))
            text = draw(st.sampled_from([text[:i] + c + text[i:], text[:i] + c + text[i + 1 :],
                                         text[:i] + text[i + 1 :], text[:i]]))  # fmt: skip
    return "[" + text + _LONG_TAIL if draw(st.booleans()) else text


@PROPERTY
@given(fragmented(jsonish_texts()))
def test_any_text_fragments_agree_with_one_piece_and_with_the_stdlib(pieces: list[str]) -> None:
    text = "".join(pieces)
    p = fed(*pieces)
    assert state(p) == state(fed(text))
    if stdlib_accepts(text):
        assert p.complete and p.error is None and p.end() is None
    else:
        assert p.error is not None or p.end() is not None or p.empty
    if p.error is not None:
        k = p.error.char_offset
        assert p.error.offset == utf8_len(text[:k])
        assert fed(text[:k]).error is None
        assert fed(text[: k + 1]).error == p.error
        assert not stdlib_accepts(text)
