"""Tests of ``inspector/ui/lanes/``."""
