"""Type stubs of the native module ``fimdup._fimdup`` (Rust, PyO3). The public API is in
``fimdup/__init__.py``; these are the calls it makes."""

from os import PathLike
from typing import Any, Dict, List, Optional, Tuple

__version__: str
__git_hash__: str

def defaults() -> Dict[str, Dict[str, Any]]:
    """The library's default of every option, by group (``corpus``, ``pipeline``, ``job``,
    ``dedup``, ``truth``, ``eval``, ``sweep``, ``index``, ``query``, ``context``, ``mine``,
    ``overlap``), keyed by the command's and the package's option names."""

class FormatError(ValueError):
    """Bad input: the message names the file (or ``<texts>``) and the line."""

    path: Optional[str]
    line: Optional[int]

class LimitError(RuntimeError):
    """A guard such as ``max_pairs`` or ``max_itemsets`` was hit."""

class Corpus:
    @staticmethod
    def from_arrow(stream: Any, ids_are_ints: bool) -> Corpus: ...
    @staticmethod
    def from_strs(texts: List[str], columns: Optional[Any], ids_are_ints: bool) -> Corpus: ...
    @staticmethod
    def from_path(
        path: str | PathLike[str],
        format: Optional[str],
        text_field: str,
        id_field: str,
    ) -> Corpus: ...
    def __len__(self) -> int: ...

class Images:
    @staticmethod
    def load(path: str) -> Images: ...
    def save(self, path: str) -> None: ...
    def __len__(self) -> int: ...
    def ids(self) -> List[Any]: ...
    def lengths(self) -> bytes: ...
    def values(self) -> bytes: ...
    def image(self, i: int) -> bytes: ...
    def params_json(self) -> str: ...
    def size(self) -> int: ...

class ClusterResult:
    def ids(self) -> List[Any]: ...
    def pairs(self) -> Tuple[bytes, bytes, bytes, bytes, bytes]: ...
    def clusters(self) -> Tuple[bytes, bytes, bytes, bytes]: ...
    def summary_json(self) -> str: ...
    def write(self, dir: str) -> None: ...
    def evaluate(self, truth: TruthArg, options: str, threads: Optional[int] = None) -> str:
        """``options``: JSON of the evaluation's options (``labeled_only``, ``floor``,
        ``examples``, ``corpus``, ``truth_tokenizer``; absent keys take the defaults)."""

class DedupResult:
    def ids(self) -> List[Any]: ...
    def kept_mask(self) -> bytes: ...
    def removed(
        self,
    ) -> List[Tuple[int, Optional[int], Optional[str], Optional[int], Optional[float], str, str]]: ...
    def clusters(self) -> Tuple[bytes, bytes, bytes, bytes]: ...
    def summary_json(self) -> str: ...

class TruthArg:
    @staticmethod
    def file(path: str, format: str, rule: Optional[str] = None) -> TruthArg: ...
    @staticmethod
    def pairs(
        positives: List[Tuple[str, str]], listed: Optional[List[Tuple[str, str]]] = None
    ) -> TruthArg: ...

class Index:
    def __init__(self, path: str) -> None: ...
    @staticmethod
    def build(
        path: str,
        corpus: Corpus,
        sketch: str,
        threshold: float,
        containment: bool,
        containment_modulus: int,
        keep_sources: bool,
        tag: Optional[str] = None,
        threads: Optional[int] = None,
    ) -> Tuple[Index, str]: ...
    def add(self, corpus: Corpus, tag: Optional[str] = None, threads: Optional[int] = None, batch: bool = False) -> str: ...
    def remove(self, ids: List[str]) -> str: ...
    def merge(self) -> str: ...
    def query(
        self,
        texts: List[str],
        threshold: float,
        measure: str,
        top: Optional[int],
        lsh: bool,
        exact: bool,
        threads: Optional[int] = None,
    ) -> List[List[Tuple[int, str, float, Optional[float]]]]: ...
    def __len__(self) -> int: ...
    @property
    def path(self) -> str: ...
    def info(self) -> dict: ...

def sketch(corpus: Corpus, sketch: str, threads: Optional[int] = None) -> Images: ...
def cluster(corpus: Corpus, sketch: str, job: str, threads: Optional[int] = None) -> ClusterResult: ...
def dedup(
    corpus: Corpus, sketch: str, job: str, dedup: str, threads: Optional[int] = None
) -> DedupResult: ...
def evaluate(
    truth: TruthArg,
    options: str,
    pairs: Optional[List[Tuple[str, str]]] = None,
    clusters: Optional[List[List[str]]] = None,
    path: Optional[str] = None,
    threads: Optional[int] = None,
    scores: Optional[List[Optional[float]]] = None,
) -> str: ...
def sweep(
    corpus: Corpus,
    truth: str,
    sketch: str,
    sweep: str,
    truth_format: str,
    truth_rule: Optional[str] = None,
    out_dir: Optional[str] = None,
    caller: Optional[str] = None,
    threads: Optional[int] = None,
) -> str: ...
def mine(
    items: bytes,
    offsets: bytes,
    minsup: float,
    absolute: bool,
    target: str,
    max_itemsets: Optional[int],
    threads: Optional[int] = None,
) -> Tuple[bytes, bytes, bytes]: ...
def mine_file(
    path: str,
    minsup: float,
    absolute: bool,
    target: str,
    max_itemsets: Optional[int],
    threads: Optional[int] = None,
) -> Tuple[bytes, bytes, bytes]: ...
