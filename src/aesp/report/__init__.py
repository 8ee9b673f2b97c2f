"""AESP report."""
