"""Sphinx configuration of the nbayes documentation (``make docs``; strict: warnings fail)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import nbayes  # noqa: E402

project = "nbayes"
author = "the nbayes authors"
release = version = nbayes.__version__
copyright = "the nbayes authors, MIT licence"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3
exclude_patterns = ["_build", "examples/*.txt"]

autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_typehints = "description"
autodoc_member_order = "bysource"
napoleon_numpy_docstring = True
napoleon_google_docstring = False

# the formulas are typeset by MathJax, loaded by the reader's browser; the pages themselves
# stay readable without it (every formula is also written out in plain text in the API docs)
html_theme = "furo"
html_title = f"nbayes {release}"
html_static_path = []
html_extra_path = ["_generated"] if (Path(__file__).parent / "_generated").is_dir() else []


def _plain_text_bars(app, what, name, obj, options, lines):
    """The docstrings write formulas in plain text, where |x| is an absolute value and
    P(x | c) a conditional: never reStructuredText substitutions."""
    lines[:] = [line.replace("|", "\\|") for line in lines]


def setup(app):
    app.connect("autodoc-process-docstring", _plain_text_bars)
