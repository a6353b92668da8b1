"""Tests of ``inspector/core/events/``."""
