"""Tests of ``inspector/net/matrix/``."""
