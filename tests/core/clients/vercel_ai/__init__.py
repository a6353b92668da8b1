"""Tests of ``inspector/core/clients/vercel_ai/``."""
