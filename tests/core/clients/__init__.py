"""Tests of ``inspector/core/clients/``."""
