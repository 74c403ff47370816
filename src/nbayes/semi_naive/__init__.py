"""Semi-naive Bayes: models whose attributes may depend on each other given the class.

All are built from counts that add (N(c), N(c, x_i), N(c, x_i, x_j), …), so batches, merged
models and one fit agree; the structure (TAN's tree, k-DB's parents, the super-parents AODE
trusts) is derived from the merged counts when a prediction needs it.

================  =======================================  ======  ===========================
model             P(c, x) ∝                                passes  statistics
================  =======================================  ======  ===========================
AODE, WAODE,      Σ_i w_i P(c, x_i) Π_j P(x_j | c, x_i)     1       pair counts
AODEsr
AnDE(n=2)         Σ_{ij} P(c, x_i, x_j) Π_l P(x_l|c,x_i,x_j) 1       triple counts
HNB               P(c) Π_j Σ_i W_ij P(x_j | c, x_i)         1       pair counts
TAN, KDB(k=1)     P(c) Π_j P(x_j | c, x_π(j))               1       pair counts
KDB(k ≥ 2)        P(c) Π_j P(x_j | c, x_π(j)), |π(j)| ≤ k   2       pairs, then parent counts
SelectiveKDB      the best nested k-DB by leave-one-out      3       + leave-one-out losses
SelectiveKDB-     (1/M) Σ_m P_m(c | x), M selective k-DBs   3       the same, per member
Ensemble          ranking the attributes differently
================  =======================================  ======  ===========================
"""

from .averaged import AODE, WAODE, AnDE, AODEsr
from .ensemble import SelectiveKDBEnsemble
from .hidden import HNB
from .memory import MemoryBudgetError
from .network import KDB, TAN
from .selective import SelectiveKDB
from .structure import Structure
from .table import SemiNaiveBayes

#: The semi-naive estimator classes.
ESTIMATORS = (AODE, WAODE, AODEsr, AnDE, HNB, TAN, KDB, SelectiveKDB, SelectiveKDBEnsemble)

__all__ = [
    "AODE",
    "ESTIMATORS",
    "HNB",
    "KDB",
    "TAN",
    "WAODE",
    "AODEsr",
    "AnDE",
    "MemoryBudgetError",
    "SelectiveKDB",
    "SelectiveKDBEnsemble",
    "SemiNaiveBayes",
    "Structure",
]
