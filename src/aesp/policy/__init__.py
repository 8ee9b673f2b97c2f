"""AESP policy."""
