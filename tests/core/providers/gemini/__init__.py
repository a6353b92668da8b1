"""Tests of ``inspector/core/providers/gemini/``."""
