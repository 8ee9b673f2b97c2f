"""AESP placement plugins."""
