"""Tests of ``inspector/ui/panes/``."""
