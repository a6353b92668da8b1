"""Tests of ``inspector/core/providers/wire/``."""
