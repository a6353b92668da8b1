"""Tests of ``inspector/core/calls/``."""
