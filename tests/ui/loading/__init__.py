"""Tests of ``inspector/ui/loading/``."""
