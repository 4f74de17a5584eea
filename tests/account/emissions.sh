#!/bin/sh
# joules emissions on the bundled traces: a constant hourly series gives
# figure for figure the constant's document; placed at 19:59:50 the first
# run spans the 20:00 boundary of an hourly Electricity Maps series (330,
# then 400 g/kWh) and its intensity lies strictly between, the later runs
# at 400; WattTime's MOER (lbs/MWh) becomes g/kWh (1020 lbs/MWh at 19:30 =
# 462.66 g/kWh, 1100 at 20:00 = 498.95: the spanning run lies between);
# the sweep's cleanest start; capacity takes the series' time-weighted mean
# (315 g/kWh).
#   emissions.sh JOULES SOURCE_DIR SHARED_DIR
set -u
J=$1 SRC=$2
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
jq -e '.runs[0].error | test("outside the intensity series")' "$T/o.json" >/dev/null || bad "outside: $(jq .runs[0].error "$T/o.json")"
[ "$("$J" capacity --power-budget 1e6 --grid-intensity $D/electricitymaps-hourly.csv --json traces/ | jq .grid_g_per_kwh)" = 315 ] || bad "capacity series mean"
"$J" emissions --grid-intensity $D/budgets.json traces/ >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q 'budgets.json.*no time column' "$T/err" || bad "a non-series file: $(cat "$T/err")"
[ $fail = 0 ] && echo "ok: constant series = constant, hour boundary, marginal lbs/MWh, cleanest start, capacity mean"
exit $fail
