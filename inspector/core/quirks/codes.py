"""Every quirk code, spelled once: the constants the detectors, the dialects, the reports and
the demo name a code by. A code written as a bare string anywhere else in ``inspector/`` fails
``tests/core/quirks/test_registry.py``; what each code means, where it applies, who reported it and
what should have come instead is in :mod:`.registry`.

Invariants: each constant's value is its own name in lower case; :data:`ORDER` holds every
code once, in the order they are defined here, which is the report order (``detect``'s, and
docs/quirks.md's); :data:`.registry.REGISTRY` has one entry per code, in that order.
"""

from __future__ import annotations

from typing import Final

_ORDER: list[str] = []


def _code(code: str) -> str:
    """``code``, defined: it takes the next place in the report order."""
    _ORDER.append(code)
    return code


EMPTY_STRING_CONTINUATION_ID: Final = _code("empty_string_continuation_id")
EMPTY_STRING_CONTINUATION_NAME: Final = _code("empty_string_continuation_name")
NULL_STRING_ID: Final = _code("null_string_id")
NULL_ID: Final = _code("null_id")
MISSING_CALL_ID: Final = _code("missing_call_id")
MISSING_INDEX: Final = _code("missing_index")
INDEX_REUSED_WITH_NEW_ID: Final = _code("index_reused_with_new_id")
DUPLICATE_CALL_ID: Final = _code("duplicate_call_id")
SPARSE_INDEX: Final = _code("sparse_index")
DUPLICATE_INDEX_IN_CHUNK: Final = _code("duplicate_index_in_chunk")
ID_REPEATED_EVERY_CHUNK: Final = _code("id_repeated_every_chunk")
NAME_REPEATED_EVERY_CHUNK: Final = _code("name_repeated_every_chunk")
ID_CHANGED_MID_CALL: Final = _code("id_changed_mid_call")
NAME_CHANGED_MID_CALL: Final = _code("name_changed_mid_call")
ARGUMENTS_BEFORE_IDENTITY: Final = _code("arguments_before_identity")
CUMULATIVE_ARGUMENTS: Final = _code("cumulative_arguments")
ARGUMENTS_REPLAYED: Final = _code("arguments_replayed")
ARGUMENTS_NOT_STRING: Final = _code("arguments_not_string")
WHOLE_CALL_SINGLE_CHUNK: Final = _code("whole_call_single_chunk")
ARGUMENTS_ONLY_IN_DONE: Final = _code("arguments_only_in_done")
DONE_ARGUMENTS_MISMATCH: Final = _code("done_arguments_mismatch")
DONE_IDENTITY_MISMATCH: Final = _code("done_identity_mismatch")
FRAGMENT_AFTER_CLOSE: Final = _code("fragment_after_close")
OPENER_REPLAYED: Final = _code("opener_replayed")
TRAILING_EMPTY_ARGUMENTS: Final = _code("trailing_empty_arguments")
ZERO_ARG_EMPTY_STRING: Final = _code("zero_arg_empty_string")
ORPHAN_ID_ONLY_ENTRY: Final = _code("orphan_id_only_entry")
FINISH_REASON_MISMATCH: Final = _code("finish_reason_mismatch")
SILENT_TRUNCATION: Final = _code("silent_truncation")
EMPTY_FINISH_REASON: Final = _code("empty_finish_reason")
REPEATED_FINISH_REASON: Final = _code("repeated_finish_reason")
MALFORMED_FUNCTION_CALL: Final = _code("malformed_function_call")
MISSING_FINISH_REASON: Final = _code("missing_finish_reason")
MISSING_DONE: Final = _code("missing_done")
DATA_AFTER_DONE: Final = _code("data_after_done")
USAGE_ONLY_CHUNK: Final = _code("usage_only_chunk")
KEEPALIVE_COMMENTS: Final = _code("keepalive_comments")
KEEPALIVE_IN_DATA: Final = _code("keepalive_in_data")
EMPTY_ROLE: Final = _code("empty_role")
ERROR_AFTER_200: Final = _code("error_after_200")
UNDECODABLE_DATA: Final = _code("undecodable_data")
EVENTS_NOT_SEPARATED: Final = _code("events_not_separated")
WIRE_FIELD_TYPE: Final = _code("wire_field_type")
INVALID_UTF8: Final = _code("invalid_utf8")
BAD_FRAME: Final = _code("bad_frame")
TEXT_MODE_TOOL_CALL: Final = _code("text_mode_tool_call")

ORDER: Final = tuple(_ORDER)
"""Every code, in report order: the order the constants above are defined in."""
