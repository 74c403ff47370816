"""What a missing value means to a :class:`~nbayes.semi_naive.SemiNaiveBayes` column: skipped
(missing at random) or a value of its own, chosen from the table pass's counts.

* ``"skip"``: a missing child adds nothing, a missing super-parent does not vote, a missing
  parent is backed off from;
* ``"category"`` (the default): "missing" is one more value of the column, counted and
  conditioned on like the others, so that a structure can learn that a value is missing
  *because* of the class or of another attribute (real data are seldom missing at random, and
  a pattern seen in a few rows is lost to a test of significance), in every column whose
  training rows miss some (in the others there is nothing to count, and a value missing later is
  skipped);
* ``"auto"``: a column's missing values are a category when whether a value is
  missing depends on the class. With M_c the weight of class c's rows missing the column and
  N_c the weight of class c, the G statistic of the 2 × K table (missing or not, by class),

      G = 2 Σ_c [M_c log(M_c / E_c) + (N_c − M_c) log((N_c − M_c) / (N_c − E_c))],
      E_c = N_c · M / N,

  is asymptotically χ² with K − 1 degrees of freedom when missingness is independent of the
  class; the column's missing values are a category when P(χ²_{K−1} ≥ G) < 0.05 / m, m the
  number of columns with missing values (Bonferroni's correction). The counts are sums over
  rows, so the choice is the same whatever the order, batches or partitions of the rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import choice_hint

MODES = ("skip", "category", "auto")
#: The mode of a column a dict of modes does not name (SemiNaiveBayes' default).
DEFAULT = "category"
#: The family-wise level of the test of independence between missingness and the class.
LEVEL = 0.05


def check_missing(missing: Any) -> None:
    """``missing`` is a mode, or a dict of column → mode."""
    modes = list(missing.values()) if isinstance(missing, dict) else [missing]
    for mode in modes:
        if mode not in MODES:
            raise ValueError(
                f"missing must be one of {MODES} or a dict of them, got "
                f"{mode!r}{choice_hint(mode, MODES)}"
            )


def independence_p_value(missing: np.ndarray, totals: np.ndarray) -> float:
    """P(χ²_{K−1} ≥ G) of the module docstring for one column (classes with weight only):
    SciPy's G test of the 2 × K table."""
    present = totals > 0
    m, n = missing[present], totals[present]
    if m.shape[0] < 2 or m.sum() <= 0 or m.sum() >= n.sum():
        return 1.0
    # imported here: scipy.stats takes about a second to import, which every command that
    # loads a model would otherwise pay
    from scipy.stats import chi2_contingency

    table = np.vstack([m, n - m])
    return float(chi2_contingency(table, correction=False, lambda_="log-likelihood").pvalue)


def missing_modes(
    missing: Any, names: list[str], missing_weight: np.ndarray, class_weight: np.ndarray
) -> list[str]:
    """Each column's mode ("skip" or "category"): ``missing``'s, and for "auto" the test of the
    module docstring on the columns' missing weight per class (K × d) and the classes' weight."""
    asked = [missing.get(n, DEFAULT) if isinstance(missing, dict) else missing for n in names]
    has_missing = missing_weight.sum(axis=0) > 0
    tested = max(1, int(np.sum(has_missing)))
    modes = []
    for j, mode in enumerate(asked):
        if not has_missing[j]:
            modes.append("skip")  # nothing is missing: the two readings are the same model
        elif mode == "auto":
            p = independence_p_value(missing_weight[:, j], class_weight)
            modes.append("category" if p < LEVEL / tested else "skip")
        else:
            modes.append(mode)
    return modes
