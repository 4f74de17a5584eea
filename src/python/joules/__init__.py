"""joules: where do the joules go? -- GPU energy traces of AI inference, in Python.

The library's own calls (libjoules, through the C extension joules._joules),
not a re-implementation: every figure equals what the command-line tool
prints with --json. docs/python.md is the manual; help(joules.NAME) gives
its section for NAME.

    import joules
    runs = joules.summarize("traces/")                  # one row per run
    best = joules.pick("traces/", slo="median_itl<=10ms")
    t = joules.open("traces/h100/h100-qwen3-8b-shape-chat.h5")
    time, watts = t.runs[0].power()                     # NumPy arrays
"""

import json as _json
import math as _math
import os as _os
import warnings as _warnings

from . import _joules
from ._joules import (  # noqa: F401  (the exception classes, re-exported)
    Error,
    FileError,
    FormatError,
    InternalError,
    InvalidDataError,
    LimitError,
    MissingFieldError,
    NoDataError,
    NumericError,
    OutOfMemoryError,
    UsageError,
    WrongTypeError,
)

__version__ = _joules.__version__


def _installed_data():
    """An installed package finds the GPU and model descriptors installed
    with it (PREFIX/share/joules/models, beside PREFIX/lib/.../joules), as
    the installed `joules` finds them beside its executable:
    JOULES_MODELS_DIR, unless it is set already."""
    if _os.environ.get("JOULES_MODELS_DIR"):
        return
    d = _os.path.dirname(_os.path.abspath(__file__))
    for _ in range(5):
        d = _os.path.dirname(d)
        models = _os.path.join(d, "share", "joules", "models")
        if _os.path.isfile(_os.path.join(models, "gpus.json")):
            _os.environ["JOULES_MODELS_DIR"] = models
            return


_installed_data()

__all__ = [
    "summarize", "load", "Study", "open", "Trace", "Run", "frontier", "pick", "compare",
    "capacity", "fit", "predict", "diagnose", "check", "attribute", "emissions", "budget",
    "import_", "importers", "TraceWriter", "figures", "Error", "FileError", "FormatError",
    "InternalError", "InvalidDataError", "LimitError", "MissingFieldError", "NoDataError",
    "NumericError", "OutOfMemoryError", "UsageError", "WrongTypeError", "SelectionWarning",
    "ValidityWarning",
]


class SelectionWarning(UserWarning):
    """A where=/exclude= clause that selects nothing (the CLI's stderr line)."""


class ValidityWarning(UserWarning):
    """Runs that are not valid left out of a pick (the CLI's stderr lines;
    docs/check.md, "Reason codes")."""


def _pd():
    # pandas only where a DataFrame is made: `import joules` stays light
    import pandas

    return pandas


# ---- arguments ----------------------------------------------------------------------


def _path(p, what="path"):
    try:
        return _os.fsdecode(_os.fspath(p))
    except TypeError:
        raise TypeError("%s: expected a str or os.PathLike, got %s" % (what, type(p).__name__)) from None


def _paths(paths):
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        return [_path(paths)]
    try:
        out = [_path(p) for p in paths]
    except TypeError:
        raise TypeError("paths: expected a path or a list of paths, got %s" % type(paths).__name__) from None
    return out


def _strs(v, what):
    """None, a str or a list of str -> list of str."""
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    out = list(v)
    for x in out:
        if not isinstance(x, str):
            raise TypeError("%s: expected str, got %s" % (what, type(x).__name__))
    return out


def _num(v):
    return repr(float(v)) if not isinstance(v, int) else str(v)


class _Opts:
    """The CLI options a call stands for: its argv (the provenance's command,
    which `joules verify` re-runs) and its inputs (the files hashed)."""

    def __init__(self, cmd):
        self.argv = ["joules", cmd, "--json"]
        self.inputs = []

    def add(self, flag, value=None):
        self.argv.append(flag)
        if value is not None:
            self.argv.append(value)

    def input(self, path):
        if path is not None and _os.path.exists(path):
            self.inputs.append(path)


def _window(window):
    """summarize's window=: None/"steady" (the steady state), "run", (a, b)."""
    if window is None or window == "steady":
        return None, None
    if window == "run":
        return (-_math.inf, _math.inf), "run"
    try:
        a, b = window
    except (TypeError, ValueError):
        raise UsageError("window: expected 'steady', 'run' or (start_s, end_s), got %r" % (window,)) from None
    a = -_math.inf if a is None else float(a)
    b = _math.inf if b is None else float(b)
    text = "%s,%s" % ("" if a == -_math.inf else repr(a), "" if b == _math.inf else repr(b))
    return (a, b), text


# ---- studies ------------------------------------------------------------------------


def _caller_level():
    """The stacklevel of warnings.warn that names the first caller outside
    this package (a warning points at the user's line)."""
    import sys

    here = _os.path.dirname(__file__)
    f, level = sys._getframe(1), 1
    while f is not None and _os.path.dirname(f.f_code.co_filename) == here:
        f, level = f.f_back, level + 1
    return level


class Study:
    """Runs loaded once (joules.load): pass it to any analysis in place of
    paths to analyse the same runs again without reading them again."""

    def __init__(self, paths, where=None, exclude=None, workers=None, rules=None, set_rule=None,
                 max_rows=None, max_dataset_bytes=None, names=None, window=None, require_valid=False,
                 _fields_only=True):
        self.paths = _paths(paths)
        where, exclude, set_rule = _strs(where, "where"), _strs(exclude, "exclude"), _strs(set_rule, "set_rule")
        names = names or "joules"
        win, wtext = _window(window)
        self._cli = []  # the study options as the CLI spells them, for the provenance
        for w in where:
            self._cli += ["--where", w]
        for x in exclude:
            self._cli += ["--exclude", x]
        if workers is not None:
            self._cli += ["--workers", str(int(workers))]
        if max_rows is not None:
            self._cli += ["--max-rows", str(int(max_rows))]
        if max_dataset_bytes is not None:
            self._cli += ["--max-dataset-bytes", str(int(max_dataset_bytes))]
        if rules is not None:
            rules = _path(rules, "rules")
            self._cli += ["--rules", rules]
        for r in set_rule:
            self._cli += ["--set-rule", r]
        if names != "joules":
            self._cli += ["--names", names]
        if require_valid:
            self._cli += ["--require-valid"]
        self._window = wtext
        self._rules = rules
        self._c = _joules.Study(self.paths, where=where, exclude=exclude, workers=int(workers or 1),
                                rules=rules, set_rules=set_rule, max_rows=int(max_rows or 0),
                                max_dataset_bytes=int(max_dataset_bytes or 0), window=win, names=names,
                                fields_only=_fields_only)
        if self._c.unmatched:
            for line in self._c.unmatched.splitlines():
                _warnings.warn(line, SelectionWarning, stacklevel=_caller_level())
        if self._c.count == 0:
            if self._c.n_read:
                n = self._c.n_read
                raise NoDataError("no run left after --where/--exclude (%d run%s read)" % (n, "" if n == 1 else "s"))
            self._c.raise_first()  # nothing could be processed: the first failure
            raise NoDataError("no run in %s" % ", ".join(self.paths))
        if require_valid:
            bad = self._c.invalid()
            if bad:
                n = self._c.count
                lines = ["%s:%s is not valid: [%s] %s" % (f, r, c, m) for f, r, reasons in bad for c, m in reasons]
                e = InvalidDataError("--require-valid: %d of %d run%s not valid (check.md, \"Reason codes\")\n%s" % (
                    len(bad), n, " is" if n == 1 else "s are", "\n".join(lines)))
                e.message, e.invalid = str(e).splitlines()[0], bad
                raise e

    def __len__(self):
        return self._c.count

    def __repr__(self):
        return "<joules.Study of %d runs from %s%s>" % (
            self._c.count, ", ".join(self.paths), ", %d errors" % len(self.errors) if self.errors else "")

    @property
    def errors(self):
        """The failures of the load, as --json lists them: a list of dicts
        (file, run, object, row, code, message)."""
        return self._c.errors()

    def _opts(self, cmd):
        o = _Opts(cmd)
        return o

    def _finish(self, o):
        """argv and inputs of a call on this study: its options, then the paths.
        The traces the study read are added by the study's own context (its
        read log, as the CLI's provenance lists them)."""
        argv = o.argv + self._cli + self.paths
        inputs = list(o.inputs)
        if self._rules:
            inputs.append(self._rules)
        return argv, inputs


def load(paths, where=None, exclude=None, workers=None, rules=None, set_rule=None, max_rows=None,
         max_dataset_bytes=None, names=None, require_valid=False):
    return Study(paths, where=where, exclude=exclude, workers=workers, rules=rules, set_rule=set_rule,
                 max_rows=max_rows, max_dataset_bytes=max_dataset_bytes, names=names,
                 require_valid=require_valid)


def _study(paths, kw, names=None, window=None):
    if isinstance(paths, Study):
        if kw or window is not None or (names or "joules") != paths._c.names:
            raise UsageError("a loaded Study carries its own options: give them to joules.load()")
        return paths
    return Study(paths, names=names, window=window, **kw)


_STUDY_KEYS = ("where", "exclude", "workers", "rules", "set_rule", "max_rows", "max_dataset_bytes",
               "require_valid")


def _split(kw):
    study = {k: kw.pop(k) for k in list(kw) if k in _STUDY_KEYS}
    if kw:
        k = sorted(kw)[0]
        hint = _joules.suggest(k, list(_STUDY_KEYS))
        raise TypeError("unexpected keyword argument %r%s" % (k, " (did you mean %r?)" % hint if hint else ""))
    return study


# ---- documents as DataFrames ----------------------------------------------------------


def _rows(doc, spec):
    """The rows `--jsonl` writes for spec: "KEY" (an array of the document)
    or "KEY/SUB" (the SUB array of each element of KEY, each row with its
    parent's scalar fields added where it has none), as src/cli/common.c."""
    key, _, sub = spec.partition("/")
    top = doc.get(key) or []
    if not sub:
        return [r for r in top]
    out = []
    for e in top:
        parent = {k: v for k, v in e.items() if not isinstance(v, (list, dict))}
        for r in e.get(sub) or []:
            if isinstance(r, dict):
                row = dict(r)
                for k, v in parent.items():
                    row.setdefault(k, v)
                out.append(row)
            else:
                out.append(r)
    return out


def _frame(rows, doc, drop=()):
    """A DataFrame of rows (nested objects flattened as a.b columns, lists
    kept whole), with the document's provenance, errors and other scalars
    in .attrs."""
    pd = _pd()
    rows = [{k: v for k, v in r.items() if k not in drop} for r in rows]
    df = pd.json_normalize(rows, sep=".") if rows else pd.DataFrame()
    attrs = {k: v for k, v in doc.items() if not isinstance(v, list) or k == "errors"}
    df.attrs.update(attrs)
    return df


def _result(doc, output, make):
    if output == "document":
        return doc
    if output != "frame":
        raise UsageError("output: expected 'frame' or 'document', got %r" % (output,))
    return make(doc)


# ---- summarize --------------------------------------------------------------------------


def _bool_column(values):
    # the CSV's valid column (true/false, issue 37) as a bool column
    import numpy as np

    return np.fromiter((v == "true" for v in values), dtype=bool, count=len(values))


def summarize(paths, where=None, window=None, names=None, *, output="frame", **kw):
    study = _study(paths, dict(_split(kw), where=where) if where is not None else _split(kw),
                   names=names, window=window)
    o = study._opts("summarize")
    if study._window:
        o.add("--window", study._window)
    argv, inputs = study._finish(o)
    if output == "document":
        return study._c.summary(argv, inputs)
    if output != "frame":
        raise UsageError("output: expected 'frame' or 'document', got %r" % (output,))
    pd = _pd()
    cols = study._c.table()
    df = pd.DataFrame({name: _bool_column(values) if name == "valid" else values for name, kind, values in cols},
                      copy=False)
    df.attrs["errors"] = study.errors
    df.attrs["provenance"] = study._c.provenance(argv, inputs)
    df.attrs["schema"] = "joules.summary/1"
    return df


# ---- analyses ----------------------------------------------------------------------------


def frontier(paths, latency=None, energy=None, tolerance=None, *, output="frame", **kw):
    study = _study(paths, _split(kw))
    o = study._opts("frontier")
    if latency is not None:
        o.add("--latency", latency)
    if energy is not None:
        o.add("--energy", energy)
    if tolerance is not None:
        o.add("--tolerance", _num(tolerance))
    argv, inputs = study._finish(o)
    doc = study._c.frontier(argv, inputs, latency=latency, energy=energy,
                            tolerance=1e-9 if tolerance is None else float(tolerance))
    return _result(doc, output, lambda d: {
        "frontier": _frame(_rows(d, "frontiers/points"), d),
        "curves": _frame(_rows(d, "curves/points"), d),
        "dominated": _frame(_rows(d, "frontiers/dominated"), d),
        "skipped": _frame(_rows(d, "frontiers/skipped"), d),
    })


def pick(paths, slo=None, allow_invalid=False, *, output="frame", **kw):
    study = _study(paths, _split(kw))
    slos = _strs(slo, "slo")
    o = study._opts("pick")
    for s in slos:
        o.add("--slo", s)
    if allow_invalid:
        o.add("--allow-invalid")
    argv, inputs = study._finish(o)
    left_out = [] if allow_invalid else study._c.invalid()
    doc = study._c.pick(argv, inputs, slo=slos, allow_invalid=bool(allow_invalid))
    if left_out:
        lines = ["%s:%s is not valid: [%s] %s" % (f, r, c, m) for f, r, reasons in left_out for c, m in reasons]
        n = len(left_out)
        _warnings.warn("\n".join(lines + ["%d run%s not valid left out (--allow-invalid keeps them)" % (
            n, "" if n == 1 else "s")]), ValidityWarning, stacklevel=_caller_level())

    def make(d):
        df = _frame(_rows(d, "picks"), d)
        df.attrs["left_out"] = [{"file": f, "run": r, "reasons": [{"code": c, "message": m} for c, m in reasons]}
                                for f, r, reasons in left_out]
        return df

    return _result(doc, output, make)


def compare(paths, by, baseline, slo=None, hold=None, bins=None, latency=None, *, output="frame", **kw):
    study = _study(paths, _split(kw))
    slos = _strs(slo, "slo")
    o = study._opts("compare")
    o.add("--by", by)
    o.add("--baseline", str(baseline))
    for s in slos:
        o.add("--slo", s)
    holds = None
    if hold is not None:
        holds = _strs(hold, "hold")
        if holds in ([], ["none"]):
            holds = []
            o.add("--hold", "none")
        for h in holds:
            o.add("--hold", h)
    if bins is not None:
        bins = [float(b) for b in bins]
        o.add("--bins", ",".join(_num(b) for b in bins))
    if latency is not None:
        o.add("--latency", latency)
    argv, inputs = study._finish(o)
    doc = study._c.compare(argv, inputs, by=by, baseline=str(baseline), slo=slos, hold=holds, bins=bins,
                           latency=latency)
    rows = "pairs" if by == "precision" else "comparisons"
    return _result(doc, output, lambda d: _frame(_rows(d, rows), d))


def capacity(paths, power_budget, slo=None, pue=None, grid_intensity=None, *, output="frame", **kw):
    study = _study(paths, _split(kw))
    slos = _strs(slo, "slo")
    o = study._opts("capacity")
    o.add("--power-budget", _num(power_budget))
    for s in slos:
        o.add("--slo", s)
    if pue is not None:
        pue = _path(pue) if not isinstance(pue, (int, float)) else float(pue)
        o.add("--pue", pue if isinstance(pue, str) else _num(pue))
        if isinstance(pue, str):
            o.input(pue)
    if grid_intensity is not None:
        g = grid_intensity
        grid_intensity = _path(g) if not isinstance(g, (int, float)) else float(g)
        o.add("--grid-intensity", grid_intensity if isinstance(grid_intensity, str) else _num(grid_intensity))
        if isinstance(grid_intensity, str):
            o.input(grid_intensity)
    argv, inputs = study._finish(o)
    doc = study._c.capacity(argv, inputs, power_budget=float(power_budget), slo=slos, pue=pue,
                            grid_intensity=grid_intensity)
    return _result(doc, output, lambda d: _frame(_rows(d, "entries"), d))


def fit(paths, grid=None, loo=False, anchor=False, what_if_loo=False, correction=True, robust=None,
        pool=None, regime=None, *, output="frame", **kw):
    study = _study(paths, _split(kw))
    o = study._opts("fit")
    if loo:
        o.add("--loo")
    if anchor:
        o.add("--anchor")
    if what_if_loo:
        o.add("--what-if-loo")
    if grid is not None:
        o.add("--grid", str(int(grid)))
    if not correction:
        o.add("--no-correction")
    args = {}
    for flag, key, v in (("--robust", "robust", robust), ("--pool", "pool", pool), ("--regime", "regime", regime)):
        if v is not None:
            o.add(flag, _num(v))
            args[key] = float(v)
    argv, inputs = study._finish(o)
    doc = study._c.fit(argv, inputs, grid=16 if grid is None else int(grid), loo=bool(loo), anchor=bool(anchor),
                       what_if_loo=bool(what_if_loo), correction=bool(correction), **args)

    def make(d):
        out = {
            "groups": _frame(d.get("groups") or [], d, drop=("points", "curve")),
            "points": _frame(_rows(d, "groups/points"), d),
            "curves": _frame(_rows(d, "groups/curve"), d),
        }
        for k in ("loo", "anchor_loo", "what_if_loo"):
            if isinstance(d.get(k), dict):
                out[k] = _frame(d[k].get("points") or [], d[k])
        return out

    return _result(doc, output, make)


def predict(paths, group, batch=None, cap=None, what_if=None, pool=None, *, output="frame", **kw):
    study = _study(paths, _split(kw))
    o = study._opts("predict")
    o.add("--group", group)
    batches = [float(b) for b in (batch if isinstance(batch, (list, tuple)) else [batch])] if batch is not None else []
    caps = [float(c) for c in (cap if isinstance(cap, (list, tuple)) else [cap])] if cap is not None else []
    for b in batches:
        o.add("--batch", _num(b))
    for c in caps:
        o.add("--cap", _num(int(c)) if c == int(c) else _num(c))
    if what_if is not None:
        o.add("--what-if", what_if)
    args = {}
    if pool is not None:
        o.add("--pool", _num(pool))
        args["pool"] = float(pool)
    argv, inputs = study._finish(o)
    doc = study._c.predict(argv, inputs, group=group, batch=batches, cap=caps, what_if=what_if, **args)
    return _result(doc, output, lambda d: _frame(_rows(d, "predictions"), d))


def diagnose(paths, reserve_gb=None, *, output="frame", **kw):
    study = _study(paths, _split(kw))
    o = study._opts("diagnose")
    args = {}
    if reserve_gb is not None:
        o.add("--reserve-gb", _num(reserve_gb))
        args["reserve_gb"] = float(reserve_gb)
    argv, inputs = study._finish(o)
    doc = study._c.diagnose(argv, inputs, **args)
    return _result(doc, output, lambda d: _frame(_rows(d, "runs"), d))


def check(paths, *, output="frame", **kw):
    study = _study(paths, _split(kw))
    argv, inputs = study._finish(study._opts("check"))
    doc = study._c.check(argv, inputs)
    return _result(doc, output, lambda d: _frame(_rows(d, "runs"), d))


def emissions(paths, grid_intensity=None, marginal_intensity=None, pue=None, start=None, *, output="frame",
              **kw):
    study = _study(paths, _split(kw))
    o = study._opts("emissions")
    args = {}
    for flag, key, v in (("--grid-intensity", "grid_intensity", grid_intensity),
                         ("--marginal-intensity", "marginal_intensity", marginal_intensity),
                         ("--pue", "pue", pue)):
        if v is None:
            continue
        text = _num(v) if isinstance(v, (int, float)) else _path(v, key)
        o.add(flag, text)
        o.input(text)
        args[key] = text
    if start is not None:
        text = _num(start) if isinstance(start, (int, float)) else str(start)
        o.add("--start", text)
        args["start"] = text
    argv, inputs = study._finish(o)
    doc = study._c.emissions(argv, inputs, **args)
    return _result(doc, output, lambda d: _frame(_rows(d, "runs"), d))


def budget(paths, budgets, *, output="frame", **kw):
    study = _study(paths, _split(kw))
    budgets = _path(budgets, "budgets")
    o = study._opts("budget")
    o.add("--budgets", budgets)
    o.input(budgets)
    argv, inputs = study._finish(o)
    doc = study._c.budget(argv, inputs, budgets=budgets)
    return _result(doc, output, lambda d: _frame(_rows(d, "budgets/runs"), d))


def figures():
    """The summary figures: a DataFrame of name, unit and definition
    (JL_FIGURE_TABLE; docs/summary.md)."""
    pd = _pd()
    return pd.DataFrame(_joules.figures(), columns=["name", "unit", "doc"])


# ---- traces -------------------------------------------------------------------------------

_GROUPS = {"power": 1, "gpu": 2, "engine": 4, "requests": 8, "itl": 16, "batches": 32, "host": 64}
_ALL = 127


class Run:
    """One run of a trace (Trace.runs): its name, attributes, summary and
    series, each read when asked."""

    def __init__(self, trace, index, name):
        self.trace = trace
        self.index = index
        self.name = name
        self._attrs = None

    def __repr__(self):
        return "<joules.Run %s of %s%s>" % (self.name, self.trace.path, " (unreadable)" if self.error else "")

    @property
    def error(self):
        """Why the run cannot be read (a dict as in .errors), or None."""
        return self.trace._run_errors.get(self.name)

    def _ok(self):
        e = self.error
        if e is not None:
            raise _error_from(e)

    @property
    def attrs(self):
        self._ok()
        if self._attrs is None:
            self._attrs, self._published = self.trace._file.attrs(self.index)
        return dict(self._attrs)

    def summary(self):
        self._ok()
        k = self.trace._summary_index.get(self.name)
        if k is None:
            raise NoDataError("%s: run %s has no summary" % (self.trace.path, self.name))
        return self.trace._study._c.run(k)

    def _read(self, *groups):
        self._ok()
        skip = _ALL
        for g in groups:
            skip &= ~_GROUPS[g]
        return self.trace._file.read(self.index, skip)

    def _need(self, rd, field, hint=""):
        a = rd.get(field)
        if a is None:
            raise _err(MissingFieldError, "the run has no such dataset" + hint, self.trace.path, self.name,
                       "/runs/%s/%s" % (self.name, field))
        return a

    @staticmethod
    def _gpus(a):
        return a[:, 0] if a.ndim == 2 and a.shape[1] == 1 else a

    def power(self, kind="watts"):
        if kind not in ("watts", "watts_avg"):
            raise UsageError("power: kind must be 'watts' or 'watts_avg', got %r" % (kind,))
        rd = self._read("power")
        hint = " (power/energy_j is: .energy_counter())" if rd.get("power/energy_j") is not None else ""
        return self._need(rd, "power/time"), self._gpus(self._need(rd, "power/" + kind, hint))

    def energy_counter(self):
        rd = self._read("power")
        return self._need(rd, "power/time"), self._gpus(self._need(rd, "power/energy_j"))

    def series(self, group):
        """Every dataset of one group (power, gpu, engine, requests, itl,
        batches, host) as NumPy arrays over the reader's buffers: a dict,
        datasets the run lacks left out."""
        if group not in _GROUPS:
            hint = _joules.suggest(group, list(_GROUPS))
            raise UsageError("series: '%s' is not a group%s" % (group, " (did you mean '%s'?)" % hint if hint else ""))
        rd = self._read(group)
        out = {}
        for name in _DATASETS[group]:
            a = rd.get(group + "/" + name)
            if a is not None:
                out[name] = a
        return out

    def _table(self, group, columns=None):
        pd = _pd()
        s = self.series(group)
        data = {}
        for name, a in s.items():
            if a.ndim == 2:
                if a.shape[1] == 1:
                    data[name] = a[:, 0]
                else:
                    for g in range(a.shape[1]):
                        data["%s_%d" % (name, g)] = a[:, g]
            else:
                data[name] = a
        df = pd.DataFrame(data)
        df.attrs.update({"file": self.trace.path, "run": self.name, "group": group})
        return df

    def requests(self):
        return self._table("requests")

    def engine(self):
        return self._table("engine")

    def gpu(self):
        return self._table("gpu")

    def itl(self):
        return self._table("itl")

    def batches(self):
        return self._table("batches")

    def host(self):
        return self._table("host")

    def spans(self):
        self._ok()
        pd = _pd()
        s = self.trace._file.spans(self.index)
        cols = ["name", "start", "end", "parent", "gpu", "busy_s", "tokens", "step"]
        if s is None:
            df = pd.DataFrame({c: [] for c in cols})
            df.attrs.update({"file": self.trace.path, "run": self.name, "spans": False})
            return df
        names = s["names"]
        data = {"name": pd.Categorical.from_codes(s["name"], categories=names) if len(set(names)) == len(names)
                else [names[i] for i in s["name"]]}
        for c in cols[1:]:
            if s[c] is not None:
                data[c] = s[c]
        df = pd.DataFrame(data)
        df.attrs.update({"file": self.trace.path, "run": self.name, "spans": True, "source": s["source"],
                         "side": s["side"], "clock": s["clock"], "window": s["window"],
                         "clock_uncertainty_s": s["clock_uncertainty_s"]})
        return df

    def sensor(self):
        self._ok()
        return self.trace._file.sensor(self.index)


_DATASETS = {
    "power": ("time", "watts", "energy_j", "watts_avg"),
    "gpu": ("time", "sm_util", "mem_util", "mem_used_bytes", "sm_clock_mhz", "temp_c"),
    "engine": ("time", "running", "waiting", "tokens_generated", "prefill_tokens", "kv_cache_usage"),
    "requests": ("arrival", "first_token", "finish", "input_tokens", "output_tokens"),
    "itl": ("seconds", "request"),
    "batches": ("start", "end", "size"),
    "host": ("time", "cpu_energy_j", "dram_energy_j", "node_watts"),
}


def _err(cls, message, file=None, run=None, field=None, row=None):
    """An exception raised here (not by the library) that says where, as
    the library's errors do: "file: run RUN: field: message"."""
    where = "".join(x for x in (file and file + ": ", run and "run %s: " % run, field and field + ": ") if x)
    x = cls(where + message)
    x.file, x.run, x.field, x.row, x.message = file, run, field, row, message
    return x


def _error_from(e):
    """An exception from an error dict of .errors (code, message, file, run, object, row)."""
    cls = {"nomem": OutOfMemoryError, "io": FileError, "format": FormatError, "invalid": InvalidDataError,
           "missing": MissingFieldError, "type": WrongTypeError, "limit": LimitError, "usage": UsageError,
           "numeric": NumericError, "nodata": NoDataError}.get(e.get("code"), InternalError)
    x = cls(e.get("message"))
    x.kind, x.file, x.run, x.field, x.row = e.get("code"), e.get("file"), e.get("run"), e.get("object"), e.get("row")
    x.line, x.column, x.side, x.message, x.causes = e.get("line"), e.get("column"), "input", e.get("message"), []
    return x


class Trace:
    """A trace file (joules.open): its runs, each read when asked."""

    def __init__(self, path):
        self.path = _path(path)
        # every run read and checked in a worker process first, as the CLI
        # reads files: a file that crashes libhdf5 is an error here, never
        # a crash of this interpreter; the summaries come with it
        try:
            self._study = Study([self.path], _fields_only=False)
        except Error as e:
            raise e from None
        errs = self._study.errors
        for e in errs:
            if not e.get("run"):
                raise _error_from(e)
        self._run_errors = {e["run"]: e for e in errs if e.get("run")}
        self._file = _joules.TraceFile(self.path)
        self._summary_index = {run: k for k, (f, run) in enumerate(self._study._c.keys())}
        self.runs = [Run(self, i, n) for i, n in enumerate(self._file.runs())]

    @property
    def errors(self):
        """The runs that could not be read, as --json lists them."""
        return self._study.errors

    @property
    def harness(self):
        return self._file.harness

    @property
    def created_utc(self):
        return self._file.created_utc

    @property
    def provenance(self):
        """The file's @provenance (what made it), parsed; None when absent."""
        text = self._file.provenance
        if text is None:
            return None
        try:
            return _json.loads(text)
        except ValueError:
            return text

    def __len__(self):
        return len(self.runs)

    def __iter__(self):
        return iter(self.runs)

    def __getitem__(self, key):
        if isinstance(key, str):
            for r in self.runs:
                if r.name == key:
                    return r
            hint = _joules.suggest(key, [r.name for r in self.runs])
            raise KeyError("%s: no run %r%s" % (self.path, key, " (did you mean %r?)" % hint if hint else ""))
        return self.runs[key]

    def summarize(self):
        """The runs' summaries as joules.summarize gives them."""
        return summarize(self._study)

    def __repr__(self):
        return "<joules.Trace %s: %d runs>" % (self.path, len(self.runs))

    def close(self):
        self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def open(path):  # noqa: A001  (the contract's name)
    return Trace(path)


def attribute(run, by="class", calibration=None, classes=None, static_w=None, window=None, stall_min=None,
              sensor_from=None, fit_weights=False, set_warning=None, budgets=None, require_valid=False, *,
              output="frame"):
    if isinstance(run, str) or hasattr(run, "__fspath__"):
        run = _run_of(_path(run))
    if not isinstance(run, Run):
        raise TypeError("attribute: expected a joules.Run or 'TRACE.h5[:RUN]', got %s" % type(run).__name__)
    run._ok()
    o = _Opts("attribute")
    time_bin = None
    if by.startswith("time:"):
        text = by[5:]
        scale = 1e-3 if text.endswith("ms") else 1.0
        try:
            time_bin = float(text[:-2] if text.endswith("ms") else text.rstrip("s")) * scale
        except ValueError:
            raise UsageError("--by: '%s' is not name, class, layer, step, kind or time:S" % by) from None
        o.add("--by", by)
        by = "time"
    else:
        o.add("--by", by)
    args = {"by": by}
    if time_bin is not None:
        args["time_bin"] = time_bin
    if calibration is not None:
        args["calibration"] = _path(calibration, "calibration")
        o.add("--calibration", args["calibration"])
        o.input(args["calibration"])
    if classes:
        rules = ["%s=%s" % kv for kv in classes.items()] if isinstance(classes, dict) else _strs(classes, "classes")
        for r in rules:
            o.add("--class", r)
        args["classes"] = rules
    if static_w is not None:
        o.add("--static-w", _num(static_w))
        args["static_w"] = float(static_w)
    if window is not None:
        a, b = window
        o.add("--window", "%s,%s" % (_num(a), _num(b)))
        args["window"] = (float(a), float(b))
    if stall_min is not None:
        o.add("--stall-min", _num(stall_min))
        args["stall_min"] = float(stall_min)
    if sensor_from is not None:
        src = _run_of(_path(sensor_from)) if not isinstance(sensor_from, Run) else sensor_from
        src._ok()
        o.add("--sensor-from", "%s:%s" % (src.trace.path, src.name))
        o.input(src.trace.path)
        args["sensor_from"] = (src.trace._file, src.index)
    if fit_weights:
        o.add("--fit-weights")
        args["fit_weights"] = True
    if set_warning:
        pairs = []
        for k, v in dict(set_warning).items():
            o.add("--set-warning", "%s=%s" % (k, "off" if v is None else _num(v)))
            pairs.append((k, v))
        args["set_warning"] = pairs
    if budgets is not None:
        args["budgets"] = _path(budgets, "budgets")
        o.add("--budgets", args["budgets"])
        o.input(args["budgets"])
    if require_valid:
        o.add("--require-valid")
        args["require_valid"] = True
    spec = "%s:%s" % (run.trace.path, run.name)
    o.argv.append(spec)
    if _os.path.exists(run.trace.path):  # read first, so listed first (the CLI's read log)
        o.inputs.insert(0, run.trace.path)
    try:
        doc = _joules.attribute(run.trace._file, run.index, o.argv, o.inputs, **args)
    except InvalidDataError as e:
        if require_valid and str(e).startswith("--require-valid:"):  # the run is not valid
            why = run.summary().get("validity") or {}
            e.file, e.run = run.trace.path, run.name
            e.invalid = [(run.trace.path, run.name, [(r["code"], r["message"]) for r in why.get("reasons", [])
                                                    if r.get("severity") == "invalid"])]
        raise
    return _result(doc, output, lambda d: _frame(_rows(d, "rows"), d))


def _run_of(spec):
    """'TRACE.h5[:RUN]' as attribute takes it: the run, or the file's only one."""
    path, run = spec, None
    if ":" in spec and ".h5" in spec and spec.rfind(":") > spec.find(".h5"):
        path, _, run = spec.rpartition(":")
    t = Trace(path)
    if run is not None:
        return t[run]
    if len(t.runs) != 1:
        raise UsageError("%s holds %d runs: name one as TRACE.h5:RUN" % (path, len(t.runs)))
    return t.runs[0]


# ---- import ------------------------------------------------------------------------------


def importers():
    """The importer table: a DataFrame of format, summary, paths and options."""
    pd = _pd()
    rows = [{"format": n, "summary": s, "paths": p, "options": [o for o, a, h in opts],
             "description": d} for n, s, p, d, opts, lo, hi in _joules.importers()]
    return pd.DataFrame(rows)


def import_(format, paths, output=None, into=None, force=False, groups=False, **options):
    paths = _paths(paths)
    known = {}
    for n, s, p, d, opts, lo, hi in _joules.importers():
        if n == format:
            known = {o.replace("-", "_"): (o, a) for o, a, h in opts}
    o = _Opts("import")
    o.argv = ["joules", "import", format]
    args = []
    for key in sorted(options):
        v = options[key]
        if key not in known:
            if not known:
                break  # an unknown format: said by the library
            hint = _joules.suggest(key, sorted(known))
            raise UsageError("'%s' has no option %s%s" % (format, key, " (did you mean %s?)" % hint if hint else ""))
        name, arg = known[key]
        values = v if isinstance(v, (list, tuple)) and arg is not None else [v]
        for x in values:
            if arg is None:
                if not x:
                    continue
                text = ""
            elif isinstance(x, dict):  # set={"model": ...}: one KEY=VALUE each
                for kk, vv in x.items():
                    args.append((name, "%s=%s" % (kk, vv)))
                    o.add("--" + name, "%s=%s" % (kk, vv))
                continue
            else:
                text = _num(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x)
            args.append((name, text))
            o.add("--" + name, text if arg is not None else None)
            if arg is not None:
                o.input(text)
    if output is not None:
        output = _path(output, "output")
        o.add("-o", output)
    if into is not None:
        o.add("--into", into)
    if force:
        o.add("--force")
    if groups:
        o.add("--groups")
    o.argv.append("--json")
    o.argv += paths
    o.inputs += [p for p in paths if _os.path.exists(p)]
    return _joules.import_(format, paths, args, output, into, bool(force), bool(groups), o.argv, o.inputs)


# ---- writing ---------------------------------------------------------------------------------


class TraceWriter:
    """A trace file written run by run, in pieces (joules.TraceWriter)."""

    _DTYPES = {"name": "int32", "start": "float64", "end": "float64", "parent": "int32", "gpu": "int16",
               "busy_s": "float32", "tokens": "int32", "step": "int32"}

    def __init__(self, path, compression="deflate", level=None, chunk_rows=65536, harness=None):
        self.path = _path(path)
        self._w = _joules.Writer(self.path, compression=compression, level=-1 if level is None else int(level),
                                 chunk_rows=int(chunk_rows), harness=harness)
        self._run = None
        self._gpus = None
        self._n = 0

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        if et is None:
            self.close()
        else:
            self.abort()
        return False

    def __repr__(self):
        return "<joules.TraceWriter %s%s>" % (self.path, ", writing run %s" % self._run if self._run else "")

    def begin_run(self, name=None, **attrs):
        if name is None:
            name = "r%04d" % self._n
        self._w.begin_run(str(name), attrs)
        self._run = str(name)
        g = attrs.get("num_gpus")
        self._gpus = 1 if attrs.get("power_scope") == "node_ac" else g
        self._n += 1
        return self._run

    def _columns(self, group, cols, widths=None):
        import numpy as np

        out, n = [], None
        for name, v in cols:
            if v is None:
                continue
            a = np.ascontiguousarray(v, dtype=np.float64)
            if a.ndim == 0:
                a = a.reshape(1)
            if widths and name in widths and a.ndim == 1:
                a = a.reshape(-1, 1)
            if a.ndim > 2:
                raise _err(UsageError, "expected [N] or [N, W] values, got shape %s" % (a.shape,), self.path,
                           self._run, "/runs/%s/%s/%s" % (self._run, group, name))
            if n is not None and a.shape[0] != n:
                raise _err(UsageError, "has %d rows, %s/%s has %d: the columns of one call have one length" % (
                    a.shape[0], group, out[0][0], n), self.path, self._run, "/runs/%s/%s/%s" % (self._run, group, name))
            n = a.shape[0]
            out.append((name, a))
        return out

    def _append(self, group, cols, per_gpu=()):
        if self._run is None:
            raise _err(UsageError, "no run is being written: begin_run() first", self.path)
        c = self._columns(group, cols, widths=set(per_gpu))
        if c:
            self._w.append(group, [(n, a) for n, a in c])

    def power(self, time, watts=None, energy_j=None, watts_avg=None):
        self._append("power", [("time", time), ("watts", watts), ("energy_j", energy_j), ("watts_avg", watts_avg)],
                     per_gpu=("watts", "energy_j", "watts_avg"))

    def gpu(self, time, sm_util=None, mem_util=None, mem_used_bytes=None, sm_clock_mhz=None, temp_c=None):
        self._append("gpu", [("time", time), ("sm_util", sm_util), ("mem_util", mem_util),
                             ("mem_used_bytes", mem_used_bytes), ("sm_clock_mhz", sm_clock_mhz), ("temp_c", temp_c)],
                     per_gpu=("sm_util", "mem_util", "mem_used_bytes", "sm_clock_mhz", "temp_c"))

    def engine(self, time, running, waiting=None, tokens_generated=None, prefill_tokens=None, kv_cache_usage=None):
        self._append("engine", [("time", time), ("running", running), ("waiting", waiting),
                                ("tokens_generated", tokens_generated), ("prefill_tokens", prefill_tokens),
                                ("kv_cache_usage", kv_cache_usage)])

    def requests(self, arrival=None, first_token=None, finish=None, input_tokens=None, output_tokens=None):
        self._append("requests", [("arrival", arrival), ("first_token", first_token), ("finish", finish),
                                  ("input_tokens", input_tokens), ("output_tokens", output_tokens)])

    def itl(self, seconds, request=None):
        self._append("itl", [("seconds", seconds), ("request", request)])

    def batches(self, start, end, size=None):
        self._append("batches", [("start", start), ("end", end), ("size", size)])

    def host(self, time, cpu_energy_j=None, dram_energy_j=None, node_watts=None):
        self._append("host", [("time", time), ("cpu_energy_j", cpu_energy_j), ("dram_energy_j", dram_energy_j),
                              ("node_watts", node_watts)], per_gpu=("cpu_energy_j", "dram_energy_j"))

    def spans(self, name, start, end, parent=None, gpu=None, busy_s=None, tokens=None, step=None, source=None,
              side=None, clock=None, window=None, clock_uncertainty_s=None):
        import numpy as np

        if self._run is None:
            raise _err(UsageError, "no run is being written: begin_run() first", self.path)
        names = list(name) if not isinstance(name, str) else [name]
        codes = {}
        idx = np.empty(len(names), dtype=np.int32)
        table = []
        for i, x in enumerate(names):
            if not isinstance(x, str):
                raise WrongTypeError("spans: name must be span names (str), found %s" % type(x).__name__)
            k = codes.get(x)
            if k is None:
                k = codes[x] = len(table)
                table.append(x)
            idx[i] = k
        d = {"names": table, "name": idx, "source": source, "side": side, "clock": clock,
             "window": None if window is None else (float(window[0]), float(window[1])),
             "clock_uncertainty_s": None if clock_uncertainty_s is None else float(clock_uncertainty_s)}
        for k, v in (("start", start), ("end", end), ("parent", parent), ("gpu", gpu), ("busy_s", busy_s),
                     ("tokens", tokens), ("step", step)):
            if v is not None:
                a = np.asarray(v)
                if a.shape != (len(names),):
                    raise UsageError("spans: %s has %s values, name has %d" % (k, a.shape, len(names)))
                if k not in ("start", "end", "busy_s") and a.size and not np.all(np.isfinite(a.astype(np.float64))):
                    raise InvalidDataError("spans/%s: not a whole number" % k)
                d[k] = np.ascontiguousarray(a, dtype=self._DTYPES[k])
        self._w.spans(d)

    def end_run(self, summary=None):
        if self._run is None:
            raise _err(UsageError, "no run is being written: begin_run() first", self.path)
        try:
            self._w.end_run(summary)
        finally:
            self._run = None

    def abort_run(self):
        self._w.abort_run()
        self._run = None

    def close(self):
        self._w.commit()

    def abort(self):
        self._w.abort()
        self._run = None


# ---- the manual's text as each function's help ------------------------------------------------

def _docs():
    try:
        from ._docs import DOCS
    except ImportError:  # a source tree without the build's generated file
        return
    for name, text in DOCS.items():
        obj = globals().get(name.split(".")[0])
        for part in name.split(".")[1:]:
            obj = getattr(obj, part, None)
        if obj is None:
            continue
        try:
            obj.__doc__ = text
        except (AttributeError, TypeError):
            fn = getattr(obj, "__func__", None)
            if fn is not None:
                fn.__doc__ = text


_docs()
