"""Tests of ``inspector/net/serve/``."""
