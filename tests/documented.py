"""The deviations from scikit-learn that docs/deviations.md lists (the one documented place),
read by the tests that let exactly those fail."""

from __future__ import annotations

import re
from pathlib import Path

DEVIATIONS_FILE = Path(__file__).resolve().parents[1] / "docs" / "deviations.md"


def deviations(section: str) -> dict[str, str]:
    """name → reason, from the table under the heading ``## <section>``."""
    text = DEVIATIONS_FILE.read_text(encoding="utf-8")
    body = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `([^`]+)` \| (.+) \|$", body, flags=re.MULTILINE))
