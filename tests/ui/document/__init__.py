"""Tests of ``inspector/ui/document/``."""
