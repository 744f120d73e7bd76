"""Incident files: safe YAML loading, typed models and located error reports."""
