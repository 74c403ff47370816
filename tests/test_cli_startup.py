"""Starting the command line: the parser is built without importing the family registry (and with
it NumPy, SciPy, Numba, Polars); the registry's names are read only when argparse checks a
value or shows them, so they stay the one list of families and bad choices are still refused."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import nbayes
from nbayes import families
from nbayes.cli import build_parser, main

HEAVY = ("numpy", "numba", "polars", "scipy")
SOURCE = str(Path(nbayes.__file__).resolve().parents[1])


def run_python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": SOURCE}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600
    )


def loaded_after(statements: str) -> list[str]:
    """The heavy libraries imported by a fresh process after running ``statements``."""
    code = (
        "import sys\n"
        "from nbayes.cli import build_parser, main\n"
        f"{statements}\n"
        f"print([m for m in {HEAVY!r} if m in sys.modules])\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    return eval(result.stdout.strip().splitlines()[-1])


def one_line(text: str) -> str:
    """Help text with its wrapping undone (argparse may wrap after a hyphen)."""
    return " ".join(re.sub(r"-\n\s+", "-", text).split())


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--version"],
        ["predict", "--help"],
        ["inspect", "--help"],
        ["report", "--help"],
    ],
)
def test_help_without_family_options_imports_no_heavy_library(argv):
    statements = f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass"
    assert loaded_after(statements) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["fit"],
        ["fit", "data.csv"],
        ["cv", "data.csv", "--k", "x"],
        # "did you mean …?" for a misspelt option, command or choice (issue 36)
        ["fit", "data.csv", "--taget", "y"],
        ["fti", "data.csv"],
        ["cv", "data.csv", "--model", "aode2"],
    ],
)
def test_a_usage_error_of_a_command_with_family_options_imports_no_heavy_library(argv):
    # the usage line shows --continuous FAMILY and --family COL=FAMILY, not the registry's names
    statements = f"try:\n    main({argv!r})\nexcept SystemExit as stop:\n    assert stop.code == 2"
    assert loaded_after(statements) == []


def test_building_the_parser_and_parsing_imports_no_heavy_library():
    statements = (
        "parser = build_parser()\n"
        "args = parser.parse_args(['predict', 'm.nbm', 'data.csv', '--proba'])\n"
        "assert args.command == 'predict'\n"
        "args = parser.parse_args(['fit', 'data.csv', '-o', 'm.nbm', '--model', 'tan'])\n"
        "assert args.continuous is None"
    )
    assert loaded_after(statements) == []


def test_an_unknown_continuous_family_is_refused_naming_the_registrys(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["fit", "data.csv", "-o", "m.nbm", "--continuous", "nosuch"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "argument --continuous: invalid choice: 'nosuch' (choose from " in err
    listed = re.search(r"choose from (.*)\)", err).group(1)
    assert listed == ", ".join(map(repr, families.continuous_names()))


def test_a_registered_continuous_family_is_accepted():
    args = build_parser().parse_args(["cv", "data.csv", "--continuous", "kde"])
    assert args.continuous == "kde"
    assert "kde" in families.continuous_names()


@pytest.mark.parametrize("command", ["fit", "cv"])
def test_help_lists_the_registrys_families(command, capsys):
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    continuous = ", ".join(families.continuous_names())
    assert f"--continuous FAMILY family for numeric columns: {continuous} (default" in one_line(out)
    listed = ", ".join(families.names())
    assert f"family for a column (by name or position): {listed} (repeatable)" in one_line(out)


def test_a_new_family_needs_no_command_line_edit():
    """A family registered like any family module does shows in --family and --continuous."""
    code = (
        "from nbayes import families\n"
        "from nbayes.cli import build_parser\n"
        "parser = build_parser()\n"  # built before the registry is loaded
        "families.register(families.Family(\n"
        "    name='lognormal-test', reads=frozenset({'float'}), group=object, continuous=True))\n"
        "args = parser.parse_args(['fit', 'd.csv', '-o', 'm', '--continuous', 'lognormal-test'])\n"
        "print(args.continuous)\n"
        "parser.parse_args(['fit', '--help'])\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    first, help_text = result.stdout.split("\n", 1)
    assert first == "lognormal-test"
    assert "mdl, lognormal-test (default auto" in one_line(help_text)  # --continuous's
    listed = one_line(help_text).split("(by name or position): ")[1].split(" (repeatable)")[0]
    assert "lognormal-test" in listed.split(", ")


def test_fit_imports_the_models_only_once_it_has_rows(tmp_path):
    """``nbayes fit`` reaches its data before importing the models (and with them Numba and
    SciPy): an error in the file or the options is reported without them. The quick CSV
    reader itself never needs Numba."""
    assert set(loaded_after("import nbayes.cli.fit")) <= {"numpy", "polars"}
    missing = tmp_path / "absent.csv"
    out = tmp_path / "m.nbm"
    failing = f"main(['fit', {str(missing)!r}, '--target', 'y', '-o', {str(out)!r}])"
    assert set(loaded_after(failing)) <= {"numpy", "polars"}
    data = tmp_path / "rows.csv"
    data.write_text("a,b,y\n" + "".join(f"{i % 3},{i * 0.5},{i % 2}\n" for i in range(50)))
    reading = (
        "from nbayes.readers import TableReader\n"
        f"rows = sum(b.frame.height for b in TableReader({str(data)!r}, quick=True))\n"
        "assert rows == 50, rows"
    )
    assert set(loaded_after(reading)) <= {"numpy", "polars"}


def test_fit_prepares_the_models_on_a_thread_while_a_file_is_read():
    statements = (
        "import threading\n"
        "from nbayes.cli import fit\n"
        "fit._prepare_models()\n"
        "for thread in threading.enumerate():\n"
        "    if thread.name == 'nbayes-prepare':\n"
        "        thread.join()\n"
        "assert 'nbayes.cli._models' in sys.modules"
    )
    assert {"numba", "scipy"} <= set(loaded_after(statements))


def test_loading_a_model_and_predicting_imports_no_scipy_stats(tmp_path):
    """scipy.stats takes about a second to import: a command that loads a model and predicts
    (any table model, the semi-naive one included) must not pay it."""
    rng = np.random.default_rng(0)
    frame = pl.DataFrame({"a": rng.choice(["x", "y"], 200), "b": rng.normal(size=200)})
    y = rng.integers(0, 2, 200)
    for name, model in {
        "naive": nbayes.NaiveBayes(),
        "semi": nbayes.SemiNaiveBayes(discriminative=False),
    }.items():
        nbayes.save(model.fit(frame, y), tmp_path / f"{name}.nbm")
    frame.write_csv(tmp_path / "rows.csv")
    calls = "\n".join(
        f"main(['predict', {str(tmp_path / f'{name}.nbm')!r}, {str(tmp_path / 'rows.csv')!r}, "
        f"'-o', {str(tmp_path / f'{name}.csv')!r}])"
        for name in ("naive", "semi")
    )
    code = f"import sys\nfrom nbayes.cli import main\n{calls}\n"
    code += "print('scipy.stats' in sys.modules)\n"
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "False"
