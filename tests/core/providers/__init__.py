"""Tests of ``inspector/core/providers/``."""
