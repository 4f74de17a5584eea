"""docs/writing-traces.md's recorder on NVML (docs/examples/record_nvml.py):
the page shows the file as it is, and the recorder writes traces that
`joules check` accepts: with made-up power while a command runs, and
through --raw (no joules) then --from-raw. With a GPU and pynvml it would
record real power; CI has neither (--made-up)."""
import os
import subprocess
import sys
import tempfile

from common import ROOT, check, cli, done

import joules  # noqa: E402

EX = os.path.join(ROOT, "docs", "examples", "record_nvml.py")
SET = ["--set", "model=org/model", "--set", "task=chat", "--set", "precision=bfloat16",
       "--set", "max_batch_size=8"]


def run(args):
    p = subprocess.run([sys.executable, EX] + args, capture_output=True, text=True)
    check(p.returncode == 0, "record_nvml.py %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr[-1500:]))
    return p.stdout


def main():
    page = open(os.path.join(ROOT, "docs", "writing-traces.md"), encoding="utf-8").read()
    check(open(EX, encoding="utf-8").read() in page, "docs/writing-traces.md does not show record_nvml.py as it is")
    with tempfile.TemporaryDirectory(prefix="joules-pyrec-") as tmp:
        out = os.path.join(tmp, "rec.h5")
        run([out, "--made-up", "--period", "0.01"] + SET + ["--", sys.executable, "-c",
                                                           "import time; time.sleep(2.5)"])
        raw = os.path.join(tmp, "rec.npz")
        env_no_joules = dict(os.environ, PYTHONPATH="")
        p = subprocess.run([sys.executable, EX, "--raw", raw, "--made-up", "--seconds", "2"], capture_output=True,
                           text=True, env=env_no_joules)
        check(p.returncode == 0, "record_nvml.py --raw without the module: %s" % p.stderr[-1500:])
        out2 = os.path.join(tmp, "raw.h5")
        run([out2, "--from-raw", raw] + SET)
        for path in (out, out2):
            rc, o, e = cli(["check", path])
            check(rc == 0, "joules check %s: exit %d\n%s%s" % (path, rc, o[-1500:], e[-500:]))
            r = joules.open(path).runs[0]
            t, w = r.power()
            s = r.summary()
            check(len(t) >= 20 and s["avg_power_w"] and 50 < s["avg_power_w"] < 150 and s["energy_source"],
                  "%s: %d samples, %s" % (path, len(t), {k: s[k] for k in ("avg_power_w", "energy_source")}))
            check(r.attrs["model"] == "org/model" and r.attrs["max_batch_size"] == 8, "attributes: %s" % r.attrs)
        print("ok: record_nvml.py (made-up power) and --raw/--from-raw write traces joules check accepts")
    done("test_writing_examples")


if __name__ == "__main__":
    main()
