"""Tests of ``inspector/core/analysis/``."""
