#!/bin/sh
# paths_as_typed.sh JOULES PYTHON SOURCE_DIR SHARED WORK — paths as users
# type them (issue 38 item 2, docs/import.md "Paths"): for every importer,
# and for summarize/inspect of a trace, one input is read under five
# spellings, each from a folder of its own (cd):
#   plain     NAME                   (cd to its folder)
#   dot       ./NAME/ (a folder) or ./NAME (a file)
#   dotdot    ../x/NAME              (cd to its folder)
#   abs       /abs/x/NAME            (cd elsewhere)
#   link      lnk/NAME, lnk a symbolic link to the folder (cd elsewhere)
# and what the path gives — run names, every attribute of every run (the
# log's or file's path), the trace's harness, the provenance's inputs (the
# typed path left out: it is the one thing that may differ, the resolved one
# must not), `--each`'s output name — must be the same for all five:
# `import --json`, `inspect --json` and `summarize --json` of the output,
# less the times of day, the command line and messages naming the file as
# typed. Real files of SHARED/realworld where present (one SKIP line when
# absent), small files made here otherwise.
set -u
joules=${1:?usage: paths_as_typed.sh JOULES PYTHON SOURCE_DIR SHARED WORK}
python=${2:?}; src=${3:?}; shared=${4:?}; work=${5:?}
case $joules in /*) ;; *) joules=$(pwd)/$joules ;; esac
case $src in /*) ;; *) src=$(pwd)/$src ;; esac
rm -rf "$work"; mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd -P)
real="$shared/realworld"
fail=0
n_ok=0
bad() { echo "FAIL: $*"; fail=1; }

# Keep what a path identifies; drop the times of day (created...), the
# command line, the typed paths of provenance inputs and messages/notes'
# files (they name a file as typed, on purpose); of inspect's and
# summarize's own documents, their provenance block (the trace read is the
# one output file, its bytes hold the import's command line and time).
norm() {
    awk -v own="$2" -v out="$3" '
      own && /^  "provenance": \{$/ { prov = 1; next }
      prov && /^  \},?$/ { prov = 0; next }
      prov { next }
      /^ *"command": \[$/ { skip = 1; next }
      skip && /^ *\],?$/ { skip = 0; next }
      skip { next }
      /^ *"(created|created_utc|elapsed_s|seconds|wall_s)": / { next }
      /^ *"(file|message)": / { next }
      /^ *"inputs": \[$/ { inputs = 1; print; next }
      inputs && /^ *\],?$/ { inputs = 0 }
      inputs && /^ *\{$/ { obj = ""; drop = 0; inobj = 1; next }
      inobj && /^ *\},?$/ {
          inobj = 0
          if (!drop) printf "%s", obj
          # an input the document does not name resolved: its typed path
          # shown, so that two spellings differ
          if (!drop && obj !~ /"resolved": /) print "no resolved name for " typed
          next }
      # an input entry: its typed path left out; the trace written (an
      # --into target: its bytes hold the command line) left out whole
      inobj { if ($0 ~ /"path": /) { typed = $0; if (index($0, "\"" out "\"")) drop = 1; next }
              obj = obj $0 "\n"; next }
      { print }' "$1"
}

# one case: CASE DIR NAME KIND(file|dir) ARGS...: the input DIR/NAME;
# "@" in ARGS stands for the spelled input, "%" for its spelled folder.
# With $prep set, $work/CASE/out.h5 is a fresh copy of $prep before each.
one() {
    cs=$1 at_dir=$2 name=$3 kind=$4
    shift 4
    base="$work/$cs"
    up=$(basename "$at_dir")
    ln -s "$at_dir" "$base/lnk"
    mkdir -p "$base/elsewhere"
    first=""
    for sp in plain dot dotdot abs link; do
        case $sp in
        plain) at=$at_dir p=$name dir=. ;;
        dot) at=$at_dir dir=.
            if [ "$kind" = dir ]; then p=./$name/; else p=./$name; fi ;;
        dotdot) at=$at_dir p=../$up/$name dir=../$up ;;
        abs) at="$base/elsewhere" p=$at_dir/$name dir=$at_dir ;;
        link) at=$base p=lnk/$name dir=lnk ;;
        esac
        args=""
        for a in "$@"; do
            a=$(printf '%s' "$a" | sed "s#@#$p#g; s#%#$dir#g")
            args="$args$(printf '%s' "$a" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/") "
        done
        out="$base/out.h5"
        rm -f "$out" "$base"/out.*
        [ -n "${prep:-}" ] && cp "$prep" "$out"
        rm -rf "$base/each"
        (cd "$at" && eval "\"\$joules\" $args --json" >"$base/$sp.import.json" \
            2>"$base/$sp.err")
        rc=$?
        if [ -f "$out" ]; then
            "$joules" inspect --json "$out" >"$base/$sp.inspect.json" 2>/dev/null
            "$joules" summarize --json "$out" >"$base/$sp.summary.json" 2>/dev/null
        fi
        [ -d "$base/each" ] && ls "$base/each" >"$base/$sp.each.txt"
        [ -f "$base/out.runs.csv" ] && cp "$base/out.runs.csv" "$base/$sp.runs.txt"
        # the spans' attributes (@source names the profile) where h5dump is
        if [ -n "${spans_of:-}" ] && [ -f "$out" ] && command -v h5dump >/dev/null 2>&1; then
            (cd "$base" && h5dump -A -g "$spans_of" out.h5) >"$base/$sp.spans.txt" 2>&1
        fi
        norm "$base/$sp.import.json" 0 "$out" >"$base/$sp.import.json.norm"
        for f in inspect summary; do
            [ -f "$base/$sp.$f.json" ] && norm "$base/$sp.$f.json" 1 "$out" >"$base/$sp.$f.json.norm"
        done
        echo "$rc" >"$base/$sp.rc"
        if [ -z "$first" ]; then
            first=$sp
            [ "$rc" -le 1 ] || bad "$cs: $sp ($p): exit $rc: $(head -c 400 "$base/$sp.err")"
            continue
        fi
        same=1
        cmp -s "$base/$first.rc" "$base/$sp.rc" || { bad "$cs: exit $rc as $p, $(cat "$base/$first.rc") as $name"; same=0; }
        for f in import.json.norm inspect.json.norm summary.json.norm each.txt spans.txt runs.txt; do
            [ -f "$base/$first.$f" ] || continue
            if ! cmp -s "$base/$first.$f" "$base/$sp.$f"; then
                bad "$cs: '$p' ($sp) differs from '$name' ($first) in $f:"
                diff "$base/$first.$f" "$base/$sp.$f" | head -8 | sed 's/^/    /'
                same=0
            fi
        done
        [ $same = 1 ] && n_ok=$((n_ok + 1))
    done
}

mk() { mkdir -p "$work/$1/d/x"; }

# ---- made here --------------------------------------------------------
# nvidia-smi: a log, a RUNS.csv naming the log and a vLLM request file
mk nvsmi
cp "$src/tests/golden/data/nvsmi-2gpu.csv" "$work/nvsmi/d/x/gpu.csv"
{
    echo "run,start,end,gpus,model,task,precision,max_batch_size,log,requests"
    echo "warm,2026-11-23T10:00:00Z,2026-11-23T10:00:01.5Z,\"0,1\",org/m,chat,bfloat16,16,gpu.csv,req/warm.json"
    echo "solo,2026-11-23T10:00:01Z,2026-11-23T10:00:02.9Z,1,org/m,chat,bfloat16,16,gpu.csv,"
} >"$work/nvsmi/d/x/runs.csv"
mkdir -p "$work/nvsmi/d/x/req"
cat >"$work/nvsmi/d/x/req/warm.json" <<'EOF'
{"date": "20261123-100000", "backend": "vllm", "model_id": "org/m", "completed": 2,
 "input_lens": [10, 12], "output_lens": [4, 5], "ttfts": [0.1, 0.12],
 "itls": [[0.02, 0.02, 0.02], [0.02, 0.02, 0.02, 0.02]], "start_times": [1795428000.1, 1795428000.3],
 "errors": ["", ""]}
EOF
one nvsmi "$work/nvsmi/d/x" gpu.csv file import nvidia-smi @ --quiet --runs %/runs.csv --timezone UTC --set workload=llm -o "$work/nvsmi/out.h5"
# the log in a folder below the RUNS.csv's, its `log` cell a path relative
# to the RUNS.csv: the log typed any way is the log the cell names
mk nvsmi_sub
mkdir -p "$work/nvsmi_sub/d/x/logs" "$work/nvsmi_sub/d/x/other"
cp "$src/tests/golden/data/nvsmi-2gpu.csv" "$work/nvsmi_sub/d/x/logs/gpu.csv"
cp "$src/tests/golden/data/nvsmi-2gpu.csv" "$work/nvsmi_sub/d/x/other/gpu.csv"
{
    echo "run,start,end,gpus,model,task,precision,max_batch_size,log"
    echo "warm,2026-11-23T10:00:00Z,2026-11-23T10:00:01.5Z,\"0,1\",org/m,chat,bfloat16,16,logs/gpu.csv"
    echo "solo,2026-11-23T10:00:01Z,2026-11-23T10:00:02.9Z,1,org/m,chat,bfloat16,16,other/gpu.csv"
} >"$work/nvsmi_sub/d/x/runs.csv"
one nvsmi_sub "$work/nvsmi_sub/d/x" logs/gpu.csv file import nvidia-smi @ --quiet %/other/gpu.csv --runs %/runs.csv \
    --timezone UTC --set workload=llm -o "$work/nvsmi_sub/out.h5"
mk nvsmi_each
cp "$src/tests/golden/data/nvsmi-2gpu.csv" "$work/nvsmi_each/d/x/node1.csv"
one nvsmi_each "$work/nvsmi_each/d/x" node1.csv file import nvidia-smi @ --quiet --runs "$src/tests/golden/data/nvsmi-runs.csv" --timezone UTC \
    --set workload=llm --each -o "$work/nvsmi_each/each"

# Prometheus: query_range JSON of two GPUs of one pod
mk prom
"$python" - "$work/prom/d/x/power.json" <<'EOF'
import json, sys
res = []
for g in (0, 1):
    lab = {"__name__": "DCGM_FI_DEV_POWER_USAGE", "gpu": str(g), "UUID": "GPU-%d" % g,
           "modelName": "NVIDIA H100 80GB HBM3", "Hostname": "n1", "pod": "vllm-a"}
    res.append({"metric": lab, "values": [[1764230400 + 15 * k, "%.1f" % (200 + 10 * g + k)]
                                          for k in range(20)]})
json.dump({"status": "success", "data": {"resultType": "matrix", "result": res}}, open(sys.argv[1], "w"))
EOF
one prom "$work/prom/d/x" power.json file import prometheus @ --quiet --runs-by pod --set workload=llm --set model=org/m --set task=chat \
    --set precision=bfloat16 --set max_batch_size=8 -o "$work/prom/out.h5"
mkdir -p "$work/prom_dir/d/x/scrapes"
cp "$work/prom/d/x/power.json" "$work/prom_dir/d/x/scrapes/"
one prom_dir "$work/prom_dir/d/x" scrapes dir import prometheus @ --quiet --runs-by pod --set workload=llm --set model=org/m --set task=chat \
    --set precision=bfloat16 --set max_batch_size=8 -o "$work/prom_dir/out.h5"

# ML.ENERGY Benchmark: the committed fixture tree
mk bench
cp -r "$src/tests/fixtures/mlenergy-benchmark/run" "$work/bench/d/x/run"
one bench "$work/bench/d/x" run dir import mlenergy-benchmark @ --quiet -o "$work/bench/out.h5"
mk bench_each
cp -r "$src/tests/fixtures/mlenergy-benchmark/run" "$work/bench_each/d/x/run.v1"
one bench_each "$work/bench_each/d/x" run.v1 dir import mlenergy-benchmark @ --quiet --each -o "$work/bench_each/each"
# `.` and `./` in the folder itself: its trace named as the folder is
for sp in . ./; do
    rm -rf "$work/bench_each/each"
    (cd "$work/bench_each/d/x/run.v1" && "$joules" import mlenergy-benchmark "$sp" --quiet --each \
        -o "$work/bench_each/each" >/dev/null 2>&1)
    got=$(ls -A "$work/bench_each/each" 2>/dev/null | tr '\n' ' ')
    [ "$got" = "run.v1.h5 " ] || bad "--each of '$sp' in run.v1/ wrote '$got', not run.v1.h5"
done

# a trace: summarize and inspect of it, Kineto and Nsight spans into it
trace="$src/traces/h100/h100-qwen3-8b-shape-chat.h5"
mk trace
cp "$trace" "$work/trace/d/x/t.h5"
one trace "$work/trace/d/x" t.h5 file summarize @
mk trace_inspect
cp "$trace" "$work/trace_inspect/d/x/t.h5"
one trace_inspect "$work/trace_inspect/d/x" t.h5 file inspect @
mk kineto
"$python" - "$work/kineto/d/x/prof.pt.trace.json" "$trace" <<'EOF'
import json, sys
# spans at the trace's first run's start: read its start from the file
json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100"}],
           "baseTimeNanoseconds": 0,
           "traceEvents": [{"ph": "X", "cat": "gpu_user_annotation", "name": "step%d" % i,
                            "ts": 1000 * i, "dur": 900, "pid": 0, "tid": 7} for i in range(5)]},
          open(sys.argv[1], "w"))
EOF
run1=$("$joules" summarize --jsonl "$trace" 2>/dev/null | head -1 | sed 's/.*"run": *"\([^"]*\)".*/\1/')
prep=$trace spans_of=/runs/$run1/spans
one kineto "$work/kineto/d/x" prof.pt.trace.json file import kineto @ --quiet --into "$work/kineto/out.h5:$run1" --offset 0 --allow-misaligned
mk nsys
"$python" - "$work/nsys/d/x/e.sqlite" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript(
    "CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, text TEXT, globalTid INT);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT, correlationId INT);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT,"
    " correlationId INT);")
t0 = 1000000000
db.executemany("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, ?, 11)",
               ((t0 + 10**6 * i, t0 + 10**6 * i + 900000, "step%d" % i) for i in range(5)))
db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 11, ?)",
               ((t0 + 10**6 * i + 10, t0 + 10**6 * i + 20, i) for i in range(5)))
db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 7, ?)",
               ((t0 + 10**6 * i + 30, t0 + 10**6 * i + 800000, i) for i in range(5)))
db.commit()
EOF
one nsys "$work/nsys/d/x" e.sqlite file import nsys @ --quiet --into "$work/nsys/out.h5:$run1" --offset 0 --allow-misaligned
prep="" spans_of=""

# verify re-hashes the file the document read (its resolved name): run in
# a folder holding another file of that name it says so (exit 3), not that
# file's hash; where the document was made, or told with -C, it reproduces
mk verify
cp "$trace" "$work/verify/d/x/t.h5"
mkdir -p "$work/verify/other"
cp "$src/traces/h100/h100-qwen3-1.7b-shape-chat.h5" "$work/verify/other/t.h5"
ln -s d/x "$work/verify/lnk"
(cd "$work/verify" && "$joules" summarize --json lnk/t.h5 >doc.json 2>/dev/null)
(cd "$work/verify" && "$joules" verify doc.json >v.here 2>&1) || bad "verify where made: $(cat "$work/verify/v.here")"
mkdir -p "$work/verify/other/lnk"
cp "$work/verify/other/t.h5" "$work/verify/other/lnk/t.h5"
(cd "$work/verify/other" && "$joules" verify ../doc.json >v.other 2>&1)
rc=$?
[ $rc = 3 ] && grep -q "another file here: $work/verify/other/lnk/t.h5" "$work/verify/other/v.other" ||
    bad "verify elsewhere, lnk/t.h5 another file there: exit $rc: $(cat "$work/verify/other/v.other")"
(cd "$work/verify/other" && "$joules" verify -C .. ../doc.json >v.c 2>&1) ||
    bad "verify -C where made: $(cat "$work/verify/other/v.c")"


# ---- the real files ---------------------------------------------------
set -- --set workload=llm --set model=none/laptop --set task=unknown --set precision=float32 \
    --set max_batch_size=1
if [ ! -d "$real" ]; then
    echo "SKIP: $real absent: MLPerf Power, the Leaderboard and the real nvidia-smi log not tried;" \
        "CodeCarbon and Zeus on files made here"
    mk codecarbon
    printf '%s\n%s\n' "timestamp,project_name,run_id,duration,emissions,emissions_rate,cpu_power,gpu_power,ram_power,cpu_energy,gpu_energy,ram_energy,energy_consumed,country_name,codecarbon_version" \
        "2026-11-23T10:00:30,p,0a1b,30.0,0.001,3.3e-05,40,200,10,0.0003,0.0017,0.00008,0.00208,France,2.3.4" \
        >"$work/codecarbon/d/x/emissions.csv"
    one codecarbon "$work/codecarbon/d/x" emissions.csv file import codecarbon @ --quiet "$@" \
        --set gpu_model=A100 --set num_gpus=1 -o "$work/codecarbon/out.h5"
    mk zeus
    printf 'start_time,window_name,elapsed_time,gpu0_energy\n1763892000.0,w,30.0,6000.0\n' \
        >"$work/zeus/d/x/zeus.csv"
    one zeus "$work/zeus/d/x" zeus.csv file import zeus @ --quiet "$@" --set gpu_model=A40 -o "$work/zeus/out.h5"
else
    mk codecarbon
    cp "$real/codecarbon/examples/emissions.csv" "$work/codecarbon/d/x/"
    one codecarbon "$work/codecarbon/d/x" emissions.csv file import codecarbon @ --quiet "$@" -o "$work/codecarbon/out.h5"
    mk zeus
    cp "$real/zeus/tests/profile_data/A40+bert-base-uncased+gpu0.csv" "$work/zeus/d/x/zeus.csv"
    one zeus "$work/zeus/d/x" zeus.csv file import zeus @ --quiet "$@" --set gpu_model=A40 -o "$work/zeus/out.h5"
    mk mlperf
    run=$(dirname "$(find "$real/mlperf-power-v1.0" -name mlperf_log_detail.txt -path '*performance*' | sort | head -1)")
    # the submission's results/<system>/<benchmark>/<scenario>/performance/run_1 path
    rel=${run#"$real/mlperf-power-v1.0/"}
    mkdir -p "$work/mlperf/tree"
    cp -r "$real/mlperf-power-v1.0/closed" "$work/mlperf/tree/"
    chmod -R u+w "$work"
    one mlperf "$work/mlperf/tree/$(dirname "$rel")" "$(basename "$rel")" dir import mlperf-power @ --quiet \
        -o "$work/mlperf/out.h5"
    mkdir -p "$work/mlperf_each"
    one mlperf_each "$work/mlperf/tree/$(dirname "$rel")" "$(basename "$rel")" dir import mlperf-power @ --quiet \
        --each -o "$work/mlperf_each/each"
    mk leaderboard
    cp -r "$real/mlenergy-leaderboard-v2/data" "$work/leaderboard/d/x/data"
    chmod -R u+w "$work"
    one leaderboard "$work/leaderboard/d/x" data dir import mlenergy @ --quiet -o "$work/leaderboard/out.h5"
    mk nvsmi_real
    cp "$real/nvidia-smi-h100/nvidia-smi-100ms.csv" "$work/nvsmi_real/d/x/"
    one nvsmi_real "$work/nvsmi_real/d/x" nvidia-smi-100ms.csv file import nvidia-smi @ --quiet --runs auto --set workload=llm \
        --set model=Qwen/Qwen3-8B --set task=chat --set precision=bfloat16 --set max_batch_size=256 \
        -o "$work/nvsmi_real/out.h5"
fi

[ $fail = 0 ] && echo "ok: paths as typed: $n_ok spellings gave what the first did (and verify found the file read)"
exit $fail
