"""Benchmarks: `python -m benchmarks` runs them all and prints one table (benchmarks/README.md)."""
