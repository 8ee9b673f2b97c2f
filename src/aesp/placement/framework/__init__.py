"""AESP placement framework."""
