"""Shared test helpers: where the recorded provider streams live.

The real recordings are not copied into the project: they sit in ``../shared/fixtures/real``
beside the checkout (as they do for developers and CI).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
REAL_FIXTURES = SHARED / "fixtures" / "real"


def real_fixture(name: str) -> Path:
    """Path of a recorded stream in ../shared/fixtures/real (``name`` with or without .sse)."""
    path = REAL_FIXTURES / (name if name.endswith((".sse", ".json")) else name + ".sse")
    if not path.exists():
        pytest.fail(f"missing shared fixture {path}")
    return path


def all_real_fixtures() -> list[Path]:
    """Every recorded .sse stream, sorted by name."""
    return sorted(REAL_FIXTURES.glob("*.sse"))
