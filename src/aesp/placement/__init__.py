"""AESP placement."""
