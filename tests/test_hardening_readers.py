"""Readers that cannot hang or lie: compressed input that is truncated or corrupt is an error
naming the file (never a shorter file), a record longer than the limit is an error naming its
line (never unbounded memory), a block holding no complete record is read again larger, CR-only
line ends and byte-order marks are handled, and every error is one line with the file."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
import zstandard

from nbayes.cli import main
from nbayes.readers import DataError, TableReader


def csv_bytes(rows: int = 3000) -> bytes:
    rng = np.random.default_rng(1)
    lines = [f"{rng.normal():.5f},{rng.choice(['a', 'b'])},{rng.choice(['x', 'y'])}"
             for _ in range(rows)]  # fmt: skip
    return ("h,c,y\n" + "\n".join(lines) + "\n").encode()


def rows_read(path: Path, **options) -> int:
    return sum(batch.frame.height for batch in TableReader(path, **options))


def one_line_error(args: list[str], capsys) -> str:
    assert main([str(a) for a in args]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("nbayes: error: "), err
    return err


# ---------------------------------------------------------------------- compressed input
def test_a_truncated_zstd_file_is_an_error_not_a_shorter_file(tmp_path: Path, capsys):
    """zstandard's stream reader returned a truncated file's rows as if complete (with
    --skip-bad-rows, 218,453 of 400,000 rows were predicted, exit 0)."""
    data = csv_bytes()
    whole = tmp_path / "whole.csv.zst"
    whole.write_bytes(zstandard.ZstdCompressor().compress(data))
    assert rows_read(whole, chunk_bytes=4096) == 3000
    cut = tmp_path / "cut.csv.zst"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    with pytest.raises(DataError, match="data is truncated"):
        rows_read(cut, chunk_bytes=4096, skip_bad_rows=True)
    err = one_line_error(["fit", cut, "--target", "y", "-o", tmp_path / "m.nbm"], capsys)
    assert "cut.csv.zst" in err and "ends inside a frame" in err
    assert not (tmp_path / "m.nbm").exists()


def test_several_zstd_frames_are_read_one_after_another(tmp_path: Path):
    data = csv_bytes()
    half = data.index(b"\n", len(data) // 2) + 1
    compressor = zstandard.ZstdCompressor()
    path = tmp_path / "frames.csv.zst"
    path.write_bytes(compressor.compress(data[:half]) + compressor.compress(data[half:]))
    assert rows_read(path, chunk_bytes=2048) == 3000


def test_a_zstd_bomb_is_decompressed_a_little_at_a_time():
    """A frame of 64 MiB of zeros compresses to a few kB; reading 1 kB of it must not expand
    the whole frame first."""
    import io

    from nbayes.readers import ZstdFrames

    bomb = zstandard.ZstdCompressor().compress(bytes(64 * 2**20))
    stream = ZstdFrames(io.BytesIO(bomb), "bomb.zst")
    assert stream.read(1024) == bytes(1024)
    assert len(stream._output) <= ZstdFrames.FEED * 2**15


def test_corrupt_zstd_and_gzip_are_errors_naming_the_file(tmp_path: Path, capsys):
    data = csv_bytes()
    packed = bytearray(zstandard.ZstdCompressor().compress(data))
    packed[len(packed) // 2 : len(packed) // 2 + 64] = bytes(64)
    bad_zstd = tmp_path / "bad.csv.zst"
    bad_zstd.write_bytes(bytes(packed))
    err = one_line_error(["fit", bad_zstd, "--target", "y", "-o", tmp_path / "m.nbm"], capsys)
    assert "bad.csv.zst" in err and "corrupt" in err
    zipped = gzip.compress(data)
    cut_gzip = tmp_path / "cut.csv.gz"
    cut_gzip.write_bytes(zipped[: len(zipped) // 2])
    err = one_line_error(["fit", cut_gzip, "--target", "y", "-o", tmp_path / "m.nbm"], capsys)
    assert "cut.csv.gz" in err and "truncated or corrupt" in err
    bad_gzip = tmp_path / "bad.csv.gz"
    damaged = bytearray(zipped)
    damaged[40:60] = b"\xff" * 20
    bad_gzip.write_bytes(bytes(damaged))
    err = one_line_error(["fit", bad_gzip, "--target", "y", "-o", tmp_path / "m.nbm"], capsys)
    assert "bad.csv.gz" in err


# ---------------------------------------------------------------------- long records
def test_a_record_longer_than_the_limit_is_an_error_naming_its_line(tmp_path: Path, capsys):
    path = tmp_path / "endless.csv"
    path.write_bytes(b"h,c,y\n1,a,x\n2,b," + b"y" * 300_000 + b"\n3,a,x\n")
    with pytest.raises(DataError, match=r"line 3: a record .* longer than 100,000 bytes"):
        rows_read(path, chunk_bytes=1024, max_record_bytes=100_000)
    assert rows_read(path, chunk_bytes=1024, max_record_bytes=400_000) == 3


def test_a_file_of_nul_bytes_stops_at_the_limit(tmp_path: Path):
    path = tmp_path / "zeros.csv.gz"
    path.write_bytes(gzip.compress(b"h,c,y\n" + bytes(2_000_000)))
    with pytest.raises(DataError, match="longer than 500,000 bytes"):
        rows_read(path, chunk_bytes=4096, max_record_bytes=500_000)


def test_a_record_longer_than_a_block_is_read_not_an_index_error(tmp_path: Path):
    """The careful CSV reader raised IndexError when a block held no complete record: a first
    record longer than the chunk, or an unclosed quote."""
    long = tmp_path / "long.csv"
    long.write_bytes(b"h,c,y\n1,a," + b"x" * 5000 + b"\n2,b,y\n")
    assert rows_read(long, chunk_bytes=1024) == 2
    header = tmp_path / "header.csv"
    names = b",".join(b"c%d" % j for j in range(800))
    header.write_bytes(names + b"\n" + b"1," * 799 + b"1\n")
    assert rows_read(header, chunk_bytes=1024) == 1
    quote = tmp_path / "quote.csv"
    quote.write_bytes(b'h,c,y\n1,"a,x\n2,b,y\n3,a,x\n')
    with pytest.raises(DataError, match="line 2"):
        rows_read(quote, chunk_bytes=1024)
    jsonl = tmp_path / "long.jsonl"
    jsonl.write_bytes(
        b'{"h": 1, "c": "' + b"a" * 5000 + b'", "y": "x"}\n{"h": 2, "c": "b", "y": "y"}\n'
    )
    assert rows_read(jsonl, chunk_bytes=1024) == 2


# ---------------------------------------------------------------------- line ends and marks
def test_cr_only_line_ends_are_named(tmp_path: Path, capsys):
    path = tmp_path / "mac.csv"
    path.write_bytes(b"h,c,y\r1,a,x\r2,b,y\r3,a,x\r")
    err = one_line_error(["fit", path, "--target", "y", "-o", tmp_path / "m.nbm"], capsys)
    assert "mac.csv" in err and "carriage return" in err
    with pytest.raises(DataError, match="carriage return"):
        rows_read(path)
    crlf = tmp_path / "dos.csv"
    crlf.write_bytes(b"h,c,y\r\n1,a,x\r\n2,b,y\r\n")
    assert rows_read(crlf) == 2


def test_a_byte_order_mark_is_no_part_of_the_first_name(tmp_path: Path):
    for name, body in (
        ("bom.csv", b"h,c,y\n1,a,x\n2,b,y\n"),
        ("bom.jsonl", b'{"h": 1, "c": "a", "y": "x"}\n{"h": 2, "c": "b", "y": "y"}\n'),
    ):
        path = tmp_path / name
        path.write_bytes(b"\xef\xbb\xbf" + body)
        for quick in (False, True):
            reader = TableReader(path, quick=quick)
            frames = [batch.frame for batch in reader]
            assert frames[0].columns == ["h", "c", "y"], (name, quick)


def test_deeply_nested_json_lines_are_one_clean_error(tmp_path: Path, capsys):
    path = tmp_path / "deep.jsonl"
    deep = b"[" * 100_000 + b"]" * 100_000
    path.write_bytes(b'{"h": ' + deep + b', "y": "x"}\n{"h": 2, "y": "y"}\n')
    err = one_line_error(["fit", path, "--target", "y", "-o", tmp_path / "m.nbm"], capsys)
    assert "deep.jsonl" in err and "line 1" in err


def test_numbers_beyond_the_float_range_are_errors_naming_the_column(tmp_path: Path, capsys):
    path = tmp_path / "e400.csv"
    path.write_bytes(b"h,c,y\n1,a,x\n1e400,b,y\n3,a,x\n")
    err = one_line_error(["fit", path, "--target", "y", "-o", tmp_path / "m.nbm"], capsys)
    assert "e400.csv" in err and "'h'" in err and "inf" in err


# ---------------------------------------------------------------------- many columns
@pytest.mark.parametrize("d", [12, 300])
def test_categorical_coding_of_many_columns_matches_column_by_column(d: int):
    """Text columns are coded by a cast to an Enum each (up to ENUM_COLUMNS of them) or by one
    join of all of them; either way the codes are those a column-by-column dictionary gives,
    new values join in order of first appearance, missing stays missing."""
    import polars as pl

    from nbayes.encoding import ENUM_COLUMNS, UNSEEN, CategoricalEncoder

    assert (d <= ENUM_COLUMNS) == (d == 12)  # both ways are tried
    rng = np.random.default_rng(4)
    n = 40
    names = [f"c{j}" for j in range(d)]
    first = pl.DataFrame({m: rng.choice(["a", "b", "c", None], n).tolist() for m in names})
    second = pl.DataFrame({m: rng.choice(["b", "d", None], n).tolist() for m in names})
    encoder = CategoricalEncoder(names, [pl.String] * d)
    first_block = encoder.encode(first, fitting=True)
    for j, name in enumerate(names):  # the first batch's codes, its values just learnt
        order = list(dict.fromkeys(v for v in first[name].to_list() if v is not None))
        expected = [np.nan if v is None else order.index(v) for v in first[name].to_list()]
        np.testing.assert_array_equal(first_block[:, j], expected)
    block = encoder.encode(second, fitting=True)
    for j, name in enumerate(names):
        seen: list = []
        for value in first[name].to_list() + second[name].to_list():
            if value is not None and value not in seen:
                seen.append(value)
        assert encoder.vocabularies[j] == seen
        expected = [np.nan if v is None else seen.index(v) for v in second[name].to_list()]
        np.testing.assert_array_equal(block[:, j], expected)
    fresh = pl.DataFrame({m: ["z", "a"] for m in names})
    np.testing.assert_array_equal(encoder.encode(fresh, fitting=False)[0], np.full(d, UNSEEN))


def test_integer_categories_of_a_first_batch_are_coded_in_order_of_first_appearance():
    import polars as pl

    from nbayes.encoding import CategoricalEncoder

    encoder = CategoricalEncoder(["i", "b"], [pl.Int64, pl.Boolean])
    first = pl.DataFrame({"i": [7, None, -3, 7, 40], "b": [True, None, False, False, True]})
    block = encoder.encode(first, fitting=True)
    assert encoder.vocabularies == [[7, -3, 40], [True, False]]
    np.testing.assert_array_equal(block[:, 0], [0, np.nan, 1, 0, 2])
    np.testing.assert_array_equal(block[:, 1], [0, np.nan, 1, 1, 0])
    block = encoder.encode(pl.DataFrame({"i": [5, -3], "b": [False, None]}), fitting=True)
    assert encoder.vocabularies[0] == [7, -3, 40, 5]
    np.testing.assert_array_equal(block, [[3, 1], [1, np.nan]])


# ---------------------------------------------------------------------- the quick reader's scan
@pytest.mark.parametrize("shift", [-2, -1, 0, 1, 2])
def test_the_file_scan_finds_a_blank_next_to_a_separator_across_block_boundaries(
    tmp_path: Path, shift: int
):
    from nbayes.readers import QuickReadAbandoned, _padded

    block = 1024  # the smallest chunk_bytes: the scan reads the file in blocks of this size
    head = b"a,b\n" + b"1,2\n" * ((block - 4) // 4 - 1)  # ends a few bytes before the boundary
    filler = b"x" * (block - len(head) - 2 + shift)  # puts ", " around byte `block`
    for body in (head + filler + b",4\n", head + filler + b", 4\n", head + filler + b" ,4\n"):
        path = tmp_path / "scan.csv"
        path.write_bytes(body + b"5,6\n" * 300)
        reader = TableReader(path, chunk_bytes=block)
        assert reader._file_padded() is _padded(path.read_bytes(), b",")  # the file in one piece
    assert _padded(path.read_bytes(), b",") is True
    long = tmp_path / "long.csv"  # a record longer than the limit, spanning blocks
    long.write_bytes(b"a,b\n" + b"x" * 3000 + b",1\n")
    with pytest.raises(QuickReadAbandoned):  # the guard run before Polars reads the file
        TableReader(long, chunk_bytes=block, max_record_bytes=2000)._scan_record_lengths()
    TableReader(long, chunk_bytes=block, max_record_bytes=4000)._scan_record_lengths()
    assert TableReader(long, chunk_bytes=block, max_record_bytes=4000)._file_padded() is False


@pytest.mark.parametrize("final_newline", [True, False])
@pytest.mark.parametrize("limit", [2998, 2999, 3000, 3001])
def test_the_mapped_scan_and_the_block_scan_agree_on_the_longest_record(
    tmp_path: Path, limit: int, final_newline: bool, monkeypatch
):
    import mmap

    from nbayes import _read_quick
    from nbayes.readers import QuickReadAbandoned

    monkeypatch.setattr(_read_quick, "MAPPED_BYTES", mmap.ALLOCATIONGRANULARITY)  # many windows

    records = [b"a,b", b"1," + b"2" * 2997, b"3,4", b"5," + b"6" * 2998, b"7,8"]
    if not final_newline:  # the longest record last, with no line end after it
        records[-1], records[3] = records[3], records[-1]
    path = tmp_path / "records.csv"
    path.write_bytes(b"\n".join(records) + (b"\n" if final_newline else b""))
    longest = max(len(r) for r in records)  # 3000 bytes without a line end
    reader = TableReader(path, chunk_bytes=1024, max_record_bytes=limit)
    if limit < longest:
        for scan in (reader._scan_record_lengths, reader._padded_blocks):  # mapped and read
            with pytest.raises(QuickReadAbandoned):
                scan()
    else:
        reader._scan_record_lengths()  # no error
        assert reader._padded_blocks() is False


@pytest.mark.parametrize("at", [0, 4095, 4096, 9000, -1])
def test_the_mapped_scan_finds_a_blank_in_any_window(tmp_path: Path, at: int, monkeypatch):
    import mmap

    from nbayes import _read_quick, readers

    monkeypatch.setattr(_read_quick, "MAPPED_BYTES", mmap.ALLOCATIONGRANULARITY)
    body = bytearray(b"a,b\n" + b"1,2\n" * 3000)  # 12 KB: three or more windows
    body[at] = ord(" ")
    path = tmp_path / "blank.csv"
    path.write_bytes(bytes(body))
    with open(path, "rb") as handle:
        assert readers._holds_any(handle, len(body), [b" ", b"\t"])
        assert not readers._holds_any(handle, len(body), [b"\t"])
    reader = TableReader(path, chunk_bytes=1024)
    assert reader._file_padded() is readers._padded(bytes(body), b",")


def test_a_number_padded_after_the_first_rows_abandons_the_quick_read(tmp_path: Path):
    """A table of numbers is not scanned for blanks before Polars reads it: a padded number
    stops Polars (or makes its column text, which is checked), and the careful reader strips."""
    from nbayes.readers import QuickReadAbandoned, read_all

    rows = "".join(f"{i % 7},{i}.5,{i % 2}\n" for i in range(5000))
    path = tmp_path / "late.csv"
    path.write_text("a,b,y\n" + rows + "3, 8.5 ,1\n")
    with pytest.raises(QuickReadAbandoned):
        list(TableReader(path, quick=True))
    careful = read_all(TableReader(path))
    assert careful.get_column("b").to_list()[-1] == 8.5
    assert careful.height == 5001


def test_an_encoder_pickled_without_the_enum_cache_codes_text():
    """An encoder saved (pickled) by a version that had no Enum cache still codes text."""
    import pickle

    import polars as pl

    from nbayes.encoding import CategoricalEncoder

    encoder = CategoricalEncoder(["c"], [pl.String])
    encoder.encode(pl.DataFrame({"c": ["a", "b"]}), fitting=True)
    state = dict(encoder.__dict__)
    del state["_enums"]
    old = CategoricalEncoder.__new__(CategoricalEncoder)
    old.__setstate__(state)
    restored = pickle.loads(pickle.dumps(old))
    codes = restored.encode(pl.DataFrame({"c": ["b", None, "a"]}), fitting=False)
    np.testing.assert_array_equal(codes[:, 0], [1.0, np.nan, 0.0])
