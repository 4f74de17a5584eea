"""Refusals and bad input through the Python module (docs/python.md,
"Errors"): each refusal of the CLI is a joules.Error (the subclass of its
kind) with the CLI's message and where it happened (file, run, field,
row); a bad file among good ones is in the result's errors while the good
runs are returned; nothing processed at all is an exception."""
import os
import shutil
import tempfile
import warnings

from common import ROOT, check, cli, done, fail

import joules  # noqa: E402

os.chdir(ROOT)
SMALL = "traces/h100/h100-qwen3-1.7b-shape-chat.h5"


def cli_message(args):
    """The CLI's message: its first stderr line without "joules CMD: "."""
    rc, out, err = cli(args)
    lines = [x for x in err.splitlines() if x.strip()]
    first = lines[0] if lines else ""
    prefix = "joules %s: " % args[0]
    return rc, first[len(prefix):] if first.startswith(prefix) else first


def refused(cls, cli_args, fn, *a, **kw):
    """fn(*a, **kw) raises cls with the message the CLI prints for cli_args."""
    rc, want = cli_message(cli_args) if cli_args else (None, None)
    try:
        fn(*a, **kw)
    except cls as e:
        if want is not None:
            check(str(e).splitlines()[0] == want, "%s: message\n  %r\nis not the CLI's\n  %r" % (
                cls.__name__, str(e).splitlines()[0], want))
        check(isinstance(e, joules.Error) and e.kind is not None,
              "%s: not a joules.Error with a kind" % type(e).__name__)
        print("ok: %s: %s (CLI exit %s)" % (cls.__name__, str(e).splitlines()[0][:110], rc))
        return e
    except Exception as e:  # noqa: BLE001
        fail("expected %s, got %s: %s" % (cls.__name__, type(e).__name__, e))
        return None
    fail("expected %s from %s%r" % (cls.__name__, fn.__name__, a))
    return None


def main():
    # paths and files
    refused(joules.FileError, ["summarize", "/nonexistent"], joules.summarize, "/nonexistent")
    with tempfile.TemporaryDirectory(prefix="joules-pyerr-") as tmp:
        good = os.path.join(tmp, "good.h5")
        shutil.copy(SMALL, good)
        bad = os.path.join(tmp, "broken.h5")
        with open(SMALL, "rb") as f, open(bad, "wb") as g:
            g.write(f.read()[:5000])
        df = joules.summarize(tmp)
        check(len(df) == 5 and len(df.attrs["errors"]) == 1 and df.attrs["errors"][0]["file"] == bad,
              "a bad file among good ones: %d runs, errors %s" % (len(df), df.attrs["errors"]))
        rc, out, err = cli(["summarize", "--json", tmp])
        import json

        check(df.attrs["errors"] == json.loads(out)["errors"], "the errors are not the CLI's --json errors")
        check(joules.pick(tmp).attrs["errors"] == df.attrs["errors"], "pick: errors not carried")
        print("ok: a bad file among good ones: 5 runs returned, the bad file in .attrs['errors'] as --json says")
        e = refused(joules.FormatError, ["summarize", bad], joules.summarize, bad)
        check(e is not None and e.file == bad and isinstance(e.errors, list) and len(e.errors) == 1,
              "nothing processed: the exception names the file and lists the errors")
        refused(joules.FormatError, ["summarize", bad], joules.open, bad)
        notatrace = os.path.join(tmp, "notes.h5")
        with open(notatrace, "w") as f:
            f.write("not HDF5 at all\n")
        refused(joules.FormatError, ["summarize", notatrace], joules.open, notatrace)
    # selections
    refused(joules.UsageError, ["summarize", "--where", "gpu_model~H100", "traces/"], joules.summarize,
            "traces/", where="gpu_model~H100")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        e = refused(joules.NoDataError, None, joules.summarize, "traces/", where="gpu_model=A100")
        check(any(issubclass(x.category, joules.SelectionWarning) and "values present: H100, H200" in str(x.message)
                  for x in w), "no SelectionWarning naming the values present: %s" % [str(x.message) for x in w])
        check(e is not None and str(e) == "no run left after --where/--exclude (29 runs read)", "message: %s" % e)
        check(w and w[0].filename.endswith("test_errors.py"), "the warning points at %s, not the caller" % (
            w[0].filename if w else None))
    # figures, SLOs, options
    e = refused(joules.UsageError, None, joules.pick, "traces/", slo="median_itl<=10")
    rc, out, err = cli(["pick", "--slo", "median_itl<=10", "traces/"])
    check(e is not None and str(e).splitlines()[:3] == [x.split(": ", 1)[-1] if i == 0 else x for i, x in
                                                         enumerate(err.splitlines()[:3])],
          "the SLO refusal is not the CLI's (message and caret):\n%s\n%s" % (e, err))
    refused(joules.UsageError, ["frontier", "--latency", "p99_it", "traces/"], joules.frontier, "traces/",
            latency="p99_it")
    refused(joules.UsageError, ["summarize", "--set-rule", "foo=3", "traces/"], joules.summarize, "traces/",
            set_rule="foo=3")
    refused(joules.Error, ["summarize", "--rules", "/nonexistent.json", "traces/"], joules.summarize, "traces/",
            rules="/nonexistent.json")
    refused(joules.UsageError, ["compare", "--by", "precision", "--baseline", "bfloat16", "--slo",
                                "median_itl<=1s", "traces/"], joules.compare, "traces/", by="precision",
            baseline="bfloat16", slo="median_itl<=1s")
    e = refused(joules.UsageError, ["predict", "--group", "model=synthetic/Qwen3-8B-shape", "--batch", "8", "traces/"],
                joules.predict, "traces/", group="model=synthetic/Qwen3-8B-shape", batch=8)
    check(e is not None and "gpu_model=H200" in str(e), "the candidates are not listed: %s" % e)
    refused(joules.UsageError, ["capacity", "--power-budget", "1e6", "--pue", "0.5", "traces/"], joules.capacity,
            "traces/", power_budget=1e6, pue=0.5)
    refused(joules.UsageError, ["emissions", "--start", "yesterday", "traces/"], joules.emissions, "traces/",
            start="yesterday")
    refused(joules.NoDataError, ["pick", "--slo", "ttft_p90<=2s", "traces/h100/h100-dit-shape-text-to-image.h5"],
            joules.pick, "traces/h100/h100-dit-shape-text-to-image.h5", slo="ttft_p90<=2s")
    refused(joules.UsageError, ["emissions", "--pue", "120", "traces/"], joules.emissions, "traces/", pue=120)
    refused(joules.UsageError, ["emissions", "--grid-intensity", "0.4", "traces/"], joules.emissions, "traces/",
            grid_intensity=0.4)
    with tempfile.TemporaryDirectory(prefix="joules-pyerr-") as tmp:
        series = os.path.join(tmp, "grid.csv")  # hours that hold none of the runs (issue 37)
        with open(series, "w") as f:
            f.write("datetime,value\n2001-01-01T00:00:00Z,400\n2001-01-01T01:00:00Z,300\n")
        e = refused(joules.NoDataError, ["emissions", "--grid-intensity", series, SMALL], joules.emissions,
                    SMALL, grid_intensity=series)
        check(e is not None and "h after the series" in str(e), "the spans are not named: %s" % e)
    refused(joules.UsageError, ["summarize", "--window", "5,1", "traces/"], joules.summarize, "traces/",
            window=(5, 1))
    refused(joules.UsageError, ["summarize", "--names", "toolkit", "--json", "traces/"], joules.summarize,
            "traces/", names="toolkit")
    try:
        joules.summarize("traces/", wher="gpu_model=H100")
        fail("an unknown keyword was accepted")
    except TypeError as e:
        check("did you mean 'where'" in str(e), "no 'did you mean' for wher=: %s" % e)
    # a run, its fields
    with tempfile.TemporaryDirectory(prefix="joules-pyerr-") as tmp:
        p = os.path.join(tmp, "w.h5")
        with joules.TraceWriter(p) as w:
            w.begin_run("r", workload="llm", model="m", task="t", gpu_model="H100", num_gpus=1,
                        precision="bfloat16", max_batch_size=1)
            w.power([0.0, 1.0], watts=[100.0, 100.0])
            w.end_run()
        e = refused(joules.MissingFieldError, None, joules.open(p).runs[0].energy_counter)
        check(e is not None and (e.field or "").endswith("power/energy_j"), "the missing field is not named: %s" % e)
    t = joules.open("traces/h100/h100-dit-shape-text-to-image.h5")
    try:
        t["b0003"]
        fail("a run that does not exist was found")
    except KeyError as e:
        check("did you mean" in str(e), "no 'did you mean' for a run name: %s" % e)
    # imports
    refused(joules.UsageError, None, joules.import_, "nvidia-smy", ["x.csv"], output="/tmp/x.h5")
    with tempfile.TemporaryDirectory(prefix="joules-pyerr-") as tmp:
        log = os.path.join(tmp, "log.csv")
        with open(log, "w") as f:
            f.write("timestamp, power.draw [W]\n2026/01/01 00:00:00.000, 100 W\n2026/01/01 00:00:00.500, 1O0 W\n")
        out = os.path.join(tmp, "o.h5")
        e = refused(joules.Error, ["import", "nvidia-smi", log, "--timezone", "UTC", "-o", out], joules.import_,
                    "nvidia-smi", [log], output=out, timezone="UTC")
        check(e is not None and e.file == log, "the import error does not name the log: %s" % e)
        check(not os.path.exists(out), "a failed import left %s" % out)
        open(out, "w").close()
        refused(joules.UsageError, None, joules.import_, "nvidia-smi", [log], output=out, timezone="UTC")
    done("test_errors")


if __name__ == "__main__":
    main()
