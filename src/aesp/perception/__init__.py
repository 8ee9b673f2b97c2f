"""AESP perception."""
