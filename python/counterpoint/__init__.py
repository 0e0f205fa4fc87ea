# SPDX-License-Identifier: GPL-3.0-or-later
"""counterpoint: test processor models against hardware event counters.

A ctypes binding over libcounterpoint.so (no compiled extension).  It
loads the library from $COUNTERPOINT_LIB, else from the source tree it
sits in (build/libcounterpoint.so.0), else from beside the package (the
lib folder `make install` fills: PREFIX/lib), else from pkg-config's
libdir for counterpoint, else by the system's search.

    import counterpoint as cp
    model = cp.Model("models/examples/walk_basic.udd")
    model.cone().facets                # the exact constraints
    data = cp.Dataset("walks.csv")     # or cp.Dataset.from_frame(df)
    verdicts = model.check(data)
    verdicts.to_frame()                # a pandas DataFrame (or dicts)
    verdicts.violations()              # one row per violated constraint

Errors raise counterpoint.Error (a library error, with the file, line
and column it names, and the source excerpt in .detail); a missing file
is also a FileNotFoundError, bad input also a ValueError.
"""

from __future__ import annotations

import collections
import ctypes
import errno as _errno
import json
import math
import os
import shutil
import subprocess
from typing import (Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence,
                    Tuple, Union)

__version__ = "0.2.0"

__all__ = ["Error", "InputError", "FileError", "MissingFileError", "AccessError", "Model", "Dataset", "Cone", "Constraint",
           "Signature", "Path", "Verdict", "Verdicts", "Violation", "Region", "Regions",
           "Flows", "check", "version", "library_path"]

Features = Union[None, str, Sequence[str]]
PathLike = Union[str, bytes, "os.PathLike[str]"]

# ---- the library ----------------------------------------------------------

_HERE = os.path.dirname(os.path.abspath(__file__))
_SONAME = "libcounterpoint.so.0"


def _pkg_config_libdir() -> Optional[str]:
    tool = shutil.which("pkg-config")
    if not tool:
        return None
    try:
        out = subprocess.run([tool, "--variable=libdir", "counterpoint"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    libdir = out.stdout.decode(errors="replace").strip()
    return libdir if out.returncode == 0 and libdir else None


def _candidates() -> Iterator[str]:
    env = os.environ.get("COUNTERPOINT_LIB")
    if env:
        yield env
        return
    # the source tree: python/counterpoint -> build/
    yield os.path.join(_HERE, "..", "..", "build", _SONAME)
    # installed beside it: PREFIX/lib/pythonX.Y/site-packages/counterpoint
    # (or dist-packages, or a venv's) -> PREFIX/lib
    up = _HERE
    for _ in range(4):
        up = os.path.dirname(up)
        yield os.path.join(up, _SONAME)
        yield os.path.join(up, "lib", _SONAME)
    libdir = _pkg_config_libdir()
    if libdir:
        yield os.path.join(libdir, _SONAME)
    yield _SONAME


def _load() -> Tuple[ctypes.CDLL, str]:
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path), os.path.normpath(path) if os.sep in path else path
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    raise ImportError("cannot load %s: not in the source tree, beside the package, in "
                      "pkg-config's libdir for counterpoint, or on the system's search "
                      "path (set COUNTERPOINT_LIB to its path): %s"
                      % (_SONAME, "; ".join(errors) or "not found"))


_lib, library_path = _load()

_p = ctypes.c_void_p
_s = ctypes.c_char_p
_z = ctypes.c_size_t
_i = ctypes.c_int
_d = ctypes.c_double
_u64 = ctypes.c_uint64
_pu32 = ctypes.POINTER(ctypes.c_uint32)
_pi64 = ctypes.POINTER(ctypes.c_int64)
_pd = ctypes.POINTER(ctypes.c_double)


class _CpError(ctypes.Structure):
    # common/cp.h's struct cp_error; its size is checked against the library's
    _fields_ = [("code", ctypes.c_int), ("file", ctypes.c_char * 256),
                ("line", ctypes.c_uint), ("col", ctypes.c_uint),
                ("msg", ctypes.c_char * 1024), ("detail", ctypes.c_char * 1024)]


_PATH_FN = ctypes.CFUNCTYPE(_i, _p, _s, _s, _pu32)
_ERR = ctypes.POINTER(_CpError)

_SIGNATURES = {
    # name: (result type, argument types)
    "cp_version": (_s, []),
    "cp_code_str": (_s, [_i]),
    "cp_error_format": (None, [_ERR, _s, _z]),
    "counterpoint_error_size": (_z, []),
    "counterpoint_free": (None, [_p]),
    "counterpoint_constraint_text": (_p, [_pi64, _z, ctypes.POINTER(_s), _i]),
    "counterpoint_check": (_i, [_p, _s, _p, _i, _d, _z, _i, _s, _z, ctypes.POINTER(_p), _ERR]),
    "counterpoint_run_borderline": (_i, [_p, _z]),
    "counterpoint_run_undecided": (_i, [_p, _z]),
    "counterpoint_run_d2": (_d, [_p, _z]),
    "counterpoint_run_p_value": (_d, [_p, _z]),
    "counterpoint_run_margin": (_d, [_p, _z, _z]),
    "counterpoint_run_mean_sd": (_d, [_p, _z, _z]),
    "counterpoint_run_is_equality": (_i, [_p, _z, _z]),
    "counterpoint_run_coefficients": (_pi64, [_p, _z, _z]),
    "counterpoint_run_n_counters": (_z, [_p]),
    "counterpoint_run_counter": (_s, [_p, _z]),
    "counterpoint_regions": (_i, [_p, _p, _i, _d, _z, _i, _s, _z, ctypes.POINTER(_p), _ERR]),
    "counterpoint_region_array": (_pd, [_p, _z, _i]),
    "counterpoint_region_number": (_d, [_p, _z, _i]),
    "counterpoint_explore": (_i, [_p, _p, _s, _s, _i, _z, _z, ctypes.POINTER(_p), _ERR]),
    "counterpoint_flows": (_i, [_p, _s, _p, _i, _d, _z, _z, _s, _s, ctypes.POINTER(_p), _ERR]),
    "pipe_data_free": (None, [_p]),
    "pipe_data_n_observations": (_z, [_p]),
    "pipe_data_n_counters": (_z, [_p]),
    "pipe_data_names": (ctypes.POINTER(_s), [_p]),
    "pipe_data_unusable": (_s, [_p, _z]),
    "pipe_run": (_i, [_s, _s, _s, _p, _z, ctypes.POINTER(_p), _ERR]),
    "pipe_run_free": (None, [_p]),
    "pipe_run_n_observations": (_z, [_p]),
    "pipe_run_observation": (_s, [_p, _z]),
    "pipe_run_verdict": (_i, [_p, _z]),
    "pipe_run_unusable": (_s, [_p, _z]),
    "pipe_run_n_violations": (_z, [_p, _z]),
    "pipe_run_violation": (_s, [_p, _z, _z]),
    "udd_model_parse_file": (_i, [_s, ctypes.POINTER(_p), _ERR]),
    "udd_model_parse_string": (_i, [_s, _s, _z, ctypes.POINTER(_p), _ERR]),
    "udd_model_free": (None, [_p]),
    "udd_model_n_diagnostics": (_z, [_p]),
    "udd_model_diagnostic": (_s, [_p, _z]),
    "udd_model_file": (_s, [_p]),
    "udd_model_n_counters": (_z, [_p]),
    "udd_model_counter_name": (_s, [_p, _z]),
    "udd_model_counter_event": (_s, [_p, _z]),
    "udd_model_n_features": (_z, [_p]),
    "udd_model_feature_name": (_s, [_p, _z]),
    "udd_model_feature_doc": (_s, [_p, _z]),
    "udd_model_n_uops": (_z, [_p]),
    "udd_model_uop_name": (_s, [_p, _z]),
    "udd_model_select": (_i, [_p, _s, ctypes.POINTER(_u64), _ERR]),
    "udd_model_each_path": (_i, [_p, _u64, _PATH_FN, _p, _ERR]),
    "udd_sigset_build": (_i, [_p, _u64, _z, ctypes.POINTER(_p), _ERR]),
    "udd_sigset_free": (None, [_p]),
    "udd_sigset_n_counters": (_z, [_p]),
    "udd_sigset_size": (_z, [_p]),
    "udd_sigset_counter_name": (_s, [_p, _z]),
    "udd_sigset_signature": (_pu32, [_p, _z]),
    "udd_sigset_matrix": (_pu32, [_p]),
    "udd_sigset_multiplicity": (_u64, [_p, _z]),
    "udd_sigset_uop": (_s, [_p, _z]),
    "udd_sigset_uop_count": (_z, [_p, _z]),
    "udd_sigset_uop_name": (_s, [_p, _z, _z]),
    "udd_sigset_uop_paths": (_u64, [_p, _z, _z]),
    "udd_sigset_example": (_s, [_p, _z]),
    "cone_build": (_i, [_z, _z, _pu32, _p, ctypes.POINTER(_p), _ERR]),
    "cone_free": (None, [_p]),
    "cone_dim": (_z, [_p]),
    "cone_n_equalities": (_z, [_p]),
    "cone_equality": (_pi64, [_p, _z]),
    "cone_n_facets": (_z, [_p]),
    "cone_facet": (_pi64, [_p, _z]),
    "cone_signature_is_extreme": (_i, [_p, _z]),
    "stats_dataset_load": (_i, [_s, ctypes.POINTER(_p), _ERR]),
    "stats_dataset_parse": (_i, [_s, _s, _z, ctypes.POINTER(_p), _p, _ERR]),
    "stats_dataset_free": (None, [_p]),
    "stats_dataset_n_observations": (_z, [_p]),
    "stats_dataset_observation": (_s, [_p, _z]),
    "stats_dataset_n_events": (_z, [_p]),
    "stats_dataset_event": (_s, [_p, _z]),
    "stats_dataset_n_intervals": (_z, [_p, _z]),
}
for _name, (_res, _args) in _SIGNATURES.items():
    _f = getattr(_lib, _name)
    _f.restype = _res
    _f.argtypes = _args

if _lib.counterpoint_error_size() != ctypes.sizeof(_CpError):
    raise ImportError("libcounterpoint's struct cp_error is %d bytes, this binding's %d"
                      % (_lib.counterpoint_error_size(), ctypes.sizeof(_CpError)))


def version() -> str:
    """The library's version ("0.2.0")."""
    return _lib.cp_version().decode()


# ---- optional: pandas -------------------------------------------------------

def _pandas() -> Any:
    """pandas when it can be imported, else None (results are then lists
    of dicts)."""
    try:
        import pandas
    except ImportError:
        return None
    return pandas


def _table(rows: List[Dict[str, Any]], columns: Sequence[str]) -> Any:
    pd = _pandas()
    if pd is None:
        return rows
    return pd.DataFrame(rows, columns=list(columns))


# ---- errors ---------------------------------------------------------------

def _str(b: Optional[bytes]) -> Optional[str]:
    # names are bytes in the library; not every one is UTF-8
    return b.decode("utf-8", "surrogateescape") if b is not None else None


def _bytes(s: Any) -> Optional[bytes]:
    if s is None:
        return None
    if isinstance(s, bytes):
        return s
    return os.fsencode(s) if isinstance(s, os.PathLike) else str(s).encode(
        "utf-8", "surrogateescape")


CP_ENOMEM, CP_EIO, CP_ESYNTAX, CP_ESEMANTIC, CP_EINPUT = -1, -2, -3, -4, -5
CP_EPERM = -10
CP_LINE = 1024 + 400


class Error(Exception):
    """A library error: .code (negative, stable: common/cp.h), .kind (its
    description), .message (the library's text, "file:line:col: message"),
    .file, .line, .col, .detail (a source excerpt with a caret, or more bad
    rows) and .diagnostics (every diagnostic of a model that failed to
    compile).  Subclasses say what kind: InputError (also a ValueError),
    FileError (also an OSError; FileNotFoundError or PermissionError when
    that is what happened)."""

    def __init__(self, message: str, code: int = CP_EINPUT, file: Optional[str] = None,
                 line: Optional[int] = None, col: Optional[int] = None,
                 detail: str = "", diagnostics: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.kind = _str(_lib.cp_code_str(code))
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.detail = detail
        self.diagnostics = list(diagnostics)

    def __str__(self) -> str:
        return self.message + ("\n" + self.detail.rstrip("\n") if self.detail else "")


class InputError(Error, ValueError):
    """Bad input: a model that does not compile, a malformed dataset, an
    option the library refuses (codes CP_ESYNTAX, CP_ESEMANTIC, CP_EINPUT)."""


class FileError(Error, OSError):
    """A file that could not be read or written (CP_EIO, CP_EPERM)."""

    def __str__(self) -> str:
        return Error.__str__(self)


class MissingFileError(FileError, FileNotFoundError):
    """No such file: a FileError, and a FileNotFoundError (errno ENOENT)."""


class AccessError(FileError, PermissionError):
    """Permission denied: a FileError, and a PermissionError (errno EACCES)."""


def _error(err: _CpError, diagnostics: Iterable[str] = (), path: Any = None) -> Error:
    """The exception for a library error; path, the file the call was
    given, tells a missing file from another failure to read it."""
    buf = ctypes.create_string_buffer(CP_LINE)
    _lib.cp_error_format(ctypes.byref(err), buf, CP_LINE)
    args = dict(code=err.code, file=_str(err.file) or None, line=err.line or None,
                col=err.col or None, detail=_str(err.detail) or "", diagnostics=diagnostics)
    message = _str(buf.value) or ""
    cls = Error
    if err.code in (CP_ESYNTAX, CP_ESEMANTIC, CP_EINPUT):
        cls = InputError
    elif err.code in (CP_EIO, CP_EPERM):
        cls = FileError
        if path is not None and not os.path.exists(os.fsdecode(_bytes(path) or b"")):
            cls = MissingFileError
        elif err.code == CP_EPERM:
            cls = AccessError
    e = cls(message, **args)
    if isinstance(e, OSError):
        e.errno = {MissingFileError: _errno.ENOENT, AccessError: _errno.EACCES}.get(cls)
        e.strerror = message
        e.filename = os.fsdecode(_bytes(path)) if path is not None else args["file"]
    return e


def _call(fn: Any, *args: Any, diagnostics: Any = None, path: Any = None) -> int:
    err = _CpError()
    rc = fn(*args, ctypes.byref(err))
    if rc < 0:
        raise _error(err, diagnostics() if diagnostics else (), path)
    return rc


def _take_string(ptr: Optional[int]) -> str:
    # a char * of this layer's, the caller's to free
    if not ptr:
        raise MemoryError("out of memory in libcounterpoint")
    try:
        return _str(ctypes.string_at(ptr)) or ""
    finally:
        _lib.counterpoint_free(ptr)


def _feature_list(features: Features) -> Optional[bytes]:
    if features is None:
        return None
    if isinstance(features, (str, bytes)):
        return _bytes(features)
    return _bytes(",".join(features))


# ---- results --------------------------------------------------------------

Signature = collections.namedtuple("Signature", "uop paths vector uops example")
Signature.__doc__ = """A distinct counter signature: the uop of its example
path, how many μpaths have it, its counts (in Model.counter_names order in
.vector), the μpaths per uop, and one example μpath as text."""
Path = collections.namedtuple("Path", "uop path vector")
Constraint = collections.namedtuple("Constraint", "coefficients text equality")
Constraint.__doc__ = """coefficients . x >= 0 (= 0 for an equality) over the
cone's counters, with the text people read ("a <= b")."""
Violation = collections.namedtuple("Violation",
                                   "constraint margin equality coefficients centre")
Violation.__doc__ = """A constraint the whole region breaks: its text, the
margin in standard deviations of a.x, whether it is an equality, its
coefficients (counter -> coefficient, non-zero ones) and where the region's
centre lies (a.mu in standard deviations of a.x)."""
Verdict = collections.namedtuple(
    "Verdict", "observation verdict reason borderline undecided d2 p_value violations")
Verdict.__doc__ = """One observation's verdict: "feasible", "infeasible" or
"unusable" (then reason says why); borderline (settled in exact
arithmetic); undecided (borderline and its exact re-check could not run:
the verdict is the floating-point one, not proven); the ellipsoid's d2 and
p_value (None for boxes); violations, the largest margin first."""


class Verdicts(List[Verdict]):
    """The verdicts of a check, one per observation in the dataset's order
    (a list of Verdict), with tables: to_frame() (one row per observation)
    and violations() (one per violated constraint)."""

    def to_frame(self) -> Any:
        """A pandas DataFrame (a list of dicts without pandas): observation,
        verdict, reason, borderline, undecided, d2, p_value, violations (how
        many) and largest_margin (sd)."""
        rows = [{"observation": v.observation, "verdict": v.verdict, "reason": v.reason,
                 "borderline": v.borderline, "undecided": v.undecided, "d2": v.d2,
                 "p_value": v.p_value, "violations": len(v.violations),
                 "largest_margin": max((x.margin for x in v.violations), default=None)}
                for v in self]
        return _table(rows, ["observation", "verdict", "reason", "borderline", "undecided",
                             "d2", "p_value", "violations", "largest_margin"])

    def violations(self) -> Any:
        """One row per (observation, violated constraint): observation,
        constraint, margin (sd), centre (sd), equality, coefficients (a
        dict); a DataFrame, or a list of dicts without pandas."""
        rows = [{"observation": v.observation, "constraint": x.constraint,
                 "margin": x.margin, "centre": x.centre, "equality": x.equality,
                 "coefficients": x.coefficients}
                for v in self for x in v.violations]
        return _table(rows, ["observation", "constraint", "margin", "centre", "equality",
                             "coefficients"])

    def __repr__(self) -> str:
        count = collections.Counter(v.verdict for v in self)
        return "<counterpoint.Verdicts: %s, %d feasible, %d infeasible, %d unusable>" % (
            _n(len(self), "observation", "observations"), count["feasible"],
            count["infeasible"], count["unusable"])


_VERDICTS = ("feasible", "infeasible", "unusable")
_SHAPES = {"pca": 0, "independent": 1, "ellipsoid": 2}


def _region_args(data: Any, region: str, batches: Union[str, int]) -> Tuple["Dataset", int]:
    """data as a Dataset and batches as the library's count, both checked."""
    data = Dataset._of(data)
    if region not in _SHAPES:
        raise InputError("region is one of %s, not %r" % (", ".join(_SHAPES), region))
    b = {"auto": 0, "none": 1}.get(batches, batches) if isinstance(batches, str) else batches
    if not isinstance(b, int) or isinstance(b, bool) or b < 0:
        raise InputError("batches: 'auto', 'none' or a count, not %r" % (batches,))
    return data, b


def _n(count: int, one: str, many: str) -> str:
    """"1 facet", "2 facets"."""
    return "%d %s" % (count, one if count == 1 else many)


def _num(x: float) -> Optional[float]:
    return None if math.isnan(x) else x


def _verdicts(run: Any) -> Verdicts:
    out = Verdicts()
    n = _lib.pipe_run_n_observations(run)
    k = _lib.counterpoint_run_n_counters(run)
    names = [_str(_lib.counterpoint_run_counter(run, c)) for c in range(k)]
    for i in range(n):
        verdict = _VERDICTS[_lib.pipe_run_verdict(run, i)]
        viols = []
        for j in range(_lib.pipe_run_n_violations(run, i)):
            text = _str(_lib.pipe_run_violation(run, i, j))
            a = _lib.counterpoint_run_coefficients(run, i, j)
            viols.append(Violation(text, _lib.counterpoint_run_margin(run, i, j),
                                   bool(_lib.counterpoint_run_is_equality(run, i, j)),
                                   {names[c]: a[c] for c in range(k) if a[c]},
                                   _lib.counterpoint_run_mean_sd(run, i, j)))
        usable = verdict != "unusable"
        out.append(Verdict(
            _str(_lib.pipe_run_observation(run, i)), verdict,
            _str(_lib.pipe_run_unusable(run, i)),
            bool(_lib.counterpoint_run_borderline(run, i)) if usable else None,
            bool(_lib.counterpoint_run_undecided(run, i)) if usable else None,
            _num(_lib.counterpoint_run_d2(run, i)) if usable else None,
            _num(_lib.counterpoint_run_p_value(run, i)) if usable else None,
            viols))
    return out


def check(model: PathLike, data: PathLike, features: Features = None,
          threads: int = 0) -> Verdicts:
    """The whole pipeline in one call, as `counterpoint check MODEL DATA
    --with FEATURES` with its defaults: the Verdicts, one per
    observation."""
    for path in (model, data):
        if not os.path.exists(os.fsdecode(_bytes(path) or b"")):
            raise _missing(path)
    run = _p()
    _call(_lib.pipe_run, _bytes(model), _feature_list(features), _bytes(data), None,
          threads, ctypes.byref(run))
    try:
        return _verdicts(run)
    finally:
        _lib.pipe_run_free(run)


def _missing(path: Any) -> Error:
    name = os.fsdecode(_bytes(path) or b"")
    e = MissingFileError("cannot open '%s': %s" % (name, os.strerror(_errno.ENOENT)),
                     code=CP_EIO, file=name)
    e.errno, e.strerror, e.filename = _errno.ENOENT, os.strerror(_errno.ENOENT), name
    return e


class Region:
    """One observation's confidence region on the model's counters (as
    `counterpoint region --model` builds it, every shape): .observation,
    .counters, .mean, .half_independent (the independent box), .half_pca
    and .pca_axes (the PCA box: half-widths ascending, one axis a row),
    .covariance (of the mean), .samples, .q (the ellipsoid's quantile),
    .confidence, .diagonal (too few samples for the full covariance),
    .may_be_small (autocorrelated and short); an unusable observation has
    only .reason."""

    def __init__(self, observation: str, counters: List[str], reason: Optional[str] = None,
                 **numbers: Any) -> None:
        self.observation = observation
        self.counters = counters
        self.reason = reason
        self.mean: Optional[List[float]] = numbers.get("mean")
        self.half_independent: Optional[List[float]] = numbers.get("half_independent")
        self.half_pca: Optional[List[float]] = numbers.get("half_pca")
        self.pca_axes: Optional[List[List[float]]] = numbers.get("pca_axes")
        self.covariance: Optional[List[List[float]]] = numbers.get("covariance")
        self.samples: Optional[int] = numbers.get("samples")
        self.q: Optional[float] = numbers.get("q")
        self.confidence: Optional[float] = numbers.get("confidence")
        self.diagonal: Optional[bool] = numbers.get("diagonal")
        self.may_be_small: Optional[bool] = numbers.get("may_be_small")

    @property
    def usable(self) -> bool:
        return self.reason is None

    def __repr__(self) -> str:
        if not self.usable:
            return "<counterpoint.Region %r: unusable (%s)>" % (self.observation, self.reason)
        return "<counterpoint.Region %r: %s, %s, confidence %g>" % (
            self.observation, _n(len(self.counters), "counter", "counters"),
            _n(self.samples or 0, "sample", "samples"), self.confidence or 0)


class Regions(List[Region]):
    """The regions of every observation (a list of Region), with
    to_frame(): one row per (observation, counter)."""

    def to_frame(self) -> Any:
        """observation, counter, mean, sd (of the mean), half_independent,
        lo and hi (the independent box), samples, confidence; a pandas
        DataFrame, or a list of dicts without pandas.  Unusable
        observations have one row, with their reason."""
        rows = []
        for r in self:
            if not r.usable:
                rows.append({"observation": r.observation, "reason": r.reason})
                continue
            for j, c in enumerate(r.counters):
                m, h = r.mean[j], r.half_independent[j]          # type: ignore[index]
                rows.append({"observation": r.observation, "counter": c, "mean": m,
                             "sd": math.sqrt(max(r.covariance[j][j], 0.0)),  # type: ignore[index]
                             "half_independent": h, "lo": m - h, "hi": m + h,
                             "samples": r.samples, "confidence": r.confidence,
                             "reason": None})
        return _table(rows, ["observation", "counter", "mean", "sd", "half_independent",
                             "lo", "hi", "samples", "confidence", "reason"])

    def __repr__(self) -> str:
        return "<counterpoint.Regions: %s, %d unusable>" % (
            _n(len(self), "observation", "observations"), sum(not r.usable for r in self))


class Flows(Dict[str, Any]):
    """The report of `counterpoint flows --json` (docs/manual/json.md,
    docs/method/checking.md) as a dict, with to_frame(): one row per
    (observation, uop, feature)."""

    def to_frame(self) -> Any:
        """observation, status, uop, feature, then each bound as _lo and _hi
        columns (rate, share, ...) and the other fields as they are; a pandas
        DataFrame, or a list of dicts without pandas.  An observation with no
        bounds has one row, with its status."""
        rows: List[Dict[str, Any]] = []
        columns: List[str] = ["observation", "status", "uop", "feature"]
        entries = [(o, uop, feature, entry) for o in self.get("observations", [])
                   for uop, feats in (o.get("uops") or {}).items()
                   for feature, entry in feats.items()]
        # the bounds: fields that are [lo, hi] somewhere (null where undefined)
        pairs = {key for _, _, _, entry in entries for key, value in entry.items()
                 if isinstance(value, list) and len(value) == 2}
        for o in self.get("observations", []):
            if not o.get("uops"):
                rows.append({"observation": o["name"], "status": o["status"]})
            for _, uop, feature, entry in (e for e in entries if e[0] is o):
                row = {"observation": o["name"], "status": o["status"], "uop": uop,
                       "feature": feature}
                for key, value in entry.items():
                    if key in pairs:
                        row[key + "_lo"], row[key + "_hi"] = value or (None, None)
                    else:
                        row[key] = value
                for key in row:
                    if key not in columns:
                        columns.append(key)
                rows.append(row)
        return _table(rows, columns)

    def __repr__(self) -> str:
        return "<counterpoint.Flows of %s: %s, %s>" % (
            ",".join(self.get("features", [])),
            _n(len(self.get("observations", [])), "observation", "observations"),
            ", ".join("%d %s" % (v, k) for k, v in self.get("summary", {}).items()
                      if k != "observations"))


# ---- datasets -------------------------------------------------------------

def _csv(field: Any) -> str:
    field = str(field)
    if any(c in field for c in ",\"\n\r"):
        raise InputError("a name in a dataset holds no comma, quote or newline: %r" % field)
    return field


def _count(v: Any) -> str:
    if isinstance(v, bool):
        raise InputError("a count is a number, not %r" % (v,))
    if isinstance(v, int):
        return str(v)
    v = float(v)
    return str(int(v)) if v.is_integer() else repr(v)


_LONG = ("observation", "interval", "event", "value", "enabled_ns", "running_ns")


class Dataset:
    """A dataset: the long CSV observation,interval,event,value,enabled_ns,
    running_ns (docs/method/statistics.md).  Dataset(path) loads a file;
    Dataset.from_frame(df) takes a pandas DataFrame (long or wide),
    Dataset.from_arrays counts in memory, Dataset.from_csv the text."""

    def __init__(self, path: Optional[PathLike] = None, _handle: Any = None,
                 _name: Optional[str] = None) -> None:
        if _handle is None:
            if path is None:
                raise InputError("Dataset(path): name a file, or use Dataset.from_frame, "
                                 "from_arrays or from_csv")
            h = _p()
            _call(_lib.stats_dataset_load, _bytes(path), ctypes.byref(h), path=path)
            _handle = h
        self._h = _handle
        self.name = os.fsdecode(_bytes(path) or b"") if _name is None else _name

    @classmethod
    def _of(cls, data: Any) -> "Dataset":
        """data as a Dataset: one already, a DataFrame, or a file's path."""
        if isinstance(data, Dataset):
            return data
        pd = _pandas()
        if pd is not None and isinstance(data, pd.DataFrame):
            return cls.from_frame(data)
        return cls(data)

    @classmethod
    def from_csv(cls, text: Union[str, bytes], name: str = "<memory>") -> "Dataset":
        """A dataset from the text of a long CSV."""
        b = _bytes(text) or b""
        h = _p()
        _call(_lib.stats_dataset_parse, _bytes(name), b, len(b), ctypes.byref(h), None)
        return cls(_handle=h, _name=name)

    @classmethod
    def from_frame(cls, df: Any, observation: Optional[str] = None,
                   enabled_ns: Any = 1000000000, running_ns: Any = None,
                   name: str = "<frame>") -> "Dataset":
        """A dataset from a pandas DataFrame, in either shape:

        - long: the columns of the CSV (event and value at least;
          observation, interval, enabled_ns, running_ns when there; without
          them the observation is `observation`, intervals are numbered in
          row order per event, every interval counted for one second);
        - wide: one row per interval, one column per event (the counts),
          and an 'observation' column (or index level) saying whose the row
          is, or else every row `observation`'s; enabled_ns and running_ns
          as Dataset.from_arrays takes them.

        A dict {observation: wide frame} is taken too."""
        if isinstance(df, Mapping):
            return cls.from_arrays({k: cls._wide_table(v) for k, v in df.items()},
                                   enabled_ns, running_ns, name)
        columns = [str(c) for c in df.columns]
        if "event" in columns and "value" in columns:
            return cls._from_long(df, observation, enabled_ns, name)
        index = [n for n in (getattr(df.index, "names", None) or []) if n]
        if "observation" in columns or "observation" in index:
            frame = df.reset_index(level="observation") if "observation" in index else df
            groups = {str(k): g.drop(columns=["observation"])
                      for k, g in frame.groupby("observation", sort=False)}
            return cls.from_arrays({k: cls._wide_table(g) for k, g in groups.items()},
                                   enabled_ns, running_ns, name)
        return cls.from_arrays({observation or "observation": cls._wide_table(df)},
                               enabled_ns, running_ns, name)

    @staticmethod
    def _wide_table(df: Any) -> Tuple[List[List[Any]], List[str]]:
        return df.to_numpy().tolist(), [str(c) for c in df.columns]

    @classmethod
    def _from_long(cls, df: Any, observation: Optional[str], enabled_ns: Any,
                   name: str) -> "Dataset":
        frame = df.copy()
        if "observation" not in frame.columns:
            frame["observation"] = observation or "observation"
        if "interval" not in frame.columns:
            frame["interval"] = frame.groupby(["observation", "event"]).cumcount()
        if "enabled_ns" not in frame.columns:
            if not isinstance(enabled_ns, (int, float)):
                raise InputError("a long frame without an enabled_ns column takes a "
                                 "number of nanoseconds, not %r" % (enabled_ns,))
            frame["enabled_ns"] = enabled_ns
        if "running_ns" not in frame.columns:
            frame["running_ns"] = frame["enabled_ns"]
        for col in ("observation", "event"):
            for v in frame[col].astype(str).unique():
                _csv(v)
        return cls.from_csv(frame.loc[:, list(_LONG)].to_csv(index=False), name)

    @classmethod
    def from_arrays(cls, observations: Mapping[str, Any], enabled_ns: Any = 1000000000,
                    running_ns: Any = None, name: str = "<arrays>") -> "Dataset":
        """observations: {name: {event: counts per interval}} or {name:
        (rows, events)} with rows an intervals x events table (lists, or a
        NumPy array).  Every interval lasted enabled_ns and was counted
        for running_ns (default: all of it); either may be a scalar, a
        {event: value} dict, or per-interval lists in the same shape as
        the counts.  A pandas DataFrame is taken as from_frame takes it."""
        pd = _pandas()
        if pd is not None and isinstance(observations, pd.DataFrame):
            return cls.from_frame(observations, enabled_ns=enabled_ns,
                                  running_ns=running_ns, name=name)
        lines = [",".join(_LONG)]

        def pick(spec: Any, event: str, col: Optional[int], i: int) -> Any:
            if isinstance(spec, Mapping):
                spec = spec[event]
            if hasattr(spec, "tolist"):
                spec = spec.tolist()
            if isinstance(spec, (list, tuple)):
                spec = spec[i] if col is None else spec[i][col]
            return spec

        for obs, spec in observations.items():
            if isinstance(spec, Mapping):
                table = [(ev, None, spec[ev]) for ev in spec]
            else:
                rows, events = spec
                rows = rows.tolist() if hasattr(rows, "tolist") else rows
                table = [(ev, c, [r[c] for r in rows]) for c, ev in enumerate(events)]
            for ev, col, counts in table:
                counts = counts.tolist() if hasattr(counts, "tolist") else list(counts)
                for i, v in enumerate(counts):
                    en = pick(enabled_ns, ev, col, i)
                    ru = en if running_ns is None else pick(running_ns, ev, col, i)
                    lines.append(",".join([_csv(obs), str(i), _csv(ev), _count(v),
                                           _count(en), _count(ru)]))
        return cls.from_csv("\n".join(lines) + "\n", name)

    def __del__(self) -> None:
        if getattr(self, "_h", None):
            _lib.stats_dataset_free(self._h)
            self._h = None

    @property
    def observations(self) -> List[str]:
        return [_str(_lib.stats_dataset_observation(self._h, i)) or ""
                for i in range(_lib.stats_dataset_n_observations(self._h))]

    @property
    def events(self) -> List[str]:
        return [_str(_lib.stats_dataset_event(self._h, i)) or ""
                for i in range(_lib.stats_dataset_n_events(self._h))]

    def n_intervals(self, observation: str) -> int:
        return _lib.stats_dataset_n_intervals(self._h, self.observations.index(observation))

    def __len__(self) -> int:
        return _lib.stats_dataset_n_observations(self._h)

    def __repr__(self) -> str:
        return "<counterpoint.Dataset %r: %s, %s>" % (
            self.name, _n(len(self), "observation", "observations"),
            _n(_lib.stats_dataset_n_events(self._h), "event", "events"))


# ---- models ---------------------------------------------------------------

class Cone:
    """A model cone: counters, dimension, equalities and facets (lists of
    Constraint), the signatures (Signature) and which of them are extreme
    rays (indices)."""

    def __init__(self, counters: List[str], dimension: int, equalities: List[Constraint],
                 facets: List[Constraint], signatures: List[Signature],
                 extreme: List[int]) -> None:
        self.counters = counters
        self.dimension = dimension
        self.equalities = equalities
        self.facets = facets
        self.signatures = signatures
        self.extreme = extreme

    def constraints(self) -> List[str]:
        """Every constraint as text: the equalities, then the facets."""
        return [c.text for c in self.equalities + self.facets]

    def contains(self, x: Union[Mapping[str, int], Sequence[int]]) -> bool:
        """Is the counter vector x (a dict or a sequence in counter order)
        in the cone?  Exact: integer coefficients, x as given."""
        if isinstance(x, Mapping):
            x = [x.get(c, 0) for c in self.counters]

        def dot(a: Sequence[int]) -> Any:
            return sum(ai * xi for ai, xi in zip(a, x))
        return (all(dot(e.coefficients) == 0 for e in self.equalities) and
                all(dot(f.coefficients) >= 0 for f in self.facets))

    def __repr__(self) -> str:
        return "<counterpoint.Cone: %s, dimension %d, %s, %s, %s>" % (
            _n(len(self.counters), "counter", "counters"), self.dimension,
            _n(len(self.equalities), "equality", "equalities"),
            _n(len(self.facets), "facet", "facets"),
            _n(len(self.signatures), "signature", "signatures"))


class Model:
    """A μDD model (docs/manual/language.md): Model(path), or
    Model.from_string(text).  A model with errors raises InputError with
    every diagnostic in .diagnostics; warnings are in .diagnostics of the
    model."""

    def __init__(self, path: Optional[PathLike] = None, _text: Optional[str] = None,
                 _name: Optional[str] = None) -> None:
        h = _p()
        err = _CpError()
        if _text is None:
            if path is None:
                raise InputError("Model(path): name a model file, or use Model.from_string")
            rc = _lib.udd_model_parse_file(_bytes(path), ctypes.byref(h), ctypes.byref(err))
        else:
            b = _bytes(_text) or b""
            rc = _lib.udd_model_parse_string(_bytes(_name), b, len(b), ctypes.byref(h),
                                             ctypes.byref(err))
        diags = self._diagnostics(h) if h else []
        if rc < 0:
            if h:
                _lib.udd_model_free(h)
            raise _error(err, diags, path)
        self._h = h
        self.diagnostics = diags

    @classmethod
    def from_string(cls, text: str, name: str = "<string>") -> "Model":
        return cls(_text=text, _name=name)

    @staticmethod
    def _diagnostics(h: Any) -> List[str]:
        return [_str(_lib.udd_model_diagnostic(h, i)) or ""
                for i in range(_lib.udd_model_n_diagnostics(h))]

    def __del__(self) -> None:
        if getattr(self, "_h", None):
            _lib.udd_model_free(self._h)
            self._h = None

    def __repr__(self) -> str:
        return "<counterpoint.Model %r: %s, %s, %s>" % (
            self.file, _n(len(self.features), "feature", "features"),
            _n(len(self.counter_names), "counter", "counters"),
            _n(len(self.uops), "uop", "uops"))

    @property
    def file(self) -> str:
        return _str(_lib.udd_model_file(self._h)) or ""

    @property
    def features(self) -> List[str]:
        return [_str(_lib.udd_model_feature_name(self._h, i)) or ""
                for i in range(_lib.udd_model_n_features(self._h))]

    @property
    def feature_docs(self) -> Dict[str, str]:
        return {_str(_lib.udd_model_feature_name(self._h, i)) or "":
                _str(_lib.udd_model_feature_doc(self._h, i)) or ""
                for i in range(_lib.udd_model_n_features(self._h))}

    @property
    def counter_names(self) -> List[str]:
        return [_str(_lib.udd_model_counter_name(self._h, i)) or ""
                for i in range(_lib.udd_model_n_counters(self._h))]

    @property
    def counters(self) -> Dict[str, str]:
        """{counter: the event it reads}."""
        return {_str(_lib.udd_model_counter_name(self._h, i)) or "":
                _str(_lib.udd_model_counter_event(self._h, i)) or ""
                for i in range(_lib.udd_model_n_counters(self._h))}

    @property
    def uops(self) -> List[str]:
        return [_str(_lib.udd_model_uop_name(self._h, i)) or ""
                for i in range(_lib.udd_model_n_uops(self._h))]

    def _select(self, features: Features) -> int:
        sel = _u64()
        _call(_lib.udd_model_select, self._h, _feature_list(features), ctypes.byref(sel))
        return sel.value

    def _sigset(self, features: Features, max_signatures: int) -> Any:
        s = _p()
        _call(_lib.udd_sigset_build, self._h, self._select(features), max_signatures,
              ctypes.byref(s))
        return s

    @staticmethod
    def _signature_list(s: Any) -> Tuple[List[str], List[Signature]]:
        k = _lib.udd_sigset_n_counters(s)
        names = [_str(_lib.udd_sigset_counter_name(s, c)) or "" for c in range(k)]
        out = []
        for j in range(_lib.udd_sigset_size(s)):
            v = _lib.udd_sigset_signature(s, j)
            vec = tuple(v[c] for c in range(k))
            uops = {_str(_lib.udd_sigset_uop_name(s, j, u)): _lib.udd_sigset_uop_paths(s, j, u)
                    for u in range(_lib.udd_sigset_uop_count(s, j))}
            out.append(Signature(_str(_lib.udd_sigset_uop(s, j)),
                                 _lib.udd_sigset_multiplicity(s, j), vec, uops,
                                 _str(_lib.udd_sigset_example(s, j))))
        return names, out

    def signatures(self, features: Features = None, max_signatures: int = 0) -> List[Signature]:
        """The distinct counter signatures of the model with these features
        (a list of names or "a,b"; None: none), as `counterpoint paths`."""
        s = self._sigset(features, max_signatures)
        try:
            return self._signature_list(s)[1]
        finally:
            _lib.udd_sigset_free(s)

    def paths(self, features: Features = None, limit: Optional[int] = None) -> List[Path]:
        """Every μpath (uop, path text, counter vector), as `paths --all`;
        at most limit of them."""
        k = _lib.udd_model_n_counters(self._h)
        out: List[Path] = []
        failure: List[BaseException] = []

        def each(_ctx: Any, uop: bytes, path: bytes, sig: Any) -> int:
            try:
                out.append(Path(_str(uop), _str(path), tuple(sig[c] for c in range(k))))
            except Exception as e:      # never let an exception cross C
                failure.append(e)
                return 1
            return 1 if limit is not None and len(out) >= limit else 0

        fn = _PATH_FN(each)
        err = _CpError()
        rc = _lib.udd_model_each_path(self._h, self._select(features), fn, None,
                                      ctypes.byref(err))
        if failure:
            raise failure[0]
        if rc < 0:
            raise _error(err)
        return out

    def cone(self, features: Features = None) -> Cone:
        """The exact model cone of the features' signatures, as `counterpoint
        cone`: equalities and facets with integer coefficients."""
        s = self._sigset(features, 0)
        c = _p()
        try:
            names, sigs = self._signature_list(s)
            k, m = len(names), len(sigs)
            _call(_lib.cone_build, k, m, _lib.udd_sigset_matrix(s), None, ctypes.byref(c))
            arr = (_s * (k + 1))(*[_bytes(n) for n in names])

            def constraint(a: Any, equality: bool) -> Constraint:
                vec = tuple(a[i] for i in range(k))
                text = _take_string(_lib.counterpoint_constraint_text(a, k, arr, int(equality)))
                return Constraint(vec, text, equality)

            eqs = [constraint(_lib.cone_equality(c, i), True)
                   for i in range(_lib.cone_n_equalities(c))]
            facets = [constraint(_lib.cone_facet(c, i), False)
                      for i in range(_lib.cone_n_facets(c))]
            extreme = [j for j in range(m) if _lib.cone_signature_is_extreme(c, j)]
            return Cone(names, _lib.cone_dim(c), eqs, facets, sigs, extreme)
        finally:
            if c:
                _lib.cone_free(c)
            _lib.udd_sigset_free(s)

    def check(self, data: Any, features: Features = None, region: str = "pca",
              confidence: float = 0.99, batches: Union[str, int] = "auto",
              per_interval: bool = False, counters: Features = None,
              threads: int = 0) -> Verdicts:
        """Each observation of data (a Dataset, a pandas DataFrame as
        Dataset.from_frame takes it, or a file's path) against the model,
        as `counterpoint check`: the Verdicts."""
        data, b = _region_args(data, region, batches)
        run = _p()
        _call(_lib.counterpoint_check, self._h, _feature_list(features), data._h,
              _SHAPES[region], float(confidence), b, int(bool(per_interval)),
              _feature_list(counters), threads, ctypes.byref(run))
        try:
            return _verdicts(run)
        finally:
            _lib.pipe_run_free(run)

    def region(self, data: Any, region: str = "pca", confidence: float = 0.99,
               batches: Union[str, int] = "auto", per_interval: bool = False,
               counters: Features = None, threads: int = 0) -> Regions:
        """The confidence region of each observation of data on the model's
        counters, as check builds them (every shape; region names the one
        check would test): the Regions."""
        data, b = _region_args(data, region, batches)
        pd = _p()
        _call(_lib.counterpoint_regions, self._h, data._h, _SHAPES[region],
              float(confidence), b, int(bool(per_interval)), _feature_list(counters),
              threads, ctypes.byref(pd))
        try:
            k = _lib.pipe_data_n_counters(pd)
            cnames = _lib.pipe_data_names(pd)
            names = [_str(cnames[j]) or "" for j in range(k)]
            obs = data.observations
            out = Regions()
            for i in range(_lib.pipe_data_n_observations(pd)):
                mu = _lib.counterpoint_region_array(pd, i, 0)
                if not mu:
                    out.append(Region(obs[i], names, _str(_lib.pipe_data_unusable(pd, i))))
                    continue

                def vec(which: int) -> List[float]:
                    a = _lib.counterpoint_region_array(pd, i, which)
                    return [a[j] for j in range(k)]

                def mat(which: int) -> List[List[float]]:
                    a = _lib.counterpoint_region_array(pd, i, which)
                    return [[a[r * k + j] for j in range(k)] for r in range(k)]

                def num(which: int) -> float:
                    return _lib.counterpoint_region_number(pd, i, which)

                out.append(Region(obs[i], names, mean=vec(0), half_independent=vec(1),
                                  half_pca=vec(2), pca_axes=mat(3), covariance=mat(4),
                                  samples=int(num(0)), q=num(1), confidence=num(2),
                                  diagonal=bool(num(3)), may_be_small=bool(num(4))))
            return out
        finally:
            _lib.pipe_data_free(pd)

    def flows(self, data: Any, features: Features, region: str = "pca",
              confidence: float = 0.99, batches: Union[str, int] = "auto",
              threads: int = 0) -> Flows:
        """How much of each feature the data need, as `counterpoint flows
        --with FEATURES --json`: per observation, uop and feature the
        certified rate and share bounds; the report (docs/manual/json.md,
        docs/method/checking.md) as a dict, with to_frame()."""
        data, b = _region_args(data, region, batches)
        out = _p()
        _call(_lib.counterpoint_flows, self._h, _feature_list(features), data._h,
              _SHAPES[region], float(confidence), b, threads, _bytes(self.file),
              _bytes(data.name), ctypes.byref(out))
        return Flows(json.loads(_take_string(out)))

    def explore(self, data: Any, start: Features = None, candidates: Features = None,
                exhaustive: bool = False, max_models: int = 0,
                threads: int = 0) -> Dict[str, Any]:
        """Search the model's feature space for the features the data need,
        as `counterpoint explore --json`: the report (docs/manual/json.md,
        docs/processors/haswell.md) as a dict."""
        data = Dataset._of(data)
        out = _p()
        _call(_lib.counterpoint_explore, self._h, data._h, _feature_list(start),
              _feature_list(candidates), int(bool(exhaustive)), max_models, threads,
              ctypes.byref(out))
        return json.loads(_take_string(out))
