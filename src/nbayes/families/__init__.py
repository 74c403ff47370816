"""Likelihood families: one module per family, each of one shape.

A family module holds (1) its mergeable sufficient statistics — a class with ``accumulate``,
``merge``, ``reindex_classes``, ``state``, ``from_state`` and ``check`` (see
:class:`nbayes.families._group.Statistics`), or the shared :class:`~nbayes.families.counts.
FeatureSums`; (2) the parameters derived from them; (3) its log-likelihood Σ_j log P(x_j | c);
and, when a table column can use it, (4) a column group (:class:`~nbayes.families._group.
ColumnGroup`) registered in the :mod:`registry <nbayes.families._registry>`.
"""

from ._registry import Family, continuous_names, get, names, register, registered

__all__ = ["Family", "continuous_names", "get", "names", "register", "registered"]
