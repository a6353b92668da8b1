"""Tests of ``inspector/net/demo/``."""
