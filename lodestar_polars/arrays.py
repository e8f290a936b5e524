"""Placeholder: scikit-learn's dense surface (being written)."""
