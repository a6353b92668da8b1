"""Tests of ``inspector/core/providers/bedrock_converse/``."""
