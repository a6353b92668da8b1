"""Tests of ``inspector/core/providers/openai_responses/``."""
