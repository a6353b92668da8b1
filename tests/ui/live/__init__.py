"""Tests of ``inspector/ui/live/``."""
