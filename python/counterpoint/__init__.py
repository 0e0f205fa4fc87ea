"""counterpoint: test processor models against hardware event counters.

A ctypes binding over libcounterpoint.so (no compiled extension).  It
loads the library from $COUNTERPOINT_LIB, else from the source tree this
package sits in (build/libcounterpoint.so.0), else from the prefix it is
installed under (PREFIX/lib), else by the system's search.

    import counterpoint as cp
    model = cp.Model("models/examples/walk_basic.udd")
    model.signatures()                 # the distinct counter signatures
    model.cone().facets                # the exact constraints
    data = cp.Dataset("walks.csv")     # or cp.Dataset.from_arrays(...)
    for v in model.check(data):
        print(v.observation, v.verdict, [x.constraint for x in v.violations])

Errors raise counterpoint.Error, whose message is the library's (with the
file, line and column it names, and the source excerpt in .detail).
"""

import collections
import ctypes
import json
import math
import os

__all__ = ["Error", "Model", "Dataset", "Cone", "Constraint", "Signature",
           "Path", "Verdict", "Violation", "check", "version", "library_path"]

# ---- the library ----------------------------------------------------------

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("COUNTERPOINT_LIB")
    if env:
        yield env
        return
    yield os.path.join(_HERE, "..", "..", "build", "libcounterpoint.so.0")
    # PREFIX/lib/pythonX.Y/site-packages/counterpoint -> PREFIX/lib
    yield os.path.join(_HERE, "..", "..", "..", "libcounterpoint.so.0")
    yield "libcounterpoint.so.0"


def _load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path), os.path.normpath(path) if os.sep in path else path
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    raise ImportError("cannot load libcounterpoint.so.0 (set COUNTERPOINT_LIB): "
                      + "; ".join(errors or ["not found"]))


_lib, library_path = _load()

_p = ctypes.c_void_p
_s = ctypes.c_char_p
_z = ctypes.c_size_t
_i = ctypes.c_int
_d = ctypes.c_double
_u64 = ctypes.c_uint64
_pu32 = ctypes.POINTER(ctypes.c_uint32)
_pi64 = ctypes.POINTER(ctypes.c_int64)


class _CpError(ctypes.Structure):
    # common/cp.h's struct cp_error; its size is checked against the library's
    _fields_ = [("code", ctypes.c_int), ("file", ctypes.c_char * 256),
                ("line", ctypes.c_uint), ("col", ctypes.c_uint),
                ("msg", ctypes.c_char * 1024), ("detail", ctypes.c_char * 1024)]


_PATH_FN = ctypes.CFUNCTYPE(_i, _p, _s, _s, _pu32)

_SIGNATURES = {
    # name: (result type, argument types)
    "cp_version": (_s, []),
    "cp_code_str": (_s, [_i]),
    "cp_error_format": (None, [ctypes.POINTER(_CpError), _s, _z]),
    "counterpoint_error_size": (_z, []),
    "counterpoint_free": (None, [_p]),
    "counterpoint_constraint_text": (_p, [_pi64, _z, ctypes.POINTER(_s), _i]),
    "counterpoint_check": (_i, [_p, _s, _p, _i, _d, _z, _i, _s, _z,
                                ctypes.POINTER(_p), ctypes.POINTER(_CpError)]),
    "counterpoint_run_borderline": (_i, [_p, _z]),
    "counterpoint_run_undecided": (_i, [_p, _z]),
    "counterpoint_run_d2": (_d, [_p, _z]),
    "counterpoint_run_p_value": (_d, [_p, _z]),
    "counterpoint_run_margin": (_d, [_p, _z, _z]),
    "counterpoint_run_is_equality": (_i, [_p, _z, _z]),
    "counterpoint_run_coefficients": (_pi64, [_p, _z, _z]),
    "counterpoint_run_n_counters": (_z, [_p]),
    "counterpoint_run_counter": (_s, [_p, _z]),
    "counterpoint_explore": (_i, [_p, _p, _s, _s, _i, _z, _z, ctypes.POINTER(_p),
                                  ctypes.POINTER(_CpError)]),
    "counterpoint_flows": (_i, [_p, _s, _p, _i, _d, _z, _z, _s, _s, ctypes.POINTER(_p),
                                ctypes.POINTER(_CpError)]),
    "pipe_run": (_i, [_s, _s, _s, _p, _z, ctypes.POINTER(_p), ctypes.POINTER(_CpError)]),
    "pipe_run_free": (None, [_p]),
    "pipe_run_n_observations": (_z, [_p]),
    "pipe_run_observation": (_s, [_p, _z]),
    "pipe_run_verdict": (_i, [_p, _z]),
    "pipe_run_unusable": (_s, [_p, _z]),
    "pipe_run_n_violations": (_z, [_p, _z]),
    "pipe_run_violation": (_s, [_p, _z, _z]),
    "udd_model_parse_file": (_i, [_s, ctypes.POINTER(_p), ctypes.POINTER(_CpError)]),
    "udd_model_parse_string": (_i, [_s, _s, _z, ctypes.POINTER(_p), ctypes.POINTER(_CpError)]),
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
    "udd_model_select": (_i, [_p, _s, ctypes.POINTER(_u64), ctypes.POINTER(_CpError)]),
    "udd_model_each_path": (_i, [_p, _u64, _PATH_FN, _p, ctypes.POINTER(_CpError)]),
    "udd_sigset_build": (_i, [_p, _u64, _z, ctypes.POINTER(_p), ctypes.POINTER(_CpError)]),
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
    "cone_build": (_i, [_z, _z, _pu32, _p, ctypes.POINTER(_p), ctypes.POINTER(_CpError)]),
    "cone_free": (None, [_p]),
    "cone_dim": (_z, [_p]),
    "cone_n_equalities": (_z, [_p]),
    "cone_equality": (_pi64, [_p, _z]),
    "cone_n_facets": (_z, [_p]),
    "cone_facet": (_pi64, [_p, _z]),
    "cone_signature_is_extreme": (_i, [_p, _z]),
    "stats_dataset_load": (_i, [_s, ctypes.POINTER(_p), ctypes.POINTER(_CpError)]),
    "stats_dataset_parse": (_i, [_s, _s, _z, ctypes.POINTER(_p), _p, ctypes.POINTER(_CpError)]),
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


def version():
    """The library's version ("0.2.0")."""
    return _lib.cp_version().decode()


# ---- errors ---------------------------------------------------------------

def _str(b):
    # names are bytes in the library; not every one is UTF-8
    return b.decode("utf-8", "surrogateescape") if b is not None else None


def _bytes(s):
    if s is None:
        return None
    if isinstance(s, bytes):
        return s
    return os.fsencode(s) if isinstance(s, os.PathLike) else s.encode("utf-8", "surrogateescape")


class Error(Exception):
    """A library error: .code (negative, stable), .kind (its description),
    .message (the library's text, "file:line:col: message"), .file, .line,
    .col, .detail (a source excerpt with a caret, or more bad rows) and
    .diagnostics (every diagnostic of a model that failed to compile)."""

    def __init__(self, err, diagnostics=()):
        buf = ctypes.create_string_buffer(CP_LINE)
        _lib.cp_error_format(ctypes.byref(err), buf, CP_LINE)
        self.code = err.code
        self.kind = _str(_lib.cp_code_str(err.code))
        self.message = _str(buf.value)
        self.file = _str(err.file) or None
        self.line = err.line or None
        self.col = err.col or None
        self.detail = _str(err.detail)
        self.diagnostics = list(diagnostics)
        super().__init__(self.message + ("\n" + self.detail.rstrip("\n") if self.detail else ""))


CP_LINE = 1024 + 400


def _call(fn, *args, diagnostics=None):
    err = _CpError()
    rc = fn(*args, ctypes.byref(err))
    if rc < 0:
        raise Error(err, diagnostics() if diagnostics else ())
    return rc


def _take_string(ptr):
    # a char * of this layer's, the caller's to free
    if not ptr:
        raise MemoryError("out of memory in libcounterpoint")
    try:
        return _str(ctypes.string_at(ptr))
    finally:
        _lib.counterpoint_free(ptr)


def _feature_list(features):
    if features is None:
        return None
    if isinstance(features, (str, bytes)):
        return _bytes(features)
    return _bytes(",".join(features))


# ---- results --------------------------------------------------------------

Signature = collections.namedtuple("Signature", "uop paths vector uops example")
Signature.__doc__ = """A distinct counter signature: the uop of its example
path, how many μpaths have it, its counts (a dict counter -> count of the
counters it bumps; every counter in Model.counter_names order in .vector),
the μpaths per uop, and one example μpath as text."""
Path = collections.namedtuple("Path", "uop path vector")
Constraint = collections.namedtuple("Constraint", "coefficients text equality")
Constraint.__doc__ = """coefficients . x >= 0 (= 0 for an equality) over the
cone's counters, with the text people read ("a <= b")."""
Violation = collections.namedtuple("Violation", "constraint margin equality coefficients")
Violation.__doc__ = """A constraint the whole region breaks: its text, the
margin in standard deviations, and its coefficients (counter -> coefficient,
non-zero ones)."""
Verdict = collections.namedtuple(
    "Verdict", "observation verdict reason borderline undecided d2 p_value violations")
Verdict.__doc__ = """One observation's verdict: "feasible", "infeasible" or
"unusable" (then reason says why); borderline (settled in exact
arithmetic); undecided (borderline and its exact re-check could not run:
the verdict is the floating-point one, not proven); the ellipsoid's d2 and
p_value (None for boxes); violations."""

_VERDICTS = ("feasible", "infeasible", "unusable")
_SHAPES = {"pca": 0, "independent": 1, "ellipsoid": 2}


def _region_args(data, region, batches):
    """data as a Dataset and batches as the library's count, both checked."""
    if not isinstance(data, Dataset):
        data = Dataset(data)
    if region not in _SHAPES:
        raise ValueError("region is one of %s, not %r" % (", ".join(_SHAPES), region))
    b = {"auto": 0, "none": 1}.get(batches, batches)
    if not isinstance(b, int) or b < 0:
        raise ValueError("batches: 'auto', 'none' or a count, not %r" % (batches,))
    return data, b


def _num(x):
    return None if math.isnan(x) else x


def _verdicts(run):
    out = []
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
                                   {names[c]: a[c] for c in range(k) if a[c]}))
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


def check(model, data, features=None, threads=0):
    """The whole pipeline in one call, as `counterpoint check MODEL DATA
    --with FEATURES` with its defaults: a list of Verdict, one per
    observation."""
    run = _p()
    _call(_lib.pipe_run, _bytes(model), _feature_list(features), _bytes(data), None,
          threads, ctypes.byref(run))
    try:
        return _verdicts(run)
    finally:
        _lib.pipe_run_free(run)


# ---- datasets -------------------------------------------------------------

class Dataset:
    """A dataset: the long CSV observation,interval,event,value,enabled_ns,
    running_ns (docs/statistics.md).  Dataset(path) loads a file;
    Dataset.from_arrays builds one from counts in memory."""

    def __init__(self, path=None, _handle=None, _name=None):
        if _handle is None:
            h = _p()
            _call(_lib.stats_dataset_load, _bytes(path), ctypes.byref(h))
            _handle = h
        self._h = _handle
        self.name = str(path) if _name is None else _name

    @classmethod
    def from_csv(cls, text, name="<memory>"):
        """A dataset from the text of a long CSV."""
        b = _bytes(text)
        h = _p()
        _call(_lib.stats_dataset_parse, _bytes(name), b, len(b), ctypes.byref(h), None)
        return cls(_handle=h, _name=name)

    @classmethod
    def from_arrays(cls, observations, enabled_ns=1000000000, running_ns=None):
        """observations: {name: {event: counts per interval}} or {name:
        (rows, events)} with rows an intervals x events table (lists, or a
        NumPy array).  Every interval lasted enabled_ns and was counted
        for running_ns (default: all of it); either may be a scalar, a
        {event: value} dict, or per-interval lists in the same shape as
        the counts."""
        lines = ["observation,interval,event,value,enabled_ns,running_ns"]

        def pick(spec, event, col, i):
            if isinstance(spec, dict):
                spec = spec[event]
            if hasattr(spec, "tolist"):
                spec = spec.tolist()
            if isinstance(spec, (list, tuple)):
                spec = spec[i] if col is None else spec[i][col]
            return spec

        def fmt(v):
            if isinstance(v, bool):
                raise TypeError("a count is a number, not %r" % (v,))
            if isinstance(v, int):
                return str(v)
            v = float(v)
            return str(int(v)) if v.is_integer() else repr(v)

        for name, spec in observations.items():
            if isinstance(spec, dict):
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
                    lines.append(",".join([_csv(name), str(i), _csv(ev), fmt(v),
                                           fmt(en), fmt(ru)]))
        return cls.from_csv("\n".join(lines) + "\n", "<arrays>")

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.stats_dataset_free(self._h)
            self._h = None

    @property
    def observations(self):
        return [_str(_lib.stats_dataset_observation(self._h, i))
                for i in range(_lib.stats_dataset_n_observations(self._h))]

    @property
    def events(self):
        return [_str(_lib.stats_dataset_event(self._h, i))
                for i in range(_lib.stats_dataset_n_events(self._h))]

    def n_intervals(self, observation):
        return _lib.stats_dataset_n_intervals(self._h, self.observations.index(observation))


def _csv(field):
    field = str(field)
    if any(c in field for c in ",\"\n\r"):
        raise ValueError("a name in a dataset holds no comma, quote or newline: %r" % field)
    return field


# ---- models ---------------------------------------------------------------

class Cone:
    """A model cone: counters, dimension, equalities and facets (lists of
    Constraint), the signatures (Signature) and which of them are extreme
    rays (indices)."""

    def __init__(self, counters, dimension, equalities, facets, signatures, extreme):
        self.counters = counters
        self.dimension = dimension
        self.equalities = equalities
        self.facets = facets
        self.signatures = signatures
        self.extreme = extreme

    def constraints(self):
        """Every constraint as text: the equalities, then the facets."""
        return [c.text for c in self.equalities + self.facets]

    def contains(self, x):
        """Is the counter vector x (a dict or a sequence in counter order)
        in the cone?  Exact: integer coefficients, x as given."""
        if isinstance(x, dict):
            x = [x.get(c, 0) for c in self.counters]
        dot = lambda a: sum(ai * xi for ai, xi in zip(a, x))
        return (all(dot(e.coefficients) == 0 for e in self.equalities) and
                all(dot(f.coefficients) >= 0 for f in self.facets))


class Model:
    """A μDD model (docs/language.md): Model(path), or
    Model.from_string(text).  A model with errors raises Error with every
    diagnostic in .diagnostics; warnings are in .diagnostics of the model."""

    def __init__(self, path=None, _text=None, _name=None):
        h = _p()
        err = _CpError()
        if _text is None:
            rc = _lib.udd_model_parse_file(_bytes(path), ctypes.byref(h), ctypes.byref(err))
        else:
            b = _bytes(_text)
            rc = _lib.udd_model_parse_string(_bytes(_name), b, len(b), ctypes.byref(h),
                                             ctypes.byref(err))
        diags = self._diagnostics(h) if h else []
        if rc < 0:
            if h:
                _lib.udd_model_free(h)
            raise Error(err, diags)
        self._h = h
        self.diagnostics = diags

    @classmethod
    def from_string(cls, text, name="<string>"):
        return cls(_text=text, _name=name)

    @staticmethod
    def _diagnostics(h):
        return [_str(_lib.udd_model_diagnostic(h, i))
                for i in range(_lib.udd_model_n_diagnostics(h))]

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.udd_model_free(self._h)
            self._h = None

    @property
    def file(self):
        return _str(_lib.udd_model_file(self._h))

    @property
    def features(self):
        return [_str(_lib.udd_model_feature_name(self._h, i))
                for i in range(_lib.udd_model_n_features(self._h))]

    @property
    def feature_docs(self):
        return {_str(_lib.udd_model_feature_name(self._h, i)):
                _str(_lib.udd_model_feature_doc(self._h, i))
                for i in range(_lib.udd_model_n_features(self._h))}

    @property
    def counter_names(self):
        return [_str(_lib.udd_model_counter_name(self._h, i))
                for i in range(_lib.udd_model_n_counters(self._h))]

    @property
    def counters(self):
        """{counter: the event it reads}."""
        return {_str(_lib.udd_model_counter_name(self._h, i)):
                _str(_lib.udd_model_counter_event(self._h, i))
                for i in range(_lib.udd_model_n_counters(self._h))}

    @property
    def uops(self):
        return [_str(_lib.udd_model_uop_name(self._h, i))
                for i in range(_lib.udd_model_n_uops(self._h))]

    def _select(self, features):
        sel = _u64()
        _call(_lib.udd_model_select, self._h, _feature_list(features), ctypes.byref(sel))
        return sel.value

    def _sigset(self, features, max_signatures):
        s = _p()
        _call(_lib.udd_sigset_build, self._h, self._select(features), max_signatures,
              ctypes.byref(s))
        return s

    @staticmethod
    def _signature_list(s):
        k = _lib.udd_sigset_n_counters(s)
        names = [_str(_lib.udd_sigset_counter_name(s, c)) for c in range(k)]
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

    def signatures(self, features=None, max_signatures=0):
        """The distinct counter signatures of the model with these features
        (a list of names or "a,b"; None: none), as `counterpoint paths`."""
        s = self._sigset(features, max_signatures)
        try:
            return self._signature_list(s)[1]
        finally:
            _lib.udd_sigset_free(s)

    def paths(self, features=None, limit=None):
        """Every μpath (uop, path text, counter vector), as `paths --all`;
        at most limit of them."""
        k = _lib.udd_model_n_counters(self._h)
        out = []
        failure = []

        def each(_ctx, uop, path, sig):
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
            raise Error(err)
        return out

    def cone(self, features=None):
        """The exact model cone of the features' signatures, as `counterpoint
        cone`: equalities and facets with integer coefficients."""
        s = self._sigset(features, 0)
        c = _p()
        try:
            names, sigs = self._signature_list(s)
            k, m = len(names), len(sigs)
            _call(_lib.cone_build, k, m, _lib.udd_sigset_matrix(s), None, ctypes.byref(c))
            arr = (_s * (k + 1))(*[_bytes(n) for n in names])

            def constraint(a, equality):
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

    def check(self, data, features=None, region="pca", confidence=0.99,
              batches="auto", per_interval=False, counters=None, threads=0):
        """Each observation of data (a Dataset, or a path) against the
        model, as `counterpoint check`: a list of Verdict."""
        data, b = _region_args(data, region, batches)
        run = _p()
        _call(_lib.counterpoint_check, self._h, _feature_list(features), data._h,
              _SHAPES[region], float(confidence), b, int(bool(per_interval)),
              _feature_list(counters), threads, ctypes.byref(run))
        try:
            return _verdicts(run)
        finally:
            _lib.pipe_run_free(run)

    def flows(self, data, features, region="pca", confidence=0.99, batches="auto",
              threads=0):
        """How much of each feature the data need, as `counterpoint flows
        --with FEATURES --json`: per observation, uop and feature the
        certified rate and share bounds; the report (schema 1,
        docs/checking.md) as a dict."""
        data, b = _region_args(data, region, batches)
        out = _p()
        _call(_lib.counterpoint_flows, self._h, _feature_list(features), data._h,
              _SHAPES[region], float(confidence), b, threads, _bytes(self.file),
              _bytes(data.name), ctypes.byref(out))
        return json.loads(_take_string(out))

    def explore(self, data, start=None, candidates=None, exhaustive=False,
                max_models=0, threads=0):
        """Search the model's feature space for the features the data need,
        as `counterpoint explore --json`: the report (schema 1,
        docs/haswell.md) as a dict."""
        if not isinstance(data, Dataset):
            data = Dataset(data)
        out = _p()
        _call(_lib.counterpoint_explore, self._h, data._h, _feature_list(start),
              _feature_list(candidates), int(bool(exhaustive)), max_models, threads,
              ctypes.byref(out))
        return json.loads(_take_string(out))
