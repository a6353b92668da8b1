"""Tests of ``inspector/ui/``, in folders that mirror its packages."""
