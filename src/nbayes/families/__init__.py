"""Likelihood families: each module holds a family's mergeable statistics and its formulas."""
