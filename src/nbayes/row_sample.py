"""A bottom-k sample of a table's distinct rows: the same whatever the order, batches or merges.

Each labelled row is hashed on its content: the values of the model's columns, after the reading
rules and in the types the model keeps them in, and its label. Rows of equal content share a hash:
they are one sample row, whose weight is the summed weight of its copies. The sample keeps the
``size`` distinct contents with the smallest hashes (a bottom-k sample, Cohen & Kaplan 2007):
merging two samples and keeping the ``size`` smallest hashes gives the sample of the union of their
rows, so a sample made in one fit, batch by batch, merged from partitions or streamed from a file
is the same set of rows with the same weights. Its rows are kept sorted by hash, and each row's
fold (for held-out estimates) is its hash modulo the number of folds, so copies of a row are always
in the same fold and the folds, too, are free of the rows' order.

The hash is Polars' row hash with a fixed seed (``DataFrame.hash_rows``), the same in every
process of one Polars version; a model merged with one sampled by another Polars version keeps a
valid sample of distinct rows, though not the one a single fit would have drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl
import polars.selectors as cs

#: Distinct rows a sample keeps.
SAMPLE_ROWS = 4096
#: The seed of the row hash (fixed: a hash is a property of the row, not of the run).
SEED = 0x6E626179
#: The name the label takes beside the columns while rows are hashed.
LABEL = "\x00label"


def row_hashes(
    frame: pl.DataFrame, labels: pl.Series, cls: np.ndarray | None = None
) -> np.ndarray:
    """Each row's 64-bit content hash (its columns' values, in the schema's types, so that a
    value hashes alike whatever type a batch read it as, integers as floats of the same value,
    and its label as text), mixed by the
    finaliser of SplitMix64 (Steele, Lea & Flood 2014) so that its smallest values are a
    uniform sample of the rows: a row hash combines the columns' hashes, and without the
    mixing its low values follow some columns' values (a class's rows, say). ``cls``, the
    rows' class indices when known, spares turning every label into text: one per class is."""
    # an integer is hashed as the float of the same value: a column read as 2 by one reader
    # (Polars) and as 2.0 by another (pandas, where the column has missing values) hashes alike
    # (one selector, not an expression per column: a table may have 100,000 columns)
    content = frame.with_columns(
        cs.integer().cast(pl.Float64), _label_text(labels, cls).alias(LABEL)
    )
    return mixed_hashes(content.hash_rows(SEED).to_numpy())


def _label_text(labels: pl.Series, cls: np.ndarray | None) -> pl.Series:
    """The labels as text; with their class indices, each class's label is cast once (rows of
    one class hold one label) and gathered."""
    if cls is None or labels.dtype == pl.String or len(labels) == 0:
        return labels.cast(pl.String)
    cls = np.asarray(cls, dtype=np.intp)
    first = np.full(int(cls.max()) + 1, -1, dtype=np.intp)
    first[cls] = np.arange(len(cls))  # a row of each class (the last, as it happens)
    present = np.flatnonzero(first >= 0)
    position = np.zeros(first.shape[0], dtype=np.intp)
    position[present] = np.arange(present.shape[0])
    return labels.gather(first[present]).cast(pl.String).gather(position[cls])


def mixed_hashes(hashes: np.ndarray) -> np.ndarray:
    """64-bit hashes mixed by the finaliser of SplitMix64 (a bijection), so that the smallest
    of them are a uniform sample whatever regularities the raw hashes had."""
    z = hashes.astype(np.uint64)  # a copy: the finaliser works in place
    with np.errstate(over="ignore"):
        z ^= z >> np.uint64(30)
        z *= np.uint64(0xBF58476D1CE4E5B9)
        z ^= z >> np.uint64(27)
        z *= np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return z


def _runs(ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of a sorted array and where each run of equal values starts
    (``np.unique`` of sorted values without its sort)."""
    starts = np.ones(ordered.shape[0], dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    first = np.flatnonzero(starts)
    return ordered[first], first


def _bottom(hashes: np.ndarray, size: int) -> np.uint64:
    """The ``size``-th smallest distinct value of ``hashes`` (the largest one when fewer are
    distinct). The k smallest values are selected in linear time, k = ``size`` first: their
    distinct values are every distinct value up to the k-th smallest, so once they number
    ``size`` they hold the answer. Where a few copies hide among them (a table's repeated
    rows), k grows once, by the share of copies seen; where most are copies (few distinct
    values), or the second selection falls short too, the whole array is sorted instead."""
    k = size
    while hashes.size > k:
        candidates, _ = _runs(np.sort(np.partition(hashes, k - 1)[:k]))
        if candidates.size >= size:
            return candidates[size - 1]
        if k > size or 4 * candidates.size < size:
            break
        k = -(-5 * k * size // (4 * candidates.size))  # the copies' share, and a quarter more
    distinct, _ = _runs(np.sort(hashes))
    return distinct[min(size, distinct.size) - 1]


def _kinds(schema: dict[str, pl.DataType]) -> tuple[list[str], list[str]]:
    """The columns a model file holds as floats (floats and booleans, nulls apart) and as
    64-bit integers; the others are text."""
    integers = [name for name, dtype in schema.items() if dtype.is_integer()]
    numbers = [
        name
        for name, dtype in schema.items()
        if (dtype.is_numeric() or dtype == pl.Boolean) and not dtype.is_integer()
    ]
    return numbers, integers


@dataclass
class RowSample:
    """The distinct rows with the ``size`` smallest content hashes, sorted by hash: their
    values (``frame``), hashes, class indices and summed weights.

    A sample read from a model file whose columns are all of the types the file stores
    (Float64, Int64, String) builds its frame when first asked for it (a wide table's sample
    has 100,000 columns, and a loaded model needs them only to derive its calibration again
    after more rows): until then it holds, and :meth:`state` gives back, the file's values."""

    _frame: pl.DataFrame | None
    hashes: np.ndarray
    cls: np.ndarray
    weight: np.ndarray
    size: int = SAMPLE_ROWS
    #: a loaded sample's values as the file holds them (JSON, arrays), and its columns' types:
    #: the frame not built yet
    _stored: tuple[dict, dict] | None = field(default=None, repr=False, compare=False)
    _schema: dict | None = field(default=None, repr=False, compare=False)

    @property
    def frame(self) -> pl.DataFrame:
        """The sample's rows, in the model's columns and types."""
        if self._frame is None:
            assert self._stored is not None and self._schema is not None
            self.frame = _frame_of(*self._stored, self._schema)
        return self._frame

    @frame.setter
    def frame(self, frame: pl.DataFrame) -> None:
        self._frame, self._stored, self._schema = frame, None, None

    @classmethod
    def empty(cls, frame: pl.DataFrame, size: int = SAMPLE_ROWS) -> RowSample:
        """A sample of no rows with ``frame``'s columns."""
        return cls(
            frame.clear(), np.zeros(0, np.uint64), np.zeros(0, np.intp), np.zeros(0), size
        )

    def __len__(self) -> int:
        return self.hashes.shape[0]

    def add(
        self, frame: pl.DataFrame, labels: pl.Series, cls: np.ndarray, weight: np.ndarray
    ) -> None:
        """Add a batch of rows (``frame`` in this sample's columns and types) with their labels,
        class indices and weights; rows of weight 0 are left out."""
        hashes = row_hashes(frame, labels, cls)
        keep = weight != 0
        if len(self) >= self.size:  # only hashes below the largest kept one can enter
            keep &= hashes <= self.hashes[-1]
        rows = np.flatnonzero(keep)
        if rows.size > self.size:  # a large batch: its own bottom k first
            rows = rows[hashes[rows] <= _bottom(hashes[rows], self.size)]
        batch = RowSample(frame[rows], hashes[rows], cls[rows], weight[rows], self.size)
        self._join(batch)

    def merge(self, other: RowSample, positions: np.ndarray) -> None:
        """Add another sample's rows (its class k is this sample's class ``positions[k]``); a
        column that is integers in one sample and floats in the other (one model's rows read by
        Polars, the other's by pandas) joins as floats, its values unchanged."""
        self._join(RowSample(other.frame, other.hashes, positions[other.cls], other.weight))

    def reindex_classes(self, positions: np.ndarray) -> None:
        """The class list grew: class k is now class ``positions[k]``."""
        self.cls = positions[self.cls]

    def _join(self, other: RowSample) -> None:
        """Keep the ``size`` smallest distinct hashes of both, copies' weights summed."""
        hashes = np.concatenate([self.hashes, other.hashes])
        order = np.argsort(hashes, kind="stable")
        distinct, first = _runs(hashes[order])
        inverse = np.repeat(np.arange(first.size), np.diff(first, append=order.size))
        weight = np.bincount(
            inverse, weights=np.concatenate([self.weight, other.weight])[order]
        )
        kept = min(self.size, distinct.shape[0])
        rows = order[first[:kept]]  # one copy of each kept content
        frame = pl.concat([self.frame, other.frame], how="vertical_relaxed")
        self.frame = frame[rows]
        self.hashes = distinct[:kept]
        self.cls = np.concatenate([self.cls, other.cls])[rows]
        self.weight = weight[:kept]

    def folds(self, n_folds: int) -> np.ndarray:
        """Each row's fold: its hash modulo ``n_folds``."""
        return (self.hashes % np.uint64(n_folds)).astype(np.intp)

    # ------------------------------------------------------------------ model files
    def state(self) -> tuple[dict, dict[str, np.ndarray]]:
        """JSON metadata (the text columns' values) and arrays (hashes, classes, weights, and
        the numbers and booleans as one (rows, columns) array, with a mask of the nulls: a
        model file holds finite numbers only)."""
        arrays = {
            "hashes": self.hashes.astype(np.uint64),
            "cls": self.cls.astype(np.int64),
            "weight": self.weight.astype(np.float64),
        }
        if self._stored is not None:  # the values as the file held them: the frame unbuilt
            meta, values = self._stored
            return dict(meta), {**arrays, **values}
        numbers, integers = _kinds(self.frame.schema)
        for key, names, dtype in (
            ("numbers", numbers, pl.Float64),
            ("integers", integers, pl.Int64),
        ):
            values = self.frame.select(pl.col(names).cast(dtype))
            shape = (len(self), len(names))
            # only the columns with nulls need a mask and a fill: a wide table's sample has
            # 100,000 columns, and one expression per column costs more than the values
            holes = [j for j, count in enumerate(values.null_count().row(0)) if count]
            absent = np.zeros(shape, dtype=np.uint8)
            if holes:
                nulls = values.select(pl.col([names[j] for j in holes]).is_null()).to_numpy()
                absent[:, holes] = nulls
                values = values.with_columns(pl.col([names[j] for j in holes]).fill_null(0))
            filled = values.to_numpy().reshape(shape)
            arrays[key] = filled.astype(np.float64 if dtype == pl.Float64 else np.int64)
            arrays[f"{key} absent"] = absent
        in_arrays = set(numbers) | set(integers)
        text = {
            name: self.frame[name].cast(pl.String).to_list()
            for name in self.frame.columns
            if name not in in_arrays
        }
        # the integer columns as the frame holds them (the model file's schema may differ: a
        # sample kept floats where the schema says integers)
        return {"size": self.size, "text": text, "integers": integers}, arrays

    @classmethod
    def from_state(
        cls, meta: dict, arrays: dict[str, np.ndarray], schema: dict[str, pl.DataType]
    ) -> RowSample:
        """The sample :meth:`state` wrote, its columns cast back to ``schema``'s types."""
        size = meta.get("size") if isinstance(meta, dict) else None
        text = meta.get("text") if isinstance(meta, dict) else None
        if not isinstance(size, int) or size < 1 or not isinstance(text, dict):
            raise ValueError("the row sample must hold its size and its text columns.")
        schema = _stored_types(meta, schema)
        hashes = np.asarray(arrays["hashes"], dtype=np.uint64)
        n = hashes.shape[0]
        weight = np.asarray(arrays["weight"], dtype=np.float64)
        classes = np.asarray(arrays["cls"])
        kinds = dict(zip(("numbers", "integers"), _kinds(schema), strict=True))
        blocks = {key: np.asarray(arrays[key]) for key in kinds}
        marks = {key: np.asarray(arrays[f"{key} absent"]) for key in kinds}
        absent = {key: marks[key] != 0 for key in kinds}
        if (
            size != SAMPLE_ROWS
            or hashes.ndim != 1
            or n > size
            or weight.shape != (n,)
            or classes.shape != (n,)
            or classes.dtype.kind not in "iu"
            or not np.all(weight > 0)
            or not np.all(hashes[1:] > hashes[:-1])
            or any(blocks[k].shape != (n, len(names)) for k, names in kinds.items())
            or any(absent[k].shape != blocks[k].shape for k in kinds)
            or blocks["integers"].dtype.kind not in "iu"
            # as :meth:`state` writes them: a null is a 1 over a 0
            or any(np.any((marks[k] != 0) & (marks[k] != 1)) for k in kinds)
            or any(np.any(blocks[k][absent[k]] != 0) for k in kinds)
        ):
            raise ValueError("the row sample's hashes, classes, weights and values disagree.")
        in_arrays = set(kinds["numbers"]) | set(kinds["integers"])
        for name in schema:
            if name in in_arrays:
                continue
            values = text.get(name)
            if not isinstance(values, list) or len(values) != n or not all(
                v is None or isinstance(v, str) for v in values
            ):
                raise ValueError(f"the row sample's column {name!r} must be {n} texts.")
        values = {
            "numbers": np.asarray(blocks["numbers"], dtype=np.float64),
            "integers": np.asarray(blocks["integers"], dtype=np.int64),
            **{f"{key} absent": np.asarray(marks[key], dtype=np.uint8) for key in kinds},
        }
        sample = cls(None, hashes, classes.astype(np.intp), weight, size)
        kept = {"integers": meta["integers"]} if "integers" in meta else {}
        sample._stored = ({"size": size, "text": text, **kept}, values)
        sample._schema = dict(schema)
        if not set(schema.values()) <= {pl.Float64, pl.Int64, pl.String}:
            # a type the file's arrays do not hold (Int8, Boolean, a date): built now, so that
            # the values it cannot hold are what the model writes back (and a load refuses)
            sample.frame  # noqa: B018 - builds it
        return sample


def _stored_types(meta: dict, schema: dict[str, pl.DataType]) -> dict[str, pl.DataType]:
    """The types a saved sample's columns are read back in: the model's ``schema``, but where
    the file names the sample's integer columns (``meta["integers"]``, written since the
    sample keeps numbers as read), a numeric column it names is integers and one it does not
    name is floats (the schema's type where it is of that kind)."""
    integers = meta.get("integers")
    if integers is None:  # a file from before: the sample held the schema's types
        return schema
    numeric = {name for name, dtype in schema.items() if dtype.is_integer() or dtype.is_float()}
    if not isinstance(integers, list) or not set(integers) <= numeric:
        raise ValueError("the row sample's integer columns must be numeric columns.")
    named = set(integers)

    def stored(name: str, dtype: pl.DataType) -> pl.DataType:
        if name not in numeric:
            return dtype
        if name in named:  # integers: the schema's integer type, or Int64
            return dtype if dtype.is_integer() else pl.Int64
        return dtype if dtype.is_float() else pl.Float64

    return {name: stored(name, dtype) for name, dtype in schema.items()}


def _frame_of(meta: dict, arrays: dict, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """A loaded sample's frame from the checked values of :meth:`RowSample.from_state`: the
    (rows, columns) blocks of numbers and of integers with their null marks, and the text
    columns, in ``schema``'s order and types."""
    kinds = dict(zip(("numbers", "integers"), _kinds(schema), strict=True))
    blocks = {key: arrays[key] for key in kinds}
    absent = {key: arrays[f"{key} absent"] != 0 for key in kinds}
    in_arrays = set(kinds["numbers"]) | set(kinds["integers"])
    text = [
        pl.DataFrame([pl.Series(name, meta["text"][name], dtype=pl.String)])
        for name in schema
        if name not in in_arrays
    ]
    parts = []
    for key, names in kinds.items():
        if not names:
            continue
        values = pl.from_numpy(blocks[key], schema=names, orient="row")
        holes = np.flatnonzero(absent[key].any(axis=0))  # the columns with nulls
        if holes.size:  # nulled in one select: a wide table's sample has 100,000 columns
            tag = "\0" * (1 + max(map(len, names)))  # longer than any name: no clash
            mask = pl.from_numpy(absent[key][:, holes], schema=[f"{tag}{j}" for j in holes])
            values = (
                pl.concat([values, mask], how="horizontal")
                .with_columns(
                    pl.when(pl.col(f"{tag}{j}"))
                    .then(None)
                    .otherwise(pl.col(names[j]))
                    .alias(names[j])
                    for j in holes
                )
                .select(names)
            )
        parts.append(values)
    parts += text
    frame = pl.concat(parts, how="horizontal") if parts else pl.DataFrame()
    if frame.columns != list(schema):
        frame = frame.select(list(schema))
    stored = frame.schema
    cast = {name: dtype for name, dtype in schema.items() if stored[name] != dtype}
    if cast:  # only the columns whose type the file's arrays do not keep
        frame = frame.cast(cast, strict=False)
    return frame
