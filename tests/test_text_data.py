"""The readers of the two file layouts, and the accuracy targets on the real data sets
(marked slow; skipped when ../shared/data is absent)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

import nbayes


def test_read_text_folder(tmp_path):
    for label, docs in {"sport": [b"goal! match", b"team won"], "tech": [b"cpu caf\xe9"]}.items():
        (tmp_path / label).mkdir()
        for i, doc in enumerate(docs):
            (tmp_path / label / f"{i:03d}").write_bytes(doc)
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "empty").mkdir()
    with pytest.warns(UserWarning, match="no documents"):
        texts, labels = nbayes.read_text_folder(tmp_path)
    assert texts == [b"goal! match", b"team won", b"cpu caf\xe9"]
    assert labels.tolist() == ["sport", "sport", "tech"]
    with pytest.warns(UserWarning):
        decoded, _ = nbayes.read_text_folder(tmp_path, decode=True)
    assert decoded[2] == "cpu caf\ufffd"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chunks = list(nbayes.read_text_folder(tmp_path, chunksize=2))
    assert [len(t) for t, _ in chunks] == [2, 1]
    with pytest.raises(FileNotFoundError):
        nbayes.read_text_folder(tmp_path / "nope")


def test_read_labeled_lines(tmp_path):
    path = tmp_path / "sms.txt"
    path.write_bytes(b"ham\tGo until jurong point\r\n\nspam\tFree entry\twith a tab\n"
                     b"ham \tcaf\xe9\n")  # fmt: skip
    texts, labels = nbayes.read_labeled_lines(path)
    assert texts == [b"Go until jurong point", b"Free entry\twith a tab", b"caf\xe9"]
    assert labels.tolist() == ["ham", "spam", "ham"]
    chunks = list(nbayes.read_labeled_lines(path, chunksize=2, decode=True))
    assert chunks[1][0] == ["caf\ufffd"]
    path.write_bytes(b"ham\tok\nno separator here\n")
    with pytest.raises(ValueError, match="line 2"):
        nbayes.read_labeled_lines(path)


def test_readers_feed_the_classifier(tmp_path):
    path = tmp_path / "sms.txt"
    path.write_text("spam\tWIN a free prize now\nham\tsee you at lunch\n" * 5)
    texts, labels = nbayes.read_labeled_lines(path)
    model = nbayes.TextClassifier().fit(texts, labels)
    assert model.predict(["free prize!", "lunch?"]).tolist() == ["spam", "ham"]


@pytest.mark.slow
def test_20_newsgroups_accuracy(shared_data):
    root = shared_data / "20newsgroups-bydate"
    train, y_train = nbayes.read_text_folder(root / "20news-bydate-train")
    test, y_test = nbayes.read_text_folder(root / "20news-bydate-test")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnicodeWarning)
        model = nbayes.TextClassifier().fit(train, y_train)
        assert model.score(test, y_test) >= 0.85
        model = nbayes.TextClassifier(mode="vocabulary", alpha=0.03).fit(train, y_train)
        assert model.score(test, y_test) >= 0.86


@pytest.mark.slow
def test_sms_spam_collection_accuracy(shared_data):
    texts, labels = nbayes.read_labeled_lines(
        shared_data / "sms-spam-collection" / "SMSSpamCollection"
    )
    correct = 0
    for train, test in StratifiedKFold(10, shuffle=True, random_state=0).split(texts, labels):
        model = nbayes.TextClassifier().fit([texts[i] for i in train], labels[train])
        correct += np.sum(model.predict([texts[i] for i in test]) == labels[test])
    assert correct / len(labels) >= 0.987
