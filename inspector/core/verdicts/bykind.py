"""Judging an item by its kind: a custom tool's input against its declared format, a built-in
tool's input against its documented shape; a hosted item never.

Invariants:
- ``hosted`` items are never judged: they have no problems whatever they hold (the provider
  ran them; they never change ``valid`` or the exit code).
- ``custom`` input is never read as JSON. It is checked against the format its tool declared
  (``text``: anything; ``grammar`` with ``syntax: regex``: the whole input must match;
  ``syntax: lark``: it must parse under the Lark grammar). A tool not declared (a raw body with
  no request, no tool of that name) or a format this module cannot apply leaves the input
  *not checked* (:func:`validate_custom` says so), never invalid. A Lark parse runs on a worker
  thread and is given :data:`PARSE_SECONDS`: one that takes longer is "not checked".
- ``builtin`` input (the item's object input as compact JSON) is checked against the shape the
  pinned openai package documents for its item type (:data:`SHAPES`); a type not listed there
  is not checked.
- Pure but for two bounded caches (compiled grammars, regexes) that change no result.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any, Final

import orjson

from inspector.core.verdicts.tools import ToolRegistry, ToolSpec
from inspector.core.verdicts.validation import Code, Problem

PARSE_SECONDS: Final = 1.0
"""How long a Lark parse of one custom input may take before it is "not checked"."""

INPUT_FORMAT: Final = "input_format"
"""Problem code: a custom tool's input does not match the format the request declared."""
BUILTIN_SHAPE: Final = "builtin_shape"
"""Problem code: a built-in tool's input is not in its documented shape."""

_KEPT = 16
_grammars: dict[str, Any] = {}
_regexes: dict[str, re.Pattern[str] | None] = {}


def custom_spec(name: Any, registry: ToolRegistry | None) -> ToolSpec | None:
    """The declared custom tool called ``name`` (one with a format), or None."""
    if registry is None or not isinstance(name, str) or not name:
        return None
    spec = registry.get(name)
    return spec if spec is not None and spec.format is not None else None


def validate_custom(
    name: Any, text: str, registry: ToolRegistry | None, truncated: bool
) -> tuple[list[Problem], bool]:
    """(the problems of a custom call, whether its input was checked): a missing name, a
    cut-off input, an input its declared format rejects. Checked only when its tool declared
    a format this module applies and a grammar parse ended in time."""
    problems: list[Problem] = []
    if not isinstance(name, str) or not name:
        problems.append(Problem(Code.MISSING_NAME, "the call has no tool name"))
    if truncated:
        problems.append(Problem(Code.TRUNCATED, "the stream ended before this call was complete"))
    spec = custom_spec(name, registry)
    if spec is None:
        return problems, False
    ok = _check_format(spec.format, text)
    if ok is False:
        fmt = spec.format if isinstance(spec.format, dict) else {}
        what = fmt.get("syntax") or fmt.get("type") or "format"
        problems.append(Problem(INPUT_FORMAT, f"the input does not match the tool's {what} "
                                "format", detail={"format": spec.format}))  # fmt: skip
    return problems, ok is not None


def _check_format(fmt: Any, text: str) -> bool | None:
    """True: matches; False: does not; None: cannot be checked."""
    if not isinstance(fmt, dict):
        return None
    kind = fmt.get("type")
    if kind == "text":
        return True
    if kind != "grammar":
        return None
    syntax, definition = fmt.get("syntax"), fmt.get("definition")
    if not isinstance(definition, str):
        return None
    if syntax == "regex":
        pattern = _regex(definition)
        return None if pattern is None else pattern.fullmatch(text) is not None
    if syntax == "lark":
        return _lark_parses(definition, text)
    return None


def _regex(definition: str) -> re.Pattern[str] | None:
    if definition not in _regexes:
        if len(_regexes) >= _KEPT:
            _regexes.clear()
        try:
            _regexes[definition] = re.compile(definition, re.DOTALL)
        except re.error:
            _regexes[definition] = None
    return _regexes[definition]


def _lark_parses(grammar: str, text: str) -> bool | None:
    parser = _grammar(grammar)
    if parser is None:
        return None
    outcome: list[bool] = []

    def parse() -> None:
        try:
            parser.parse(text)
            outcome.append(True)
        except Exception:  # lark's UnexpectedInput family, and anything a grammar trips on
            outcome.append(False)

    _bounded(parse)
    return outcome[0] if outcome else None


def _bounded(work: Callable[[], None]) -> None:
    """Run ``work`` on a daemon thread for at most :data:`PARSE_SECONDS`."""
    worker = threading.Thread(target=work, name="lark-parse", daemon=True)
    worker.start()
    worker.join(PARSE_SECONDS)


def _grammar(grammar: str) -> Any:
    if grammar in _grammars:
        return _grammars[grammar]
    if len(_grammars) >= _KEPT:
        _grammars.clear()
    import lark  # a runtime dependency, loaded only when a grammar is to be applied

    parser: Any = None
    for algorithm in ("lalr", "earley"):
        try:
            parser = lark.Lark(grammar, start="start", parser=algorithm)
            break
        except Exception:  # not LALR(1), or not a grammar lark reads
            parser = None
    _grammars[grammar] = parser
    return parser


# -- built-in tools ------------------------------------------------------------------------


def _apply_patch(v: Any) -> str | None:
    if not isinstance(v, dict):
        return "operation is not an object"
    t = v.get("type")
    if t not in ("create_file", "delete_file", "update_file"):
        return f"operation type {t!r} is not create_file, delete_file or update_file"
    if not isinstance(v.get("path"), str):
        return "operation has no string path"
    if t != "delete_file" and not isinstance(v.get("diff"), str):
        return f"{t} has no string diff"
    return None


def _shell(v: Any) -> str | None:
    if not isinstance(v, dict):
        return "action is not an object"
    cmds = v.get("commands")
    if not isinstance(cmds, list) or not all(isinstance(c, str) for c in cmds):
        return "action.commands is not a list of strings"
    return None


def _local_shell(v: Any) -> str | None:
    if not isinstance(v, dict):
        return "action is not an object"
    cmd = v.get("command")
    if not isinstance(cmd, list) or not all(isinstance(c, str) for c in cmd):
        return "action.command is not a list of strings"
    return None


def _typed(v: Any) -> str | None:
    if not isinstance(v, dict) or not isinstance(v.get("type"), str):
        return "the input is not an object with a string type"
    return None


def _computer(v: Any) -> str | None:
    """A ``computer_call``'s ``action`` (one typed object) or batched ``actions`` (a list of
    them)."""
    if isinstance(v, list):
        bad = next((i for i, a in enumerate(v) if _typed(a) is not None), None)
        return None if bad is None else f"actions[{bad}] is not an object with a string type"
    return _typed(v)


def _object(v: Any) -> str | None:
    return None if isinstance(v, dict) else "the input is not an object"


SHAPES: Final[dict[str, Callable[[Any], str | None]]] = {
    "apply_patch_call": _apply_patch,
    "shell_call": _shell,
    "local_shell_call": _local_shell,
    "computer_call": _computer,
    "tool_search_call": _object,
}
"""Item type -> the check of its input's documented shape (None: in shape; else why not)."""


def validate_builtin(item_type: str, text: str, truncated: bool) -> list[Problem]:
    """The problems of a built-in item: cut off, or its input not in its documented shape."""
    problems: list[Problem] = []
    if truncated:
        problems.append(Problem(Code.TRUNCATED, "the stream ended before this call was complete"))
    check = SHAPES.get(item_type)
    if check is None or not text.strip():
        return problems
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        problems.append(Problem(BUILTIN_SHAPE, f"{item_type}: the input is not a JSON value"))
        return problems
    why = check(value)
    if why is not None:
        problems.append(Problem(BUILTIN_SHAPE, f"{item_type}: {why}"))
    return problems
