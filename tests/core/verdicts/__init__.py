"""Tests of ``inspector/core/verdicts/``."""
