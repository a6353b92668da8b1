"""Tests of ``inspector/core/reports/``."""
