"""Tests of ``inspector/core/matrix/``."""
