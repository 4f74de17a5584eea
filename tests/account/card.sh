#!/bin/sh
# joules card: the YAML front matter parses, with the Hugging Face
# co2_eq_emissions keys; emissions = 1,000 x the gCO2eq per request that
# joules emissions gives for the same run (25.33 J x 1.2 / 3.6e6 x 400 x
# 1,000 = 3.377 g); the configurations are joules label's; several models
# without --model is a usage error.
#   card.sh JOULES SOURCE_DIR SHARED_DIR
set -u
J=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$SRC" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
M=synthetic/Qwen3-8B-shape
"$J" card --model $M --slo 'median_itl<=50ms' --grid-intensity 400 --pue 1.2 --location Germany \
    -o "$T/card.md" traces/ || bad "card failed"
"$J" label --json --slo 'median_itl<=50ms' traces/ >"$T/l.json"
"$J" emissions --json --grid-intensity 400 --pue 1.2 --where model=$M --where gpu_model=H100 \
    --where max_batch_size=256 traces/ >"$T/e.json"
/usr/bin/python3 - "$T/card.md" "$T/l.json" "$T/e.json" <<'PY' || fail=1
import json, sys, yaml
text = open(sys.argv[1]).read()
assert text.startswith("---\n"), "no front matter"
front = yaml.safe_load(text.split("---\n")[1])
co2 = front["co2_eq_emissions"]
for k in ("emissions", "source", "geographical_location", "hardware_used"):
    assert k in co2, f"co2_eq_emissions lacks {k}"
e = json.load(open(sys.argv[3]))["runs"][0]
want = e["g_co2eq_per_request"]["average"] * 1000
assert abs(co2["emissions"] - want) <= 1e-5 * want, (co2["emissions"], want)
assert co2["hardware_used"] == "1 x H100" and co2["geographical_location"] == "Germany"
labels = [l for l in json.load(open(sys.argv[2]))["labels"] if l["model"] == "synthetic/Qwen3-8B-shape"]
confs = front["joules_energy"]["configurations"]
assert len(confs) == len(labels) == 2, (len(confs), len(labels))
for c, l in zip(confs, labels):
    assert abs(c["gpu_wh_per_1000_queries"] - l["gpu_wh_per_1000"]) <= 1e-5 * l["gpu_wh_per_1000"]
    assert c["stars"] == l["stars"]
for section in ("## Calibration and conditions", "## Carbon and facility", "## Provenance", "energy_counter"):
    assert section in text, f"no {section}"
print(f"card: {co2['emissions']} g per 1,000 queries")
PY
"$J" card traces/ >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q 'several models' "$T/err" || bad "several models: $(cat "$T/err")"
[ $fail = 0 ] && echo "ok: front matter with co2_eq_emissions, emissions = emissions' figure, label's configurations"
exit $fail
