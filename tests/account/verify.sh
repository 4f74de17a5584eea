#!/bin/sh
# joules verify: every command's document of the bundled traces reproduces
# (exit 0); one changed byte of an input, a changed rule and a missing file
# give their verdicts (1, 1, 3) naming what changed; the ML.ENERGY import
# and a summary of it reproduce when ../shared is there.
#   verify.sh JOULES SOURCE_DIR SHARED_DIR
set -u
J=$1 SRC=$2 SHARED=$3
T=$(mktemp -d)
trap 'chmod -R u+w "$T"; rm -rf "$T"' EXIT
cp -r "$SRC/traces" "$T/" && chmod -R u+w "$T/traces"
cd "$T" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
expect() { # expect RC FILE [PATTERN]: verify FILE exits RC and prints PATTERN
    "$J" verify "$2" >out.txt 2>err.txt
    rc=$?
    [ "$rc" = "$1" ] || bad "verify $2 exited $rc, expected $1: $(cat out.txt err.txt | head -5)"
    if [ -n "${3:-}" ] && ! grep -q -- "$3" out.txt; then bad "verify $2: no '$3' in: $(head -5 out.txt)"; fi
}
n=0
for c in "inspect --json" "summarize --json" "check --json" "frontier --json" "pick --json" \
    "compare --by gpu_model --baseline H100 --json" "capacity --power-budget 10000 --json" \
    "fit --json" "diagnose --json"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    "$J" $c traces/ >"d$n.json" 2>/dev/null || bad "joules $c failed"
    grep -q '"provenance"' "d$n.json" || bad "joules $c: no provenance block"
    expect 0 "d$n.json" "verdict: reproduces"
done
# the report's documents: the whole report re-made in a scratch folder
"$J" report traces/ -o rep --no-figures >/dev/null 2>&1 || bad "report failed"
for d in rep/data/summary.json rep/data/pick.json rep/data/report.json; do expect 0 "$d" "reproduces"; done
# from elsewhere: -C names the folder the document was made in
(cd / && "$J" verify -C "$T" "$T/d2.json" >"$T/c.txt") || bad "verify -C from /: $(cat "$T/c.txt")"
# a changed rule: the rules file's hash, the rule and the figures it moved
printf '{"version": "joules.rules/1", "rules": {"steady_duration": {"warn": 5, "fail": 1}}}\n' >r.json
"$J" check --json --rules r.json traces/ >c.json
expect 0 c.json
sed -i 's/"warn": 5/"warn": 50/' r.json
expect 1 c.json "rules.steady_duration.warn: 5.0 -> 50.0"
grep -q '^input *r.json' out.txt || bad "changed rule: the rules file's hash not named"
grep -q '^figure.*level: "pass" -> "warn"' out.txt || bad "changed rule: no figure moved"
# one changed byte of a trace
"$J" summarize --json traces/ >s.json
printf 'X' | dd of=traces/h100/h100-qwen3-8b-shape-chat.h5 bs=1 seek=1000000 conv=notrunc 2>/dev/null
expect 1 s.json "^input *traces/h100/h100-qwen3-8b-shape-chat.h5: 79a2da6b"
# a missing file: cannot be re-derived
rm traces/h200/h200-qwen3-8b-shape-chat.h5
expect 3 s.json "^missing *traces/h200/h200-qwen3-8b-shape-chat.h5"
# no provenance, no document
printf '{"schema": "joules.summary/1", "runs": []}\n' >old.json
expect 3 old.json
expect 3 nothing.json
# the ML.ENERGY import and a summary of it
if [ -d "$SHARED/data/mlenergy-v3" ]; then
    "$J" import mlenergy "$SHARED/data/mlenergy-v3" -o m.h5 --json --quiet >imp.json || bad "import failed"
    expect 0 imp.json "reproduces"
    "$J" summarize --json m.h5 >ms.json
    expect 0 ms.json "reproduces"
else
    echo "note: $SHARED/data/mlenergy-v3 missing: the import's round trip not run"
fi
[ $fail = 0 ] && echo "ok: $n command documents and 3 report documents reproduce; changed rule, changed byte, missing file, no provenance give 1, 1, 3, 3"
exit $fail
