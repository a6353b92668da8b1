"""Tests of ``inspector/ui/serve/``."""
