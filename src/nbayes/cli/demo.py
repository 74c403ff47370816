"""``nbayes demo``: the README's main job on the bundled data."""

from __future__ import annotations

import argparse
import sys

from ..demo import run as demo


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(demo())
    return 0
