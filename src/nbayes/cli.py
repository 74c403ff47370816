"""The ``nbayes`` command line."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nbayes", description="Naive Bayes classification.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", help="the worked example of the seeds and a real data set")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from .demo import run

        sys.stdout.write(run())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
