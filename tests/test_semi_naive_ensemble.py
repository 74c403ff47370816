"""The ensemble of selective k-DBs (nbayes.semi_naive.ensemble): what its members are, that it
averages them, that it is the same model whatever the batches, order or file round trip, and
that it refuses what it cannot do in one sentence."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbayes
from nbayes.semi_naive import MemoryBudgetError, SelectiveKDB, SelectiveKDBEnsemble
from nbayes.semi_naive.information import conditional_mutual_information, mutual_information
from nbayes.semi_naive.structure import sampled_order, without_round_off


def dependent_codes(seed=0, n=400, d=6):
    """Codes whose class depends on pairs of attributes, with missing values: members differ."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, d)).astype(float)
    concept = (X[:, 0] + X[:, 1] + (X[:, 2] > 0)) % 3
    y = np.where(rng.random(n) < 0.8, concept, rng.integers(0, 3, n))
    X[:, 3] = np.where(rng.random(n) < 0.7, y, X[:, 3])  # a strong single attribute
    X[rng.random((n, d)) < 0.05] = np.nan
    return X, y


def test_the_first_draw_follows_the_mutual_informations():
    # Gumbel-top-k: the first attribute is j with probability I_j / Σ I; those of zero
    # information come last, in index order
    mi = np.array([0.6, 0.0, 0.3, 0.1, 0.0])
    firsts = np.array([sampled_order(mi, m, np.array([3, 3, 3, 3, 3]))[0] for m in range(1, 4001)])
    shares = np.bincount(firsts, minlength=5) / firsts.size
    np.testing.assert_allclose(shares, mi / mi.sum(), atol=0.03)
    for m in range(1, 50):
        order = sampled_order(mi, m, np.array([3, 3, 3, 3, 3]))
        assert sorted(order) == list(range(5)) and list(order[-2:]) == [1, 4]
    # deterministic: the same member and values draw the same order
    again = sampled_order(mi, 7, np.array([3, 3, 3, 3, 3]))
    np.testing.assert_array_equal(again, sampled_order(mi, 7, np.array([3, 3, 3, 3, 3])))


def test_members_are_selective_kdbs_whose_parents_follow_their_own_ranking():
    X, y = dependent_codes()
    ensemble = SelectiveKDBEnsemble(4, k=2).fit(X, y)
    members = ensemble.members_
    single = SelectiveKDB(2, smoothing="hierarchical").fit(X, y)
    # member 0 is selective k-DB itself
    assert members[0].structure_ == single.structure_
    assert (members[0].n_attributes_, members[0].k_) == (single.n_attributes_, single.k_)
    np.testing.assert_allclose(members[0].predict_proba(X), single.predict_proba(X), rtol=1e-12)
    pairs = ensemble._pairs
    mi = without_round_off(mutual_information(pairs))
    cmi = without_round_off(conditional_mutual_information(pairs))
    orders = set()
    for m, member in enumerate(members):
        structure = member.structure_
        order = list(structure.order)
        orders.add(tuple(order))
        if m:
            assert order == list(sampled_order(mi, m, pairs.n_values))
        for rank, j in enumerate(order):  # the k-DB rule, written out
            earlier = sorted(order[:rank], key=lambda p: (-cmi[j, p], p))
            assert list(structure.parents[j]) == earlier[: min(2, rank)]
    assert len(orders) > 1  # the members differ


def test_the_posterior_is_the_mean_of_the_members_posteriors():
    X, y = dependent_codes(1)
    ensemble = SelectiveKDBEnsemble(3, k=2).fit(X, y)
    mean = np.mean([member.predict_proba(X) for member in ensemble.members_], axis=0)
    np.testing.assert_allclose(ensemble.predict_proba(X), mean, rtol=1e-10, atol=1e-14)
    # priors per call shift the ensemble's posterior by π_c / P̂(c)
    priors = np.array([0.5, 0.3, 0.2])
    fitted = ensemble.class_count_ / ensemble.class_count_.sum()  # P̂(c): the class shares
    shifted = mean * priors / fitted
    shifted /= shifted.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(ensemble.predict_proba(X, priors=priors), shifted, rtol=1e-10)


def test_one_member_is_selective_kdb():
    X, y = dependent_codes(2)
    one = SelectiveKDBEnsemble(1, k=2, smoothing="lidstone").fit(X, y)
    single = SelectiveKDB(2).fit(X, y)
    np.testing.assert_allclose(one.predict_proba(X), single.predict_proba(X), rtol=1e-12)
    priors = [0.2, 0.2, 0.6]
    np.testing.assert_allclose(
        one.predict_proba(X, priors=priors), single.predict_proba(X, priors=priors), rtol=1e-12
    )


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**16), cuts=st.lists(st.integers(1, 119), max_size=4))
def test_any_batches_and_row_order_give_the_same_ensemble(seed, cuts):
    rng = np.random.default_rng(seed)
    X, y = dependent_codes(seed % 7, n=120, d=5)
    w = rng.uniform(0.5, 2.0, 120)
    whole = SelectiveKDBEnsemble(3, k=2).fit(X, y, sample_weight=w)
    order = rng.permutation(120)
    bounds = [0, *sorted(set(cuts)), 120]
    batches = [order[a:b] for a, b in itertools.pairwise(bounds)]
    passes = SelectiveKDBEnsemble(3, k=2).fit_passes(lambda: [(X[b], y[b], w[b]) for b in batches])
    assert passes.selections_ == whole.selections_
    np.testing.assert_allclose(passes.leave_one_out_losses_, whole.leave_one_out_losses_)
    np.testing.assert_allclose(passes.predict_proba(X), whole.predict_proba(X), rtol=1e-9)


def test_merge_and_partial_fit_are_refused_in_one_sentence():
    X, y = dependent_codes(3, n=100)
    assert not hasattr(SelectiveKDBEnsemble(), "partial_fit")
    with pytest.raises(AttributeError, match=r"3 passes.*fit_passes"):
        SelectiveKDBEnsemble().partial_fit(X, y, classes=[0, 1, 2])
    a = SelectiveKDBEnsemble(2, k=1).fit(X[:50], y[:50])
    b = SelectiveKDBEnsemble(2, k=1).fit(X[50:], y[50:])
    with pytest.raises(ValueError, match=r"cannot be merged exactly.*fit_passes"):
        nbayes.merge(a, b)


def test_the_file_round_trip_keeps_the_members(tmp_path):
    X, y = dependent_codes(4)
    model = SelectiveKDBEnsemble(3, k=2).fit(X, y)
    loaded = nbayes.load(nbayes.save(model, tmp_path / "e.nbm"))
    assert loaded.selections_ == model.selections_
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert "member 2:" in str(loaded)
    edges = loaded.edges()
    assert {e["member"] for e in edges} == {0, 1, 2}
    assert [e for e in edges if e["member"] == 1] == [
        {"member": 1, **e} for e in loaded.members_[1].edges()
    ]


def test_the_members_memory_is_checked_together_before_counting():
    X, y = dependent_codes(5, n=60, d=8)
    one = SelectiveKDB(3).fit(X, y)
    budget = one._stats.parents.bytes_needed() * 2  # room for two members' counts, not five
    with pytest.raises(MemoryBudgetError, match=r"5 ensemble members.*members="):
        SelectiveKDBEnsemble(5, k=3, max_memory=budget).fit(X, y)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "5"])
def test_members_must_be_a_positive_integer(bad):
    X, y = dependent_codes(6, n=30)
    with pytest.raises(ValueError, match="members must be an integer >= 1"):
        SelectiveKDBEnsemble(bad).fit(X, y)


def test_a_table_model_of_the_ensemble_fits_shuffled_rows_to_the_same_probabilities():
    rng = np.random.default_rng(8)
    n = 600
    a = rng.choice(["p", "q", "r"], n)
    b = rng.choice(["u", "v"], n)
    x = rng.normal(0, 1, n).round(3)
    cls = np.where((a == "p") ^ (b == "u") ^ (x > 0.3), "yes", "no")
    cls = np.where(rng.random(n) < 0.1, "no", cls)
    table = pl.DataFrame({"a": a, "b": b, "x": x, "cls": cls})
    model = nbayes.SemiNaiveBayes("eskdb").fit(table, target="cls")
    order = rng.permutation(n)
    shuffled = nbayes.SemiNaiveBayes("eskdb").fit(table[order], target="cls")
    features = table.drop("cls")
    np.testing.assert_allclose(
        shuffled.predict_proba(features), model.predict_proba(features), rtol=0, atol=1e-9
    )
    assert isinstance(model.model_, SelectiveKDBEnsemble)
    assert "5 selective k-DB members, averaged" in str(model)


def test_the_average_is_taken_in_logarithms_far_beyond_the_range_of_exp():
    # 300 agreeing attributes: log-odds near −940, where exp underflows; one member keeps
    # selective k-DB's own log-probabilities
    rng = np.random.default_rng(0)
    n, d = 400, 300
    y = rng.integers(0, 2, n)
    X = np.where(rng.random((n, d)) < 0.97, y[:, None], 1 - y[:, None]).astype(float)
    single = SelectiveKDB(1, smoothing="hierarchical").fit(X, y)
    one = SelectiveKDBEnsemble(1, k=1).fit(X, y)
    single.n_attributes_, single.k_ = d, 0  # every attribute kept, as a file may say
    one.selections_ = [(d, 0)]
    expected = single.predict_log_proba(X[:5])
    assert expected.min() < -800
    np.testing.assert_allclose(one.predict_log_proba(X[:5]), expected, rtol=1e-12)


def test_a_class_of_prior_zero_takes_its_evidence_when_priors_are_given():
    X, y = dependent_codes(9, n=200)
    given = [0.5, 0.5, 0.0]
    one = SelectiveKDBEnsemble(1, k=2, smoothing="lidstone", class_prior=given).fit(X, y)
    single = SelectiveKDB(2, class_prior=given).fit(X, y)
    for priors in (None, [1 / 3] * 3):
        np.testing.assert_allclose(
            one.predict_proba(X[:20], priors=priors),
            single.predict_proba(X[:20], priors=priors),
            rtol=1e-10, atol=1e-15,
        )  # fmt: skip


def test_a_member_that_finds_a_row_impossible_leaves_it_to_the_others():
    # with λ = 0 a member may give a row zero likelihood under every class: that member adds
    # its prior, the row stays finite, and the decision is the most probable class
    for seed in range(40):
        rng = np.random.default_rng(seed)
        X = rng.integers(0, 4, (80, 6)).astype(float)
        y = (X[:, 0] + X[:, 1] + X[:, 2]) % 2
        y = np.where(rng.random(80) < 0.9, y, 1 - y).astype(int)
        model = SelectiveKDBEnsemble(3, k=2, alpha=0.0, criterion="error").fit(X, y)
        queries = rng.integers(0, 4, (300, 6)).astype(float)
        with np.errstate(all="ignore"):
            dead = [
                np.isneginf(m.predict_joint_log_proba(queries)).all(axis=1) for m in model.members_
            ]
        if not np.any(dead):
            continue
        proba = model.predict_proba(queries)
        assert np.isfinite(proba).all()
        np.testing.assert_array_equal(model.predict(queries), proba.argmax(axis=1))
        return
    pytest.fail("no member found a row impossible: the test needs another table")


def test_a_file_with_another_number_of_members_is_refused_before_building_them(tmp_path):
    from forging import forge, parts

    X, y = dependent_codes(10, n=60)
    meta, arrays = parts(SelectiveKDBEnsemble(2, k=1).fit(X, y))
    extra = {k.replace("parents1", "parents7"): v for k, v in arrays.items() if "parents1." in k}
    with pytest.raises(nbayes.ModelFileError, match=r"parent counts.*members 0 to 1"):
        nbayes.persist.loads(forge(meta, {**arrays, **extra}))


def test_a_fit_that_stopped_part_way_says_so():
    X, y = dependent_codes(11, n=100)
    model = SelectiveKDBEnsemble(2, k=2).fit(X, y)

    def broken():
        yield X[:50], y[:50]
        if getattr(broken, "read", False):
            raise OSError("the source broke")
        broken.read = True
        yield X[50:], y[50:]

    with pytest.raises(OSError):
        model.fit_passes(broken)
    with pytest.raises(ValueError, match="passes did not all run"):
        model.predict(X)


def test_an_explanation_promises_terms_only_where_it_shows_them():
    X, y = dependent_codes(12, n=120)
    raw = str(SelectiveKDBEnsemble(2, k=1).fit(X, y).explain(X[0]))
    assert raw.splitlines()[0] == "prior and posterior" and "terms below" not in raw
    table = pl.DataFrame({f"a{j}": X[:, j].astype(str) for j in range(X.shape[1])})
    model = nbayes.SemiNaiveBayes("eskdb").fit(table, y)
    shown = str(model.explain(table[:1]))
    assert "the terms below say what each attribute did" in shown
    assert "with each attribute minus without it (left out of the evidence)" in shown
