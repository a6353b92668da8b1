"""Tests of ``inspector/ui/har/``."""
