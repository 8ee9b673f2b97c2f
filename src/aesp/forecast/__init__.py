"""AESP forecast."""
