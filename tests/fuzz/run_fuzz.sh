#!/bin/sh
# run_fuzz.sh FUZZER WORKDIR SEED RUNS CORPUS_DIR...
# One bounded, deterministic libFuzzer session (the ctest `fuzz_*` tests):
# a fresh working corpus in WORKDIR/corpus (libFuzzer adds what it finds
# there, never to the source tree), the read-only seed corpora after it,
# a fixed -seed and -runs. Any crash, leak, sanitizer report or timeout
# stops the session and saves the input as WORKDIR/crash-* (leak-*, ...).
# The finding is then triaged (triage.py): in joules code it fails the test;
# a known libhdf5 defect (docs/robustness.md) is reported and does not —
# the seed and run count are chosen clean, so this only happens when a
# change of coverage steers the same seed elsewhere: pick another pair.
# Extra libFuzzer flags can be passed in $JOULES_FUZZ_FLAGS.
set -u
here=$(cd "$(dirname "$0")" && pwd)
fuzzer=$1; work=$2; seed=$3; runs=$4; shift 4
rm -rf "$work"
mkdir -p "$work/corpus"
# shellcheck disable=SC2086
"$fuzzer" -seed="$seed" -runs="$runs" -timeout=25 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/" \
    ${JOULES_FUZZ_FLAGS:-} "$work/corpus" "$@" >"$work/log" 2>&1
rc=$?
grep -E '^(INFO: Seed|Done [0-9]+ runs|stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)' "$work/log"
[ $rc -eq 0 ] && exit 0
echo "fuzzer exited with $rc; last lines of $work/log:"
tail -40 "$work/log"
if grep -qE '^Done [0-9]+ runs' "$work/log"; then
    # every run done, then a leak found at exit: not replayable alone
    triage="--log $work/log"
elif ls "$work" | grep -qE '^(crash|leak|timeout|oom)-'; then
    triage="$fuzzer $work"
else
    exit $rc
fi
# shellcheck disable=SC2086
/usr/bin/python3 "$here/triage.py" $triage && {
    echo "NOTE: the session stopped at a known libhdf5 defect (not a joules bug);"
    echo "      executions before it were clean. Choose another seed/run count"
    echo "      (tests/fuzz/CMakeLists.txt, docs/robustness.md)."
    exit 0
}
exit 1
