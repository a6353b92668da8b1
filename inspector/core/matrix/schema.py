"""The JSON schema of ``matrix.json`` (format_version 1), as docs/matrix.md prints it; the
tests validate real results against it."""

from __future__ import annotations

from typing import Any, Final

from inspector.core.reports.words import MATRIX_WORDS

_NUM_OR_NULL: Final = {"type": ["number", "null"]}
_RUN: Final[dict[str, Any]] = {
    "type": "object",
    "required": ["run", "word", "capture", "error", "skipped", "expected", "calls", "valid",
                 "retried", "accepted_degraded", "quirks", "first_tool_fragment", "duration",
                 "tokens", "clients"],
    "additionalProperties": False,
    "properties": {
        "run": {"type": "integer", "minimum": 1},
        "word": {"enum": [w for w in MATRIX_WORDS if w != "pending"]},
        "capture": {"type": ["string", "null"]},
        "error": {
            "oneOf": [
                {"type": "null"},
                {"type": "object", "required": ["type", "message"],
                 "properties": {"type": {"type": "string"}, "message": {"type": "string"}}},
            ]
        },
        "skipped": {"type": ["string", "null"]},
        "expected": {"type": ["boolean", "null"]},
        "expect_failures": {"type": "array", "items": {"type": "string"}},
        "calls": {"type": "integer", "minimum": 0},
        "text_calls": {"type": "integer", "minimum": 0},
        "valid": {"type": ["boolean", "null"]},
        "retried": {"type": "boolean"},
        "retry_reason": {"type": ["string", "null"]},
        "accepted_degraded": {"type": "boolean"},
        "quirks": {"type": "array", "items": {"type": "string"}},
        "first_tool_fragment": _NUM_OR_NULL,
        "duration": {"type": "number", "minimum": 0},
        "tokens": {
            "oneOf": [
                {"type": "null"},
                {"type": "object", "additionalProperties": {"type": "integer"}},
            ]
        },
        "clients": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["word", "right"],
                "properties": {"word": {"type": "string"}, "right": {"type": ["boolean", "null"]}},
            },
        },
        "rate_limits": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["retry_after", "waited"],
                "properties": {"retry_after": {"type": ["string", "null"]},
                               "waited": {"type": "number"}},
            },
        },
    },
}  # fmt: skip

SCHEMA: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "toolcall-inspector matrix.json",
    "type": "object",
    "required": ["format_version", "started", "duration", "spec", "targets", "scenarios",
                 "replicas", "cells"],
    "properties": {
        "format_version": {"const": 1},
        "started": {"type": "string"},
        "duration": {"type": "number", "minimum": 0},
        "spec": {"type": "object"},
        "targets": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "profile", "dialect", "model"],
                "properties": {k: {"type": "string"}
                               for k in ("name", "profile", "dialect", "model")},
            },
        },
        "scenarios": {"type": "array", "items": {"type": "string"}},
        "replicas": {"type": "array", "items": {"type": "string"}},
        "cells": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["target", "scenario", "word", "passed", "runs"],
                "additionalProperties": False,
                "properties": {
                    "target": {"type": "string"},
                    "scenario": {"type": "string"},
                    "word": {"enum": list(MATRIX_WORDS)},
                    "passed": {"type": "integer", "minimum": 0},
                    "runs": {"type": "array", "items": _RUN},
                },
            },
        },
    },
}  # fmt: skip
"""``matrix.json``'s schema (JSON Schema 2020-12)."""
