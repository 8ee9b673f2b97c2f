"""AESP sim."""
