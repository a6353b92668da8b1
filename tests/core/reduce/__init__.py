"""Tests of ``inspector/core/reduce/``."""
