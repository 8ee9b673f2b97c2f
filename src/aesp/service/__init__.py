"""AESP service."""
