#!/bin/sh
# long_run.sh FUZZ_BUILD_DIR TARGET SECONDS [JOBS]
# The maintainers' long fuzzing run (docs/robustness.md): libFuzzer's fork
# mode with JOBS worker processes (default 2) that go on past crashes,
# hangs and out-of-memory inputs, for SECONDS seconds, on a persistent
# corpus in $JOULES_FUZZ_DIR (default /tmp/joules-fuzz/TARGET). Afterwards
# every finding is triaged (triage.py): the exit status is 1 when any is in
# joules code, 0 when all are known libhdf5 defects.
#   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DJOULES_SANITIZE=ON -DJOULES_FUZZ=ON
#   cmake --build build-fuzz -j2 --target fuzz_trace
#   sh tests/fuzz/long_run.sh build-fuzz trace 3600
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$1; target=$2; secs=$3; jobs=${4:-2}
dir=${JOULES_FUZZ_DIR:-/tmp/joules-fuzz/$target}
fuzzer="$build/tests/fuzz/fuzz_$target"
mkdir -p "$dir/corpus" "$dir/findings"
seeds="$here/corpus/$target"
[ -d "$here/regressions/$target" ] && seeds="$seeds $here/regressions/$target"
# the seeds from ../shared the build made (ctest -R fuzz_seeds_shared, or
# make_seeds.py --shared ../shared --out BUILD/tests/fuzz/seeds-shared)
[ -d "$build/tests/fuzz/seeds-shared/$target" ] && seeds="$seeds $build/tests/fuzz/seeds-shared/$target"
echo "fuzzing $target for $secs s with $jobs jobs; corpus $dir/corpus, findings $dir/findings"
# shellcheck disable=SC2086
"$fuzzer" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$dir/findings/" "$dir/corpus" $seeds >"$dir/log" 2>&1
grep -E '^#[0-9]+:' "$dir/log" | tail -1
n=$(ls "$dir/findings" | wc -l)
echo "$n findings in $dir/findings"
[ "$n" -eq 0 ] && exit 0
/usr/bin/python3 "$here/triage.py" "$fuzzer" "$dir/findings"
