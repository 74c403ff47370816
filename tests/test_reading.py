"""nbayes.read_table reads a file as nbayes fit does: the same reader, the same rules."""

from __future__ import annotations

import gzip

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import nbayes
from nbayes.readers import DataError

PUBLISHED = (
    "39, State-gov, 77516, <=50K\n"
    "50, ?, 83311, >50K\n"
    "38, Private, ?, <=50K\n"
)


def test_a_file_as_uci_publishes_it_reads_as_the_cli_reads_it(tmp_path):
    path = tmp_path / "adult.data"
    path.write_text(PUBLISHED)
    frame = nbayes.read_table(path, header=False, missing="?")
    expected = pl.DataFrame(
        {
            "1": [39, 50, 38],
            "2": ["State-gov", None, "Private"],
            "3": [77516, 83311, None],
            "4": ["<=50K", ">50K", "<=50K"],
        }
    )
    assert_frame_equal(frame, expected)
    # compressed, with names: the same rows
    packed = tmp_path / "adult.csv.gz"
    packed.write_bytes(gzip.compress(PUBLISHED.encode()))
    named = nbayes.read_table(
        packed, header=False, names=["age", "work", "weight", "income"], missing=["?"]
    )
    assert named.columns == ["age", "work", "weight", "income"]
    renamed = dict(zip(expected.columns, named.columns, strict=True))
    assert_frame_equal(named, expected.rename(renamed))


def test_the_frame_fits_as_the_cli_fits_the_file(tmp_path):
    path = tmp_path / "t.csv"
    rows = ["x,y,label"] + [f"{i % 7}, {'a' if i % 3 else 'b'} ,{'p' if i % 4 else 'q'}"
                            for i in range(60)]  # fmt: skip
    path.write_text("\n".join(rows) + "\n")
    frame = nbayes.read_table(path)
    assert frame["y"].unique().sort().to_list() == ["a", "b"]
    from nbayes.cli import main

    out = tmp_path / "m.nbm"
    assert main(["fit", str(path), "--target", "label", "--calibration", "none",
                 "-o", str(out)]) == 0  # fmt: skip
    cli_model = nbayes.load(out)
    python_model = nbayes.NaiveBayes(calibration=None).fit(frame, target="label")
    features = frame.drop("label")
    assert (cli_model.predict_proba(features) == python_model.predict_proba(features)).all()


def test_a_bad_row_is_named_by_its_line_or_skipped(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n1,2\n3,4,5\n6,7\n")
    with pytest.raises(DataError, match="line 3"):
        nbayes.read_table(path)
    with pytest.warns(UserWarning, match=r"1 bad row skipped \(line 3\)\.$"):  # not silent
        assert nbayes.read_table(path, skip_bad_rows=True).height == 2


@pytest.mark.parametrize("kind", ["fields", "type", "json"])
def test_the_rows_skipped_are_named_by_their_lines_the_first_ten(tmp_path, kind):
    """Whatever made a row unreadable (its fields, a value not fitting its column's type, a
    JSON line that is not an object), the reader counts every row it drops and keeps the lines
    of the first ten: the lines written bad here, counted from 1 with the header."""
    from nbayes.readers import TableReader

    good, bad = ("1,2", "3") if kind == "fields" else ("1,2", "x,2")
    if kind == "json":
        good, bad = '{"a": 1, "b": 2}', "[1, 2]"
    rows = ["a,b"] if kind != "json" else []
    # the type misfit must come after the rows the column's type is inferred from
    rows += [good] * (20_001 if kind == "type" else 3)
    expected = []
    for _ in range(25):
        rows += [bad, good]
        expected.append(len(rows) - 1)  # the bad row's line, from 1
    path = tmp_path / ("t.jsonl" if kind == "json" else "t.csv")
    path.write_text("\n".join(rows) + "\n")
    reader = TableReader(path, skip_bad_rows=True)
    kept = sum(batch.frame.height for batch in reader)
    assert reader.bad_rows == 25 and kept == len(rows) - 25 - (kind != "json")
    assert reader.bad_lines == expected[:10]


def test_the_lines_named_are_the_first_whatever_the_causes_order(tmp_path):
    """Within a block, rows are dropped cause by cause (their fields first, their values'
    types after): a type misfit on an earlier line than ten rows of the wrong width is still
    among the lines named, and the lines are named in file order."""
    from nbayes.readers import TableReader

    rows = ["a,b"] + ["1,2"] * 20_001 + ["x,2"] + ["1,2,3"] * 10 + ["1,2"]
    path = tmp_path / "t.csv"
    path.write_text("\n".join(rows) + "\n")
    reader = TableReader(path, skip_bad_rows=True)
    assert sum(batch.frame.height for batch in reader) == 20_002
    misfit = 20_003  # the header's line 1, then 20,001 good rows
    assert reader.bad_rows == 11
    assert reader.bad_lines == list(range(misfit, misfit + 10))


def test_max_bytes_stops_the_read_before_the_rows_pass_it(tmp_path):
    from nbayes.readers import RowsOverBound

    path = tmp_path / "big.csv"
    path.write_text("a,b\n" + "".join(f"{i},row {i}\n" for i in range(50_000)))
    whole = nbayes.read_table(path)
    with pytest.raises(RowsOverBound) as info:
        nbayes.read_table(path, max_bytes=whole.estimated_size() // 4)
    assert info.value.size > info.value.bound == whole.estimated_size() // 4
    assert nbayes.read_table(path, max_bytes=2 * whole.estimated_size()).equals(whole)


def test_an_idx_array_file_is_named_as_such_with_the_way_to_a_table(tmp_path):
    """MNIST's IDX files (a 4-byte magic of two zeros, a type code and the number of
    dimensions, then the sizes) are recognised, gzipped or not, and the error says what the
    file is and how to make a table of it; other binary bytes keep asking for --format."""
    images = bytes([0, 0, 0x08, 3]) + (2).to_bytes(4, "big") + (2).to_bytes(4, "big") * 2
    images += bytes(range(8))
    plain, packed, other = tmp_path / "images", tmp_path / "images.gz", tmp_path / "blob"
    plain.write_bytes(images)
    packed.write_bytes(gzip.compress(images))
    other.write_bytes(b"\x00\x01\x02\x03 not a table")
    assert nbayes.DataError is DataError  # the public name of what a reading error raises
    for path in (plain, packed):
        with pytest.raises(nbayes.DataError, match=r"IDX array file .* one row per image"):
            nbayes.read_table(path)
    with pytest.raises(DataError, match="cannot tell the format from the content"):
        nbayes.read_table(other)


def test_a_path_given_as_a_table_points_to_read_table(tmp_path):
    """A model given a file's path where a table belongs (fit, predict, for either model) is
    told to read it first, not "expected a table (2-D), got an array of shape ()"."""
    path = tmp_path / "car.csv"
    path.write_text("a,b,y\nx,u,p\ny,v,q\nx,v,p\ny,u,q\n")
    frame = nbayes.read_table(path)
    fitted = nbayes.NaiveBayes(calibration=None).fit(frame, target="y")
    calls = [
        lambda: fitted.predict(str(path)),
        lambda: fitted.predict_proba(path),
        lambda: nbayes.NaiveBayes().fit(str(path), target="y"),
        lambda: nbayes.SemiNaiveBayes().fit(path, target="y"),
    ]
    for call in calls:
        with pytest.raises(TypeError, match=r"got a path \('.*car\.csv'\), not a table: .*"
                           r"nbayes\.read_table\(path\)"):  # fmt: skip
            call()


def test_a_json_line_whose_value_does_not_fit_its_type_is_named_or_skipped(tmp_path):
    """A JSON line past the rows the types are inferred from, with a value of another type,
    is an error naming its line, or with skip_bad_rows is dropped (and named), as a CSV row's
    would be; the other lines read as they are."""
    import json

    rows = [{"a": i, "b": f"x{i % 3}"} for i in range(20_005)]
    bad = {20_002: {"a": "abc", "b": "x1"}, 20_004: {"a": 1.5, "b": "x0"}}  # index: line - 1
    lines = [json.dumps(bad.get(k, row)) for k, row in enumerate(rows)]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"line 20,003: a value does not fit its column's type"):
        nbayes.read_table(path)
    with pytest.warns(UserWarning, match=r"2 bad rows skipped \(lines 20003, 20005\)\.$"):
        frame = nbayes.read_table(path, skip_bad_rows=True)
    expected = pl.DataFrame([row for k, row in enumerate(rows) if k not in bad])
    assert_frame_equal(frame, expected)
