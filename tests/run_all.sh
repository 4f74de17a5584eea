#!/bin/sh
# The whole test suite: a warnings-as-errors build and an ASan+UBSan build,
# each running every ctest. Prints a final "N passed, N failed" line and exits
# non-zero when anything failed.
#   sh tests/run_all.sh            # everything
#   JOBS=1 sh tests/run_all.sh     # fewer parallel jobs
set -u
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
total_pass=0
total_fail=0
status=0

run_tree() { # name, cmake args...
    name=$1; shift
    echo "=== $name: configure and build"
    if ! cmake -S . -B "build-$name" -DJOULES_WERROR=ON "$@" >"build-$name.configure.log" 2>&1; then
        cat "build-$name.configure.log"; echo "FAILED: configure $name"; status=1; total_fail=$((total_fail + 1)); return
    fi
    if ! cmake --build "build-$name" -j "$JOBS" >"build-$name.build.log" 2>&1; then
        tail -50 "build-$name.build.log"; echo "FAILED: build $name"; status=1; total_fail=$((total_fail + 1)); return
    fi
    echo "=== $name: ctest"
    (cd "build-$name" && ctest --output-on-failure -j "$JOBS" --timeout 1200) >"build-$name.ctest.log" 2>&1
    rc=$?
    cat "build-$name.ctest.log" | grep -E '^ *[0-9]+/[0-9]+ Test|tests passed|tests failed|Failed|\*\*\*' || true
    if [ $rc -ne 0 ]; then
        grep -A40 -E 'Output from these tests|\*\*\*Failed|FAIL' "build-$name.ctest.log" | head -200
        status=1
    fi
    p=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed' "build-$name.ctest.log" || true)
    f=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(\*\*\*|Failed|Not Run|Timeout)' "build-$name.ctest.log" || true)
    echo "$name: $p passed, $f failed"
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
}

run_tree release -DCMAKE_BUILD_TYPE=RelWithDebInfo
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_tree asan -DCMAKE_BUILD_TYPE=Debug -DJOULES_SANITIZE=ON

echo
echo "all: $total_pass passed, $total_fail failed"
[ $status -eq 0 ] && [ $total_fail -eq 0 ]
