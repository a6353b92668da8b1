"""Tests of ``inspector/ui/clients/``."""
