"""fimdup: near-duplicate document clustering by frequent itemset mining.

Every call runs the fimdup library's own job (the one the ``fimdup`` command runs) in Rust,
with the GIL released, and gives the same result as the command on the same documents:

>>> import fimdup
>>> texts = ["a rose is a rose is a rose", "a rose is a rose is a rose!", "something else"]
>>> r = fimdup.cluster(texts, threshold=0.8, shingle_len=2)
>>> r.clusters
[[0, 1]]
>>> r.pairs.column_names
['a', 'b', 'shared', 'estimate', 'exact']

``texts`` is any iterable of ``str``, a pandas Series, a pyarrow (Chunked)Array of strings
(read without a copy into Python objects), a ``datasets.Dataset`` (its ``text`` column) or a
``pathlib.Path`` naming a corpus file (read as the command reads it). ``ids`` default to
the positions 0..n-1; results name documents by them.

Errors: ``ValueError`` for bad parameters, :class:`FormatError` (a ``ValueError``) for bad
input naming the file and line, :class:`LimitError` when a guard is hit, ``OSError`` for
I/O, ``TypeError`` for inputs of the wrong type. ``threads=`` on every call (default: all
cores); the output does not depend on it.

Every keyword's default is the library's, the one the command's flag has: the signatures
are built from :func:`defaults` (the library's configurations), so ``help(fimdup.cluster)``
shows the values the command uses.
"""

from __future__ import annotations

import csv as _csv
import inspect as _inspect
import itertools as _itertools
import json as _json
import os as _os
import tempfile as _tempfile
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as _np
import pyarrow as _pa

from . import _fimdup as _native
from ._fimdup import FormatError, LimitError

# pyarrow imports pandas, when it is installed, the first time it converts Python objects
# (`pa.array` on a list or a numpy array), which every call and result does: done here, once,
# so that it is not the first call's cost (eval/results/python_first_call.md).
_pa.array([], type=_pa.int64())

__version__ = _native.__version__
#: The git commit the native module was built from (12 hex digits), or "unknown".
__git_hash__ = _native.__git_hash__

__all__ = [
    "FormatError",
    "LimitError",
    "Images",
    "Result",
    "DedupResult",
    "Itemsets",
    "SweepRows",
    "Index",
    "sketch",
    "cluster",
    "dedup",
    "evaluate",
    "sweep",
    "report",
    "mine",
    "defaults",
]

PathLike = Union[str, "_os.PathLike[str]"]

#: The library's default of every option, by group (``corpus``, ``pipeline``, ``job``,
#: ``dedup``, ``truth``, ``eval``, ``sweep``, ``index``, ``query``, ``mine``, ...): the
#: defaults of the command's flags. Every signature below takes its defaults from here.
_DEFAULTS: Dict[str, Dict[str, Any]] = _native.defaults()
_CORPUS = _DEFAULTS["corpus"]
_PIPE = _DEFAULTS["pipeline"]
_JOB = _DEFAULTS["job"]
#: Every method's own options, as the methods declare them (name, methods, type, default,
#: range or choices, help): the keywords ``cluster`` and ``dedup`` add to their signatures.
_METHOD_OPTIONS: List[Dict[str, Any]] = _DEFAULTS["method_catalogue"]
_DEDUP = _DEFAULTS["dedup"]
_TRUTH = _DEFAULTS["truth"]
_EVAL = _DEFAULTS["eval"]
_SWEEP = _DEFAULTS["sweep"]
_INDEX = _DEFAULTS["index"]
_QUERY = _DEFAULTS["query"]
_MINE = _DEFAULTS["mine"]

# The keywords handed to the library by name: the fields of its named options.
_SKETCH_KEYS = tuple(_PIPE)
_JOB_KEYS = tuple(_JOB)


def defaults() -> Dict[str, Dict[str, Any]]:
    """The default of every keyword option, by group, as the library states it (and the
    command's flags use it): ``pipeline`` (text, shingles, images), ``job`` (clustering),
    ``dedup``, ``truth``, ``eval``, ``sweep``, ``index``, ``query``, ``mine``, ``corpus``
    and the command-only ``context`` and ``overlap``. A fresh copy on each call.

    >>> fimdup.defaults()["job"]["max_pairs"]
    50000000
    """
    return _native.defaults()


_PY_TYPES = {"int": int, "float": float, "bool": bool, "str": str}


def _with_method_options(fn: Any) -> Any:
    """Adds every method's declared options to ``fn``'s signature (after ``max_df``) with
    their defaults, and a paragraph on them to its docs; ``fn`` takes them as
    ``**method_options``, and the library checks them against the chosen method."""
    sig = _inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
    at = next(i for i, p in enumerate(params) if p.name == "max_df") + 1
    extra = []
    lines = []
    for o in _METHOD_OPTIONS:
        t = _PY_TYPES[o["type"]]
        ann = Optional[t] if o["default"] is None else t
        extra.append(_inspect.Parameter(o["name"], _inspect.Parameter.KEYWORD_ONLY, default=o["default"], annotation=ann))
        lines.append(f"    ``{o['name']}`` ({', '.join(o['methods'])}): {o['help']}")
    fn.__signature__ = sig.replace(parameters=params[:at] + extra + params[at:])
    fn.__doc__ = (fn.__doc__ or "") + "\n    Method options (each method's own, as its file declares them):\n\n" + "\n".join(lines) + "\n"
    return fn


def _method_values(fn: str, given: Dict[str, Any]) -> Dict[str, Any]:
    """The method options among ``given`` (a call's ``**method_options``); an unknown
    keyword is a ``TypeError`` as Python's own."""
    names = {o["name"] for o in _METHOD_OPTIONS}
    for k in given:
        if k not in names:
            raise TypeError(f"{fn}() got an unexpected keyword argument {k!r}")
    return {k: v for k, v in given.items() if v is not None}


def _pick(args: Dict[str, Any], keys: Sequence[str]) -> Dict[str, Any]:
    """The named options among a call's arguments (they go to the library by name)."""
    return {k: args[k] for k in keys if k in args}


# ---------------------------------------------------------------------------------------
# Inputs


def _is_dataset(x: Any) -> bool:
    return type(x).__module__.startswith("datasets.") and hasattr(x, "column_names")


def _text_array(texts: Any, text_field: str) -> Any:
    """The texts as a pyarrow string array (chunked or not), without copying when they are
    one already; texts that are Python objects as a list of str (read in place by the library,
    see :func:`_corpus`)."""
    if isinstance(texts, (_pa.Array, _pa.ChunkedArray)):
        t = texts.type
        if not (
            _pa.types.is_string(t)
            or _pa.types.is_large_string(t)
            or getattr(_pa.types, "is_string_view", lambda _: False)(t)
        ):
            raise TypeError(f"texts must be strings, not a pyarrow array of {t}")
        return texts
    if _is_dataset(texts):
        ds = texts
        if text_field not in ds.column_names:
            raise ValueError(f"the dataset has no column {text_field!r} (columns: {ds.column_names})")
        if getattr(ds, "_indices", None) is not None:
            ds = ds.flatten_indices()
        return _text_array(ds.data.table.column(text_field), text_field)
    if type(texts).__module__.startswith("pandas") and hasattr(texts, "array"):
        try:
            return _pa.array(texts, from_pandas=True, type=_pa.large_string())
        except (_pa.ArrowTypeError, _pa.ArrowInvalid):
            texts = list(texts)
    # Each element is checked to be a str (not bytes, not None) where it is read
    # (``Corpus.from_strs``: a TypeError naming ``texts[i]``).
    return texts if isinstance(texts, list) else list(texts)


def _first_null(arr: Any, what: str) -> None:
    if arr.null_count:
        import pyarrow.compute as pc

        i = pc.index(pc.is_null(arr), True).as_py()
        raise TypeError(f"{what}[{i}] is None: expected a str")


def _id_array(ids: Any, n: int) -> Tuple[Any, bool]:
    """The ids as a pyarrow int64 or string array, and whether they are ints."""
    if isinstance(ids, (_pa.Array, _pa.ChunkedArray)):
        arr = ids
    elif isinstance(ids, (str, bytes)):
        raise TypeError("ids must be a sequence of int or str, not a single str")
    else:
        if hasattr(ids, "dtype") and getattr(ids.dtype, "kind", "") in "iu":
            arr = _pa.array(_np.asarray(ids, dtype=_np.int64))
        else:
            ids = list(ids)
            if all(isinstance(i, (int, _np.integer)) and not isinstance(i, bool) for i in ids):
                arr = _pa.array([int(i) for i in ids], type=_pa.int64())
            elif all(isinstance(i, str) for i in ids):
                arr = _pa.array(ids, type=_pa.large_string())
            else:
                bad = next(
                    i for i, x in enumerate(ids) if not isinstance(x, (int, str, _np.integer)) or isinstance(x, bool)
                ) if any(not isinstance(x, (int, str, _np.integer)) or isinstance(x, bool) for x in ids) else None
                if bad is not None:
                    raise TypeError(f"ids[{bad}] is {type(ids[bad]).__name__}: expected an int or a str")
                raise TypeError("ids must be all ints or all strs, not a mix")
    if len(arr) != n:
        raise ValueError(f"{len(arr)} ids for {n} texts")
    t = arr.type
    if _pa.types.is_integer(t):
        return arr.cast(_pa.int64()), True
    if _pa.types.is_string(t) or _pa.types.is_large_string(t):
        return arr, False
    raise TypeError(f"ids must be ints or strs, not a pyarrow array of {t}")


def _key_array(keys: Any, n: int) -> Any:
    keys = list(keys)
    if len(keys) != n:
        raise ValueError(f"{len(keys)} keys for {n} texts")
    if all(k is None or (isinstance(k, (int, float, _np.number)) and not isinstance(k, bool)) for k in keys):
        return _pa.array([None if k is None else float(k) for k in keys], type=_pa.float64())
    if all(isinstance(k, str) for k in keys):
        return _pa.array(keys, type=_pa.large_string())
    raise TypeError("keys must be all numbers (None: missing) or all strs")


def _corpus(
    texts: Any,
    ids: Any = None,
    keys: Any = None,
    *,
    format: Optional[str] = _CORPUS["format"],
    text_field: str = _CORPUS["text_field"],
    id_field: str = _CORPUS["id_field"],
) -> Any:
    if isinstance(texts, (str, bytes)):
        raise TypeError(
            "texts must be an iterable of str, not a single str (it would be read character "
            "by character); pass a pathlib.Path to read a corpus file"
        )
    if isinstance(texts, _os.PathLike):
        if ids is not None or keys is not None:
            raise ValueError("a corpus file brings its own ids (and fields): give ids=None, keys=None")
        return _native.Corpus.from_path(_os.fspath(texts), format, text_field, id_field)
    arr = _text_array(texts, text_field)
    if not isinstance(arr, list):
        _first_null(arr, "texts")
    n = len(arr)
    cols: Dict[str, Any] = {"text": arr}
    ints = True
    if ids is not None:
        cols["id"], ints = _id_array(ids, n)
    if keys is not None:
        cols["key"] = _key_array(keys, n)
    if not isinstance(arr, list):
        return _native.Corpus.from_arrow(_pa.table(cols).__arrow_c_stream__(), ints)
    # A list of str is read in place, the str objects themselves (their UTF-8 bytes, never
    # copied into Arrow); only the ids and keys go over as Arrow columns.
    del cols["text"]
    columns = _pa.table(cols).__arrow_c_stream__() if cols else None
    return _native.Corpus.from_strs(arr, columns, ints)


def _sketch_json(opts: Dict[str, Any]) -> str:
    return _json.dumps({k: v for k, v in opts.items() if v is not None or k == "scheme"})


def _ids_column(ids: List[Any], idx: Any) -> Any:
    if ids and isinstance(ids[0], int):
        return _pa.array(_np.asarray(ids, dtype=_np.int64)[idx], type=_pa.int64())
    return _pa.array(ids, type=_pa.string()).take(_pa.array(idx))


def _clusters(ids: List[Any], bufs: Tuple[bytes, bytes, bytes, bytes]) -> List[List[Any]]:
    offsets = _np.frombuffer(bufs[0], dtype=_np.uint64).tolist()
    members = _np.frombuffer(bufs[1], dtype=_np.uint32).tolist()
    return [[ids[m] for m in members[offsets[i] : offsets[i + 1]]] for i in range(len(offsets) - 1)]


# ---------------------------------------------------------------------------------------
# Sketch


class Images:
    """Images of documents: bottom-k (or k-mins, ...) hash values per document.

    >>> imgs = fimdup.sketch(["one two three four five six"], size=4)
    >>> imgs.to_numpy().shape
    (1, 4)
    """

    def __init__(self, native: Any) -> None:
        self._n = native

    @classmethod
    def load(cls, path: PathLike) -> "Images":
        """Reads an images file written by ``fimdup sketch`` or :meth:`save`."""
        return cls(_native.Images.load(_os.fspath(path)))

    def save(self, path: PathLike) -> None:
        """Writes an images file that ``fimdup cluster FILE`` reads."""
        self._n.save(_os.fspath(path))

    def __len__(self) -> int:
        return len(self._n)

    @property
    def ids(self) -> List[Any]:
        """The documents' ids, in order."""
        return self._n.ids()

    @property
    def lengths(self) -> "_np.ndarray":
        """Values per image (uint32); shorter than ``size`` for short documents."""
        return _np.frombuffer(self._n.lengths(), dtype=_np.uint32)

    @property
    def params(self) -> Dict[str, Any]:
        """The text, shingle and sketch parameters the images were made with."""
        return _json.loads(self._n.params_json())

    def to_numpy(self) -> "_np.ndarray":
        """A uint64 array of shape (n, size): row i holds ``lengths[i]`` values, then zeros."""
        lengths = self.lengths.astype(_np.int64)
        values = _np.frombuffer(self._n.values(), dtype=_np.uint64)
        width = max(self._n.size(), int(lengths.max()) if len(lengths) else 0)
        out = _np.zeros((len(lengths), width), dtype=_np.uint64)
        mask = _np.arange(width)[None, :] < lengths[:, None]
        out[mask] = values
        return out

    def __getitem__(self, i: int) -> "_np.ndarray":
        if i < 0:
            i += len(self)
        return _np.frombuffer(self._n.image(i), dtype=_np.uint64)

    def __repr__(self) -> str:
        return f"Images({len(self)} documents, size {self._n.size()})"


def sketch(
    texts: Any,
    ids: Any = None,
    *,
    scheme: Optional[str] = _PIPE["scheme"],
    size: int = _PIPE["size"],
    unit: str = _PIPE["unit"],
    shingle_len: Optional[int] = _PIPE["shingle_len"],
    offset: int = _PIPE["offset"],
    seed: int = _PIPE["seed"],
    html: bool = _PIPE["html"],
    keep_case: bool = _PIPE["keep_case"],
    stopwords: Optional[str] = _PIPE["stopwords"],
    stem: bool = _PIPE["stem"],
    tokenizer: str = _PIPE["tokenizer"],
    normalize: str = _PIPE["normalize"],
    lang: str = _PIPE["lang"],
    modulus: int = _PIPE["modulus"],
    weighting: Optional[str] = _PIPE["weighting"],
    b_bit: Optional[int] = _PIPE["b_bit"],
    format: Optional[str] = _CORPUS["format"],
    text_field: str = _CORPUS["text_field"],
    id_field: str = _CORPUS["id_field"],
    threads: Optional[int] = None,
) -> Images:
    """The images of the documents (``fimdup sketch``).

    ``scheme``: "bottom-k" (default), "k-mins", "one-permutation" or "mod-m"; ``size`` the
    image size; ``unit`` "word" or "char" shingles of ``shingle_len`` units (default 5 words
    or 9 characters). Canonical text as the command's flags say: ``tokenizer`` "unicode"
    (UAX #29 words), "alnum" or "whitespace"; ``normalize`` "none", "nfc" or "nfkc";
    ``lang`` the language of ``stem`` and of ``stopwords="lang"``. ``scheme="icws"`` samples
    the real-valued ``weighting`` ("bag" or "tfidf") by consistent weighted sampling;
    ``b_bit`` (1, 2, 4 or 8) keeps that many bits of each value of a positional image
    (b-bit minwise hashing).

    >>> imgs = fimdup.sketch(["a b c d e f g", "a b c d e f h"], size=16)
    >>> len(imgs), imgs.lengths.tolist()
    (2, [3, 3])
    """
    c = _corpus(texts, ids, format=format, text_field=text_field, id_field=id_field)
    return Images(_native.sketch(c, _sketch_json(_pick(locals(), _SKETCH_KEYS)), threads))


# ---------------------------------------------------------------------------------------
# Cluster


class Result:
    """What :func:`cluster` found: pairs, clusters and the summary."""

    def __init__(self, native: Any) -> None:
        self._n = native
        self._ids = native.ids()
        self._pairs: Optional[_pa.Table] = None
        self._clusters: Optional[List[List[Any]]] = None

    @property
    def pairs(self) -> "_pa.Table":
        """Columns a, b (ids), shared (int64), estimate, exact (float64); null where the
        method does not know the value. The rows of the command's ``pairs.csv``; with str
        ids in its order, with int ids (and positions) with a < b in numeric order."""
        if self._pairs is None:
            a, b, shared, est, exact = self._n.pairs()
            a = _np.frombuffer(a, dtype=_np.uint32)
            b = _np.frombuffer(b, dtype=_np.uint32)
            shared = _np.frombuffer(shared, dtype=_np.int64)
            est = _np.frombuffer(est, dtype=_np.float64)
            exact = _np.frombuffer(exact, dtype=_np.float64)
            if self._ids and isinstance(self._ids[0], int):
                # Int ids: the smaller id first, rows in numeric order (pairs.csv orders
                # ids as strings, where 10 comes before 9).
                num = _np.asarray(self._ids, dtype=_np.int64)
                swap = num[a] > num[b]
                a, b = _np.where(swap, b, a), _np.where(swap, a, b)
                order = _np.lexsort((num[b], num[a]))
                a, b, shared, est, exact = a[order], b[order], shared[order], est[order], exact[order]
            self._pairs = _pa.table(
                {
                    "a": _ids_column(self._ids, a),
                    "b": _ids_column(self._ids, b),
                    "shared": _pa.array(shared, mask=shared < 0, type=_pa.int64()),
                    "estimate": _pa.array(est, mask=_np.isnan(est), type=_pa.float64()),
                    "exact": _pa.array(exact, mask=_np.isnan(exact), type=_pa.float64()),
                }
            )
        return self._pairs

    def pairs_df(self) -> Any:
        """:attr:`pairs` as a pandas DataFrame (needs pandas)."""
        return self.pairs.to_pandas()

    @property
    def clusters(self) -> List[List[Any]]:
        """The clusters as lists of ids, in the order of the command's ``clusters.jsonl``."""
        if self._clusters is None:
            self._clusters = _clusters(self._ids, self._n.clusters())
        return self._clusters

    @property
    def summary(self) -> Dict[str, Any]:
        """The command's ``summary.json``: method, threshold, k, counts, phases, seconds."""
        return _json.loads(self._n.summary_json())

    def write(self, out_dir: PathLike) -> None:
        """Writes ``clusters.jsonl``, ``pairs.csv`` and ``summary.json`` as the command does."""
        self._n.write(_os.fspath(out_dir))

    def __repr__(self) -> str:
        s = self.summary
        return f"Result({s.get('method')}: {s.get('clusters')} clusters, {s.get('pairs')} pairs)"


def _job_opts(kw: Dict[str, Any]) -> str:
    return _json.dumps({k: (None if v is None else (_os.fspath(v) if isinstance(v, _os.PathLike) else v)) for k, v in kw.items()})


@_with_method_options
def cluster(
    texts: Any,
    ids: Any = None,
    *,
    method: str = _JOB["method"],
    threshold: Optional[float] = _JOB["threshold"],
    min_common: Optional[int] = _JOB["min_common"],
    measure: str = _JOB["measure"],
    verify: Optional[str] = _JOB["verify"],
    candidate_threshold: Optional[float] = _JOB["candidate_threshold"],
    max_df: Optional[int] = _JOB["max_df"],
    max_pairs: int = _JOB["max_pairs"],
    memory_budget: Optional[str] = _JOB["memory_budget"],
    tmp_dir: Optional[PathLike] = None,
    partitions: Optional[int] = _JOB["partitions"],
    explain_plan: bool = _JOB["explain_plan"],
    scheme: Optional[str] = _PIPE["scheme"],
    size: int = _PIPE["size"],
    unit: str = _PIPE["unit"],
    shingle_len: Optional[int] = _PIPE["shingle_len"],
    offset: int = _PIPE["offset"],
    seed: int = _PIPE["seed"],
    html: bool = _PIPE["html"],
    keep_case: bool = _PIPE["keep_case"],
    stopwords: Optional[str] = _PIPE["stopwords"],
    stem: bool = _PIPE["stem"],
    tokenizer: str = _PIPE["tokenizer"],
    normalize: str = _PIPE["normalize"],
    lang: str = _PIPE["lang"],
    modulus: int = _PIPE["modulus"],
    weighting: Optional[str] = _PIPE["weighting"],
    b_bit: Optional[int] = _PIPE["b_bit"],
    format: Optional[str] = _CORPUS["format"],
    text_field: str = _CORPUS["text_field"],
    id_field: str = _CORPUS["id_field"],
    threads: Optional[int] = None,
    **method_options: Any,
) -> Result:
    """Clusters of near-duplicate documents (``fimdup cluster``).

    ``method``: "concept" (maximal frequent itemsets: sets of documents sharing at least k
    image elements, no transitive chains), "union-find", "lsh", "super-shingle", "exact" or
    "simhash" (Charikar's fingerprints within Hamming distance ``hamming``).
    ``threshold`` is a resemblance (default 0.8), translated to each method's k;
    ``min_common`` gives k itself. ``verify="exact"`` keeps only the pairs whose exact
    resemblance passes the threshold. ``partitions`` fixes how many key ranges the context
    is built in (the same output for any count); ``explain_plan=True`` adds the memory plan
    to ``summary`` (``memory_plan``).

    >>> r = fimdup.cluster(["x y z w v u", "x y z w v u", "p q r s t"], shingle_len=3)
    >>> r.clusters, r.pairs.num_rows
    ([[0, 1]], 1)
    """
    c = _corpus(texts, ids, format=format, text_field=text_field, id_field=id_field)
    sk = _pick(locals(), _SKETCH_KEYS)
    job = _pick(locals(), _JOB_KEYS)
    job.update(_method_values("cluster", method_options))
    return Result(_native.cluster(c, _sketch_json(sk), _job_opts(job), threads))


# ---------------------------------------------------------------------------------------
# Dedup


class DedupResult:
    """What :func:`dedup` decided: which documents are kept, and why the others are not."""

    def __init__(self, native: Any) -> None:
        self._n = native
        self._ids = native.ids()

    @property
    def keep_mask(self) -> "_np.ndarray":
        """True for every kept document, in input order."""
        return _np.frombuffer(self._n.kept_mask(), dtype=_np.uint8).astype(bool)

    @property
    def kept_ids(self) -> List[Any]:
        """The ids of the kept documents, in input order."""
        m = self.keep_mask
        return [i for i, k in zip(self._ids, m) if k]

    @property
    def removed(self) -> "_pa.Table":
        """One row per removed document (the command's ``removed.csv``): id, the
        representative it resembles, the cluster holding both, the score and its kind
        ("exact" or "estimate"), and the reason."""
        rows = self._n.removed()
        ids = self._ids
        ints = bool(ids) and isinstance(ids[0], int)
        rep = [ids[d] if d is not None else (int(x) if ints and x is not None and x.lstrip("-").isdigit() else x)
               for (_, d, x, *_rest) in rows]
        id_type = _pa.int64() if ints and all(isinstance(r, int) for r in rep) else None
        if id_type is None and ints:
            rep = [str(r) for r in rep]
        return _pa.table(
            {
                "id": _pa.array([ids[r[0]] for r in rows], type=_pa.int64() if ints else _pa.string()),
                "representative": _pa.array(rep, type=id_type or _pa.string()),
                "cluster": _pa.array([r[3] for r in rows], type=_pa.int64()),
                "score": _pa.array([r[4] for r in rows], type=_pa.float64()),
                "score_kind": _pa.array([r[5] or None for r in rows], type=_pa.string()),
                "reason": _pa.array([r[6] for r in rows], type=_pa.string()),
            }
        )

    @property
    def clusters(self) -> List[List[Any]]:
        """The method's clusters, as lists of ids."""
        return _clusters(self._ids, self._n.clusters())

    @property
    def summary(self) -> Dict[str, Any]:
        """The command's ``summary.json`` (``kept_file`` is None: nothing was written)."""
        return _json.loads(self._n.summary_json())

    def __repr__(self) -> str:
        s = self.summary
        return f"DedupResult({s['documents']} documents, {s['kept']} kept, {s['removed']} removed)"


@_with_method_options
def dedup(
    texts: Any,
    ids: Any = None,
    *,
    keep: str = _DEDUP["keep"],
    keys: Optional[Sequence[Any]] = None,
    per_cluster: bool = _DEDUP["per_cluster"],
    against: Optional[PathLike] = _DEDUP["against"],
    method: str = _JOB["method"],
    threshold: Optional[float] = _JOB["threshold"],
    min_common: Optional[int] = _JOB["min_common"],
    measure: str = _JOB["measure"],
    verify: Optional[str] = _JOB["verify"],
    candidate_threshold: Optional[float] = _JOB["candidate_threshold"],
    max_df: Optional[int] = _JOB["max_df"],
    max_pairs: int = _JOB["max_pairs"],
    memory_budget: Optional[str] = _JOB["memory_budget"],
    tmp_dir: Optional[PathLike] = None,
    partitions: Optional[int] = _JOB["partitions"],
    scheme: Optional[str] = _PIPE["scheme"],
    size: int = _PIPE["size"],
    unit: str = _PIPE["unit"],
    shingle_len: Optional[int] = _PIPE["shingle_len"],
    offset: int = _PIPE["offset"],
    seed: int = _PIPE["seed"],
    html: bool = _PIPE["html"],
    keep_case: bool = _PIPE["keep_case"],
    stopwords: Optional[str] = _PIPE["stopwords"],
    stem: bool = _PIPE["stem"],
    tokenizer: str = _PIPE["tokenizer"],
    normalize: str = _PIPE["normalize"],
    lang: str = _PIPE["lang"],
    modulus: int = _PIPE["modulus"],
    weighting: Optional[str] = _PIPE["weighting"],
    b_bit: Optional[int] = _PIPE["b_bit"],
    format: Optional[str] = _CORPUS["format"],
    text_field: str = _CORPUS["text_field"],
    id_field: str = _CORPUS["id_field"],
    threads: Optional[int] = None,
    **method_options: Any,
) -> DedupResult:
    """Which documents to keep (``fimdup dedup``, without writing files).

    Documents are taken in keep order (``keep``: "first" = input order, "longest",
    "shortest", or "field:NAME[:asc|:desc]"); a document is kept unless it resembles an
    already kept one at the threshold, so every removed document names a kept document it
    resembles. With in-memory texts, ``keys`` (one number or str per text) is the field
    ``key``: ``keep="field:key:desc"`` keeps the largest key first.

    >>> d = fimdup.dedup(["x y z w v u", "x y z w v u", "p q r s t"], shingle_len=3)
    >>> d.keep_mask.tolist()
    [True, False, True]
    """
    c = _corpus(texts, ids, keys, format=format, text_field=text_field, id_field=id_field)
    sk = _pick(locals(), _SKETCH_KEYS)
    job = _pick(locals(), _JOB_KEYS)
    job.update(_method_values("dedup", method_options))
    d = dict(keep=keep, per_cluster=per_cluster, against=against)
    return DedupResult(_native.dedup(c, _sketch_json(sk), _job_opts(job), _job_opts(d), threads))


# ---------------------------------------------------------------------------------------
# Evaluate, sweep, report


def _pairs_of(x: Any) -> List[Tuple[str, str]]:
    if type(x).__module__.startswith("pandas"):
        x = _pa.Table.from_pandas(x, preserve_index=False)
    if isinstance(x, _pa.Table):
        a = x.column("a").to_pylist()
        b = x.column("b").to_pylist()
        return [(str(p), str(q)) for p, q in zip(a, b)]
    return [(str(p), str(q)) for p, q in x]


def _scores_of(x: Any) -> Optional[List[Optional[float]]]:
    """The score of every pair of a table of pairs, as ``fimdup eval`` reads a pair file's:
    the column ``score``, else the only column besides a and b, else the first number of
    ``exact``, ``estimate``, ``shared`` (``fimdup cluster``'s pairs.csv); None without one."""
    if type(x).__module__.startswith("pandas"):
        x = _pa.Table.from_pandas(x, preserve_index=False)
    if not isinstance(x, _pa.Table):
        return None
    cols = [c for c in x.column_names if c not in ("a", "b")]
    if "score" in cols:
        use = ["score"]
    elif len(cols) == 1:
        use = cols
    else:
        use = [c for c in ("exact", "estimate", "shared") if c in cols]
    if not use:
        return None
    out: List[Optional[float]] = []
    for vals in zip(*(x.column(c).to_pylist() for c in use)):
        score = None
        for v in vals:
            try:
                f = float(v)
            except (TypeError, ValueError):
                continue
            if f == f:
                score = f
                break
        out.append(score)
    return out


def _truth_arg(truth: Any, truth_format: str, truth_rule: Optional[str]) -> Any:
    if isinstance(truth, (str, _os.PathLike)):
        return _native.TruthArg.file(_os.fspath(truth), truth_format, truth_rule)
    if type(truth).__module__.startswith("pandas"):
        truth = _pa.Table.from_pandas(truth, preserve_index=False)
    if isinstance(truth, _pa.Table) and "label" in truth.column_names:
        labels = [bool(v) for v in truth.column("label").to_pylist()]
        listed = _pairs_of(truth)
        positives = [p for p, l in zip(listed, labels) if l]
        return _native.TruthArg.pairs(positives, listed)
    return _native.TruthArg.pairs(_pairs_of(truth), None)


def evaluate(
    pred: Any,
    truth: Any,
    *,
    labeled_only: bool = _EVAL["labeled_only"],
    truth_format: str = _TRUTH["truth_format"],
    truth_rule: Optional[str] = _TRUTH["truth_rule"],
    floor: float = _EVAL["floor"],
    examples: int = _EVAL["examples"],
    corpus: Optional[PathLike] = _EVAL["corpus"],
    truth_tokenizer: str = _EVAL["truth_tokenizer"],
    bootstrap: int = _EVAL["bootstrap"],
    bootstrap_seed: int = _EVAL["bootstrap_seed"],
    group_by: Optional[str] = _EVAL["group_by"],
    threads: Optional[int] = None,
) -> Dict[str, Any]:
    """The paper's five values, precision, recall, F1 and the false-duplicate clusters of a
    prediction against labeled pairs (``fimdup eval --json``).

    ``pred``: a :class:`Result` (its clusters), a table or DataFrame with columns a, b, a
    list of (a, b) tuples, a list of clusters (lists of ids), or a path to ``pairs.csv`` or
    ``clusters.jsonl``. ``truth``: a path (any truth ``fimdup eval`` reads), a list of
    duplicate pairs, or a table / DataFrame with columns a, b and an optional bool ``label``.

    ``corpus`` (``--corpus``): a JSONL corpus (``id``, ``text``) giving the exact
    resemblances (word 5-shingle Jaccard) of cluster pairs the truth does not score, for the
    false-cluster check (a cluster with a pair below ``floor`` is false; the ``examples``
    worst are listed). ``truth_tokenizer`` (``--truth-tokenizer``; needs ``corpus``): the
    words of those resemblances, all lowercased: ``"word"`` (runs of alphanumeric
    characters and ``_``), ``"alnum"`` (runs of alphanumeric characters and combining
    marks), ``"whitespace"`` (runs of non-whitespace, punctuation kept) or ``"unicode"``
    (UAX #29 words).

    ``bootstrap`` (``--bootstrap``): resamples for 95 % percentile intervals of precision,
    recall and F1 (the result gains ``precision_lo`` .. ``f1_hi`` and ``bootstrap``), of the
    documents of ``corpus`` (or without it those the truth and the prediction name), or with
    ``group_by`` (needs ``corpus``) of the groups that field of its records names; seeded by
    ``bootstrap_seed``.

    A scored prediction (a pair file, table or DataFrame with a ``score`` column, a single
    column besides a and b, or ``fimdup cluster``'s ``exact``/``estimate``/``shared``) also
    gets ``average_precision``: its pairs ranked by score, as ``fimdup eval`` ranks them.

    >>> fimdup.evaluate([("1", "2")], [("1", "2"), ("2", "3")])["recall"]
    0.5
    """
    t = _truth_arg(truth, truth_format, truth_rule)
    opts = _job_opts(dict(labeled_only=labeled_only, floor=floor, examples=examples, corpus=corpus,
                          truth_tokenizer=truth_tokenizer, bootstrap=bootstrap,
                          bootstrap_seed=bootstrap_seed, group_by=group_by))
    if isinstance(pred, Result):
        out = pred._n.evaluate(t, opts, threads)
    elif isinstance(pred, (str, _os.PathLike)):
        out = _native.evaluate(t, opts, path=_os.fspath(pred), threads=threads)
    elif isinstance(pred, list) and pred and isinstance(pred[0], list):
        out = _native.evaluate(t, opts, clusters=[[str(d) for d in c] for c in pred], threads=threads)
    else:
        out = _native.evaluate(t, opts, pairs=_pairs_of(pred), threads=threads, scores=_scores_of(pred))
    return _json.loads(out)


def _thresholds(thresholds: Any) -> str:
    if isinstance(thresholds, str):
        return thresholds
    return ",".join(repr(float(t)) for t in thresholds)


def _sweep(texts: Any, ids: Any, truth: Any, out_dir: Optional[PathLike], caller: str, kw: Dict[str, Any]) -> "SweepRows":
    threads = kw.pop("threads")
    tmp_dir = kw.pop("tmp_dir")
    fmt, text_field, id_field = kw.pop("format"), kw.pop("text_field"), kw.pop("id_field")
    truth_format, truth_rule = kw.pop("truth_format"), kw.pop("truth_rule")
    sk = _pick(kw, _SKETCH_KEYS)
    for k in sk:
        kw.pop(k)
    kw["methods"] = [kw["methods"]] if isinstance(kw["methods"], str) else list(kw["methods"])
    kw["cv_choose"] = [kw["cv_choose"]] if isinstance(kw["cv_choose"], int) else list(kw["cv_choose"])
    kw["shingle_lens"] = list(kw["shingle_lens"])
    kw["thresholds"] = _thresholds(kw["thresholds"])
    if kw["min_common"] is not None:
        kw["min_common"] = _thresholds(kw["min_common"])
    c = _corpus(texts, ids, format=fmt, text_field=text_field, id_field=id_field)
    with _tempfile.TemporaryDirectory(prefix="fimdup-truth-", dir=None if tmp_dir is None else _os.fspath(tmp_dir)) as d:
        if isinstance(truth, (str, _os.PathLike)):
            path = _os.fspath(truth)
        else:
            if type(truth).__module__.startswith("pandas"):
                truth = _pa.Table.from_pandas(truth, preserve_index=False)
            path = _os.path.join(d, "truth.csv")
            with open(path, "w", newline="", encoding="utf-8") as f:
                w = _csv.writer(f)
                if isinstance(truth, _pa.Table) and "label" in truth.column_names:
                    w.writerow(["a", "b", "label"])
                    labels = truth.column("label").to_pylist()
                    for (a, b), l in zip(_pairs_of(truth), labels):
                        w.writerow([a, b, int(bool(l))])
                    if truth_rule is None:
                        truth_rule = "label=1"
                else:
                    w.writerow(["a", "b"])
                    w.writerows(_pairs_of(truth))
        res = _native.sweep(c, path, _sketch_json(sk), _json.dumps(kw), truth_format, truth_rule,
                            None if out_dir is None else _os.fspath(out_dir), caller, threads)
    return SweepRows(_json.loads(res))


class SweepRows(list):
    """What :func:`sweep` and :func:`report` return: a list of rows, one dict per (shingle
    length,) method and threshold with the columns of ``results.csv`` (ready for
    ``pandas.DataFrame``), and the figures ``fimdup sweep --json`` prints beside them.

    ``methods``: the best row of every method (every (method, shingle length) with
    ``shingle_lens``), with ``best_at_grid_edge`` and ``suggest``. ``bootstrap`` and
    ``paired``: with ``bootstrap``, how it was made and the paired comparisons (else
    ``None``). ``cv``: with ``cv``, the cross-validation: ``rows`` (one per method and split:
    ``choose`` and ``report`` folds, the chosen ``shingle_len`` and ``threshold``, the
    report-set's ``test_f1``, ``report_best_f1`` tuned on the report-set, ``at_edge``...)
    and ``methods`` (``cv_f1``, ``min_f1``, ``max_f1``, ``by_choose``, ``report_tuned_f1``,
    ``pooled_f1``, ``tuned_f1``, ``splits_at_edge``, ``chosen``...), the fields of the
    command's JSON; else ``None``.

    With one shingle length, the curves (the report's ``prcurve.csv`` and ``scurve.csv``):

    - ``pr_curves``: per method (and scored external prediction), a dict with ``method``,
      ``threshold`` (the run whose pairs are ranked: the loosest of the grid), ``score`` (what
      the pairs are ranked by), ``pairs`` and ``curve``: ``positives``, ``average_precision``
      and ``points`` (``score``, ``found``, ``common``, ``precision``, ``recall`` per distinct
      score, highest first; ``score`` None for the unscored pairs' level).
    - ``s_curves``: per (method, threshold) run, a dict with ``method``, ``threshold``,
      ``model`` (the theoretical curve's formula, or None) and ``bins``: ``lo``, ``hi``,
      ``pairs`` (the truth's pairs of that exact resemblance), ``found``, ``fraction``,
      ``edges``, ``edge_fraction`` (found as an edge of the method, before grouping),
      ``theory`` and ``stderr`` (the mean of the model's probability of each pair, from its
      two shingle sets' sizes, and its Poisson-binomial standard error, a simulation's error
      included), ``simulation_stderr`` (that part of it) and ``remarks`` (why the bin lies
      outside the theory ± 3 standard errors, if it does). Empty with the containment measure
      or a grid of shingle lengths."""

    methods: List[Dict[str, Any]]
    bootstrap: Optional[Dict[str, Any]]
    paired: Optional[List[Dict[str, Any]]]
    cv: Optional[Dict[str, Any]]
    pr_curves: List[Dict[str, Any]]
    s_curves: List[Dict[str, Any]]

    def __init__(self, res: Dict[str, Any]) -> None:
        super().__init__(res["rows"])
        self.methods = res["methods"]
        self.bootstrap = res.get("bootstrap")
        self.paired = res.get("paired")
        self.cv = res.get("cv")
        curves = res.get("curves") or {}
        self.pr_curves = curves.get("pr", [])
        self.s_curves = curves.get("s", [])




def sweep(
    texts: Any,
    ids: Any,
    truth: Any,
    *,
    methods: Union[str, Sequence[str]] = tuple(_SWEEP["methods"]),
    thresholds: Union[str, Sequence[float]] = _SWEEP["thresholds"],
    min_common: Optional[Union[str, Sequence[int]]] = _SWEEP["min_common"],
    truth_format: str = _TRUTH["truth_format"],
    truth_rule: Optional[str] = _TRUTH["truth_rule"],
    verify: Optional[str] = _SWEEP["verify"],
    labeled_only: bool = _SWEEP["labeled_only"],
    floor: float = _SWEEP["floor"],
    truth_tokenizer: str = _SWEEP["truth_tokenizer"],
    max_df: Optional[int] = _SWEEP["max_df"],
    measure: str = _SWEEP["measure"],
    errors: int = _SWEEP["errors"],
    bootstrap: int = _SWEEP["bootstrap"],
    bootstrap_seed: int = _SWEEP["bootstrap_seed"],
    group_by: Optional[str] = _SWEEP["group_by"],
    cv: int = _SWEEP["cv"],
    cv_seed: int = _SWEEP["cv_seed"],
    cv_choose: Union[int, Sequence[int]] = tuple(_SWEEP["cv_choose"]),
    shingle_lens: Sequence[int] = tuple(_SWEEP["shingle_lens"]),
    repeats: int = _SWEEP["repeats"],
    repeat_seconds: float = _SWEEP["repeat_seconds"],
    scheme: Optional[str] = _PIPE["scheme"],
    size: int = _PIPE["size"],
    unit: str = _PIPE["unit"],
    shingle_len: Optional[int] = _PIPE["shingle_len"],
    offset: int = _PIPE["offset"],
    seed: int = _PIPE["seed"],
    html: bool = _PIPE["html"],
    keep_case: bool = _PIPE["keep_case"],
    stopwords: Optional[str] = _PIPE["stopwords"],
    stem: bool = _PIPE["stem"],
    tokenizer: str = _PIPE["tokenizer"],
    normalize: str = _PIPE["normalize"],
    lang: str = _PIPE["lang"],
    modulus: int = _PIPE["modulus"],
    weighting: Optional[str] = _PIPE["weighting"],
    b_bit: Optional[int] = _PIPE["b_bit"],
    format: Optional[str] = _CORPUS["format"],
    text_field: str = _CORPUS["text_field"],
    id_field: str = _CORPUS["id_field"],
    tmp_dir: Optional[PathLike] = None,
    threads: Optional[int] = None,
) -> "SweepRows":
    """Every method at every threshold, evaluated (``fimdup sweep``): one dict per (method,
    threshold) with the columns of ``results.csv`` (ready for ``pandas.DataFrame``), as a
    :class:`SweepRows`, which also holds the best row per method and the bootstrap's and the
    cross-validation's figures.

    ``thresholds``: "FROM:TO:STEP", a comma list, or a list of floats. ``truth_tokenizer``
    (``fimdup sweep --truth-tokenizer``): the words of the exact resemblances the
    false-cluster check computes from the corpus for pairs the truth gives none for, all
    lowercased: ``"word"`` (runs of alphanumeric characters and ``_``), ``"alnum"`` (runs of
    alphanumeric characters and combining marks), ``"whitespace"`` (runs of non-whitespace)
    or ``"unicode"`` (UAX #29 words). ``bootstrap`` (``--bootstrap``): resamples of the
    documents (or of the groups the ``group_by`` field or column of the records names) for 95 %
    intervals: each row gains ``precision_lo`` .. ``f1_hi``; seeded by ``bootstrap_seed``.
    ``cv`` (``--cv``): folds of the documents (or of the ``group_by`` groups), dealt by a
    hash seeded by ``cv_seed``, for the cross-validated F1 (the result's ``cv``); the rows
    are unchanged and :func:`report` writes the splits to ``cv.csv`` and the report's
    cross-validation table. ``cv_choose`` (``--cv-choose``): a number of folds M (or a list)
    to choose on, every such set of folds against the rest (default: each fold against all
    the others). ``shingle_lens`` (``--shingle-len 2,3,4,5``): a grid of two or more shingle
    lengths, each swept in turn (every row gains ``shingle_len``), chosen with the threshold
    by the cross-validation. ``repeats`` and ``repeat_seconds`` (``--repeats``,
    ``--repeat-seconds``): every sketch, shingle-set load and run is repeated up to
    ``repeats`` times, until its repetitions took ``repeat_seconds``; a row's ``seconds`` and
    ``peak_rss_bytes`` are the least of them, ``seconds_max`` and ``peak_rss_max_bytes`` the
    most, ``repeats`` their count.
    The list returned is a :class:`SweepRows`: it also holds the precision-recall curves of
    each method's scored pairs with their average precision (``pr_curves``) and the S-curves
    of the truth's pairs against each method's theory (``s_curves``).
    """
    kw = dict(locals())
    for k in ("texts", "ids", "truth"):
        kw.pop(k)
    return _sweep(texts, ids, truth, None, "Python: fimdup.sweep", kw)


def report(
    texts: Any,
    ids: Any,
    truth: Any,
    out_dir: PathLike,
    *,
    methods: Union[str, Sequence[str]] = tuple(_SWEEP["methods"]),
    thresholds: Union[str, Sequence[float]] = _SWEEP["thresholds"],
    min_common: Optional[Union[str, Sequence[int]]] = _SWEEP["min_common"],
    truth_format: str = _TRUTH["truth_format"],
    truth_rule: Optional[str] = _TRUTH["truth_rule"],
    verify: Optional[str] = _SWEEP["verify"],
    labeled_only: bool = _SWEEP["labeled_only"],
    floor: float = _SWEEP["floor"],
    truth_tokenizer: str = _SWEEP["truth_tokenizer"],
    max_df: Optional[int] = _SWEEP["max_df"],
    measure: str = _SWEEP["measure"],
    errors: int = _SWEEP["errors"],
    bootstrap: int = _SWEEP["bootstrap"],
    bootstrap_seed: int = _SWEEP["bootstrap_seed"],
    group_by: Optional[str] = _SWEEP["group_by"],
    cv: int = _SWEEP["cv"],
    cv_seed: int = _SWEEP["cv_seed"],
    cv_choose: Union[int, Sequence[int]] = tuple(_SWEEP["cv_choose"]),
    shingle_lens: Sequence[int] = tuple(_SWEEP["shingle_lens"]),
    repeats: int = _SWEEP["repeats"],
    repeat_seconds: float = _SWEEP["repeat_seconds"],
    scheme: Optional[str] = _PIPE["scheme"],
    size: int = _PIPE["size"],
    unit: str = _PIPE["unit"],
    shingle_len: Optional[int] = _PIPE["shingle_len"],
    offset: int = _PIPE["offset"],
    seed: int = _PIPE["seed"],
    html: bool = _PIPE["html"],
    keep_case: bool = _PIPE["keep_case"],
    stopwords: Optional[str] = _PIPE["stopwords"],
    stem: bool = _PIPE["stem"],
    tokenizer: str = _PIPE["tokenizer"],
    normalize: str = _PIPE["normalize"],
    lang: str = _PIPE["lang"],
    modulus: int = _PIPE["modulus"],
    weighting: Optional[str] = _PIPE["weighting"],
    b_bit: Optional[int] = _PIPE["b_bit"],
    format: Optional[str] = _CORPUS["format"],
    text_field: str = _CORPUS["text_field"],
    id_field: str = _CORPUS["id_field"],
    tmp_dir: Optional[PathLike] = None,
    threads: Optional[int] = None,
) -> "SweepRows":
    """:func:`sweep`, and the comparative report written into ``out_dir`` as ``fimdup sweep
    --out`` writes it (``report.html``, ``results.csv``, plots, error analysis)."""
    kw = dict(locals())
    for k in ("texts", "ids", "truth", "out_dir"):
        kw.pop(k)
    return _sweep(texts, ids, truth, out_dir, "Python: fimdup.report", kw)


# ---------------------------------------------------------------------------------------
# Mine


class Itemsets(list):
    """Frequent itemsets: a list of ``(items, support)`` tuples, items ascending, sets in
    ascending lexicographic order."""

    _raw: Tuple[bytes, bytes, bytes]

    def to_arrow(self) -> "_pa.Table":
        """A table with columns items (list<uint32>) and support (uint32)."""
        items, offsets, supports = self._raw
        items = _pa.array(_np.frombuffer(items, dtype=_np.uint32), type=_pa.uint32())
        offsets = _pa.array(_np.frombuffer(offsets, dtype=_np.uint64).astype(_np.int32), type=_pa.int32())
        return _pa.table(
            {
                "items": _pa.ListArray.from_arrays(offsets, items),
                "support": _pa.array(_np.frombuffer(supports, dtype=_np.uint32), type=_pa.uint32()),
            }
        )


def mine(
    transactions: Any,
    minsup: Union[int, float],
    *,
    target: str = _MINE["target"],
    max_itemsets: Optional[int] = _MINE["max_itemsets"],
    threads: Optional[int] = None,
) -> Itemsets:
    """Maximal (default), closed or all frequent itemsets (``fimdup mine``).

    ``transactions``: an iterable of iterables of non-negative ints (< 2**32), or a path
    to a FIMI file. ``minsup``: an int is a number of transactions, a float in (0, 1] a
    fraction of them. ``target``: "maximal", "closed", "all" (or pyfim's "m", "c", "s").

    >>> fimdup.mine([[1, 2, 3], [1, 2], [2, 3]], 2)
    [([1, 2], 2), ([2, 3], 2)]
    """
    if isinstance(minsup, bool) or not isinstance(minsup, (int, float, _np.integer, _np.floating)):
        raise TypeError(f"minsup must be an int (transactions) or a float (a fraction), not {type(minsup).__name__}")
    absolute = isinstance(minsup, (int, _np.integer))
    if isinstance(transactions, (str, _os.PathLike)):
        raw = _native.mine_file(_os.fspath(transactions), float(minsup), absolute, target, max_itemsets, threads)
    else:
        rows = [r if isinstance(r, (list, tuple, _np.ndarray)) else list(r) for r in transactions]
        lengths = _np.fromiter((len(r) for r in rows), dtype=_np.int64, count=len(rows))
        total = int(lengths.sum())
        try:
            items = _np.fromiter(_itertools.chain.from_iterable(rows), dtype=_np.int64, count=total)
        except (TypeError, ValueError, OverflowError):
            raise TypeError("transactions must hold non-negative ints") from None
        if total and (items.min() < 0 or items.max() > 0xFFFFFFFF):
            raise ValueError("items must be non-negative ints below 2**32")
        offsets = _np.zeros(len(rows) + 1, dtype=_np.uint64)
        _np.cumsum(lengths, out=offsets[1:])
        raw = _native.mine(items.astype("<u4").tobytes(), offsets.astype("<u8").tobytes(), float(minsup),
                           absolute, target, max_itemsets, threads)
    items, offsets, supports = raw
    it = _np.frombuffer(items, dtype=_np.uint32).tolist()
    off = _np.frombuffer(offsets, dtype=_np.uint64).tolist()
    sup = _np.frombuffer(supports, dtype=_np.uint32).tolist()
    out = Itemsets((it[off[i] : off[i + 1]], sup[i]) for i in range(len(sup)))
    out._raw = raw
    return out


# ---------------------------------------------------------------------------------------
# Index


class Index:
    """A persisted index (``fimdup index``): query documents against it, add sweeps.

    >>> idx = fimdup.Index.build(tmp / "idx", ["a b c d e f g h"], shingle_len=3)
    >>> idx.query(["a b c d e f g h"])[0][0]["estimate"]
    1.0
    >>> idx.add(["p q r s t u v"], ["new"])["added"]
    1
    """

    def __init__(self, path: PathLike) -> None:
        self._n = _native.Index(_os.fspath(path))
        self.last_report: Optional[Dict[str, Any]] = None

    @classmethod
    def build(
        cls,
        path: PathLike,
        texts: Any,
        ids: Any = None,
        *,
        threshold: float = _INDEX["threshold"],
        containment: bool = _INDEX["containment"],
        containment_modulus: int = _INDEX["containment_modulus"],
        keep_sources: bool = _INDEX["keep_sources"],
        tag: Optional[str] = None,
        scheme: Optional[str] = _PIPE["scheme"],
        size: int = _PIPE["size"],
        unit: str = _PIPE["unit"],
        shingle_len: Optional[int] = _PIPE["shingle_len"],
        offset: int = _PIPE["offset"],
        seed: int = _PIPE["seed"],
        html: bool = _PIPE["html"],
        keep_case: bool = _PIPE["keep_case"],
        stopwords: Optional[str] = _PIPE["stopwords"],
        stem: bool = _PIPE["stem"],
        tokenizer: str = _PIPE["tokenizer"],
        normalize: str = _PIPE["normalize"],
        lang: str = _PIPE["lang"],
        modulus: int = _PIPE["modulus"],
        format: Optional[str] = _CORPUS["format"],
        text_field: str = _CORPUS["text_field"],
        id_field: str = _CORPUS["id_field"],
        threads: Optional[int] = None,
    ) -> "Index":
        """Builds an index of the documents at ``path`` (``fimdup index build``; clusters
        kept at resemblance ``threshold``); the sweep's report is in ``.last_report``.
        ``keep_sources`` (``--keep-sources``; a corpus file only, in-memory texts are not
        kept) records where each document is, for ``query(..., exact=True)``."""
        if keep_sources and not isinstance(texts, _os.PathLike):
            raise ValueError("keep_sources needs a corpus file (a pathlib.Path): in-memory texts are not kept")
        c = _corpus(texts, ids, format=format, text_field=text_field, id_field=id_field)
        sk = _pick(locals(), _SKETCH_KEYS)
        n, rep = _native.Index.build(_os.fspath(path), c, _sketch_json(sk), threshold, containment,
                                     containment_modulus, keep_sources, tag, threads)
        self = cls.__new__(cls)
        self._n = n
        self.last_report = _json.loads(rep)
        return self

    def add(self, texts: Any, ids: Any = None, *, tag: Optional[str] = None,
            format: Optional[str] = _CORPUS["format"], text_field: str = _CORPUS["text_field"],
            id_field: str = _CORPUS["id_field"], threads: Optional[int] = None,
            batch: Optional[bool] = None) -> Dict[str, Any]:
        """Adds the documents as a new sweep (``fimdup index add``) and saves the index;
        returns the sweep's report (added, unchanged, merges, lost and found). ``batch``
        (``--batch``): the documents are a batch of new ones, not the full new sweep, so
        nothing is lost (absent: a full sweep)."""
        c = _corpus(texts, ids, format=format, text_field=text_field, id_field=id_field)
        self.last_report = _json.loads(self._n.add(c, tag, threads, bool(batch)))
        return self.last_report

    def remove(self, ids: Iterable[str]) -> Dict[str, Any]:
        """Marks every version of the external ids removed (``fimdup index remove``) and
        saves the index: queries, clusters and sweeps no longer see them, and the next merge
        drops them. Returns the report (removed, unknown ids, clusters, removed_total)."""
        if isinstance(ids, (str, bytes)):
            raise TypeError("ids must be an iterable of str, not a single str")
        ids = [str(i) for i in ids]
        if not ids:
            raise ValueError("give at least one external id to remove")
        self.last_report = _json.loads(self._n.remove(ids))
        return self.last_report

    def merge(self) -> Dict[str, Any]:
        """Merges every segment into one without the removed documents (``fimdup index
        merge``) and saves the index; returns the report (segments_before, segments_after,
        documents_rewritten)."""
        self.last_report = _json.loads(self._n.merge())
        return self.last_report

    def query(self, texts: Iterable[str], *, threshold: Optional[float] = _QUERY["threshold"],
              measure: str = _QUERY["measure"], top: Optional[int] = _QUERY["top"], lsh: bool = _QUERY["lsh"],
              exact: bool = _QUERY["exact"], threads: Optional[int] = None) -> List[List[Dict[str, Any]]]:
        """The indexed documents each text resembles at ``threshold`` or more (``measure``
        "containment": that contain it), best first (``fimdup index query``): dicts doc, id,
        estimate, exact. ``top`` keeps the best N; ``lsh`` takes the candidates from the LSH
        bands; ``exact`` (an index built with ``keep_sources``) computes the exact measure
        from the sources, else ``exact`` is None."""
        if isinstance(texts, (str, bytes)):
            raise TypeError("texts must be an iterable of str, not a single str")
        texts = list(texts)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"texts[{i}] is {type(t).__name__}: expected a str")
        if threshold is None:
            threshold = _QUERY["threshold"]
        hits = self._n.query(texts, threshold, measure, top, lsh, exact, threads)
        return [[{"doc": d, "id": e, "estimate": s, "exact": x} for (d, e, s, x) in h] for h in hits]

    def __len__(self) -> int:
        return len(self._n)

    @property
    def path(self) -> str:
        return _os.fspath(self._n.path)

    def __repr__(self) -> str:
        return f"Index({self.path!r}, {len(self)} documents)"
