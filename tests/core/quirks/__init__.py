"""Tests of ``inspector/core/quirks/``."""
