"""SimPy model of the cluster: nodes, fabric, scheduler, jobs, faults, health and the pager.

UI-free and torch-free. Everything random is drawn from named, seeded substreams (see rng.py),
so the same incident and seed give the same night.
"""
