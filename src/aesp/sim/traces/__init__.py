"""AESP sim traces."""
