"""The model a command fits, built from the model options."""

from __future__ import annotations

import argparse

from ..model import NaiveBayes


def model_from(args: argparse.Namespace) -> NaiveBayes:
    """A NaiveBayes with ``--family``, ``--continuous``, ``--alpha``, ``--prior``,
    ``--missing`` and ``--bins``."""
    return NaiveBayes(
        families=dict(args.family) or None,
        continuous=args.continuous,
        alpha=args.alpha,
        class_prior=args.prior,
        missing_values=args.missing or None,
        bins=args.bins,
    )
