"""What every classifier's model file holds (:class:`ModelState`, a base of
:class:`nbayes._base.NaiveBayesClassifier`): its parameters, classes, features, class counts and
statistics, each array checked when a file is read (:mod:`nbayes.persist` writes and reads the
files)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._json import from_json, labels_from_json, labels_to_json, to_json
from ._state import nest, section
from ._validation import check_total_weight


class ModelState:
    """A classifier of statistics as (JSON metadata, arrays), and back."""

    def _to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        """(JSON metadata, numeric arrays) describing the fitted model (see nbayes.persist)."""
        arrays = {"class_count": self.class_count_}
        arrays.update(nest("stats", self._stats.state()))
        return self._common_meta(), arrays

    def _common_meta(self) -> dict:
        """The metadata every classifier's file holds: parameters, classes, features."""
        names = getattr(self, "feature_names_in_", None)
        return {
            "params": to_json(self.get_params(deep=False)),
            "classes": labels_to_json(self.classes_),
            "n_features_in": int(self.n_features_in_),
            "feature_names": None if names is None else [str(n) for n in names],
        }

    @classmethod
    def _from_state(cls, meta: dict, arrays: dict[str, np.ndarray]) -> Any:
        """Rebuild a fitted model from :meth:`_to_state`'s output, checking every array."""

        model = cls(**from_json(meta["params"]))
        model._check_params()
        model._restore_common(meta, arrays)
        stats = cls._stats_type.from_state(section("stats", arrays))
        stats.check(len(model.classes_), model.n_features_in_)
        check_same_arrays(stats, model._new_stats(0, model.n_features_in_))
        model._stats = stats
        return model

    def _restore_common(self, meta: dict, arrays: dict[str, np.ndarray]) -> None:
        """Check and restore :meth:`_common_meta`'s values and the class counts."""
        classes = labels_from_json(meta["classes"])
        count = np.asarray(arrays["class_count"], dtype=np.float64)
        if classes.shape[0] < 1:
            raise ValueError("a fitted model has at least one class.")
        if count.shape != classes.shape or np.any(count < 0):
            raise ValueError("class_count does not match the classes.")
        check_total_weight(float(count.sum()), estimator="class_count")
        if classes.shape[0] > 1 and np.any(classes[1:] <= classes[:-1]):
            raise ValueError("classes must be sorted and distinct.")
        n_features = meta["n_features_in"]
        if not isinstance(n_features, int) or isinstance(n_features, bool) or n_features < 1:
            raise ValueError("n_features_in must be an integer >= 1.")
        self.classes_ = classes
        self.class_count_ = count.copy()
        self.n_features_in_ = n_features
        if meta.get("feature_names") is not None:
            names = meta["feature_names"]
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise ValueError("feature_names must be a list of strings.")
            if len(names) != self.n_features_in_:
                raise ValueError("feature_names does not match n_features_in.")
            self.feature_names_in_ = np.asarray(names, dtype=object)


def check_same_arrays(loaded: Any, fresh: Any) -> None:
    """Loaded statistics must hold the arrays that this model's own statistics hold (a forged
    file could add, say, observed weights to a model that never tracks them)."""
    have, want = sorted(loaded.state()), sorted(fresh.state())
    if have != want:
        raise ValueError(f"the statistics hold the arrays {have[:6]}, expected {want[:6]}.")
