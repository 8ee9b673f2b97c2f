"""AESP placement solvers."""
