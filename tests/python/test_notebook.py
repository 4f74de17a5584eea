"""The notebook on `import joules` (notebooks-export/joules-python.ipynb)
runs top to bottom on the bundled traces, as the tests run the report's
notebooks (tests/report): jupyter nbconvert --execute, no error output."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from common import ROOT, check, done, skip

NB = os.path.join(ROOT, "notebooks-export", "python", "joules-python.ipynb")


def main():
    if not shutil.which("jupyter"):
        skip("jupyter not installed (Debian: jupyter-nbconvert python3-ipykernel)")
    p = subprocess.run(["jupyter", "nbconvert", "--version"], capture_output=True)
    if p.returncode != 0:
        skip("jupyter nbconvert not installed")
    probe = subprocess.run([sys.executable, "-c", "import pandas, matplotlib, ipykernel"], capture_output=True)
    if probe.returncode != 0:
        skip("pandas, matplotlib or ipykernel missing")
    with tempfile.TemporaryDirectory(prefix="joules-pynb-") as tmp:
        res = os.path.join(tmp, "executed.ipynb")
        env = dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1", MPLBACKEND="Agg",
                   JOULES_TRACES=os.path.join(ROOT, "traces"))
        p = subprocess.run(["jupyter", "nbconvert", "--to", "notebook", "--execute", NB, "--output", res,
                            "--ExecutePreprocessor.timeout=600"], capture_output=True, env=env, cwd=tmp)
        if not check(p.returncode == 0, "the notebook does not run: %s" % p.stderr.decode()[-3000:]):
            done("test_notebook")
        nb = json.load(open(res))
        errs = [o for c in nb["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
        check(not errs, "the notebook has an error: %s" % (errs[:1],))
        images = sum(1 for c in nb["cells"] for o in c.get("outputs", []) if "image/png" in o.get("data", {}))
        check(images >= 1, "the notebook draws no figure")
        first = "".join(nb["cells"][1]["source"]) if len(nb["cells"]) > 1 else ""
        check("import joules" in first, "the notebook does not start from import joules")
        print("ok: %s runs top to bottom (%d cells, %d figures)" % (os.path.relpath(NB, ROOT), len(nb["cells"]),
                                                                 images))
    done("test_notebook")


if __name__ == "__main__":
    main()
