"""Tests of ``inspector/ui/base/``."""
