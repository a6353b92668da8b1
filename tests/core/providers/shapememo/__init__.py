"""Tests of ``inspector/core/providers/shapememo/``."""
