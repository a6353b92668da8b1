"""Tests of ``inspector/core/clients/openai_sdk/``."""
