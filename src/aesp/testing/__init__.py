"""AESP testing."""
