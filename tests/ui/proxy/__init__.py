"""Tests of ``inspector/ui/proxy/``."""
