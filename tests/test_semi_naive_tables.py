"""SemiNaiveBayes on tables (pandas, Polars, Arrow, missing values, numeric columns cut into
intervals) and semi-naive model files."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import nbayes
from nbayes.families.intervals import cut_points, interval_of
from nbayes.families.sketch import ValueSketches
from nbayes.semi_naive import (
    AODE,
    HNB,
    KDB,
    TAN,
    WAODE,
    AnDE,
    AODEsr,
    SelectiveKDB,
    SemiNaiveBayes,
)


def weather(n=300, seed=0):
    """Strings with '?' for missing, a float column and a small-integer column."""
    rng = np.random.default_rng(seed)
    outlook = rng.choice(["sunny", "rain", "overcast"], n)
    windy = rng.choice(["yes", "no"], n)
    humidity = rng.normal(70, 12, n).round(1)
    visits = rng.integers(0, 4, n)
    play = np.where(
        (outlook == "overcast") | ((humidity < 70) & (windy == "no")), "yes", "no"
    ).astype(object)
    flip = rng.random(n) < 0.1
    play[flip] = np.where(play[flip] == "yes", "no", "yes")
    outlook = outlook.astype(object)
    outlook[rng.random(n) < 0.1] = "?"
    frame = pd.DataFrame(
        {"outlook": outlook, "windy": windy, "humidity": humidity, "visits": visits}
    )
    frame.loc[rng.random(n) < 0.05, "humidity"] = np.nan
    return frame, play.astype(str)


def test_table_model_equals_the_estimator_on_hand_made_codes():
    frame, y = weather()
    table = SemiNaiveBayes("aode", missing_values="?", missing="skip").fit(frame, y)
    assert [s.family for s in table.schema_] == ["categorical", "categorical", "mdl", "categorical"]
    # the same codes by hand: categories in order of appearance, humidity by MDL cut points
    # found from its sketch, '?' and NaN missing
    classes, cls = np.unique(y, return_inverse=True)
    sketch = ValueSketches(len(classes), 1)
    humidity = frame["humidity"].to_numpy()
    present = ~np.isnan(humidity)
    sketch.accumulate(humidity[:, None], cls, np.ones(len(y)))
    cuts = cut_points(sketch.features[0], "mdl", 10)
    assert len(cuts) >= 1
    np.testing.assert_array_equal(table.cut_points_["humidity"], cuts)

    def codes(column):
        values = list(dict.fromkeys(v for v in column if v != "?"))
        return np.array([values.index(v) if v != "?" else np.nan for v in column], dtype=float)

    X = np.column_stack(
        [
            codes(frame["outlook"]),
            codes(frame["windy"]),
            interval_of(humidity, cuts),
            codes(frame["visits"].tolist()),
        ]
    )
    assert np.isnan(X[:, 2]).sum() == (~present).sum()
    by_hand = AODE().fit(X, y)
    np.testing.assert_allclose(table.predict_proba(frame), by_hand.predict_proba(X), rtol=1e-12)
    np.testing.assert_array_equal(table.predict(frame), by_hand.predict(X))


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow", "dict"])
def test_every_table_type_gives_the_same_model(kind):
    frame, y = weather()
    expected = SemiNaiveBayes("tan", missing_values="?").fit(frame, y).predict_proba(frame)
    converted = {
        "pandas": frame,
        "polars": pl.from_pandas(frame),
        "arrow": pa.Table.from_pandas(frame),
        "dict": {c: frame[c].tolist() for c in frame.columns},
    }[kind]
    model = SemiNaiveBayes("tan", missing_values="?").fit(converted, y)
    np.testing.assert_allclose(model.predict_proba(converted), expected, rtol=1e-12)


def test_target_column_priors_loss_and_score():
    frame, y = weather()
    frame = frame.assign(play=y)
    model = SemiNaiveBayes(KDB(2), missing_values="?").fit(frame, target="play")
    assert model.model_.k == 2 and list(model.classes_) == ["no", "yes"]
    proba = model.predict_proba(frame.drop(columns="play"), priors=[0.9, 0.1])
    assert proba.shape == (len(y), 2) and np.allclose(proba.sum(axis=1), 1)
    risky = model.predict(frame, loss=[[0, 50], [1, 0]])
    assert (risky == "yes").sum() >= (model.predict(frame) == "yes").sum()
    assert 0.7 < model.score(frame, target="play") <= 1.0


def test_families_choose_the_discretisation_and_refuse_densities():
    frame, y = weather()
    model = SemiNaiveBayes(
        "hnb", families={"humidity": "equal-width", "visits": "mdl"}, bins=4, missing_values="?"
    ).fit(frame, y)
    assert len(model.cut_points_["humidity"]) == 3
    assert "visits" in model.cut_points_
    with pytest.raises(ValueError, match=r"'humidity' has family 'gaussian'.*discrete"):
        SemiNaiveBayes(families={"humidity": "gaussian"}).fit(frame, y)
    with pytest.raises(ValueError, match="continuous must be one of"):
        SemiNaiveBayes(continuous="kde").fit(frame, y)
    with pytest.raises(ValueError, match="model must be one of"):
        SemiNaiveBayes("forest").fit(frame, y)


def test_a_column_entirely_missing_in_a_table_is_refused_by_name():
    frame, y = weather()
    frame["empty"] = np.nan
    with pytest.raises(ValueError, match="'empty' is entirely missing"):
        SemiNaiveBayes().fit(frame, y)


def test_unseen_values_are_missing_with_a_warning_naming_the_column():
    frame, y = weather()
    # skipped as a missing value is (with missing="category" a missing value is a value)
    model = SemiNaiveBayes(missing_values="?", missing="skip").fit(frame, y)
    new = frame.head(3).copy()
    new["outlook"] = ["snow", "sunny", "snow"]
    # in the table's words, as NaiveBayes says it: values and columns, not category codes
    with pytest.warns(
        nbayes.UnseenCategoryWarning, match=r"values not seen .* per column: 'outlook': 2\."
    ):
        got = model.predict_proba(new)
    missing = frame.head(3).copy()
    missing["outlook"] = ["?", "sunny", "?"]
    np.testing.assert_allclose(got, model.predict_proba(missing), rtol=1e-12)


def test_structure_as_data_with_names():
    frame, y = weather()
    edges = SemiNaiveBayes("tan", missing_values="?").fit(frame, y).edges()
    assert len(edges) == 3
    assert {e["child"] for e in edges} | {e["parent"] for e in edges} <= set(frame.columns)
    assert all(e["cmi"] >= 0 for e in edges)


# --------------------------------------------------------------------------- model files
CODE_MODELS = [AODE(), WAODE(), AODEsr(), AnDE(2), HNB(), TAN(root=1), KDB(1), KDB(3),
               SelectiveKDB(2, criterion="error")]  # fmt: skip


@pytest.mark.parametrize("model", CODE_MODELS, ids=lambda m: repr(m))
def test_estimator_files_load_and_predict_as_the_fitted_model(model, tmp_path):
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, (200, 5)).astype(float)
    X[:, 1] = (X[:, 0] + rng.integers(0, 2, 200)) % 4
    X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.choice(["a", "b", "c"], 200)
    model.fit(X, y)
    path = nbayes.save(model, tmp_path / "model.nbm")
    loaded = nbayes.load(path)
    assert type(loaded) is type(model) and loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    if hasattr(model, "edges"):
        assert loaded.edges() == model.edges()
    if isinstance(model, SelectiveKDB):
        assert (loaded.n_attributes_, loaded.k_) == (model.n_attributes_, model.k_)


def test_table_model_files_keep_vocabularies_cut_points_and_markers(tmp_path):
    frame, y = weather()
    model = SemiNaiveBayes(SelectiveKDB(2), missing_values="?").fit(frame, y)
    loaded = nbayes.load(nbayes.save(model, tmp_path / "table.nbm"))
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))
    assert loaded.missing_markers_ == ["?"]
    np.testing.assert_array_equal(loaded.cut_points_["humidity"], model.cut_points_["humidity"])
    assert isinstance(loaded.model_, SelectiveKDB)


@pytest.mark.parametrize(
    "model",
    [
        SemiNaiveBayes("tan", alpha=0.01, discriminative=False, missing_values="?"),
        SemiNaiveBayes(TAN(root=0), max_memory="2GiB", missing_values="?"),
        SemiNaiveBayes("kdb", loss=[[0, 2], [1, 0]], class_prior=[0.3, 0.7]),
        SemiNaiveBayes(missing_values="?"),
    ],
    ids=["name-and-alpha", "estimator-and-budget", "loss-and-prior", "default"],
)
def test_a_loaded_table_model_has_the_parameters_it_was_given(model, tmp_path):
    """The ``model`` parameter comes back as given (a name, or the estimator with its own
    settings), not as the fitted structure with the table's overrides folded in: a loaded model
    refits as the original would."""
    frame, y = weather()
    model.fit(frame, y)
    loaded = nbayes.load(nbayes.save(model, tmp_path / "table.nbm"))
    assert repr(loaded) == repr(model)
    assert repr(loaded.model) == repr(model.model)
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))
    # clearing a table-level override refits as the original model would
    for m in (model, loaded):
        m.set_params(alpha=None, loss=None, class_prior=None, max_memory=None).fit(frame, y)
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))


def test_a_forged_model_parameter_is_refused():
    from forging import forge, parts

    from nbayes import persist
    from nbayes._json import to_json

    frame, y = weather()
    meta, arrays = parts(SemiNaiveBayes("tan", discriminative=False).fit(frame, y))
    assert persist.loads(forge(meta, arrays)).model == "tan"
    meta["model_param"] = {"class": "TAN", "params": to_json(TAN(root=1).get_params())}
    assert repr(persist.loads(forge(meta, arrays)).model) == "TAN(root=1)"
    for forged, message in [
        ("forest", "model must be one of"),
        ({"class": "Forest", "params": {}}, "names no semi-naive structure"),
        ({"class": "TAN", "params": to_json({"colour": 1})}, "settings are not TAN's"),
    ]:
        meta["model_param"] = forged
        with pytest.raises(ValueError, match=message):
            persist.loads(forge(meta, arrays))


def test_a_damaged_semi_naive_file_is_refused(tmp_path):
    from nbayes import persist

    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    meta, arrays = TAN().fit(X, [0, 1, 1, 0])._to_state()
    arrays["stats.pairs"] = arrays["stats.pairs"][:-1]
    with pytest.raises(ValueError, match="pairs has shape"):
        TAN._from_state(meta, arrays)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        payload = persist.dumps(KDB(1).fit(X, [0, 1, 1, 0]))
    with pytest.raises(nbayes.ModelFileError, match="damaged"):
        persist.loads(payload[:-40] + b"x" * 40)


# --------------------------------------------------------------------------- explanation
def test_network_explanation_multiplies_to_the_likelihood():
    frame, y = weather()
    model = SemiNaiveBayes(KDB(2), missing_values="?").fit(frame, y)
    row = frame.iloc[4]
    explanation = model.explain(row)
    total = sum(line["log_p"] for line in explanation.lines)
    jll = model.predict_joint_log_proba(frame.iloc[[4]])[0]
    np.testing.assert_allclose(total + np.log(explanation.prior), jll, rtol=1e-12)
    np.testing.assert_allclose(explanation.posterior, model.predict_proba(frame.iloc[[4]])[0])
    used = {line["attribute"]: line["parents"] for line in explanation.lines}
    parents = model.model_.structure_.parents
    names = list(frame.columns)
    for j, name in enumerate(names):
        assert [p.split(" = ")[0] for p in used[name]] == [names[p] for p in parents[j]][
            : len(used[name])
        ]
    text = str(explanation)
    assert "P(c | x)" in text and f"decision: {explanation.decision}" in text
    assert "humidity = (" in text  # an interval, not a code


def test_averaged_explanation_shares_sum_to_one_and_follow_the_terms():
    frame, y = weather()
    model = SemiNaiveBayes("waode", missing_values="?", missing="skip").fit(frame, y)
    explanation = model.explain({c: frame[c].iloc[7] for c in frame.columns})
    shares = np.array([line["share"] for line in explanation.lines])
    np.testing.assert_allclose(shares.sum(axis=0), 1.0)
    names = list(frame.columns)
    for line in explanation.lines:  # the row's observed attributes, with their I(X; C)
        j = names.index(line["attribute"])
        assert line["weight"] == pytest.approx(model.model_.parent_weights_[j])
    observed = [c for c in names if not pd.isna(frame[c].iloc[7]) and frame[c].iloc[7] != "?"]
    assert [line["attribute"] for line in explanation.lines] == observed


def test_summaries_print_the_structure():
    frame, y = weather()
    text = SemiNaiveBayes("tan", missing_values="?").fit(frame, y).summary()
    assert (
        "TAN:" in text and "structure (parent -> child" in text and "cut points of humidity" in text
    )
    text = str(SemiNaiveBayes(SelectiveKDB(2), missing_values="?").fit(frame, y))
    assert "selected by leave-one-out log-loss, the fewest parents within one standard" in text


# --------------------------------------------------------------------------- streaming
def test_fit_passes_over_batches_equals_fit():
    frame, y = weather()
    table = pl.from_pandas(frame.assign(play=y))
    whole = SemiNaiveBayes(KDB(2), missing_values="?").fit(table, target="play")
    model = SemiNaiveBayes(KDB(2), missing_values="?")
    assert model.passes == 3
    streamed = model.fit_passes(lambda: table.iter_slices(70), target="play")
    np.testing.assert_allclose(
        streamed.predict_proba(table), whole.predict_proba(table), rtol=1e-12
    )
    np.testing.assert_array_equal(streamed.cut_points_["humidity"], whole.cut_points_["humidity"])


def test_fit_passes_takes_a_list_and_refuses_a_source_that_changes(monkeypatch):
    frame, y = weather()
    table = pl.from_pandas(frame.assign(play=y))
    whole = SemiNaiveBayes(KDB(2), missing_values="?").fit(table, target="play")
    batches = list(table.iter_slices(70))
    streamed = SemiNaiveBayes(KDB(2), missing_values="?").fit_passes(batches, target="play")
    np.testing.assert_allclose(
        streamed.predict_proba(table), whole.predict_proba(table), rtol=1e-12
    )
    reads = []

    def shrinking():  # every batch on the first read, the first one only afterwards
        reads.append(1)
        return batches if len(reads) == 1 else batches[:1]

    # the source is read once and spilled; where the spill cannot be written (no room), every
    # pass reads the source again, which must give the same rows
    monkeypatch.setattr(np, "save", _no_room)
    message = f"gave {table.height:,} labelled rows on its first read and 70 on read 2"
    with pytest.raises(ValueError, match=message):
        SemiNaiveBayes(KDB(2), missing_values="?").fit_passes(shrinking, target="play")
    with pytest.raises(TypeError, match=r"read its source again.*not a generator"):
        SemiNaiveBayes().fit_passes((b for b in batches), target="play")


def _no_room(*args, **kwargs):
    raise OSError(28, "No space left on device")


def test_partial_fit_over_categorical_columns_equals_fit_and_refuses_numbers():
    frame, y = weather()
    categorical = frame.drop(columns="humidity")
    options = {"missing_values": "?", "discriminative": False, "missing": "skip"}
    whole = SemiNaiveBayes("aode", **options).fit(categorical, y)
    streamed = SemiNaiveBayes("aode", **options)
    for start in range(0, len(y), 90):
        part = slice(start, start + 90)
        streamed.partial_fit(categorical.iloc[part], y[part])
    np.testing.assert_allclose(
        streamed.predict_proba(categorical), whole.predict_proba(categorical), rtol=1e-12
    )
    with pytest.raises(ValueError, match=r"partial_fit cannot cut numeric columns.*'humidity'"):
        SemiNaiveBayes("aode", discriminative=False, missing="skip").partial_fit(frame, y)
    with pytest.raises(AttributeError, match="discriminative=False"):
        SemiNaiveBayes("aode").partial_fit(categorical, y)
    with pytest.raises(AttributeError, match="missing='skip'"):
        SemiNaiveBayes("aode", discriminative=False).partial_fit(categorical, y)
    with pytest.raises(AttributeError, match="passes"):
        SemiNaiveBayes("skdb").partial_fit(categorical, y)


def identifier_and_text_table(n: int = 300, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    words = np.array("the cat sat on a mat with red blue green dog ran far away".split())
    a = rng.choice(["x", "y"], n)
    return pl.DataFrame(
        {
            "id": [f"id-{i:05d}" for i in range(n)],
            "note": [" ".join(rng.choice(words, 6)) for _ in range(n)],
            "a": a,
            "b": np.where(rng.random(n) < 0.8, a, "z"),
            "x": rng.normal(size=n),
            "cls": np.where(rng.random(n) < 0.85, a, "w"),
        }
    )


@pytest.mark.parametrize(
    "model", ["aode", "waode", "aodesr", "a2de", "hnb", "tan", "kdb", "skdb", "eskdb"]
)
def test_identifiers_are_left_out_and_free_text_is_a_bag_of_words(model, tmp_path):
    """As NaiveBayes reads them: the identifier is left out, the free text is naive Bayes's
    "text" family beside the structure, so log P(c, x) = the structure's joint over the other
    columns + log P(note | c) of a NaiveBayes of the text alone."""
    table = identifier_and_text_table()
    with pytest.warns(UserWarning) as caught:
        fitted = SemiNaiveBayes(model, discriminative=False).fit(table, target="cls")
    messages = [str(w.message) for w in caught]
    assert any("'id'" in m and "identifier" in m for m in messages)
    assert any("'note'" in m and "bag of words (family 'text')" in m for m in messages)
    assert fitted.ignored_ == ["id"] and fitted.text_columns_ == ["note"]
    assert [s.name for s in fitted.schema_] == ["a", "b", "x"]
    # scikit-learn's feature_names_in_, as NaiveBayes gives it: every column fitted on
    columns = ["id", "note", "a", "b", "x"]
    assert list(fitted.feature_names_in_) == columns and fitted.n_features_in_ == 5
    naive = nbayes.NaiveBayes(calibration=None).fit(table, target="cls")
    assert list(naive.feature_names_in_) == columns and naive.n_features_in_ == 5
    assert fitted.families_ == {"id": "ignore", "note": "text", "a": "categorical",
                                "b": "categorical", "x": "mdl"}  # fmt: skip
    plain = SemiNaiveBayes(model, discriminative=False)
    plain.fit(table.drop("id", "note"), target="cls")
    words = nbayes.NaiveBayes(families={"note": "text"}, calibration=None)
    words.fit(table.select("note", "cls"), target="cls")
    log_prior = np.log(words.class_count_ / words.class_count_.sum())
    expected = (
        plain.predict_joint_log_proba(table)
        + words.predict_joint_log_proba(table.select("note"))
        - log_prior
    )
    features = table.drop("id", "cls")  # the identifier is not needed to predict
    np.testing.assert_allclose(fitted.predict_joint_log_proba(features), expected, rtol=1e-12)
    posterior = np.exp(expected - np.logaddexp.reduce(expected, axis=1, keepdims=True))
    np.testing.assert_allclose(fitted.predict_proba(features), posterior, rtol=1e-9, atol=1e-12)
    assert list(fitted.tables()) == ["note", "a", "b", "x"]
    path = tmp_path / "m.nbm"
    nbayes.save(fitted, path)
    loaded = nbayes.load(path)
    assert loaded.ignored_ == ["id"] and loaded.text_columns_ == ["note"]
    assert list(loaded.feature_names_in_) == columns and loaded.n_features_in_ == 5
    np.testing.assert_array_equal(loaded.predict_proba(table), fitted.predict_proba(table))


@pytest.mark.parametrize("model", ["aode", "tan"])
@pytest.mark.filterwarnings("ignore:column")
def test_text_columns_merge_and_take_batches(model):
    table = identifier_and_text_table().drop("x")  # categorical columns: one pass
    options = {"discriminative": False, "missing": "skip"}
    whole = SemiNaiveBayes(model, **options).fit(table, target="cls")
    merged = nbayes.merge(
        SemiNaiveBayes(model, **options).fit(table[:130], target="cls"),
        SemiNaiveBayes(model, **options).fit(table[130:], target="cls"),
    )
    np.testing.assert_allclose(merged.predict_proba(table), whole.predict_proba(table), atol=1e-9)
    streamed = SemiNaiveBayes(model, families={"note": "text", "id": "ignore"}, **options)
    for start in range(0, table.height, 70):
        streamed.partial_fit(table[start : start + 70], target="cls")
    np.testing.assert_allclose(
        streamed.predict_proba(table), whole.predict_proba(table), atol=1e-9
    )
    explanation = whole.explain(table.row(0, named=True))
    assert explanation.posterior == pytest.approx(whole.predict_proba(table[:1])[0])
    assert any(term.startswith("note=") for term, _ in explanation.contributions)


def test_a_table_of_identifiers_only_is_refused_in_one_sentence():
    table = identifier_and_text_table().select("id", "cls")
    with pytest.raises(ValueError, match=r"no column is left for the structure: \['id'\]"):
        with pytest.warns(UserWarning):
            SemiNaiveBayes().fit(table, target="cls")


def test_messages_name_the_model_and_the_python_parameter(tmp_path):
    frame, _ = weather()
    with pytest.raises(ValueError, match=r"^SemiNaiveBayes needs the class labels"):
        SemiNaiveBayes().fit(frame)
    labelled = frame.assign(label=["p", "q"] * (len(frame) // 2) + ["p"] * (len(frame) % 2))
    for model in (nbayes.NaiveBayes, SemiNaiveBayes):
        with pytest.raises(ValueError, match=r"families names the target column 'label'"):
            model(families={"label": "categorical"}).fit(labelled, target="label")
    # the readers serve Python too: their advice names the parameter beside the CLI option
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n1,2\n3,4,5\n")
    with pytest.raises(ValueError, match=r"--skip-bad-rows \(skip_bad_rows=True in Python\)"):
        nbayes.read_table(path)


def test_a_loss_of_the_wrong_shape_at_fit_and_infinity_at_prediction_are_refused():
    frame, y = weather()
    for model in (nbayes.NaiveBayes, SemiNaiveBayes):
        # the shape is known once the classes are: fit says so, not the first prediction
        with pytest.raises(ValueError, match=r"loss must have shape .*got shape \(2, 3\)"):
            model(loss=[[0, 1, 2], [1, 0, 1]], missing_values="?").fit(frame, y)
    fitted = SemiNaiveBayes(missing_values="?").fit(frame, y)
    infinite = frame.iloc[:3].assign(humidity=[1.0, np.inf, 2.0])
    with pytest.raises(ValueError, match=r"column 'humidity' has the value inf at row 1"):
        fitted.predict_proba(infinite)


@pytest.mark.parametrize("model", [nbayes.NaiveBayes, SemiNaiveBayes])
def test_a_near_miss_of_a_missing_marker_is_pointed_out_in_python(model):
    # UCI files read with pandas keep the space before '?': a value unless the user says so
    frame = pd.DataFrame({"a": ["x", " ?", "y", "?"] * 10, "label": ["p", "q"] * 20})
    with pytest.warns(UserWarning, match=r"column 'a' holds ' \?' \(10 times, first at row 1\).*"
                      r"not the missing-value marker '\?' but nearly") as caught:  # fmt: skip
        model(missing_values="?").fit(frame, target="label")
    assert caught[0].filename == __file__  # at the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no marker given, or none nearly matched: no word
        model().fit(frame, target="label")
        model(missing_values=["?", " ?"]).fit(frame, target="label")
