"""Tests of ``inspector/core/base/``."""
