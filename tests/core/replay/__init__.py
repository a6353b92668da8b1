"""Tests of ``inspector/core/replay/``."""
