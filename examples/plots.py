"""The pictures of nbayes.plot on two real data sets bundled with scikit-learn, saved as PNG
files (the ones in the documentation and the README).

    python examples/plots.py [FOLDER]        (default: docs/images)
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from sklearn.datasets import load_breast_cancer, load_iris

import nbayes
from nbayes import plot

folder = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parents[1] / "docs" / "images")
folder.mkdir(parents=True, exist_ok=True)


def save(display, name: str) -> None:
    display.figure.savefig(folder / name, dpi=80, metadata={"Software": None})


# Iris: the Gaussian class-conditional density of each measurement, one panel per feature
iris = load_iris(as_frame=True)
frame = iris.frame.assign(species=iris.target_names[iris.target]).drop(columns="target")
model = nbayes.NaiveBayes().fit(frame, target="species")
save(plot.plot_features(model, n_cols=2, panel_size=(4.0, 2.6)), "iris_features.png")

# Breast cancer (Wisconsin): every other row to fit, the others to judge the model
cancer = load_breast_cancer(as_frame=True)
X = cancer.data
y = cancer.target_names[cancer.target]
model = nbayes.NaiveBayes().fit(X[::2], y[::2])
test_X, test_y = X[1::2], y[1::2]
confusion = plot.plot_confusion_matrix(model, test_X, test_y)
roc = plot.plot_roc(model, test_X, test_y)
pr = plot.plot_precision_recall(model, test_X, test_y)
reliability = plot.plot_reliability(model, test_X, test_y)
explained = plot.plot_explanation(model.explain(test_X.iloc[0]))
for display, name in [
    (confusion, "confusion.png"),
    (roc, "roc.png"),
    (pr, "precision_recall.png"),
    (reliability, "reliability.png"),
    (explained, "explanation.png"),
]:
    save(display, name)

print("breast cancer, 284 test rows")
print("confusion matrix (rows: true, columns: predicted)", confusion.classes.tolist())
print(confusion.confusion)
print(f"ROC AUC ({roc.classes[0]}): {roc.auc[roc.classes[0]]:.4f}")
print(f"average precision: {pr.average_precision[pr.classes[0]]:.4f}")
print(f"Brier score: {reliability.brier:.4f}")
print(f"row 1 decided {explained.decided} over {explained.against}; largest terms:")
for term, value in list(zip(explained.terms, explained.contributions, strict=True))[:3]:
    print(f"  {term:<28} {value:+.3f}")
