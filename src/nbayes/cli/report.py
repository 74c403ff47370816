"""``nbayes report``: one self-contained HTML page about a saved model and labelled data (a test
set, or with ``--cv K`` the rows to cross-validate the model's settings on); see
:mod:`nbayes.reporting`."""

from __future__ import annotations

import argparse

from ..readers import DataError, read_all
from ._reading import load_model, markers_for, open_reader, require_target


def run(args: argparse.Namespace) -> int:
    from ..reporting import report

    model = load_model(args.model)
    reader = open_reader(args, missing=markers_for(args, model))
    frame = read_all(reader)
    target = require_target(reader.path, args.target, frame.columns)
    frame = frame.filter(frame.get_column(target).is_not_null())
    if frame.height == 0:
        raise DataError(reader.path, "there are no labelled rows to report on.")
    page = report(
        model,
        frame,
        target=target,
        path=args.output,
        cv=args.cv,
        explain_rows=args.explain_rows,
        title=args.title,
    )
    print(f"wrote {args.output} ({len(page.encode('utf-8')):,} bytes)")
    return 0
