"""The family registry: which likelihood families a table column can have.

Every family module of :mod:`nbayes.families` that a table column can use registers one
:class:`Family` record when it is imported. The schema (which column gets which family), the
table model (which column group holds a family's statistics), the command line (the choices of
``--family``) and model files (which group class to rebuild) all read this registry, so a new
family is one new module in ``families/`` plus its tests.

Family modules are discovered on first use (every module of the package whose name does not
start with ``_``), so importing :mod:`nbayes` does not import every family.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Any

#: The kinds of table column a family can read (see :func:`nbayes.schema.column_kind`).
COLUMN_KINDS = frozenset({"string", "bool", "int", "float"})


@dataclass(frozen=True)
class Family:
    """One likelihood family a table column can have.

    Attributes
    ----------
    name : str
        The name users give in ``families={"column": name}`` and ``--family column=name``.
    reads : frozenset of str
        Column kinds the family can model (``"string"``, ``"bool"``, ``"int"``, ``"float"``).
    group : type
        The column-group class (a :class:`nbayes.families._group.ColumnGroup`) holding the
        statistics of all the columns of this family in one model; it is built as
        ``group(names, n_classes, family=..., dtypes=..., max_bins=...)``.
    continuous : bool
        Whether the family may be the table model's ``continuous`` setting (the default family
        of numeric columns).
    per_column : bool
        One group per column (each with its own state, e.g. a text vocabulary) instead of one
        group for all the family's columns.
    density : bool
        P(x_j | c) is a density (explanations say so), not a probability.
    rank : int
        Where the family comes in listings (help texts, error messages); ties by name.
    summary : str
        One line for help texts.
    """

    name: str
    reads: frozenset[str]
    group: type
    continuous: bool = False
    per_column: bool = False
    density: bool = False
    rank: int = 100
    summary: str = ""


_FAMILIES: dict[str, Family] = {}
_discovered = False
_listing: dict[str, Family] | None = None  # registered()'s answer until a family is added


def register(family: Family) -> Family:
    """Add ``family`` to the registry (called by each family module at import)."""
    unknown = set(family.reads) - COLUMN_KINDS
    if unknown:
        raise ValueError(f"family {family.name!r} reads unknown column kinds {sorted(unknown)}.")
    existing = _FAMILIES.get(family.name)
    if existing is not None and existing.group is not family.group:
        raise ValueError(f"two families are named {family.name!r}.")
    _FAMILIES[family.name] = family
    global _listing
    _listing = None
    return family


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    package = importlib.import_module(__package__)
    for module in pkgutil.iter_modules(package.__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"{__package__}.{module.name}")
    _discovered = True


def _listed() -> dict[str, Family]:
    """The registry in listing order, sorted once (it is asked once per column of a table)."""
    global _listing
    _discover()
    if _listing is None:
        _listing = {f.name: f for f in sorted(_FAMILIES.values(), key=lambda f: (f.rank, f.name))}
    return _listing


def registered() -> dict[str, Family]:
    """Every registered family, by name, in listing order (``rank``, then name)."""
    return dict(_listed())


def names() -> tuple[str, ...]:
    """The names of every family a table column can have."""
    return tuple(registered())


def continuous_names() -> tuple[str, ...]:
    """The families that may be the default of numeric columns (``continuous=``)."""
    return tuple(name for name, f in registered().items() if f.continuous)


def get(name: Any) -> Family:
    """The family called ``name``; an unknown name is a ValueError listing the choices."""
    family = _listed().get(name) if isinstance(name, str) else None
    if family is None:
        raise ValueError(f"unknown family {name!r}; choose one of {names()}.")
    return family
