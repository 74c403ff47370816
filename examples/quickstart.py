"""A table with mixed column types and missing values: fit, explain one row, print the model.

python examples/quickstart.py
"""

import pandas as pd

import nbayes

frame = pd.DataFrame(
    {
        "age": [25, 32, 47, None, 52, 23, 41, 36],
        "income": ["low", "high", "medium", "high", None, "low", "medium", "?"],
        "student": [True, False, False, False, False, True, pd.NA, False],
        "visits": [3, 0, 1, 5, 2, 4, 1, 0],
        "buys": ["yes", "no", "yes", "no", "no", "yes", "yes", "no"],
    }
)
model = nbayes.NaiveBayes(missing_values="?", families={"visits": "poisson"})
model.fit(frame, target="buys")

print(model.explain({"age": 30, "income": "low", "student": None, "visits": 2}))
print()
print(model)
