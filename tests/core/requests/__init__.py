"""Tests of ``inspector/core/requests/``."""
