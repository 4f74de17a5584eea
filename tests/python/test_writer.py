"""joules.TraceWriter (docs/python.md, docs/writing-traces.md): a trace
written in pieces passes `joules check`, reads back through joules.open
and h5py as written, and summarises as the CLI summarises it; the writer
refuses, at the call that does it, what the format does not allow (naming
the dataset and the row), keeps nothing of a refused piece, and leaves no
file behind when it is aborted; memory stays bounded by the chunk size,
not by the run."""
import json
import os
import resource
import tempfile

import numpy as np

from common import ROOT, check, cli, cli_json, done, fail, same

import joules  # noqa: E402

ATTRS = dict(workload="llm", model="org/model", task="chat", gpu_model="H100", num_gpus=2, precision="bfloat16",
             max_batch_size=64, gpu_tdp_w=700.0, gpu_idle_power_w=80.0, nickname="a run", seed=7)


def full_run(w, name="r0", pieces=7):
    """Every group, each appended in pieces."""
    w.begin_run(name, **ATTRS)
    t = np.arange(-1.0, 30.0, 0.01)
    watts = np.stack([300 + 50 * np.sin(t), 310 + 40 * np.cos(t)], axis=1)
    energy = np.cumsum(watts, axis=0) * 0.01 + 1e6
    for k in np.array_split(np.arange(len(t)), pieces):
        w.power(t[k], watts=watts[k], energy_j=energy[k])
    tg = np.arange(0, 30.0, 0.05)
    for k in np.array_split(np.arange(len(tg)), 3):
        w.gpu(tg[k], sm_util=np.full((len(k), 2), 0.9), sm_clock_mhz=np.full((len(k), 2), 1980.0))
    te = np.arange(0.0, 30.0, 0.02)
    run = np.minimum(64, np.arange(len(te)) // 3)
    tok = np.cumsum(run)
    kv = np.clip(run / 80.0, 0, 1)
    for k in np.array_split(np.arange(len(te)), pieces):
        w.engine(te[k], running=run[k], tokens_generated=tok[k], kv_cache_usage=kv[k])
    R = 200
    arr = np.linspace(0, 5, R)
    w.requests(arrival=arr, first_token=arr + 0.2, finish=arr + 20, input_tokens=np.full(R, 512),
               output_tokens=np.full(R, 400))
    itl = np.full(R * 4, 0.012)
    w.itl(itl[:400], request=np.arange(400) % R)
    w.itl(itl[400:], request=np.arange(400, R * 4) % R)
    w.host(np.arange(0, 30.0, 0.5), cpu_energy_j=np.cumsum(np.full((60, 2), 5.0), axis=0),
           dram_energy_j=np.cumsum(np.full((60, 2), 1.0), axis=0))
    starts = np.arange(1.0, 28.0, 0.25)
    w.spans(["layer%d.attn" % (i % 3) for i in range(len(starts))], starts, starts + 0.2, source="harness",
            side="gpu", window=(0.5, 28.5))
    w.end_run()
    return t, watts, energy, te, run, tok


def round_trip(tmp):
    path = os.path.join(tmp, "full.h5")
    with joules.TraceWriter(path, chunk_rows=500) as w:
        t, watts, energy, te, run, tok = full_run(w)
        w.begin_run("d0", workload="diffusion", model="org/dit", task="text-to-image", gpu_model="H100",
                    num_gpus=1, precision="bfloat16", max_batch_size=4, denoising_steps=28)
        tt = np.arange(0, 12.0, 0.01)
        w.power(tt, watts=np.full(len(tt), 500.0))
        w.batches(np.arange(1.0, 11.0, 2.0), np.arange(2.5, 12.0, 2.0), size=np.full(5, 4))
        w.end_run()
        w.begin_run("s0", workload="llm", model="org/model", task="chat", gpu_model="H100", num_gpus=1,
                    precision="bfloat16", max_batch_size=8)
        w.end_run(summary={"energy_per_token_j": 0.25, "avg_power_w": 400.0, "steady_state_duration_s": 60.0,
                           "published_by": 3.0})
    rc, out, err = cli(["check", path])
    check(rc == 0, "joules check of the writer's trace: exit %d:\n%s%s" % (rc, out[-2000:], err[-2000:]))
    if rc == 0:
        print("ok: joules check accepts the writer's trace (3 runs, every group, spans, summary/)")
    tr = joules.open(path)
    check([r.name for r in tr.runs] == ["d0", "r0", "s0"], "runs read back: %s" % [r.name for r in tr.runs])
    r = tr["r0"]
    ti, wi = r.power()
    check(np.array_equal(ti, t), "power/time read back differs")
    check(np.allclose(wi, watts.astype(np.float32), rtol=0, atol=0), "power/watts (float32) read back differs")
    check(np.array_equal(r.energy_counter()[1], energy), "power/energy_j read back differs")
    e = r.engine()
    check(np.array_equal(e["time"], te) and np.array_equal(e["running"], run) and
          np.array_equal(e["tokens_generated"], tok), "engine/ read back differs")
    check(e["running"].dtype == np.int32 and e["tokens_generated"].dtype == np.int64,
          "engine/ types: %s" % e.dtypes.to_dict())
    a = r.attrs
    check(a["nickname"] == "a run" and a["seed"] == 7.0 and a["num_gpus"] == 2, "attributes read back: %s" % a)
    check(len(r.spans()) == 108 and r.spans()["name"].iloc[1] == "layer1.attn", "spans read back")
    check(len(r.itl()) == 800, "itl read back")
    rc, ref, err = cli_json(["summarize", "--json", path])
    for run_doc in ref["runs"]:
        diffs = same(tr[run_doc["run"]].summary(), run_doc)
        check(not diffs, "%s: summary differs from the CLI's: %s" % (run_doc["run"], diffs[:3]))
    s0 = [x for x in ref["runs"] if x["run"] == "s0"][0]
    check(s0["energy_per_token_j"] == 0.25 and s0["steady_method"] == "summary", "summary/ read back: %s" %
          {k: s0[k] for k in ("energy_per_token_j", "steady_method")})
    try:
        import h5py

        with h5py.File(path, "r") as f:
            check(f["runs/r0/power/watts"].shape == (len(t), 2) and f["runs/r0/power/watts"].dtype == np.float32,
                  "h5py: power/watts shape %s" % (f["runs/r0/power/watts"].shape,))
            check(f["runs/r0/engine/running"].dtype == np.int32, "h5py: engine/running is not int32")
            check(f["runs/r0"].attrs["model"] in ("org/model", b"org/model"), "h5py: @model")
        print("ok: h5py reads the writer's datasets at the format's types")
    except ImportError:
        pass
    print("ok: the writer's runs read back as written and summarise as the CLI does")


def refusals(tmp):
    """Each refusal: class, field, row; nothing of the piece kept."""
    path = os.path.join(tmp, "bad.h5")
    w = joules.TraceWriter(path)
    cases = 0

    def refused(cls, field, row, fn, *args, **kw):
        nonlocal cases
        cases += 1
        try:
            fn(*args, **kw)
        except cls as e:
            ok = (field is None or (e.field or "").endswith(field)) and (row is None or e.row == row)
            check(ok, "%s: field %r row %r, expected %r %r (%s)" % (cls.__name__, e.field, e.row, field, row, e))
            check(e.file == path, "%s names file %r" % (cls.__name__, e.file))
            return e
        except Exception as e:  # noqa: BLE001
            fail("expected %s, got %s: %s" % (cls.__name__, type(e).__name__, e))
            return None
        fail("expected %s for %s%s" % (cls.__name__, fn.__name__, args[:1]))
        return None

    base = dict(ATTRS, num_gpus=1)
    refused(joules.InvalidDataError, None, None, w.begin_run, "x", **dict(base, num_gpus=0))
    refused(joules.WrongTypeError, None, None, w.begin_run, "x", **dict(base, max_batch_size=2.5))
    refused(joules.MissingFieldError, None, None, w.begin_run, "x", **{k: v for k, v in base.items() if k != "task"})
    refused(joules.InvalidDataError, None, None, w.begin_run, "x", **dict(base, workload="chatbot"))
    refused(joules.InvalidDataError, None, None, w.begin_run, "x", **dict(base, power_scope="rack"))
    w.begin_run("r", **base)
    w.power([0.0, 1.0, 2.0], watts=[100.0, 110.0, 120.0])
    e = refused(joules.InvalidDataError, "/runs/r/power/time", 4, w.power, [3.0, 1.5], watts=[1.0, 1.0])
    check(e is not None and "1.5 after 3" in str(e), "the message names the values: %s" % e)
    check(w._w.rows("power", "time") == 3, "a refused piece was kept: %d rows" % w._w.rows("power", "time"))
    refused(joules.InvalidDataError, "/runs/r/power/time", 3, w.power, [float("nan")], watts=[1.0])
    refused(joules.InvalidDataError, "/runs/r/power/watts", 4, w.power, [3.0, 4.0], watts=[1.0, -5.0])
    refused(joules.UsageError, None, None, w.power, [3.0, 4.0], watts=[1.0, 2.0, 3.0])
    refused(joules.UsageError, None, None, w.power, [3.0], energy_j=[1.0])  # watts left out now
    w.engine([0.0, 1.0], running=[1, 2], tokens_generated=[0, 10])
    refused(joules.WrongTypeError, "/runs/r/engine/running", 2, w.engine, [2.0], running=[2.5], tokens_generated=[20])
    refused(joules.InvalidDataError, "/runs/r/engine/tokens_generated", 2, w.engine, [2.0], running=[2],
            tokens_generated=[5])
    refused(joules.InvalidDataError, "/runs/r/engine/running", 2, w.engine, [2.0], running=[-1], tokens_generated=[20])
    refused(joules.UsageError, None, None, w.engine, [2.0], running=[2], tokens_generated=[20], kv_cache_usage=[0.5])
    refused(joules.InvalidDataError, "/runs/r/requests/arrival", 0, w.requests, arrival=[float("inf")])
    refused(joules.InvalidDataError, "/runs/r/itl/seconds", 1, w.itl, [0.1, -0.1])
    refused(joules.InvalidDataError, "/runs/r/batches/end", 0, w.batches, [5.0], [4.0])
    refused(joules.InvalidDataError, "/runs/r/spans/end", 0, w.spans, ["a"], [2.0], [1.0])
    w.power([3.0, 4.0], watts=[100.0, 90.0])  # the run goes on after refusals
    w.requests(arrival=[0.0, 0.0], finish=[3.0, 4.0], output_tokens=[10, 20])
    w.itl([0.01, 0.02, 0.03], request=[0, 1, 5])
    refused(joules.InvalidDataError, "/runs/r/itl/request", None, w.end_run)  # request 5 of 2
    w.begin_run("g", **dict(base, num_gpus=2))
    w.power([0.0, 1.0], watts=[100.0, 100.0])  # one column for 2 GPUs
    refused(joules.WrongTypeError, "/runs/g/power/watts", None, w.end_run)
    w.begin_run("e", **base)
    w.engine([0.0, 1.0], running=[1, 1])
    refused(joules.MissingFieldError, "/runs/e", None, w.end_run)  # no power/, no summary/
    w.begin_run("ok", **base)
    w.power([0.0, 1.0, 2.0], watts=[100.0, 100.0, 100.0])
    w.end_run()
    w.close()
    rc, out, err = cli(["check", path])
    check(rc == 0 and "1 runs" in out, "after refusals the trace holds the one good run: exit %d %s" % (rc, out[-500:]))
    print("ok: %d refusals, each naming its dataset and row, nothing kept of a refused piece" % cases)
    # an exception inside `with`: nothing left behind
    p2 = os.path.join(tmp, "aborted.h5")
    try:
        with joules.TraceWriter(p2) as w2:
            w2.begin_run("r", **base)
            w2.power([0.0, 1.0], watts=[1.0, 1.0])
            raise RuntimeError("the harness failed")
    except RuntimeError:
        pass
    check(not os.path.exists(p2) and not [f for f in os.listdir(tmp) if "aborted" in f],
          "an aborted writer left a file: %s" % os.listdir(tmp))
    print("ok: an aborted writer leaves no file")


def bounded(tmp):
    """10^7 samples of 2 GPUs (240 MB as float64) appended in pieces of 10^5:
    the process grows by far less than the run."""
    path = os.path.join(tmp, "long.h5")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    n, piece = 10_000_000, 100_000
    with joules.TraceWriter(path, compression="zstd", level=1) as w:
        w.begin_run("long", **dict(ATTRS))
        for k in range(0, n, piece):
            t = np.arange(k, k + piece, dtype=np.float64) * 1e-3
            w.power(t, watts=np.full((piece, 2), 300.0))
        w.end_run()
    grew = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024.0
    check(grew < 120, "writing 10^7 rows in pieces grew the process by %.0f MiB (the run is 240 MiB)" % grew)
    t, watts = joules.open(path).runs[0].power()
    check(t.shape == (n,) and watts.shape == (n, 2) and t[-1] == (n - 1) * 1e-3, "the long run read back")
    print("ok: 10^7 rows x 2 GPUs written in pieces, peak memory +%.0f MiB; read back by power(): %s, %s" % (
        grew, t.shape, watts.shape))


def placeholder_cap(tmp):
    """A batch cap the source does not record (MLPerf: the importer fills 1
    and lists it in @unknown_attributes) reads back as None, as
    `joules inspect --json` gives null, never as the 1 written."""
    path = os.path.join(tmp, "placeholder.h5")
    with joules.TraceWriter(path) as w:
        w.begin_run("m0", workload="language", model="bert-99", task="squad", gpu_model="A100", num_gpus=1,
                    precision="int8", max_batch_size=1, unknown_attributes="max_batch_size")
        tt = np.arange(0, 12.0, 0.01)
        w.power(tt, watts=np.full(len(tt), 300.0))
        w.end_run()
        w.begin_run("k0", workload="llm", model="org/model", task="chat", gpu_model="H100", num_gpus=1,
                    precision="bfloat16", max_batch_size=1)
        w.power(tt, watts=np.full(len(tt), 300.0))
        w.end_run()
    tr = joules.open(path)
    a = tr["m0"].attrs
    check("max_batch_size" in a and a["max_batch_size"] is None,
          "a placeholder batch cap reads back as %r, not None" % (a.get("max_batch_size"),))
    check(tr["k0"].attrs["max_batch_size"] == 1, "a real cap of 1 reads back as %r" %
          (tr["k0"].attrs.get("max_batch_size"),))
    rc, doc, err = cli_json(["inspect", "--json", path])
    check(rc == 0, "inspect --json: exit %d: %s" % (rc, err[-500:]))
    if rc == 0:
        runs = {r["run"]: r["attributes"] for r in doc["files"][0]["runs"]}
        check(runs["m0"].get("max_batch_size", "absent") is None and runs["k0"]["max_batch_size"] == 1,
              "inspect --json gives %r / %r for the caps" % (runs["m0"].get("max_batch_size", "absent"),
                                                            runs["k0"].get("max_batch_size")))
    print("ok: a placeholder batch cap (@unknown_attributes) reads back as None; a real cap of 1 as 1")


def main():
    os.chdir(ROOT)
    with tempfile.TemporaryDirectory(prefix="joules-pywriter-") as tmp:
        round_trip(tmp)
        placeholder_cap(tmp)
        refusals(tmp)
        bounded(tmp)
    done("test_writer")


if __name__ == "__main__":
    main()
