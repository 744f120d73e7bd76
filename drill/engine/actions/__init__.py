"""The action language: what a person types at 3am, parsed, checked and applied."""
