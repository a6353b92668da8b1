"""The one exception type the core raises for problems a user must see and fix."""

from __future__ import annotations


class InspectorError(Exception):
    """An error with a one-line message meant for the user (no traceback needed to act on it)."""
