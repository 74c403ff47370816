"""The partition protocol of NaiveBayes and the label rules, without Dask; and the import seam.

Pieces of a table read with ``_read_partition``, fitted with ``_fit_partition`` under one schema
and merged must give the model that ``fit`` gives on the whole table (checked against that fit,
which shares none of the protocol's code paths for schema and merging). The label rules of
:mod:`nbayes.labels` are checked against their definitions. The import graph is read from the
sources: ``nbayes.distributed`` is reached only through the lazy door in ``_dispatch`` (and
the CLI's ``--scheduler``), and imports nothing of nbayes inside its functions.
"""

from __future__ import annotations

import ast
import itertools
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from conftest import assert_same_statistics

import nbayes
from nbayes import labels

SRC = Path(__file__).resolve().parents[1] / "src" / "nbayes"


def mixed_table(n: int, seed: int) -> dict[str, list]:
    """Vocabularies that grow along the rows, numbers, counts, booleans, missing values (None and
    the marker "?"), and labels that are sometimes missing."""
    rng = np.random.default_rng(seed)
    row = np.arange(n)
    label = np.where(rng.random(n) < 0.5, "yes", "no").astype(object)
    label[row >= n // 2] = np.where(rng.random(n - n // 2) < 0.3, "maybe", label[row >= n // 2])
    label[rng.random(n) < 0.05] = None
    colour = [f"c{v}" for v in rng.integers(0, 3, n) + row // (n // 4)]
    colour = ["?" if r < 0.05 else c for r, c in zip(rng.random(n), colour, strict=True)]
    height = rng.normal(170, 8, n)
    return {
        "colour": colour,
        "rating": rng.integers(1, 6, n).tolist(),
        "height": [None if r < 0.1 else h for r, h in zip(rng.random(n), height, strict=True)],
        "income": rng.lognormal(3, 0.5, n).round(1).tolist(),
        "visits": rng.poisson(2, n).tolist(),
        "flag": (rng.random(n) < 0.3).tolist(),
        "label": label.tolist(),
    }


def make_model() -> nbayes.NaiveBayes:
    # pieces merge into the textbook model of all the rows (calibration needs them together)
    return nbayes.NaiveBayes(
        families={"income": "kde", "visits": "poisson"},
        missing_values="?",
        alpha={"colour": 0.5},
        max_bins=32,
        calibration=None,
    )


def pieces(table: dict[str, list], bounds: list[int]) -> list[dict[str, list]]:
    return [{k: v[a:b] for k, v in table.items()} for a, b in itertools.pairwise(bounds)]


def test_pieces_fitted_through_the_protocol_merge_into_one_fit():
    table = mixed_table(1200, seed=3)
    with pytest.warns(UserWarning, match="missing target"):
        whole = make_model().fit(table, target="label")

    template = make_model()._partition_template(reset=True)
    bounds = [0, 250, 700, 1200]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading a piece neither warns nor raises
        rows = [template._read_partition(p, target="label") for p in pieces(table, bounds)]
    assert sum(r.dropped for r in rows) == sum(v is None for v in table["label"])
    # the schema: the model's own inference on all the pieces' labelled rows at once
    stand_in = pl.concat([r.frame for r in rows], how="vertical_relaxed")
    schema = template._infer_schema(stand_in)
    assert schema == whole.schema_
    parts = [template._fit_partition(r, schema) for r in rows]
    merged = nbayes.merge(*parts)
    assert merged.schema_ == whole.schema_
    assert_same_statistics(whole, merged)
    probe = {k: v[:300] for k, v in table.items() if k != "label"}
    np.testing.assert_allclose(
        merged.predict_joint_log_proba(probe), whole.predict_joint_log_proba(probe), rtol=1e-12
    )
    assert template.get_params() == make_model().get_params()  # the template is not fitted
    assert not hasattr(template, "classes_")


def test_read_partition_with_labels_as_y_and_weights():
    table = mixed_table(200, seed=5)
    y = table.pop("label")
    weight = np.linspace(0.5, 2.0, 200)
    rows = make_model()._read_partition(table, y, sample_weight=weight)
    missing = np.array([v is None for v in y])
    assert rows.dropped == missing.sum() and rows.first_dropped == int(np.argmax(missing))
    np.testing.assert_array_equal(rows.missing, missing)
    np.testing.assert_array_equal(rows.weight, weight[~missing])
    np.testing.assert_array_equal(rows.values, np.array([v for v in y if v is not None]))
    assert rows.frame.height == (~missing).sum()
    assert rows.frame.get_column("colour").null_count() == sum(
        c == "?" for c, m in zip(table["colour"], missing, strict=True) if not m
    )
    # a piece without rows: nothing, and no error
    empty = make_model()._read_partition({k: [] for k in table}, [])
    assert empty.frame.height == 0 and empty.dropped == 0


def test_template_reads_more_batches_with_the_fitted_markers():
    """One more batch is read with the fitted model's markers (data carried by the model), a
    new fit with the parameter's: as partial_fit and fit read them."""
    piece = {"a": ["x", "?", "y", "-"], "label": ["p", "q", "p", "q"]}
    model = nbayes.NaiveBayes(missing_values="?").fit(piece, target="label")
    model.set_params(missing_values="-")
    more = model._partition_template(reset=False)._read_partition(piece, target="label")
    again = model._partition_template(reset=True)._read_partition(piece, target="label")
    single = nbayes.NaiveBayes(missing_values="?").fit(piece, target="label")
    single.set_params(missing_values="-")
    assert more.frame["a"].to_list() == ["x", None, "y", "-"] == single._frame(piece)["a"].to_list()
    assert again.frame["a"].to_list() == ["x", "?", "y", None]
    assert model.missing_values == "-"  # the model itself is not changed


def test_array_columns_are_the_names_the_model_reads_an_array_by():
    assert make_model()._array_columns(3) == ["x0", "x1", "x2"]
    X = np.array([[1.0, 2.0], [3.0, 1.0], [2.0, 2.0], [0.0, 1.0]])
    fitted = nbayes.NaiveBayes().fit(X, ["a", "b", "a", "b"], columns=["p", "q"])
    assert fitted._array_columns(2) == ["p", "q"]


def test_label_source_rules():
    assert labels.label_source("label", None) == (None, "label")
    assert labels.label_source(None, "label") == (None, "label")
    y = [1, 2]
    assert labels.label_source(y, None) == (y, None)
    with pytest.raises(ValueError, match="once: as y or as target='column', not both"):
        labels.label_source(y, "label")
    with pytest.raises(ValueError, match=r"needs the class labels: pass y, or target="):
        labels.label_source(None, None)
    with pytest.raises(
        ValueError, match=r"target column 'z' is not in the data \(columns: \['a'\]"
    ):
        labels.check_target_column("z", ["a"])


def test_label_messages_are_the_models():
    with pytest.warns(UserWarning, match=r"^3 row\(s\) with a missing target were dropped\.$"):
        labels.warn_dropped(3)
    with pytest.warns(UserWarning, match=r"dropped \(first at row 7\)\.$"):
        labels.warn_dropped(2, 7)
    with pytest.raises(ValueError, match="single class"):
        labels.check_classes(np.array(["p"]))
    labels.check_classes(np.array(["p", "q"]))
    # the model says the same things
    with pytest.raises(ValueError, match=str(labels.no_labelled_rows())):
        nbayes.NaiveBayes().fit({"a": [1, 2]}, [None, None])
    with pytest.raises(ValueError, match="single class"):
        nbayes.NaiveBayes().fit({"a": [1, 2]}, ["p", "p"])
    np.testing.assert_array_equal(
        labels.matches(np.array([1, 2, 3]), np.array(["1", "2", "4"], dtype=object)),
        [True, True, False],
    )


# ---------------------------------------------------------------------- the import seam
def _module_name(path: Path) -> str:
    parts = ["nbayes", *path.relative_to(SRC).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> tuple[set[str], set[str]]:
    """(modules imported when the module is imported, modules imported inside its functions),
    nbayes modules only, as the import statements name them (``from .x import y`` names the
    module x.y when there is one, else x). Imports under ``if TYPE_CHECKING`` never run."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    at_import: set[str] = set()
    in_functions: set[str] = set()

    def targets(node: ast.AST) -> set[str]:
        if isinstance(node, ast.Import):
            return {a.name for a in node.names if a.name in modules}
        if not isinstance(node, ast.ImportFrom):
            return set()
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*anchor, *([base] if base else [])])
        found = set()
        for alias in node.names:
            if f"{base}.{alias.name}" in modules:
                found.add(f"{base}.{alias.name}")
            elif base in modules:
                found.add(base)
        return found

    def walk(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            here = inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            (in_functions if here else at_import).update(targets(child))
            walk(child, here)

    walk(ast.parse(path.read_text()), False)
    return at_import, in_functions


def _graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    paths = {_module_name(p): p for p in SRC.rglob("*.py")}
    at_import, in_functions = {}, {}
    for name, path in paths.items():
        at_import[name], in_functions[name] = _imports(path, set(paths))
    return at_import, in_functions


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_distributed_is_reached_only_through_the_dask_door():
    at_import, in_functions = _graph()
    dist = {
        m for m in at_import if m == "nbayes.distributed" or m.startswith("nbayes.distributed.")
    }
    assert "nbayes.distributed._fitting" in dist  # the graph was read
    outside = set(at_import) - dist
    # no module outside the package imports it when imported ...
    assert not {m for m in outside if at_import[m] & dist}
    # ... and inside functions only the door (the estimators' Dask dispatch) and the CLI do
    doors = {m for m in outside if in_functions[m] & dist}
    assert {m for m in doors if m.split(".")[:2] != ["nbayes", "cli"]} == {"nbayes._dispatch"}
    # the package imports nothing of nbayes inside its functions
    assert not {m for m in dist if in_functions[m] - dist}
    # no circle of imports run at import time passes through it (tests/test_architecture.py
    # finds no circle at all: nothing in distributed imports the estimators' modules)
    for module in dist:
        assert module not in _reachable(at_import, module), module
    assert not _reachable(at_import, "nbayes") & dist  # import nbayes never imports it
