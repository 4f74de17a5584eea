"""Every figure the Python module returns equals the CLI's --json
(docs/python.md): each analysis's document against the document of the
command its provenance names (run here, leaf by leaf), its DataFrames
against the CLI's --jsonl rows and summarize --csv, a trace's series
against h5py's reading of the same datasets.

    python3 test_api.py          the bundled traces (traces/)
    python3 test_api.py data     ../shared: the real traces, the ML.ENERGY data, a profiled run
"""
import io
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from common import (ROOT, SHARED, against_cli, check, cli, cli_json, done, fail, same, skip)

import joules  # noqa: E402

os.chdir(ROOT)


def frame_rows(df):
    """A DataFrame's rows as dicts with NaN/None as None."""
    out = []
    for rec in df.to_dict(orient="records"):
        out.append({k: (None if (isinstance(v, float) and v != v) else v) for k, v in rec.items()})
    return out


def frame_against_jsonl(name, df, args):
    """A frame against the CLI's --jsonl rows of the same command, flattened
    as the module flattens them (a.b columns)."""
    import pandas as pd

    rc, out, err = cli(args)
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    ref = pd.json_normalize(rows, sep=".") if rows else pd.DataFrame()
    if not check(sorted(df.columns) == sorted(ref.columns),
                 "%s: columns differ from `joules %s`: %s" % (name, " ".join(args),
                                                              sorted(set(df.columns) ^ set(ref.columns))[:8])):
        return
    diffs = same(frame_rows(df), frame_rows(ref[df.columns]))
    if not check(not diffs, "%s: rows differ from --jsonl: %s" % (name, diffs[:4])):
        return
    print("ok: %s: %d rows x %d columns equal `joules %s`" % (name, len(df), len(df.columns), " ".join(args)))


def summarize_against_csv(df, args):
    """The summarize frame against summarize --csv: the same columns in the
    same order, every cell equal (numbers exactly: the CSV holds %.17g),
    numeric dtypes where the CSV holds numbers, never 0 for a missing one."""
    import pandas as pd

    rc, out, err = cli(["summarize", "--csv", "-"] + args)
    ref = pd.read_csv(io.StringIO(out), float_precision="round_trip", keep_default_na=False,
                      na_values=[""], dtype=str)
    if not check(list(df.columns) == list(ref.columns), "summarize: columns differ from --csv: %s" % (
            [(a, b) for a, b in zip(df.columns, ref.columns) if a != b][:5])):
        return
    bad = 0
    for c in df.columns:
        col = df[c]
        cells = ref[c]
        numeric = all(v is None or v != v or _is_number(v) for v in cells)
        if numeric and col.dtype == object and cells.notna().any():
            fail("summarize: column %s holds numbers in --csv but is text in the frame" % c)
            bad += 1
            continue
        for i, (v, cell) in enumerate(zip(col, cells)):
            missing = cell is None or cell != cell
            if missing:
                ok = v is None or (isinstance(v, float) and v != v)
            elif col.dtype == object:
                ok = v == cell
            elif col.dtype == bool:  # valid: true/false in the CSV
                ok = cell in ("true", "false") and bool(v) == (cell == "true")
            else:
                ok = float(v) == float(cell)
            if not ok:
                bad += 1
                if bad < 5:
                    fail("summarize: %s row %d: frame %r, --csv %r" % (c, i, v, cell))
    if not bad:
        print("ok: summarize frame equals `joules summarize --csv - %s` (%d x %d cells)" % (
            " ".join(args), len(df), len(df.columns)))


def _is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def trace_against_h5py(path):
    """joules.open's runs: summary() against summarize --json, power() and
    the engine and request tables against h5py's reading of the file."""
    try:
        import h5py
    except ImportError:
        print("note: h5py missing: series not compared with an independent reader")
        h5py = None
    t = joules.open(path)
    rc, ref, err = cli_json(["summarize", "--json", path])
    runs = {r["run"]: r for r in ref["runs"]}
    f = h5py.File(path, "r") if h5py else None
    n = 0
    for run in t.runs:
        diffs = same(run.summary(), runs[run.name])
        check(not diffs, "%s:%s summary() differs from summarize --json: %s" % (path, run.name, diffs[:3]))
        if f is None or "runs/%s/power" % run.name not in f:
            continue
        g = f["runs/%s" % run.name]
        time, watts = (run.power() if "watts" in g["power"] else (None, None))
        if time is not None:
            w = g["power/watts"][()].astype(np.float64)
            w = w[:, 0] if w.shape[1] == 1 else w
            check(np.array_equal(time, g["power/time"][()]) and np.array_equal(watts, w),
                  "%s:%s power() differs from h5py" % (path, run.name))
            check(not watts.flags.writeable and watts.base is not None,
                  "%s:%s power() is a copy, not a view of the reader's buffer" % (path, run.name))
        if "engine" in g:
            e = run.engine()
            for c in e.columns:
                check(np.array_equal(e[c].to_numpy(), g["engine/" + c][()]),
                      "%s:%s engine().%s differs from h5py" % (path, run.name, c))
        if "requests" in g:
            q = run.requests()
            for c in q.columns:
                check(np.array_equal(q[c].to_numpy(), g["requests/" + c][()], equal_nan=True),
                      "%s:%s requests().%s differs from h5py" % (path, run.name, c))
        n += 1
    print("ok: %s: %d runs' summaries equal --json%s" % (path, len(t.runs),
                                                        ", %d runs' series equal h5py's" % n if f else ""))


def documents(paths, slos, group):
    """Every analysis on paths, each document against the CLI's."""
    P = paths
    docs = {
        "summarize": joules.summarize(P, output="document"),
        "summarize names=mlenergy": joules.summarize(P, names="mlenergy", output="document"),
        "summarize window=(5, 20)": joules.summarize(P, window=(5, 20), output="document"),
        "summarize window=run": joules.summarize(P, window="run", output="document"),
        "summarize where": joules.summarize(P, where="num_gpus>=1", exclude="max_batch_size=2",
                                            output="document"),
        "check": joules.check(P, output="document"),
        "frontier": joules.frontier(P, output="document"),
        "frontier p90": joules.frontier(P, latency="p90_itl", output="document"),
        "pick": joules.pick(P, slo=slos, output="document"),
        "pick (none)": joules.pick(P, output="document"),
        "compare": joules.compare(P, by="gpu_model", baseline="H100", slo=slos[:1], output="document"),
        "capacity": joules.capacity(P, power_budget=1e6, pue=1.2, grid_intensity=400, slo=slos[:1],
                                    output="document"),
        "fit": joules.fit(P, output="document"),
        "fit loo": joules.fit(P, loo=True, grid=4, output="document"),
        "predict": joules.predict(P, group=group, batch=[3, 100], cap=[64], output="document"),
        "diagnose": joules.diagnose(P, output="document"),
        "emissions": joules.emissions(P, grid_intensity=400, pue=1.2, output="document"),
        "emissions series": joules.emissions(P, grid_intensity="tests/account/data/electricitymaps-hourly.csv",
                                             start="2026-01-15T10:00:00Z", output="document"),
        "budget": joules.budget(P, "tests/account/data/budgets.json", output="document"),
    }
    for name, doc in docs.items():
        against_cli(name, doc)
    return docs


def frames(paths, slos, group):
    P = paths
    frame_against_jsonl("pick", joules.pick(P, slo=slos), ["pick", "--jsonl"] + sum((["--slo", s] for s in slos), []) + P)
    fr = joules.frontier(P)
    frame_against_jsonl("frontier", fr["frontier"], ["frontier", "--jsonl"] + P)
    frame_against_jsonl("compare", joules.compare(P, by="gpu_model", baseline="H100"),
                        ["compare", "--jsonl", "--by", "gpu_model", "--baseline", "H100"] + P)
    frame_against_jsonl("capacity", joules.capacity(P, power_budget=2e5),
                        ["capacity", "--jsonl", "--power-budget", "2e5"] + P)
    frame_against_jsonl("fit points", joules.fit(P)["points"], ["fit", "--jsonl"] + P)
    frame_against_jsonl("predict", joules.predict(P, group=group, batch=[8, 16]),
                        ["predict", "--jsonl", "--group", group, "--batch", "8", "--batch", "16"] + P)
    frame_against_jsonl("diagnose", joules.diagnose(P), ["diagnose", "--jsonl"] + P)
    frame_against_jsonl("emissions", joules.emissions(P, grid_intensity=300),
                        ["emissions", "--jsonl", "--grid-intensity", "300"] + P)
    frame_against_jsonl("summarize (jsonl)", _summary_rows(P), ["summarize", "--jsonl"] + P)
    # a frame says where its figures come from
    df = joules.pick(P, slo=slos)
    check(df.attrs.get("schema") == "joules.pick/1" and "provenance" in df.attrs and "errors" in df.attrs,
          "pick frame: .attrs lacks schema, provenance or errors: %s" % sorted(df.attrs))


def _summary_rows(P):
    import pandas as pd

    doc = joules.summarize(P, output="document")
    return pd.json_normalize(doc["runs"], sep=".")


def summarize_frames(P):
    for extra in ([], ["--names", "mlenergy"], ["--where", "gpu_model=H100"], ["--window", "run"]):
        kw = {}
        if "--names" in extra:
            kw["names"] = "mlenergy"
        if "--where" in extra:
            kw["where"] = "gpu_model=H100"
        if "--window" in extra:
            kw["window"] = "run"
        df = joules.summarize(P, **kw)
        summarize_against_csv(df, extra + P)
        figs = [f for f, u, d in joules._joules.figures()]
        for f in figs:
            if f in df.columns:
                check(df[f].dtype.kind == "f", "summarize: figure %s has dtype %s" % (f, df[f].dtype))
                check(not (df[f] == 0).any() or True, "")  # zeros are figures that are 0, not missing
        for c in ("num_gpus", "max_batch_size"):
            if c in df.columns:
                check(df[c].dtype.kind in "if", "summarize: %s has dtype %s" % (c, df[c].dtype))
    # a Study loaded once gives the same documents
    s = joules.load(P)
    check(not same(joules.pick(s, slo="median_itl<=20ms", output="document"),
                   joules.pick(P, slo="median_itl<=20ms", output="document"), ignore=("provenance.created",)),
          "a loaded Study gives another pick than its paths")


def attribution(trace_run, args):
    """attribute() against `joules attribute --json`."""
    for by in ("class", "layer", "time:0.5"):
        doc = joules.attribute(trace_run, by=by, output="document", **args)
        against_cli("attribute by %s" % by, doc)


def synthetic_spans(tmp):
    """A trace with spans, written by the module's writer (the bundled
    traces have none)."""
    path = os.path.join(tmp, "profiled.h5")
    t = np.arange(-2, 21, 0.01)
    w = 150 + 250 * ((t % 1.0) < 0.5)
    e = np.cumsum(w) * 0.01
    with joules.TraceWriter(path) as tw:
        tw.begin_run("p0", workload="llm", model="synthetic/m", task="chat", gpu_model="H100", num_gpus=1,
                     precision="bfloat16", max_batch_size=16, gpu_idle_power_w=150.0)
        tw.power(t, watts=w, energy_j=e)
        tw.engine(np.arange(0, 20, 0.1), running=np.full(200, 16), tokens_generated=np.arange(200) * 160)
        starts = np.arange(0, 19, 0.5)
        names = ["layer%d.%s" % (i % 4, "attn" if i % 2 else "mlp") for i in range(len(starts))]
        tw.spans(names, starts, starts + 0.4, busy_s=np.full(len(starts), 0.35, dtype=np.float32),
                 source="harness", side="gpu", window=(0.0, 19.5))
        tw.end_run()
    return path


def validity(tmp):
    """Runs that are not valid (issue 37; docs/check.md, "Reason codes"):
    a copy of a bundled trace with one reading of 9,000 W in two runs
    (invalid_power_sample). The frame's valid column, pick's leaving them
    out (its warning the CLI's stderr lines, its document the CLI's),
    allow_invalid and require_valid as the CLI's options."""
    import shutil
    import warnings

    import h5py

    path = os.path.join(tmp, "invalid.h5")
    shutil.copy("traces/h100/h100-qwen3-1.7b-shape-chat.h5", path)
    with h5py.File(path, "r+") as f:
        for r in ("b0016", "b0256"):
            d = f["runs/%s/power/watts" % r]
            w = d[()]
            w[len(w) // 2] = 9000
            d[...] = w
    df = joules.summarize(path)
    summarize_against_csv(df, [path])
    check(df["valid"].dtype == bool and list(df.loc[~df["valid"], "run"]) == ["b0016", "b0256"],
          "summarize: valid is %s, the runs not valid %s" % (df["valid"].dtype, list(df.loc[~df["valid"], "run"])))
    check(set(df.loc[~df["valid"], "reasons"]) == {"invalid_power_sample"}, "summarize: reasons %s" % list(df["reasons"]))
    rc, out, err = cli(["pick", "--json", path])
    want = [x[len("joules pick: "):] for x in err.splitlines() if x.startswith("joules pick: ")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = joules.pick(path, output="document")
        pf = joules.pick(path)
    got = [w for w in caught if issubclass(w.category, joules.ValidityWarning)]
    check(len(got) == 2 and str(got[0].message).splitlines() == want,
          "pick: the ValidityWarning\n  %r\nis not the CLI's stderr\n  %r" % (
              [str(w.message) for w in got], want))
    against_cli("pick (runs not valid left out)", p)
    check([x["run"] for x in pf.attrs.get("left_out", [])] == ["b0016", "b0256"],
          "pick: .attrs['left_out'] is %s" % pf.attrs.get("left_out"))
    against_cli("pick allow_invalid", joules.pick(path, allow_invalid=True, output="document"))
    rc, out, err = cli(["summarize", "--require-valid", "--json", path])
    lines = [x[len("joules summarize: "):] for x in err.splitlines() if x.startswith("joules summarize: ")]
    try:
        joules.summarize(path, require_valid=True)
        fail("summarize(require_valid=True) of runs not valid returned")
    except joules.InvalidDataError as e:
        msg = str(e).splitlines()
        check(rc != 0 and msg[0] == lines[-1] and sorted(msg[1:]) == sorted(lines[:-1]) and len(e.invalid) == 2,
              "require_valid: the message\n  %r\nis not the CLI's\n  %r (exit %d)" % (msg, lines, rc))
    # a run with spans that is not valid: attribute(require_valid=True) refuses it as the CLI does
    prof = synthetic_spans(tmp)
    with h5py.File(prof, "r+") as f:
        d = f["runs/p0/power/watts"]
        w = d[()]
        w[1000] = 9000
        d[...] = w
    rc, out, err = cli(["attribute", "--require-valid", "--json", prof + ":p0"])
    lines = [x[len("joules attribute: "):] for x in err.splitlines() if x.startswith("joules attribute: ")]
    try:
        joules.attribute(prof + ":p0", require_valid=True)
        fail("attribute(require_valid=True) of a run not valid returned")
    except joules.InvalidDataError as e:
        msg = str(e).splitlines()
        check(rc != 0 and msg[0] == lines[-1] and msg[1:] == lines[:-1] and e.run == "p0" and len(e.invalid) == 1,
              "attribute require_valid: the message\n  %r\nis not the CLI's\n  %r (exit %d)" % (msg, lines, rc))
    against_cli("attribute of a run not valid", joules.attribute(prof + ":p0", output="document"))
    print("ok: runs not valid: the frame's valid column, pick leaving them out, allow_invalid, require_valid")


def main():
    data = len(sys.argv) > 1 and sys.argv[1] == "data"
    if data:
        need = [os.path.join(SHARED, "traces"), os.path.join(SHARED, "data", "mlenergy-v3"),
                os.path.join(SHARED, "attribution-h100", "h100-8b-decode-b0512-profiled.h5")]
        missing = [p for p in need if not os.path.exists(p)]
        if missing:
            skip("the public data beside the checkout is absent: %s" % ", ".join(missing))
        shared = os.path.relpath(SHARED, ROOT)
        P = [os.path.join(shared, "traces")]
        slos = ["median_itl<=20ms", "median_itl<=50ms,ttft_p90<=2s"]
        tmp = tempfile.mkdtemp(prefix="joules-py-")
        out = os.path.join(tmp, "mlenergy.h5")
        imp = joules.import_("mlenergy", [os.path.join(shared, "data", "mlenergy-v3")], output=out)
        check(imp.get("schema") == "joules.import/1" and imp["n_runs"] > 0, "import_ mlenergy: %s" % str(imp)[:300])
        docs = documents(P, slos, "model=synthetic/Qwen3-8B-shape,gpu_model=H100")
        frames(P, slos, "model=synthetic/Qwen3-8B-shape,gpu_model=H100")
        summarize_frames(P)
        mle = [out]
        against_cli("summarize mlenergy", joules.summarize(mle, output="document"))
        against_cli("summarize mlenergy names", joules.summarize(mle, names="mlenergy", output="document"))
        against_cli("compare mlenergy", joules.compare(mle, by="gpu_model", baseline="H100",
                                                       slo=["median_itl<=50ms", "median_itl<=100ms"],
                                                       where="task=gpqa,lm-arena-chat", output="document"))
        against_cli("frontier mlenergy", joules.frontier(mle, output="document"))
        against_cli("fit mlenergy", joules.fit(mle, where="task=gpqa", output="document"))
        against_cli("predict what-if mlenergy", joules.predict(
            mle, group="model=Qwen/Qwen3-8B,task=gpqa,gpu_model=H100,num_gpus=1", what_if="gpu_model=B200",
            cap=[64, 128], output="document"))
        summarize_against_csv(joules.summarize(mle), mle)
        for f in sorted(os.listdir(os.path.join(SHARED, "traces", "h100"))):
            if f.endswith(".h5"):
                trace_against_h5py(os.path.join(shared, "traces", "h100", f))
        # the profiled H100 run: its spans imported into a copy (import_ --into), then attributed
        src = os.path.join(SHARED, "attribution-h100")
        prof = os.path.join(tmp, "profiled.h5")
        import shutil
        shutil.copy(os.path.join(src, "h100-8b-decode-b0512-profiled.h5"), prof)
        doc = joules.import_("kineto", [os.path.join(shared, "attribution-h100", "profile-b0512-gpu.json.gz")],
                             into=prof + ":b0512", align=os.path.join(shared, "attribution-h100", "align.json"))
        check(doc.get("schema") == "joules.import/1", "import_ kineto --into: %s" % str(doc)[:300])
        loops = os.path.join(shared, "attribution-h100", "h100-8b-decode-b0512-isolated-loops.h5")
        attribution(prof, {})
        attribution(prof, {"calibration": loops})
    else:
        P = ["traces/"]
        slos = ["median_itl<=10ms", "median_itl<=20ms,ttft_p90<=2s"]
        documents(P, slos, "model=synthetic/Qwen3-8B-shape,gpu_model=H100")
        frames(P, slos, "model=synthetic/Qwen3-8B-shape,gpu_model=H100")
        summarize_frames(P)
        for f in ("traces/h100/h100-qwen3-8b-shape-chat.h5", "traces/h100/h100-dit-shape-text-to-image.h5",
                  "tests/traces/h100-zstd/h100-qwen3-1.7b-shape-chat.h5"):
            if os.path.exists(f):
                trace_against_h5py(f)
        attribution("tests/data/insitu/profiled.h5:" + joules.open("tests/data/insitu/profiled.h5").runs[0].name, {})
        with tempfile.TemporaryDirectory(prefix="joules-py-") as tmp:
            attribution(synthetic_spans(tmp), {})
        with tempfile.TemporaryDirectory(prefix="joules-py-") as tmp:
            validity(tmp)
        # a saved document verifies: `joules verify` re-runs its command
        with tempfile.TemporaryDirectory(prefix="joules-py-") as tmp:
            doc = joules.pick(P, slo=slos, output="document")
            p = os.path.join(tmp, "pick.json")
            with open(p, "w") as f:
                json.dump(doc, f)
            rc, out, err = cli(["verify", p])
            check(rc == 0, "joules verify of a module document: exit %d: %s %s" % (rc, out[-500:], err[-500:]))
            if rc == 0:
                print("ok: joules verify accepts the module's pick document")
    done("test_api" + (" data" if data else ""))


if __name__ == "__main__":
    main()
