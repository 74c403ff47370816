"""Poisson model for count features (R naivebayes' ``poisson_naive_bayes``).

    P(x_j = x | c) = λ_{c,j}^x e^{−λ_{c,j}} / x!

with the rate estimated from the class-c rows (N_{c,j} of them observing feature j, weighted) as

    λ_{c,j} = (Σ_i x_ij + α) / (N_{c,j} + α)

α = 0 is maximum likelihood; α > 0 adds α pseudo-rows of count 1 (the posterior mean under a
Gamma(α, α) prior), which keeps λ > 0 for a feature never seen non-zero in a class. Then

    Σ_j log P(x_j | c) = Σ_j x_j log λ_{c,j} − Σ_j λ_{c,j} − Σ_j log x_j!

Missing values (NaN, dense input) are skipped: they add neither the rate nor the count term.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from ._group import ColumnGroup, Settings, format_table
from ._registry import Family, register
from ._tidy import tidy_frame
from .counts import FeatureSums, LogTable, is_sparse, matmul
from .multinomial import _key

if TYPE_CHECKING:  # Polars, the encoders and SciPy's special functions are imported where used
    import polars as pl


def rates(stats: FeatureSums, class_count: np.ndarray, alpha: float | np.ndarray) -> np.ndarray:
    """λ_{c,j}, shape (K, d)."""

    def compute() -> np.ndarray:
        observed = stats.observed if stats.observed is not None else class_count[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = (stats.counts + alpha) / (observed + alpha)
        return np.where(np.isnan(rate), 0.0, rate)  # never observed, α = 0: no events

    return stats.cached(("poisson", _key(alpha), class_count.tobytes()), compute)


def log_likelihood(
    stats: FeatureSums,
    X: np.ndarray | sp.csr_array,
    class_count: np.ndarray,
    alpha: float | np.ndarray,
) -> np.ndarray:
    """Σ_j log P(x_j | c), shape (rows, K)."""
    from scipy.special import gammaln

    def tables() -> tuple[np.ndarray, LogTable]:
        rate = rates(stats, class_count, alpha)
        with np.errstate(divide="ignore"):
            return np.ascontiguousarray(rate.T), LogTable(np.log(rate).T)

    rate, log_rate = stats.cached(("poisson.T", _key(alpha), class_count.tobytes()), tables)
    if is_sparse(X):
        out = log_rate.apply(X)
        out -= rate.sum(axis=0)
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        terms = gammaln(np.asarray(X.data, dtype=np.float64) + 1.0)
        return out - np.bincount(rows, weights=terms, minlength=X.shape[0])[:, None]
    present = ~np.isnan(X)
    values = np.where(present, X, 0.0)
    out = log_rate.apply(values)
    out -= matmul(present.astype(np.float64), rate)
    out -= gammaln(values + 1.0).sum(axis=1, keepdims=True)
    return out


# ---------------------------------------------------------------------- table columns
class PoissonColumns(ColumnGroup):
    """Count columns of a table: rate λ_{c,j} = (Σ x + α) / (N_{c,j} + α) over observed values."""

    family = "poisson"

    def __init__(self, names: list[str], n_classes: int, **options: Any) -> None:
        super().__init__(names, n_classes, **options)
        from ..encoding import NumericEncoder  # see the imports

        self.encoder = NumericEncoder(self.names, self.family, nonnegative=True)
        self.stats = FeatureSums(n_classes, len(names), track_observed=True)

    def log_likelihood(self, block: np.ndarray, settings: Settings) -> np.ndarray:
        alpha = settings.alpha_for(self.names)
        unobserved = self.stats.observed.sum(axis=0) == 0
        if unobserved.any():  # a column no class observed adds nothing: its values as missing
            block = np.where(unobserved[None, :], np.nan, block)
        return log_likelihood(self.stats, block, np.zeros(0), alpha)

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        rate = rates(self.stats, np.zeros(0), settings.alpha_for(self.names))
        return "\n\n".join(
            f"{name}  (poisson)\n" + format_table(["rate"], classes, [rate[:, j].tolist()])
            for j, name in enumerate(self.names)
        )

    def tables(
        self, classes: np.ndarray, settings: Settings, *, grid: int = 200
    ) -> dict[str, pl.DataFrame]:
        """count N_c (rows observed), total Σ x, rate λ_c = (Σ x + α) / (N_c + α)."""
        rate = rates(self.stats, np.zeros(0), settings.alpha_for(self.names))
        return {
            name: tidy_frame(
                name,
                classes,
                1,
                per_class={
                    "count": self.stats.observed[:, j, None],
                    "total": self.stats.counts[:, j, None],
                    "rate": rate[:, j, None],
                },
            )
            for j, name in enumerate(self.names)
        }


register(
    Family(
        "poisson",
        rank=10,
        reads=frozenset({"int", "float"}),
        group=PoissonColumns,
        summary="counts: a Poisson rate per class",
    )
)
