#!/bin/sh
# joules budget: known answers on the bundled traces (data/budgets.json).
# Over the steady state (--window steady, the figures before issue 36):
# Qwen3-8B on one H100 at 0.1 J/token with 5 % uncertainty: b0064
# (0.1211 J/token, interval [0.1150, 0.1272]) fails, b0128 (0.1024,
# [0.0972, 0.1075]) is undetermined, b0256 (0.0848) passes, the group
# fails; on H200 kWh/day = 0.090214 J/token x 2000 tokens/s x 86400 s /
# 3.6e6 x PUE 1.2 = 5.1963, gCO2eq/request = 26.652 J / 3.6e6 x 1.2 x 400
# = 0.0035536; adherence 3/5; exit 1. By default (the whole run, the
# widest scope: here the GPUs) each energy ceiling is judged on the
# summary's run_energy_per_* figure: b0064 0.1484, b0128 0.1222 fail, b0256
# 0.1031 undetermined; peak_power_w on its own (steady) figure; a scope no
# run measured is refused, naming each run and what it has. A malformed
# file is a usage error naming the file and the key.
#   budget.sh JOULES SOURCE_DIR SHARED_DIR
set -u
J=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$SRC" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
B=tests/account/data/budgets.json
"$J" budget --budgets "$B" --window steady --json traces/ >"$T/b.json"
rc=$?
[ $rc = 1 ] || bad "exit $rc, expected 1 (one run fails)"
q() { jq -r "$1" "$T/b.json"; }
[ "$(q '[.budgets[0].runs[] | "\(.max_batch_size):\(.verdict)"] | join(" ")')" = "64:fail 128:undetermined 256:pass" ] ||
    bad "H100 verdicts: $(q '[.budgets[0].runs[] | "\(.max_batch_size):\(.verdict)"] | join(" ")')"
[ "$(q '.budgets[0].groups[0].verdict')" = fail ] || bad "H100 group should fail"
[ "$(q '.budgets[1].groups[0].verdict')" = pass ] || bad "H200 group should pass"
jq -e '.budgets[0].runs[1].checks.energy_per_token_j | (.lo < .max and .hi > .max)' "$T/b.json" >/dev/null ||
    bad "undetermined run's interval does not cross the ceiling"
jq -e '.budgets[1].runs[0].checks.kwh_per_day.value | (. - 5.19630054976 | fabs) < 1e-6' "$T/b.json" >/dev/null ||
    bad "kWh/day: $(q '.budgets[1].runs[0].checks.kwh_per_day.value')"
jq -e '.budgets[1].runs[0].checks.g_co2eq_per_request.value | (. - 26.6520771844 / 3.6e6 * 1.2 * 400 | fabs) < 1e-9' "$T/b.json" >/dev/null ||
    bad "gCO2eq/request: $(q '.budgets[1].runs[0].checks.g_co2eq_per_request.value')"
[ "$(q '.totals.adherence')" = 0.6 ] || bad "adherence $(q '.totals.adherence')"
[ "$(q '"\(.totals.pass) \(.totals.fail) \(.totals.undetermined)"')" = "3 1 1" ] || bad "totals"
# the default: the whole run
"$J" budget --budgets "$B" --json traces/ >"$T/r.json"
rc=$?
[ $rc = 1 ] || bad "default: exit $rc, expected 1"
"$J" summarize --json traces/ >"$T/s.json"
jq -e --slurpfile s "$T/s.json" '[.budgets[0].runs[] | . as $r | ($s[0].runs[] | select(.file == $r.file and .run == $r.run)
    | .run_energy_per_token_j) as $want | ($r.checks.energy_per_token_j | .value == $want
    and .boundary.window == "run" and .boundary.scope == "gpu")] | (length == 3) and all' "$T/r.json" >/dev/null ||
    bad "default: not the run figures: $(jq -c '[.budgets[0].runs[].checks.energy_per_token_j]' "$T/r.json")"
[ "$(jq -r '[.budgets[0].runs[] | "\(.max_batch_size):\(.verdict)"] | join(" ")' "$T/r.json")" = "64:fail 128:fail 256:undetermined" ] ||
    bad "default verdicts: $(jq -r '[.budgets[0].runs[] | "\(.max_batch_size):\(.verdict)"] | join(" ")' "$T/r.json")"
jq -e '.budgets[1].runs[0].checks.peak_power_w.boundary.window == "steady"' "$T/r.json" >/dev/null || bad "peak not its own"
jq -e --slurpfile s "$T/s.json" '($s[0].runs[] | select(.gpu_model == "H200" and .max_batch_size == 128) | .run_energy_per_token_j) as $e
    | .budgets[1].runs[0].checks.kwh_per_day.value | (. - $e * 2000 * 86400 / 3.6e6 * 1.2 | fabs) < 1e-9' "$T/r.json" >/dev/null ||
    bad "default kWh/day"
# what the budget left out: over the steady state, the run's energy outside it; over the run, none
jq -e --slurpfile s "$T/s.json" '[.budgets[].runs[] | . as $r | ($s[0].runs[] | select(.file == $r.file and .run == $r.run)) as $x
    | $r.left_out | ((.outside_window_kwh * 3.6e6 - ($x.run_energy_j - $x.steady_energy_j)) | fabs) < 1e-6 * $x.run_energy_j
      and .scopes_not_measured == ["host", "node"] and .wider_scope == null] | (length == 5) and all' "$T/b.json" >/dev/null ||
    bad "steady left out: $(jq -c '[.budgets[].runs[].left_out]' "$T/b.json")"
jq -e '[.budgets[].runs[].left_out.outside_window_kwh == 0] | all' "$T/r.json" >/dev/null || bad "run: left something out"
"$J" budget --budgets "$B" --window steady traces/ 2>/dev/null | grep -q '^counted: the steady state at each run.s widest measured scope (--scope auto); left out: 0.00[0-9]* kWh outside the windows counted, 0 kWh measured at wider scopes than counted; not measured: host power in 5 of 5 runs judged, node power in 5 of 5$' ||
    bad "table: no left-out line: $("$J" budget --budgets "$B" --window steady traces/ 2>/dev/null | tail -2)"
# a scope no run measured: refused, each run named with what it has
"$J" budget --budgets "$B" --scope node traces/ >/dev/null 2>"$T/err"
rc=$?
[ $rc = 1 ] || bad "--scope node: exit $rc"
grep -q 'h100-qwen3-8b-shape-chat.h5.*b0064: no run/node .*energy: the run has steady/gpu, run/gpu' "$T/err" ||
    bad "--scope node: $(head -2 "$T/err")"
# all pass: exit 0
sed 's/"energy_per_token_j": 0.1}/"energy_per_token_j": 0.2}/' "$B" >"$T/ok.json"
"$J" budget --budgets "$T/ok.json" --window steady traces/ >/dev/null
rc=$?
[ $rc = 0 ] || bad "all passing: exit $rc"
# malformed: exit 2, the file and the key named
sed 's/energy_per_token_j/energy_per_tok/' "$B" >"$T/bad.json"
"$J" budget --budgets "$T/bad.json" traces/ >/dev/null 2>"$T/err"
rc=$?
[ $rc = 2 ] || bad "malformed: exit $rc"
grep -q "bad.json.*budgets\[0\].ceilings: unknown ceiling \"energy_per_tok\"" "$T/err" || bad "malformed: $(cat "$T/err")"
printf '{"schema": "joules.budgets/1", "budgets": [{"where": ["gpu_model~H100"], "ceilings": {"avg_power_w": 1}}]}' >"$T/bad2.json"
"$J" budget --budgets "$T/bad2.json" traces/ >/dev/null 2>"$T/err"
grep -q 'budgets\[0\].where\[0\]' "$T/err" || bad "bad clause: $(cat "$T/err")"
[ $fail = 0 ] && echo "ok: pass / fail / undetermined, groups, kWh/day, gCO2eq/request, adherence 0.6, whole run by default, what it left out, scope refused, exits 1/0/2"
exit $fail
