"""The document transforms of Rennie, Shih, Teevan & Karger (2003), "Tackling the poor assumptions
of naive Bayes text classifiers", steps 1-3, on a CSR matrix of counts d_ij (document i, term j):

1. TF transform (their §4.1): d_ij ← log(1 + d_ij), damping the burstiness of repeated words
   (``tf=True`` or ``"log"``); or d_ij ← 1 if d_ij > 0 (``tf="binary"``: each word counts once
   per document, the "binarized" multinomial of Metsis et al. 2006);
2. IDF (§4.2): d_ij ← d_ij · idf_j, with

       idf_j = log((1 + N) / (1 + df_j)) + 1        (``"smooth"``, scikit-learn's, the default)
       idf_j = log(N / df_j)                          (``"rennie"``, the paper's)

   N the number of training documents and df_j the number containing term j;
3. length normalisation (§4.3): d_ij ← d_ij / sqrt(Σ_k d_ik²).

nbayes applies 3 *before* 2: a document's length normalisation uses its TF-transformed counts,
and IDF multiplies afterwards. The reason is exact merging: IDF depends on the whole training set,
so it cannot be applied to a document when it is counted without making the fitted statistics
depend on the order of arrival. With the norm first, the class statistic

    Σ_{i in class c} idf_j · d_ij / ||d_i||  =  idf_j · Σ_{i in class c} d_ij / ||d_i||

factors into the per-document part (accumulated and merged as plain sums) and idf_j, applied to
the sums when a prediction needs them (from the merged document frequencies). The test documents
go through the same steps, so the model is exactly ``Pipeline([TF, L2-normalise, ×idf, NB])``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from . import _transform

#: The modes of ``idf=`` and ``tf=``; the first is the one ``True`` means.
IDF_MODES = ("smooth", "rennie")
TF_MODES = ("log", "binary")


def check_tf(tf: bool | str) -> str | None:
    """The TF transform to use (None: raw counts)."""
    return _switch(tf, "tf", TF_MODES)


def check_idf(idf: bool | str) -> str | None:
    """The IDF formula to use (None: no IDF)."""
    return _switch(idf, "idf", IDF_MODES)


def _switch(value: bool | str | None, name: str, modes: tuple[str, ...]) -> str | None:
    """An on/off option that may also name its mode: False or None → None (off), True → the
    first (default) of ``modes``, a mode → itself; anything else raises, naming ``name``."""
    if value is False or value is None:
        return None
    if value is True:
        return modes[0]
    if value in modes:
        return value
    raise ValueError(f"{name} must be True, False or one of {modes}, got {value!r}.")


def idf_weights(df: np.ndarray, n_documents: float, mode: str) -> np.ndarray:
    """idf_j from document frequencies (see the module docstring); a term in no training document
    gets the weight of a term in one (it carries no class statistics anyway)."""
    df = np.asarray(df, dtype=np.float64)
    if mode == "smooth":
        return np.log((1.0 + n_documents) / (1.0 + df)) + 1.0
    seen = np.maximum(df, 1.0)
    return np.log(max(float(n_documents), 1.0) / seen)


_TF_CODES = {None: 0, "log": 1, "binary": 2}
_EMPTY_I = np.empty(0, dtype=np.int64)
_EMPTY_F = np.empty(0, dtype=np.float64)


def transform(
    X: sp.csr_array,
    *,
    tf: bool | str,
    norm: bool,
    position: np.ndarray | None = None,
    width: int | None = None,
    scale: np.ndarray | None = None,
) -> sp.csr_array:
    """Steps 1 and 3 on raw counts, then (optionally) the column renumbering ``position``
    (column j → position[j], -1 = dropped; ``width`` columns out) and step 2 (``scale`` = idf of
    the new columns), in one compiled pass."""
    mode = check_tf(tf)
    if mode is None and not norm and position is None and scale is None:
        return X
    indptr, indices, data = _transform.transform_rows(
        X.indptr,
        X.indices,
        X.data,
        _TF_CODES[mode],
        bool(norm),
        _EMPTY_I if position is None else position,
        _EMPTY_F if scale is None else scale,
    )
    shape = (X.shape[0], X.shape[1] if width is None else width)
    return sp.csr_array((data, indices, indptr), shape=shape)


def weigh(X: sp.csr_array, *, tf: bool | str, norm: bool) -> sp.csr_array:
    """Steps 1 and 3 (the per-document part) on raw counts."""
    return transform(X, tf=tf, norm=norm)
