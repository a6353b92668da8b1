"""Tests of ``inspector/core/clients/plain/``."""
