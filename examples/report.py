"""An HTML report of a table model: 5-fold cross-validation on the bundled UCI Mushroom data.

python examples/report.py [PATH]         (default: mushroom-report.html)
"""

import sys

import nbayes
from nbayes.datasets import load_mushroom

path = sys.argv[1] if len(sys.argv) > 1 else "mushroom-report.html"
frame = load_mushroom().frame()
model = nbayes.NaiveBayes()
page = nbayes.report(
    model,
    frame,
    target=frame.columns[-1],
    cv=5,
    path=path,
    title="UCI Mushroom: naive Bayes, 5-fold cross-validation",
)
print(f"wrote {path}: {page.count('<svg')} figures")
