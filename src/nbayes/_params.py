"""scikit-learn's estimator protocol for every nbayes estimator, without importing scikit-learn."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np


def constructor(
    *positional: str, annotations: Mapping[str, str], **defaults: Any
) -> Callable[..., None]:
    """An ``__init__`` that takes the parameters ``defaults`` names, in that order, and stores
    each argument unchanged (what scikit-learn asks of a constructor).

    The names in ``positional`` may be passed by position (they come first); the others are
    keyword-only. ``annotations`` gives each parameter's type, as text. The signature is the
    function's ``__signature__``, so ``inspect``, ``get_params``, ``clone`` and the documentation
    read it as if it were written out: estimators that share most of their parameters declare
    them once.
    """
    self = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    parameters = [self]
    for name, default in defaults.items():
        kind = (
            inspect.Parameter.POSITIONAL_OR_KEYWORD
            if name in positional
            else inspect.Parameter.KEYWORD_ONLY
        )
        parameters.append(
            inspect.Parameter(name, kind, default=default, annotation=annotations[name])
        )
    signature = inspect.Signature(parameters, return_annotation="None")

    def __init__(self: ParamsMixin, *args: Any, **kwargs: Any) -> None:
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as error:  # as Python says it, naming the estimator
            raise TypeError(f"{type(self).__name__}(): {error}") from None
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            setattr(self, name, value)

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    return __init__


class ParamsMixin:
    """scikit-learn's estimator protocol (get_params, set_params, clone, tags) without importing it.

    The constructor stores its arguments unchanged, so ``sklearn.base.clone`` and grid search
    work; ``__sklearn_tags__`` imports scikit-learn only when scikit-learn itself asks for it.
    """

    _accepts_sparse = False
    _allows_nan = False
    _positive_only = False
    _categorical_input = False
    _poor_score = False

    @property
    def _name(self) -> str:
        """The estimator's name in messages."""
        return type(self).__name__

    @classmethod
    def _param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return sorted(
            name
            for name, p in signature.parameters.items()
            if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        )

    def _store_params(self, arguments: dict[str, Any]) -> None:
        """Store each constructor argument unchanged: ``__init__`` passes its ``locals()``."""
        for name in self._param_names():
            setattr(self, name, arguments[name])

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor parameters and their current values; with ``deep``, also those of
        a parameter that is itself an estimator, as ``name__parameter`` (scikit-learn's
        convention, so that a grid search can reach them)."""
        out = {}
        for name in self._param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{k}", v) for k, v in value.get_params(deep=True).items())
            out[name] = value
        return out

    def set_params(self, **params: Any) -> ParamsMixin:
        """Set constructor parameters, and ``name__parameter`` ones of a parameter that is an
        estimator (set on that estimator, as scikit-learn does); unknown names raise
        ValueError."""
        valid = set(self._param_names())
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, inner, rest = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {type(self).__name__}. "
                    f"Valid parameters are: {sorted(valid)!r}."
                )
            if inner:
                nested.setdefault(name, {})[rest] = value
            else:
                setattr(self, name, value)
        for name, inner_params in nested.items():
            estimator = getattr(self, name)
            if not hasattr(estimator, "set_params"):
                raise ValueError(
                    f"Invalid parameter {name}__{next(iter(inner_params))} for estimator "
                    f"{type(self).__name__}: {name} is {estimator!r}, not an estimator."
                )
            estimator.set_params(**inner_params)
        return self

    def __repr__(self) -> str:
        signature = inspect.signature(type(self).__init__)
        changed = []
        for name in self._param_names():
            default = signature.parameters[name].default
            value = getattr(self, name, default)
            same = value is default
            if not same:
                try:
                    same = bool(np.all(value == default)) and type(value) is type(default)
                except (TypeError, ValueError):
                    same = False
            if not same:
                changed.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(
            estimator_type="classifier",
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags(poor_score=self._poor_score),
            input_tags=InputTags(
                sparse=self._accepts_sparse,
                allow_nan=self._allows_nan,
                positive_only=self._positive_only,
                categorical=self._categorical_input,
            ),
        )

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "classes_")
