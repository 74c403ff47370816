"""A fitted model's conditional tables as data: model.tables() gives one tidy frame per feature.

python examples/tables.py
"""

import pandas as pd

import nbayes

frame = pd.DataFrame(
    {
        "outlook": ["sunny", "sunny", "rain", "rain", "overcast", "rain", "sunny", "overcast"],
        "temperature": [29.4, 26.7, 21.1, 18.3, 27.2, 20.0, 22.2, 23.9],
        "windy": [False, True, False, True, False, False, True, True],
        "play": ["no", "no", "yes", "no", "yes", "yes", "yes", "yes"],
    }
)
model = nbayes.NaiveBayes().fit(frame, target="play")

for name, table in model.tables(to="pandas").items():
    print(f"{name}:")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print()
