"""Chunked readers: every format and compression, any chunk size, located errors."""

from __future__ import annotations

import gzip
import io
import sys
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes.readers import DataError, TableReader, read_all


def sample(n: int = 400) -> pl.DataFrame:
    rng = np.random.default_rng(1)
    return pl.DataFrame(
        {
            "x": rng.normal(size=n),
            "k": rng.integers(0, 5, n),
            "word": rng.choice(["alpha", "beta, with comma", 'say "hi"', "two\nlines"], n).tolist(),
            "y": rng.choice(["a", "b"], n).tolist(),
        }
    )


def write(frame: pl.DataFrame, path: Path, fmt: str, compression: str | None) -> Path:
    buffer = io.BytesIO()
    if fmt == "csv":
        frame.write_csv(buffer)
    elif fmt == "tsv":
        frame.write_csv(buffer, separator="\t")
    elif fmt == "jsonl":
        frame.write_ndjson(buffer)
    else:
        frame.write_parquet(buffer)
    data = buffer.getvalue()
    if compression == "gz":
        data = gzip.compress(data)
    elif compression == "zst":
        data = zstandard.ZstdCompressor().compress(data)
    target = path.with_suffix(f".{fmt}" + (f".{compression}" if compression else ""))
    target.write_bytes(data)
    return target


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "parquet"])
@pytest.mark.parametrize("compression", [None, "gz", "zst"])
@pytest.mark.parametrize("chunk", [1024, 64 * 2**20])
def test_every_format_reads_back_the_same_rows(tmp_path: Path, fmt, compression, chunk):
    if fmt == "parquet" and compression:
        pytest.skip("Parquet compresses inside the file")
    frame = sample()
    path = write(frame, tmp_path / "data", fmt, compression)
    reader = TableReader(path, chunk_bytes=chunk)
    batches = list(reader)
    if chunk == 1024 and fmt != "parquet":
        assert len(batches) > 3
    got = pl.concat([b.frame for b in batches])
    assert got.columns == frame.columns
    assert got.equals(frame.select(got.columns))
    assert reader.rows == frame.height
    assert [b.first_row for b in batches] == list(
        np.cumsum([0] + [b.frame.height for b in batches[:-1]])
    )


def test_standard_input_streams(monkeypatch):
    frame = sample()
    data = io.BytesIO()
    frame.write_csv(data)

    class Stdin:
        buffer = io.BytesIO(data.getvalue())

    monkeypatch.setattr(sys, "stdin", Stdin)
    got = read_all(TableReader("-", chunk_bytes=2048))
    assert got.equals(frame)


@pytest.mark.parametrize("compress", [gzip.compress, zstandard.ZstdCompressor().compress])
def test_compressed_data_is_known_by_its_first_bytes(tmp_path: Path, monkeypatch, compress):
    # named without .gz / .zst, or piped in: the magic number says it is compressed
    frame = sample()
    data = io.BytesIO()
    frame.write_csv(data)
    packed = compress(data.getvalue())
    path = tmp_path / "data.csv"
    path.write_bytes(packed)
    unnamed = tmp_path / "data"
    unnamed.write_bytes(packed)
    for source in (path, unnamed):
        assert read_all(TableReader(source, chunk_bytes=2048)).equals(frame)

    class Stdin:
        buffer = io.BufferedReader(io.BytesIO(packed))  # a pipe's buffer: it can peek

    monkeypatch.setattr(sys, "stdin", Stdin)
    assert read_all(TableReader("-", chunk_bytes=2048)).equals(frame)


def test_line_numbers_of_bad_rows(tmp_path: Path):
    path = tmp_path / "bad.csv"
    path.write_text('a,b,c\n1,2,x\n3,4,"quoted\nnewline"\n5,6,z,extra\n7,8\n\n9,10,w\n')
    with pytest.raises(
        DataError, match=r"bad.csv: line 5: this row has 4 fields but the header has 3"
    ):
        list(TableReader(path))
    reader = TableReader(path, skip_bad_rows=True)
    got = read_all(reader)
    assert reader.bad_rows == 2
    assert got.get_column("a").to_list() == [1, 3, 9]
    assert got.get_column("c").to_list() == ["x", "quoted\nnewline", "w"]


def test_too_few_fields_found_in_a_long_clean_file(tmp_path: Path):
    lines = ["a,b,c"] + [f"{i},{i * 2},v{i % 7}" for i in range(5000)]
    lines[3001] = "3000,6000"  # line 3002 of the file lacks a field
    path = tmp_path / "long.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match="line 3,002: this row has 2 fields"):
        list(TableReader(path, chunk_bytes=4096))


def test_value_not_fitting_the_inferred_type_names_line_and_column(tmp_path: Path):
    rows = [f"{i},{i % 3}" for i in range(30000)] + ["30000,oops"]
    path = tmp_path / "types.csv"
    path.write_text("n,code\n" + "\n".join(rows) + "\n")
    with pytest.raises(DataError, match=r"line 30,002: column 'code': the value 'oops'"):
        list(TableReader(path, chunk_bytes=64 * 1024))


def test_non_utf8_bytes_are_replaced_with_a_warning(tmp_path: Path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"name,y\ncaf\xe9,a\nplain,b\n")
    with pytest.warns(UserWarning, match="not UTF-8.*line 2"):
        got = read_all(TableReader(path))
    assert got.get_column("name").to_list() == ["caf\ufffd", "plain"]


def test_empty_and_header_only_files(tmp_path: Path):
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    with pytest.raises(DataError, match="empty"):
        list(TableReader(empty))
    header = tmp_path / "header.csv"
    header.write_text("a,b\n")
    reader = TableReader(header)
    assert list(reader) == []
    assert reader.columns == ["a", "b"]


def test_missing_markers_and_crlf(tmp_path: Path):
    path = tmp_path / "crlf.csv"
    path.write_bytes(b"x,k\r\n1.5,?\r\n?,b\r\n")
    got = read_all(TableReader(path, missing=["?"]))
    assert got.get_column("x").to_list() == [1.5, None]
    assert got.get_column("k").to_list() == [None, "b"]


def test_unknown_format_and_duplicate_header(tmp_path: Path):
    weird = tmp_path / "data.weird"  # the name says nothing, and the content is not text
    weird.write_bytes(b"\x00\x01\x02binary")
    with pytest.raises(DataError, match="--format"):
        TableReader(weird)
    with pytest.raises(DataError, match="cannot open"):
        TableReader(tmp_path / "absent.data")
    path = tmp_path / "dup.csv"
    path.write_text("a,a\n1,2\n")
    with pytest.raises(DataError, match="duplicate column names"):
        list(TableReader(path))


def test_quick_reading_gives_the_careful_rows(tmp_path: Path):
    frame = sample(3000)
    path = write(frame, tmp_path / "data", "csv", None)
    quick = TableReader(path, quick=True, chunk_bytes=8192)
    assert quick.quick
    batches = list(quick)
    assert len(batches) >= 3 and all(b.first_line is None for b in batches)
    assert pl.concat([b.frame for b in batches]).equals(read_all(TableReader(path)))
    assert quick.columns == frame.columns and quick.rows == 3000
    # stdin, --skip-bad-rows and non-CSV formats always read carefully
    assert not TableReader(path, quick=True, skip_bad_rows=True).quick
    assert not TableReader(write(frame, tmp_path / "data", "jsonl", None), quick=True).quick


@pytest.mark.parametrize(
    "content",
    [
        b"a,b,c\n1,2,x\n3,4\n5,6,z\n",  # a row lacking a field
        b"a,b,c\n1,2,x\n3,4,y,extra\n",  # a row with one too many
        b"a,b\n1,caf\xe9\n2,ok\n",  # not UTF-8
        b"",  # empty
    ],
)
def test_quick_reading_hands_trouble_to_the_careful_reader(tmp_path: Path, content: bytes):
    from nbayes.readers import QuickReadAbandoned

    path = tmp_path / "trouble.csv"
    path.write_bytes(content)
    with pytest.raises(QuickReadAbandoned):
        list(TableReader(path, quick=True))


# ---------------------------------------------------------------------- files as published
ADULT_LIKE = (
    b"39, State-gov, 77516, Bachelors, <=50K\n"
    b"50, ?, 83311, Bachelors, >50K\n"
    b"38, Private, 215646, HS-grad, <=50K\n"
)


def test_headerless_files_are_named_by_position_or_by_names(tmp_path: Path):
    path = tmp_path / "adult.data"
    path.write_bytes(ADULT_LIKE)
    got = read_all(TableReader(path, header=False, missing=["?"]))
    assert got.columns == ["1", "2", "3", "4", "5"]
    assert got.get_column("1").to_list() == [39, 50, 38]  # stripped, so numbers
    assert got.get_column("2").to_list() == ["State-gov", None, "Private"]  # " ?" is missing
    names = ["age", "workclass", "fnlwgt", "education", "income"]
    named = read_all(TableReader(path, header=False, names=names, missing=["?"]))
    assert named.columns == names and named.rows() == got.rows()
    with pytest.raises(DataError, match=r"--names \(names= in Python\) gives 2 names but the "
                       "rows have 5 fields"):  # fmt: skip
        list(TableReader(path, header=False, names=["a", "b"]))
    with pytest.warns(UserWarning, match="names that are numbers.*--no-header"):
        header_read = read_all(TableReader(path))
    assert header_read.height == 2  # the first row became the header, as asked, with a warning


def test_a_note_on_the_first_line_read_as_a_header_is_shown_with_the_way_past_it(tmp_path):
    """UCI adult's test file opens with "|1x3 Cross validator": read with the columns' names,
    the note is a header of one field; the error shows it and how to drop it, and that way
    reads every row."""
    path = tmp_path / "adult.test"
    path.write_bytes(b"|1x3 Cross validator\n" + ADULT_LIKE)
    names = ["age", "workclass", "fnlwgt", "education", "income"]
    with pytest.raises(DataError, match=r"line 1: .* gives 5 names but the header has 1 field "
                       r"\('\|1x3 Cross validator'\); .* --no-header and --skip-bad-rows "
                       r"\(header=False, skip_bad_rows=True in Python\)"):  # fmt: skip
        list(TableReader(path, names=names))
    read = read_all(TableReader(path, header=False, names=names, skip_bad_rows=True))
    assert read.columns == names and read.height == 3


def test_duplicate_header_names_suggest_no_header(tmp_path: Path):
    path = tmp_path / "agaricus.data"
    path.write_bytes(b"p,x,s,n,t,p\ne,x,s,y,t,a\n")
    with pytest.raises(DataError, match=r"duplicate column names.*\['p'\].*--no-header"):
        list(TableReader(path))
    assert read_all(TableReader(path, header=False)).height == 2


@pytest.mark.parametrize("quick", [False, True])
def test_a_header_name_among_its_own_values_suggests_no_header(tmp_path: Path, quick: bool):
    """Label-and-message lines with no header: the first line taken for the header names the
    label column after a label (one of its values), so the reader says the line looks like
    data; a real header, or header=False, or names, reads without that warning."""
    headless = tmp_path / "messages.tsv"
    headless.write_bytes(b"ham\tsee you at 8\nspam\twin a prize now\nham\tok thanks\n")
    with pytest.warns(UserWarning, match=r"names a column 'ham'.*looks like data.*--no-header"):
        taken = read_all(TableReader(headless, quick=quick))
    assert taken.columns == ["ham", "see you at 8"] and taken.height == 2
    headed = tmp_path / "headed.tsv"
    headed.write_bytes(b"label\ttext\n" + headless.read_bytes())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_all(TableReader(headed, quick=quick)).height == 3
        assert read_all(TableReader(headless, header=False, quick=quick)).height == 3
        named = TableReader(headless, header=False, names=["label", "text"], quick=quick)
        assert read_all(named).get_column("label").to_list() == ["ham", "spam", "ham"]


@pytest.mark.parametrize("separator", [",", "\t", ";", "|"])
def test_format_and_separator_from_the_content(tmp_path: Path, separator: str):
    frame = sample(50).drop("word")
    path = tmp_path / "table.data"
    frame.write_csv(path, separator=separator)
    reader = TableReader(path)
    assert (reader.format, reader.separator) == ("csv", separator)
    assert read_all(reader).equals(frame)


def test_parquet_and_json_lines_from_the_content(tmp_path: Path):
    frame = sample(50)
    frame.write_parquet(tmp_path / "table.bin")
    frame.write_ndjson(tmp_path / "records.txt")
    assert read_all(TableReader(tmp_path / "table.bin")).equals(frame)
    assert read_all(TableReader(tmp_path / "records.txt")).equals(frame)


def test_whitespace_is_stripped_unless_no_strip(tmp_path: Path):
    path = tmp_path / "padded.csv"
    path.write_bytes(b"n , word,y\n 1, a b ,x\n2 ,c, y\n")
    got = read_all(TableReader(path))
    assert got.columns == ["n", "word", "y"]
    assert got.rows() == [(1, "a b", "x"), (2, "c", "y")]
    kept = read_all(TableReader(path, strip=False))
    assert kept.columns == ["n ", " word", "y"]
    assert kept.get_column(" word").to_list() == [" a b ", "c"]


def test_near_miss_of_a_missing_marker_warns(tmp_path: Path):
    path = tmp_path / "adult.data"
    path.write_bytes(ADULT_LIKE)
    with pytest.warns(UserWarning, match=r"column '2' holds ' \?' \(1 times.*line 2.*--missing"):
        got = read_all(TableReader(path, header=False, missing=["?"], strip=False))
    assert got.get_column("2").null_count() == 0


@pytest.mark.parametrize("chunk", [1024, 2**20])
def test_separators_of_several_bytes(tmp_path: Path, chunk: int):
    rows = [f"{i}::{'ab'[i % 2]}::{i % 7}" for i in range(3000)]
    path = tmp_path / "ratings.dat"
    path.write_text("\n".join(rows) + "\n")
    got = read_all(TableReader(path, header=False, separator="::", chunk_bytes=chunk))
    assert got.height == 3000
    assert got.get_column("1").to_list() == list(range(3000))
    assert got.get_column("3").to_list() == [i % 7 for i in range(3000)]
    comma_space = tmp_path / "adult.data"
    comma_space.write_bytes(ADULT_LIKE)
    by_two_bytes = read_all(TableReader(comma_space, header=False, separator=", ", strip=False))
    assert by_two_bytes.equals(read_all(TableReader(comma_space, header=False)))
    # inside quotes the separator is part of the value, in every block
    quoted = tmp_path / "quoted.dat"
    quoted.write_text("".join(f'{i}::"x::{i % 3}"::y\n' for i in range(3000)))
    got = read_all(TableReader(quoted, header=False, separator="::", chunk_bytes=chunk))
    assert got.get_column("2").to_list() == [f"x::{i % 3}" for i in range(3000)]


def test_quotes_inside_text_and_broken_quoting(tmp_path: Path):
    path = tmp_path / "sms"
    path.write_bytes(
        b'ham\tToday is "song dedicated day.." Which song\n'
        b'ham\tprob for u?"\n'
        b'ham\t"Wen u miss someone" gdeve..\n'
        b"spam\tFree entry\n"
    )
    with pytest.raises(DataError, match=r"sms: line 3: a quoted field does not close.*--no-quote"):
        list(TableReader(path, header=False))
    reader = TableReader(path, header=False, skip_bad_rows=True)
    got = read_all(reader)
    assert reader.bad_rows == 1
    assert got.get_column("2").to_list() == [
        'Today is "song dedicated day.." Which song',
        'prob for u?"',
        "Free entry",
    ]
    literal = read_all(TableReader(path, header=False, quote=None))
    assert literal.get_column("2").to_list()[2] == '"Wen u miss someone" gdeve..'


def test_skip_bad_rows_drops_values_that_do_not_fit_the_type(tmp_path: Path):
    rows = [f"{i},{i % 3}" for i in range(30000)] + ["30000,oops", "30001,2"]
    path = tmp_path / "types.csv"
    path.write_text("n,code\n" + "\n".join(rows) + "\n")
    reader = TableReader(path, chunk_bytes=64 * 1024, skip_bad_rows=True)
    got = read_all(reader)
    assert reader.bad_rows == 1 and got.height == 30001
    assert got.get_column("n").to_list()[-1] == 30001


def test_quick_reading_of_headerless_and_padded_files(tmp_path: Path):
    from nbayes.readers import QuickReadAbandoned

    clean = tmp_path / "clean.data"
    clean.write_text("".join(f"{i},{'ab'[i % 2]},{i * 0.5}\n" for i in range(2000)))
    quick = read_all(TableReader(clean, header=False, quick=True))
    assert quick.equals(read_all(TableReader(clean, header=False)))
    assert quick.columns == ["1", "2", "3"]
    padded = tmp_path / "padded.data"
    padded.write_bytes(ADULT_LIKE)
    with pytest.raises(QuickReadAbandoned):
        list(TableReader(padded, header=False, quick=True))


def test_a_padded_first_row_abandons_the_quick_reading_before_polars_reads(
    tmp_path: Path, monkeypatch
):
    import nbayes._read_quick as quick_module
    from nbayes.readers import QuickReadAbandoned

    def never(*args, **kwargs):
        raise AssertionError("the file was handed to Polars")

    padded = tmp_path / "padded.data"
    padded.write_bytes(ADULT_LIKE)
    with monkeypatch.context() as patch:
        patch.setattr(quick_module.pl, "scan_csv", never)
        with pytest.raises(QuickReadAbandoned, match="whitespace"):
            list(TableReader(padded, header=False, quick=True))
        headed = tmp_path / "headed.csv"  # the row after the header is the first row
        headed.write_bytes(b"age,work\n39, State-gov\n")
        with pytest.raises(QuickReadAbandoned, match="whitespace"):
            list(TableReader(headed, quick=True))
    # blanks inside fields, a padded header, or a quoted first row: Polars reads the file,
    # and the quick reading gives the careful one's frame
    for name, content in [
        ("inner.csv", b"a,b\nNew York,1\nSan Jose,2\n"),
        ("header.csv", b" a , b\nx,1\ny,2\n"),
        ("quoted.csv", b'a,b\n"x ",1\ny,2\n'),
    ]:
        path = tmp_path / name
        path.write_bytes(content)
        careful = read_all(TableReader(path))
        try:
            quick = read_all(TableReader(path, quick=True))
        except QuickReadAbandoned as error:  # allowed for the quoted blank, by the batch check
            assert name == "quoted.csv", error
        else:
            assert quick.equals(careful), name


def test_names_from_a_list_or_a_file(tmp_path: Path):
    from nbayes.readers import read_names

    assert read_names("a, b,c") == ["a", "b", "c"]
    names = tmp_path / "columns.txt"
    names.write_text("# adult\nage\nworkclass, fnlwgt\n\n| comment\nincome\n")
    assert read_names(str(names)) == ["age", "workclass", "fnlwgt", "income"]
    with pytest.raises(ValueError, match="repeats"):
        read_names("a,b,a")


def _padded_twins(rows: int, seed: int, ascii_only: bool = False) -> tuple[bytes, bytes]:
    """The same table twice: fields as they are, and fields padded with random blanks (spaces,
    tabs, \\v, \\f) on either side; with a missing-value marker '?', empty fields and (unless
    ``ascii_only``) text that begins or ends beyond ASCII ('Zürich', 'café')."""
    rng = np.random.default_rng(seed)
    words = ["Private", "Self-emp", "?", "", "a b"] + ([] if ascii_only else ["Zürich", "café"])
    plain, padded = [b"age,work,hours,y"], [b"age , work,hours ,y"]
    for _ in range(rows):
        fields = [
            str(rng.integers(17, 90)),
            str(rng.choice(words)),
            f"{rng.normal(40, 10):.2f}" if rng.random() > 0.05 else "?",
            str(rng.choice(["<=50K", ">50K"])),
        ]
        plain.append(",".join(fields).encode())
        pads = [
            "".join(rng.choice([" ", "\t", "\x0b", "\x0c"], size=rng.integers(0, 3)))
            for _ in range(2 * len(fields))
        ]
        padded.append(
            ",".join(pads[2 * k] + f + pads[2 * k + 1] for k, f in enumerate(fields)).encode()
        )
    return b"\n".join(plain) + b"\n", b"\n".join(padded) + b"\n"


@pytest.mark.parametrize("blank_lines", [False, True])
def test_a_padded_file_reads_in_blocks_as_its_unpadded_twin(tmp_path: Path, blank_lines: bool):
    """Blocks whose fields carry blanks are stripped in the bytes (or, where a field ends
    beyond ASCII, read as text and stripped by Polars): either way every block reads as Polars
    reads the same rows without blanks. Blank lines send blocks down the record-by-record path,
    which strips the same way."""
    plain, padded = _padded_twins(3000, seed=7)
    if blank_lines:
        lines = padded.split(b"\n")
        padded = b"\n".join(line + (b"\n" if k % 97 == 5 else b"") for k, line in enumerate(lines))
    path = tmp_path / "padded.csv"
    path.write_bytes(padded)
    expected = pl.read_csv(plain, null_values=["?"])
    for chunk in (1024, 4096, 2**20):
        got = read_all(TableReader(path, missing=["?"], chunk_bytes=chunk))
        assert got.schema == expected.schema, chunk
        assert got.equals(expected), chunk


def test_a_record_of_blanks_alone_in_a_one_column_file_is_a_missing_value(tmp_path: Path):
    body = b"n\n" + b"".join(b" %d \n" % i if i % 50 else b" \t \n" for i in range(1, 2000))
    path = tmp_path / "one.csv"
    path.write_bytes(body)
    expected = [None if i % 50 == 0 else i for i in range(1, 2000)]
    for chunk in (1024, 2**20):
        got = read_all(TableReader(path, chunk_bytes=chunk))
        assert got.get_column("n").to_list() == expected, chunk


def test_a_padded_file_is_read_as_text_only_for_its_first_block(tmp_path: Path, monkeypatch):
    """Once the first block has given the types, a padded block whose fields begin and end in
    ASCII loses its blanks in the bytes and is parsed typed: no block but the first is read as
    text, and the rows are those of the unpadded twin."""
    plain, padded = _padded_twins(3000, seed=8, ascii_only=True)
    path = tmp_path / "padded.csv"
    path.write_bytes(padded)
    calls = []
    read_text = TableReader._read_text
    monkeypatch.setattr(
        TableReader, "_read_text", lambda self, *a: calls.append(1) or read_text(self, *a)
    )
    got = read_all(TableReader(path, missing=["?"], chunk_bytes=4096))
    assert got.equals(pl.read_csv(plain, null_values=["?"]))
    assert len(calls) == 1


def test_a_padded_boolean_column_reads_as_booleans_in_every_block(tmp_path: Path):
    body = b"flag , n\n" + b"".join(
        b" %s , %d\n" % (b"true" if i % 3 else b"False", i) for i in range(600)
    )
    path = tmp_path / "flags.csv"
    path.write_bytes(body)
    for chunk in (1024, 2**20):
        got = read_all(TableReader(path, chunk_bytes=chunk))
        assert got.schema == pl.Schema({"flag": pl.Boolean, "n": pl.Int64}), chunk
        assert got.get_column("flag").to_list() == [bool(i % 3) for i in range(600)], chunk


# ---------------------------------------------------------------------- late values
@pytest.mark.parametrize("chunk", [2**24, 50_000], ids=["one-block", "many-blocks"])
def test_a_column_whose_values_come_after_the_inferred_rows_gets_their_type(
    tmp_path: Path, chunk: int
):
    """Polars types a column of nulls as text: a column empty in the rows the types are
    inferred from (and, in many blocks, in the whole first block) is typed from its first
    values further on, as a reading of the whole file would type it; a column with no value
    anywhere stays text (every value missing)."""
    from nbayes.readers import INFER_ROWS, QuickReadAbandoned

    n = INFER_ROWS + 5000
    rng = np.random.default_rng(3)
    late = np.round(rng.normal(size=n), 3)
    lines = ["a,late_float,late_int,late_bool,never,y"]
    for i in range(n):
        shown = i >= INFER_ROWS + 1000
        lines.append(
            f"{i % 7},{late[i] if shown else ''},{i % 11 if shown else ''},"
            f"{('true' if i % 2 else 'false') if shown else ''},,{'p' if i % 3 else 'q'}"
        )
    path = tmp_path / "late.csv"
    path.write_text("\n".join(lines) + "\n")
    whole = pl.read_csv(path, infer_schema_length=None)
    frame = read_all(TableReader(path, chunk_bytes=chunk))
    assert frame.schema["late_float"] == pl.Float64
    assert frame.schema["late_int"] == pl.Int64
    assert frame.schema["late_bool"] == pl.Boolean
    assert frame["never"].null_count() == n
    assert frame.drop("never").equals(whole.drop("never"))
    # the quick reader leaves such a file to the careful one
    with pytest.raises(QuickReadAbandoned, match="no value in the first rows"):
        list(TableReader(path, quick=True, chunk_bytes=chunk))


@given(
    columns=st.lists(
        st.lists(st.sampled_from([None, "?", " ?", "? ", "NA", "na", " Na\t", "x", "?x"]),
                 min_size=0, max_size=12),
        min_size=1, max_size=4,
    ),
    markers=st.sampled_from([["?"], ["NA"], ["?", "NA"], [" na "], [0]]),
)  # fmt: skip
@settings(max_examples=150, deadline=None)
def test_the_first_near_miss_of_a_marker_is_the_plain_reading_of_the_rule(columns, markers):
    """near_missing_marker against the rule read plainly: the first text column (in order)
    holding a value that is a text marker once stripped and lowercased but not a marker itself;
    that column's first such value, how many times the column holds any such value, and the
    row of the first."""
    from nbayes._read_values import near_missing_marker

    height = max(len(c) for c in columns)
    data = {f"c{i}": (c + [None] * height)[:height] for i, c in enumerate(columns)}
    data["number"] = list(range(height))
    frame = pl.DataFrame(data, schema={**dict.fromkeys(data, pl.String), "number": pl.Int64})
    text = [m for m in markers if isinstance(m, str)]
    wanted = {m.strip().casefold() for m in text}
    expected = None
    for name in frame.columns[:-1]:
        values = frame.get_column(name).to_list()
        hits = [
            i for i, v in enumerate(values)
            if v is not None and v.strip().lower() in wanted and v not in text
        ]  # fmt: skip
        if hits:
            expected = (name, values[hits[0]], len(hits), hits[0])
            break
    assert near_missing_marker(frame, markers) == expected
