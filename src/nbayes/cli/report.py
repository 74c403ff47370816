"""``nbayes report``: one self-contained HTML page about a saved model and labelled data (a test
set, or with ``--cv K`` the rows to cross-validate the model's settings on); see
:mod:`nbayes.reporting`. A text model reads its text column as ``evaluate`` does."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ..readers import DataError
from ._models import learner_of
from ._reading import load_model, markers_for, open_reader, read_bounded, require_target


def run(args: argparse.Namespace) -> int:
    from ..reporting import report

    model = load_model(args.model, args.max_memory, args.data)
    reader = open_reader(args, missing=markers_for(args, model))
    frame = read_bounded(reader, args, "report on a sample of the rows")
    target = require_target(args, reader.path, frame.columns)
    unlabelled = frame.get_column(target).null_count()
    frame = frame.filter(frame.get_column(target).is_not_null())
    if frame.height == 0:
        raise DataError(reader.path, "there are no labelled rows to report on.")
    if unlabelled:
        print(
            f"nbayes: {unlabelled:,} rows without a label (missing in {target!r}) were left out; "
            f"the report is on the {frame.height:,} labelled rows",
            file=sys.stderr,
        )
    learner = learner_of(model, args, frame.columns)
    if learner.text is None:  # the table with its class column, which messages then name
        features, labels, labelled_by = frame, None, target
    else:
        labels = frame.get_column(target).to_numpy()
        if labels.dtype == object:
            labels = labels.astype(str)
        text = learner.features(frame).fill_null("").to_list()
        features, labelled_by = np.asarray(text, dtype=object), None
    page = report(
        model,
        features,
        labels,
        path=args.output,
        target=labelled_by,
        cv=args.cv,
        explain_rows=args.explain_rows,
        title=args.title,
    )
    print(f"wrote {args.output} ({len(page.encode('utf-8')):,} bytes)")
    return 0
