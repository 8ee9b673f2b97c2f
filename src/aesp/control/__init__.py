"""AESP control."""
