"""Tests of ``inspector/cli/``, in folders that mirror its packages."""
