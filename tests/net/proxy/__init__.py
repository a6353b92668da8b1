"""Tests of ``inspector/net/proxy/``."""
