#!/usr/bin/env python3
"""Inputs that are not regular files (docs/security.md, "Inputs that are
not files"): a FIFO, a character device and a socket named where joules
reads a file — a trace, an importer's input, a RUNS.csv and the request file
it names, a budgets file, a rules file, a grid-intensity series, a
calibration, a document to verify — are refused before they are opened:
the command ends (never waits for a writer, never reads /dev/zero for ever),
by an exit status of docs/cli.md (never a signal), with one line naming the
path and saying what it is.

    special_inputs.py JOULES WORKDIR
"""
import os
import shutil
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import tracegen as tg  # noqa: E402

LIMIT_S = int(os.environ.get("JOULES_TEST_LIMIT_S", "60"))  # a hang is a failure long before this


def main():
    joules, work = sys.argv[1], os.path.abspath(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    good = tg.good_trace(os.path.join(work, "good.h5"), "r")
    log = os.path.join(SRC, "tests/golden/data/nvsmi-2gpu.csv")
    runs = os.path.join(SRC, "tests/golden/data/nvsmi-runs.csv")
    fifo = os.path.join(work, "fifo")
    os.mkfifo(fifo)
    sock = os.path.join(work, "sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(sock)
    s.listen(1)
    # RUNS.csv whose requests column names X
    def runs_with_requests(x):
        p = os.path.join(work, "runs-req.csv")
        with open(p, "w") as f:
            f.write("run,start,end,model,task,precision,max_batch_size,requests\n"
                    "solo,2026-11-23T10:00:00Z,2026-11-23T10:00:02.9Z,org/m,chat,bfloat16,16,%s\n" % x)
        return p

    sets = ["--set", "workload=llm", "--set", "model=org/m", "--set", "task=chat",
            "--set", "precision=bfloat16", "--set", "max_batch_size=8", "--set", "gpu_model=H100"]
    out = os.path.join(work, "out.h5")
    # (name, argv with X for the special file)
    cases = [
        ("trace", ["summarize", "--json", "X", good]),
        ("inspect", ["inspect", "X"]),
        ("rules", ["summarize", "--rules", "X", good]),
        ("budgets", ["budget", "--budgets", "X", good]),
        ("report_budgets", ["report", "--no-figures", "--budgets", "X", "-o",
                            os.path.join(work, "rep"), good]),
        ("grid_intensity", ["emissions", "--grid-intensity", "X", good]),
        ("pue_series", ["emissions", "--grid-intensity", "300", "--pue", "X", good]),
        ("card_grid", ["card", "--grid-intensity", "X", good]),
        ("capacity_grid", ["capacity", "--power-budget", "10000", "--grid-intensity", "X", good]),
        ("calibration", ["attribute", "--calibration", "X", good + ":r"]),
        ("verify", ["verify", "X"]),
        ("nvidia_smi_log", ["import", "nvidia-smi", "X", "--timezone", "UTC", "--force", "-o", out]
         + sets),
        ("nvidia_smi_runs", ["import", "nvidia-smi", log, "--runs", "X", "--timezone", "UTC",
                             "--force", "-o", out]),
        ("vllm_requests", ["import", "nvidia-smi", log, "--runs", "RUNSREQ", "--timezone", "UTC",
                           "--force", "-o", out, "--set", "workload=llm"]),
        ("codecarbon", ["import", "codecarbon", "X", "--force", "-o", out] + sets),
        ("zeus", ["import", "zeus", "X", "--force", "-o", out] + sets),
        ("prometheus", ["import", "prometheus", "X", "--runs-by", "pod", "--force", "-o", out]
         + sets),
        ("mlenergy", ["import", "mlenergy", "X", "--force", "-o", out]),
        ("mlenergy_benchmark", ["import", "mlenergy-benchmark", "X", "--force", "-o", out]),
        ("mlperf_power", ["import", "mlperf-power", "X", "--force", "-o", out]),
        ("kineto", ["import", "kineto", "X", "--into", good + ":r"]),
        ("nsys", ["import", "nsys", "X", "--into", good + ":r"]),
    ]
    specials = [("FIFO", fifo), ("character device", "/dev/zero"), ("socket", sock)]
    failed = 0
    n = 0
    for name, argv in cases:
        for kind, path in specials:
            n += 1
            args = [path if a == "X" else a for a in argv]
            args = [runs_with_requests(path) if a == "RUNSREQ" else a for a in args]
            cmd = [joules] + args
            try:
                p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=LIMIT_S)
            except subprocess.TimeoutExpired:
                print("FAIL %s (%s): still running after %d s: %s" % (name, kind, LIMIT_S,
                                                                     " ".join(cmd)))
                failed += 1
                continue
            err = p.stderr.decode(errors="replace")
            problems = []
            if p.returncode < 0 or p.returncode > 5:
                problems.append("exit %d, expected a documented status" % p.returncode)
            if p.returncode == 0:
                problems.append("exit 0: the special file was accepted")
            lines = [ln for ln in err.splitlines() if path in ln and "not a regular file" in ln]
            if not lines:
                problems.append("no stderr line names %s and says 'not a regular file'" % path)
            elif kind not in lines[0]:
                problems.append("the line does not say it is a %s: %s" % (kind, lines[0]))
            if "AddressSanitizer" in err or "runtime error:" in err:
                problems.append("sanitizer report")
            if problems:
                failed += 1
                print("FAIL %s (%s): %s\n  $ %s\n  stderr: %s" % (
                    name, kind, "; ".join(problems), " ".join(cmd), err[-1500:]))
    s.close()
    print("special inputs: %d of %d refused as they should be" % (n - failed, n))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
