"""Tests of ``inspector/net/``, in folders that mirror its packages."""
