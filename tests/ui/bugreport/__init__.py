"""Tests of ``inspector/ui/bugreport/``."""
