"""Tests of ``inspector/ui/reduce/``."""
