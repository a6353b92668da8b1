"""Tests of ``inspector/core/clients/google_genai/``."""
