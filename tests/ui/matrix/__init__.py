"""Tests of ``inspector/ui/matrix/``."""
