"""AESP config."""
