"""The fuzz corpora through the Python module (docs/robustness.md): every
seed and saved finding of tests/fuzz/corpus/ and tests/fuzz/regressions/,
given to the module call that reads that kind of input, ends in a result
or a joules.Error (a refusal, as the CLI refuses it) -- never a crash of
the interpreter, never another exception. Text inputs given as arguments
(SLOs, --where clauses) may also be refused by Python's own argument
conversion (ValueError: embedded null character; UnicodeDecodeError)."""
import os
import shutil
import sys
import tempfile

from common import ROOT, check, done, fail

import joules  # noqa: E402

os.chdir(ROOT)
FUZZ = os.path.join(ROOT, "tests", "fuzz")
sys.path.insert(0, FUZZ)
import targets as fuzz_targets  # noqa: E402
SMALL = "traces/h100/h100-qwen3-1.7b-shape-chat.h5"
SET = {"model": "fuzz/model", "max_batch_size": "8", "workload": "llm", "task": "fuzz", "precision": "bf16",
       "gpu_model": "H100"}
LOG = ("timestamp, name, power.draw [W]\n"
       "2026/11/23 10:00:00.000, NVIDIA H100 80GB HBM3, 100.00 W\n"
       "2026/11/23 10:00:02.000, NVIDIA H100 80GB HBM3, 300.00 W\n"
       "2026/11/23 10:00:05.000, NVIDIA H100 80GB HBM3, 300.00 W\n"
       "2026/11/23 10:00:08.000, NVIDIA H100 80GB HBM3, 250.00 W\n"
       "2026/11/23 10:00:10.000, NVIDIA H100 80GB HBM3, 100.00 W\n")

counts = {"result": 0, "refused": 0}


KINETO_PROFILE = (
    '{"baseTimeNanoseconds": 1000000000, "traceEvents": ['
    '{"ph": "X", "cat": "gpu_user_annotation", "name": "decode_step", "ts": 100000,'
    ' "dur": 500000, "pid": 0, "tid": 7},'
    '{"ph": "X", "cat": "kernel", "name": "k", "ts": 200000, "dur": 1000, "pid": 0, "tid": 7}]}')


def split(data):
    """fuzz_split (tests/fuzz/fuzz_common.h): two documents at "\\n----\\n"."""
    i = data.find(b"\n----\n")
    return (data, None) if i < 0 else (data[:i], data[i + 6:])


def write(path, data):
    with open(path, "wb") as f:
        f.write(data or b"")
    return path


def use_trace(path):
    """Everything the module reads of a trace."""
    t = joules.open(path)
    for r in t.runs:
        if r.error:
            continue
        r.attrs
        r.summary()
        for f in (r.power, r.energy_counter):
            try:
                f()
            except joules.MissingFieldError:
                pass
        for g in ("gpu", "engine", "requests", "itl", "batches", "host"):
            r.series(g)
        r.requests()
        r.spans()
        r.sensor()
    joules.summarize(path)


def imported(fmt, paths, tmp, **opts):
    out = os.path.join(tmp, "out.h5")
    doc = joules.import_(fmt, paths, output=out, force=True, **opts)
    if os.path.exists(out):
        try:
            use_trace(out)
        except joules.Error:
            pass
    return doc


def case(target, data, tmp, study):
    a, b = split(data)
    if target == "trace":
        use_trace(write(os.path.join(tmp, "in.h5"), data))
    elif target == "import":
        d = os.path.join(tmp, "mle")
        os.makedirs(os.path.join(d, "models"), exist_ok=True)
        if b is not None:
            write(os.path.join(d, "index.json"), a)
            write(os.path.join(d, "models", "org__model__chat.json"), b)
        else:
            write(os.path.join(d, "models", "org__model__chat.json"), a)
        imported("mlenergy", [d], tmp)
    elif target == "import_nvidia_smi":
        flags = data[0] if data else 0
        a, b = split(data[1:])
        opts = {"set": SET, "timezone": "America/Chicago" if flags & 4 else "UTC"}
        if flags & 1:
            opts["sort"] = True
        if flags & 2:
            opts["columns"] = "timestamp,index,power.draw,power.draw.instant,utilization.gpu"
        if b is not None:
            opts["runs"] = write(os.path.join(tmp, "runs.csv"), b)
        imported("nvidia-smi", [write(os.path.join(tmp, "log.csv"), a)], tmp, **opts)
    elif target == "import_mlperf_power":
        d = os.path.join(tmp, "system", "llama2", "Offline", "run_1")
        os.makedirs(d, exist_ok=True)
        write(os.path.join(d, "spl.txt"), a)
        write(os.path.join(d, "mlperf_log_detail.txt"), b)
        imported("mlperf-power", [d], tmp)
    elif target == "import_mlenergy_v2":
        rel = ("A100_chat_benchmark.csv" if data[:1] == b"C" else
               "data/diffusion/text-to-image/H100 80GB HBM3/o/m/bs2+steps25.json" if data and data[0] % 2 else
               "data/llm_text_generation/chat/A100-SXM4-40GB/o/m/bs64+tp2+pp1.json")
        p = os.path.join(tmp, "v2", rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        write(p, data[1:])
        imported("mlenergy", [os.path.join(tmp, "v2")], tmp)
    elif target == "import_mlenergy_bench":
        d = os.path.join(tmp, "llm", "lm-arena-chat", "org", "model", "H100", "num_gpus+1+max_num_seqs+8")
        os.makedirs(d, exist_ok=True)
        write(os.path.join(d, "results.json"), a)
        if b is not None:
            write(os.path.join(d, "prometheus.json"), b)
        imported("mlenergy-benchmark", [d], tmp)
    elif target == "import_vllm":
        req = write(os.path.join(tmp, "requests.json"), data)
        runs = write(os.path.join(tmp, "runs.csv"), (
            "run,start,end,workload,model,task,precision,requests\n"
            "r,2026-11-23T10:00:00Z,2026-11-23T10:00:10Z,llm,m,chat,bf16,%s\n" % req).encode())
        imported("nvidia-smi", [write(os.path.join(tmp, "log.csv"), LOG.encode())], tmp, runs=runs,
                 timezone="UTC", set={"gpu_model": "H100", "max_batch_size": "8"})
    elif target == "import_prometheus":
        imported("prometheus", [write(os.path.join(tmp, "prom.json"), data)], tmp, set=SET)
    elif target == "import_codecarbon":
        imported("codecarbon", [write(os.path.join(tmp, "emissions.csv"), data)], tmp, set=SET)
    elif target == "import_zeus":
        imported("zeus", [write(os.path.join(tmp, "zeus.csv"), data)], tmp, set=SET)
    elif target == "import_kineto":
        prof = os.path.join(tmp, "profiled.h5")
        shutil.copy("tests/data/insitu/profiled.h5", prof)
        joules.import_("kineto", [write(os.path.join(tmp, "trace.json"), data)], into=prof + ":b0512")
        joules.attribute(prof + ":b0512", by="class")
    elif target == "import_kineto_align":
        # the C target's layout: the first byte picks the spec, then the
        # --align JSON, then (after "----") the profile or a small default
        prof = os.path.join(tmp, "profiled.h5")
        shutil.copy("tests/data/insitu/profiled.h5", prof)
        a, b = split(data[1:])
        if b is None:
            b = KINETO_PROFILE.encode()
        align = write(os.path.join(tmp, "align.json"), a)
        profile = write(os.path.join(tmp, "p.json"), b)
        spec = align + (":b0512" if data and data[0] & 1 else "")
        joules.import_("kineto", [profile], into=prof + ":b0512", align=spec)
        joules.attribute(prof + ":b0512", by="class")
    elif target == "import_nsys":
        # an SQLite image is an export as it is; the C target's text form
        # builds its database in memory, which a file-reading module cannot:
        # it goes in as a file and must be refused (not an export)
        prof = os.path.join(tmp, "profiled.h5")
        shutil.copy("tests/data/insitu/profiled.h5", prof)
        joules.import_("nsys", [write(os.path.join(tmp, "export.sqlite"), data)], into=prof + ":b0512")
        joules.attribute(prof + ":b0512", by="class")
    elif target == "trace_spans":
        path = write(os.path.join(tmp, "in.h5"), data)
        use_trace(path)
        for r in joules.open(path).runs:
            try:
                joules.attribute(path + ":" + r.name, by="class")
            except joules.Error:
                counts["refused"] += 1
    elif target == "budget_file":
        joules.budget(study, write(os.path.join(tmp, "budgets.json"), data))
    elif target == "carbon_series":
        p = write(os.path.join(tmp, "series.csv"), data)
        joules.emissions(study, grid_intensity=p, pue=p)
        joules.capacity(study, power_budget=1e6, grid_intensity=p)
    elif target == "check_rules":
        joules.summarize(SMALL, rules=write(os.path.join(tmp, "rules.json"), data))
    elif target == "descriptors":
        d = os.path.join(tmp, "models")
        os.makedirs(d, exist_ok=True)
        write(os.path.join(d, "gpus.json"), a)
        write(os.path.join(d, "models.json"), b)
        os.environ["JOULES_MODELS_DIR"] = d
        try:
            joules.diagnose(SMALL)
            joules.fit(SMALL)
        finally:
            del os.environ["JOULES_MODELS_DIR"]
    elif target == "slo":
        text = data.decode("utf-8", "surrogateescape")
        joules.pick(study, slo=text)
    elif target == "study_where":
        lines = data.decode("utf-8", "surrogateescape").split("\n")
        joules.summarize(SMALL, where=[x for x in lines if x] or None)
    else:
        return False
    return True


def main():
    study = joules.load(SMALL)
    targets = fuzz_targets.names()  # tests/fuzz/targets.txt, the one list
    n = 0
    for target in targets:
        files = []
        for kind in ("corpus", "regressions"):
            d = os.path.join(FUZZ, kind, target)
            if os.path.isdir(d):
                files += sorted(os.path.join(d, f) for f in os.listdir(d))
        for path in files:
            with open(path, "rb") as f:
                data = f.read()
            tmp = tempfile.mkdtemp(prefix="joules-pyfuzz-")
            try:
                if not case(target, data, tmp, study):
                    fail("no module call for fuzz target %s" % target)
                    break
                counts["result"] += 1
            except joules.Error:
                counts["refused"] += 1
            except (ValueError, UnicodeError) as e:
                if target in ("slo", "study_where") and not isinstance(e, joules.Error):
                    counts["refused"] += 1
                else:
                    fail("%s: %s: %s: %s" % (target, os.path.relpath(path, ROOT), type(e).__name__, e))
            except Exception as e:  # noqa: BLE001 (any other exception is a failure)
                fail("%s: %s: %s: %s" % (target, os.path.relpath(path, ROOT), type(e).__name__, e))
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            n += 1
    check(n > 0, "no corpus found")
    print("ok: %d inputs of %d fuzz targets through the module: %d results, %d refusals (joules.Error), "
          "no crash" % (n, len(targets), counts["result"], counts["refused"]))
    done("test_fuzz")


if __name__ == "__main__":
    main()
