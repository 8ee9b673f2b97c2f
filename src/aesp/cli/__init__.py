"""AESP cli."""
