#!/bin/sh
# joules emissions on the bundled traces: a constant hourly series gives
# figure for figure the constant's document; placed at 19:59:50 the first
# run spans the 20:00 boundary of an hourly Electricity Maps series (330,
# then 400 g/kWh) and its intensity lies strictly between, the later runs
# at 400; WattTime's MOER (lbs/MWh) becomes g/kWh (1020 lbs/MWh at 19:30 =
# 462.66 g/kWh, 1100 at 20:00 = 498.95: the spanning run lies between);
# the sweep's cleanest start; capacity takes the series' time-weighted mean
# (315 g/kWh). The default footprint (the whole run, the widest scope
# measured) equals an independent integral of the traces' raw power x
# intensity x PUE (footprint_check.py: constant and hourly series, per run
# and in total, 1e-9); --window steady gives the steady-state figures; the
# total object and the CSV's total row sum the runs; a diffusion run has a
# per-item figure; a summary-only import (a CodeCarbon log) gets carbon
# from its energy and its time span, and says it assumed constant power
# under a series; a window outside a series names the hours missing; SCI
# shows every term, M only from --embodied-g-per-gpu-hour.
#   emissions.sh JOULES SOURCE_DIR SHARED_DIR [PYTHON]
set -u
J=$1 SRC=$2 PY=${4:-python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$SRC" || exit 1
D=tests/account/data
fail=0
bad() { echo "FAIL: $*"; fail=1; }
"$J" emissions --json --grid-intensity $D/constant-hourly.csv --pue 1.2 traces/ >"$T/s.json" || bad "series run failed"
"$J" emissions --json --grid-intensity 400 --pue 1.2 traces/ >"$T/c.json" || bad "constant run failed"
[ "$(jq -cS .runs "$T/s.json")" = "$(jq -cS .runs "$T/c.json")" ] || bad "constant series != constant"
jq -e '[.runs[] | select(.g_co2eq_per_token.average != null)] | length == 23' "$T/c.json" >/dev/null || bad "LLM runs without g/token"
# kWh x 1.2 x 400 / 1000 = kg
jq -e '[.runs[] | ((.energy_kwh * 1.2 * 400 / 1000) - .kg_co2eq.average) | fabs] | max < 1e-12' "$T/c.json" >/dev/null || bad "kg != kWh x PUE x intensity"
"$J" emissions --json --grid-intensity $D/electricitymaps-hourly.csv --marginal-intensity $D/watttime-moer.csv \
    --start 2026-11-21T19:59:50Z --where model=synthetic/Qwen3-8B-shape --where gpu_model=H100 traces/ >"$T/h.json" || bad "hourly run failed"
jq -e '.runs[0].start == "2026-11-21T19:59:50Z" and .runs[0].end > "2026-11-21T20:00:00Z"' "$T/h.json" >/dev/null || bad "first run not across 20:00"
jq -e '.runs[0].intensity_g_per_kwh.average > 330 and .runs[0].intensity_g_per_kwh.average < 400' "$T/h.json" >/dev/null ||
    bad "spanning run intensity $(jq .runs[0].intensity_g_per_kwh.average "$T/h.json")"
jq -e '[.runs[1:][] | .intensity_g_per_kwh.average == 400 and .intensity_g_per_kwh.marginal == 1100 * 0.45359237] | all' "$T/h.json" >/dev/null || bad "later runs not at 400, 1100 lbs/MWh"
jq -e '.runs[0].intensity_g_per_kwh.marginal | . > 1020 * 0.45359237 and . < 1100 * 0.45359237' "$T/h.json" >/dev/null ||
    bad "marginal $(jq .runs[0].intensity_g_per_kwh.marginal "$T/h.json")"
jq -e '.sweep.cleanest_start == "2026-11-21T00:00:00Z" and .sweep.cleanest_mean_intensity_g_per_kwh == 200' "$T/h.json" >/dev/null ||
    bad "cleanest: $(jq -c .sweep "$T/h.json")"
"$J" emissions --grid-intensity $D/electricitymaps-hourly.csv traces/ | grep -q '^cleanest: .* starting 2026-11-21 00:00 UTC' || bad "no cleanest line"
# outside the series: an error naming the time, the run kept in the list
"$J" emissions --json --grid-intensity $D/electricitymaps-hourly.csv --start 2026-12-01T00:00:00Z traces/ >"$T/o.json"
jq -e '.runs[0].error | test("the intensity series has no value for 2026-12-01 00:.* \\(hours 2026-12-01 00:00 UTC\\)")' "$T/o.json" >/dev/null ||
    bad "outside: $(jq .runs[0].error "$T/o.json")"
# a series that stops before some runs: those are not counted, each named with its missing
# hours on stderr, exit 1 (the others counted)
printf 'time,value\n2026-11-21T18:00:00Z,300\n2026-11-21T19:00:00Z,350\n' >"$T/short.csv"
"$J" emissions --grid-intensity "$T/short.csv" traces/ >"$T/short.out" 2>"$T/short.err"
rc=$?
[ $rc = 1 ] && grep -q '^joules emissions: traces/h200/h200-qwen3-8b-shape-chat.h5: run b0256: the intensity series has no value for 2026-11-21 20:17:.* (hours 2026-11-21 20:00 UTC) of the counted window$' "$T/short.err" &&
    grep -q '; 15 runs not counted (see above)$' "$T/short.out" || bad "series missing hours: exit $rc: $(tail -1 "$T/short.err")"
# the default footprint = the independent integral of the raw power
if "$PY" -c "import h5py, numpy" 2>/dev/null; then
    "$PY" tests/account/footprint_check.py "$J" $D/electricitymaps-hourly.csv traces/h100/*.h5 traces/h200/*.h5 >"$T/fp" ||
        bad "footprint != the integral: $(cat "$T/fp")"
    cat "$T/fp"
else
    echo "note: $PY has no h5py/numpy: the independent integral not run"
fi
# counted: the whole run by default; the steady state on request, what it leaves out said
"$J" summarize --json traces/ >"$T/sum.json"
jq -e --slurpfile s "$T/sum.json" '[.runs[] | . as $r | ($s[0].runs[] | select(.file == $r.file and .run == $r.run)) as $x
    | (.energy_kwh * 3.6e6 - $x.run_energy_j | fabs) < 1e-6 * $x.run_energy_j and .boundary.window == "run"
      and .boundary.scope == "gpu" and .left_out.outside_window_kwh == 0
      and .left_out.scopes_not_measured == ["host", "node"]] | all' "$T/c.json" >/dev/null || bad "default: not the whole run"
"$J" emissions --json --window steady --grid-intensity 400 --pue 1.2 traces/ >"$T/st.json"
jq -e --slurpfile s "$T/sum.json" '[.runs[] | . as $r | ($s[0].runs[] | select(.file == $r.file and .run == $r.run)) as $x
    | (.energy_kwh * 3.6e6 - $x.steady_energy_j | fabs) < 1e-6 * $x.steady_energy_j
      and ((.left_out.outside_window_kwh * 3.6e6) - ($x.run_energy_j - $x.steady_energy_j) | fabs) < 1e-6 * $x.run_energy_j]
    | all' "$T/st.json" >/dev/null || bad "steady: not the steady state, or what it left out"
jq -e '(.total.energy_kwh - ([.runs[].energy_kwh] | add) | fabs) < 1e-10 * .total.energy_kwh and (.total.kg_co2eq.average - ([.runs[].kg_co2eq.average] | add) | fabs) < 1e-10 * .total.kg_co2eq.average
    and .total.runs == 29' "$T/c.json" >/dev/null || bad "total != the runs summed: $(jq -c .total "$T/c.json")"
echo "left out over the steady state: $(jq '.total.left_out.outside_window_kwh / (.total.energy_kwh + .total.left_out.outside_window_kwh) * 100' "$T/st.json") % of the measured energy"
# diffusion: per image
jq -e '[.runs[] | select(.workload == "diffusion") | .g_co2eq_per_item.average > 0] | (length == 6) and all' "$T/c.json" >/dev/null ||
    bad "diffusion runs without g/item"
# --csv: a row per run and the total row
"$J" emissions --csv "$T/e.csv" --grid-intensity 400 --pue 1.2 traces/ >/dev/null || bad "--csv failed"
[ "$(wc -l <"$T/e.csv")" = 31 ] && tail -1 "$T/e.csv" | grep -q '^(total),29 runs,' || bad "CSV: $(tail -1 "$T/e.csv")"
head -1 "$T/e.csv" | grep -q 'boundary_window,boundary_scope' || bad "CSV header names no boundary"
# a summary-only import: carbon from its energy and time span
printf 'timestamp,project_name,run_id,duration,emissions,emissions_rate,cpu_power,gpu_power,ram_power,cpu_energy,gpu_energy,ram_energy,energy_consumed,country_name,country_iso_code,codecarbon_version,gpu_count,gpu_model,pue\n2026-11-21T20:30:00,p,r1,1800,0.1,5.5e-05,50,300,10,0.025,0.15,0.005,0.18,Germany,DEU,2.8.0,1,NVIDIA H100 80GB HBM3,1.0\n' >"$T/cc.csv"
"$J" import codecarbon "$T/cc.csv" --set workload=llm --set model=m --set task=chat --set precision=bfloat16 \
    --set max_batch_size=1 -o "$T/cc.h5" --quiet >/dev/null || bad "codecarbon import failed"
"$J" emissions --json --grid-intensity 400 "$T/cc.h5" >"$T/cc.json" || bad "summary-only: emissions failed"
jq -e '.runs[0] | .error == null and .boundary.scope == "host" and .boundary.window == "run"
    and (.energy_kwh - 0.18 | fabs) < 1e-12 and (.kg_co2eq.average - 0.18 * 400 / 1000 | fabs) < 1e-12' "$T/cc.json" >/dev/null ||
    bad "summary-only: $(jq -c '.runs[0] | {error, boundary, energy_kwh, kg_co2eq}' "$T/cc.json")"
"$J" emissions --json --grid-intensity $D/electricitymaps-hourly.csv "$T/cc.h5" >"$T/cch.json"
jq -e '.runs[0] | .error == null and .assumed_constant_power and .intensity_g_per_kwh.average > 0
    and .start == "2026-11-21T20:00:00Z" and .end == "2026-11-21T20:30:00Z"' "$T/cch.json" >/dev/null ||
    bad "summary-only under a series: $(jq -c '.runs[0] | {error, start, end, assumed_constant_power}' "$T/cch.json")"
# an explicit scope not measured: an error naming the run and what it has
"$J" emissions --scope node --grid-intensity 400 traces/h200/ >/dev/null 2>"$T/err"
rc=$?
[ $rc = 3 ] && grep -q 'b0001: no run/node .*energy: the run has steady/gpu, run/gpu' "$T/err" || bad "--scope node: exit $rc: $(head -1 "$T/err")"
# SCI = (E x I + M) / R, every term
"$J" emissions --json --sci --functional-unit 1000-queries --embodied-g-per-gpu-hour 20 --embodied-source "a vendor LCA" \
    --grid-intensity 400 --pue 1.2 --where gpu_model=H200 traces/ >"$T/sci.json" || bad "SCI failed"
jq -e --slurpfile s "$T/sum.json" '[.runs[] | . as $r | ($s[0].runs[] | select(.file == $r.file and .run == $r.run)) as $x
    | .sci | ((.e_kwh - $x.run_energy_j * 1.2 / 3.6e6 | fabs) < 1e-12 and .i_g_per_kwh == 400
      and (.m_g - 20 * $x.run_duration_s / 3600 | fabs) < 1e-9 and (.r - $x.completed_requests / 1000 | fabs) < 1e-9
      and (.sci_g_per_unit - (.e_kwh * .i_g_per_kwh + .m_g) / .r | fabs) < 1e-9 * .sci_g_per_unit
      and .m_source == "a vendor LCA")] | all' "$T/sci.json" >/dev/null || bad "SCI terms: $(jq -c '.runs[0].sci' "$T/sci.json")"
"$J" emissions --json --sci --functional-unit token --grid-intensity 400 traces/h200/ >"$T/sci2.json"
jq -e '.total.sci | .m_g == null and (.formula | test("M not given"))' "$T/sci2.json" >/dev/null || bad "SCI without M: $(jq -c .total.sci "$T/sci2.json")"
"$J" emissions --sci --grid-intensity 400 traces/ >/dev/null 2>&1
[ $? = 2 ] || bad "--sci without --functional-unit not refused"
[ "$("$J" capacity --power-budget 1e6 --grid-intensity $D/electricitymaps-hourly.csv --json traces/ | jq .grid_g_per_kwh)" = 315 ] || bad "capacity series mean"
"$J" emissions --grid-intensity $D/budgets.json traces/ >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q 'budgets.json.*no time column' "$T/err" || bad "a non-series file: $(cat "$T/err")"
[ $fail = 0 ] && echo "ok: constant series = constant, hour boundary, marginal lbs/MWh, cleanest start, capacity mean, footprint = integral, whole run by default, total, CSV, summary-only carbon, hours missing, scope refused, SCI"
exit $fail
