"""Tests of ``inspector/core/``, in folders that mirror its packages."""
