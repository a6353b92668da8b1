"""Tests of ``inspector/core/capture/``."""
