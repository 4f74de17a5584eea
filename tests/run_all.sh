#!/bin/sh
# The whole test suite, five trees, every one with warnings as errors:
#   release  static libjoules.a (the default), every ctest (the Python
#            module's too: label python, docs/python.md), and the golden CLI
#            cases again under valgrind (memcheck, leaks);
#   asan     ASan+UBSan, every ctest (unit, golden, malformed, fuzz replays;
#            the Python module's with the sanitizers' runtimes preloaded);
#   shared   libjoules.so: installed and linked by consumers (the Python
#            package too), its exports checked against the public headers,
#            the golden CLI cases;
#   mpi      -DJOULES_MPI=ON: every study command under mpirun -n 2/3 byte for
#            byte against one process, the golden CLI cases;
#   fuzz     clang + libFuzzer + ASan+UBSan: only the fuzz targets, each run
#            for a short, fixed-seed session (ctest -L fuzz; docs/robustness.md).
# Prints a final "all: N passed, N failed, K skipped" line and exits
# non-zero when anything failed. Skipped: tests whose data or tool is absent
# (e.g. the public data sets beside the checkout, ../shared/data, on a fresh
# clone), each tree listing why.
#   sh tests/run_all.sh            # everything (CI: .ci/run)
#   sh tests/run_all.sh --quick    # development: the release tree alone, every
#                                  # ctest but without valgrind (build-quick/);
#                                  # a few minutes on 2 cores, not the verdict
#   sh tests/run_all.sh --tree asan --tree mpi   # only these trees (each
#                                  # prints its own time; the counts are theirs)
#   JOBS=1 sh tests/run_all.sh     # fewer parallel jobs
set -u
cd "$(dirname "$0")/.."
QUICK=0
TREES=""
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) QUICK=1 ;;
    --tree)
        case "${2:-}" in
        release | asan | shared | mpi | fuzz) TREES="$TREES $2" ;;
        *) echo "run_all.sh: --tree is one of release, asan, shared, mpi, fuzz" >&2; exit 2 ;;
        esac
        shift ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: sh tests/run_all.sh [--quick] [--tree NAME]..." >&2; exit 2 ;;
    esac
    shift
done
JOBS=${JOBS:-2}
total_pass=0
total_fail=0
total_skip=0
status=0

run_tree() { # name, cmake args...  ($TREE_TARGETS: build only these; $TREE_LABEL: ctest -L)
    name=$1; shift
    case " ${TREES:- $name} " in *" $name "*) ;; *) return ;; esac
    t0=$(date +%s)
    echo "=== $name: configure and build"
    if ! cmake -S . -B "build-$name" -DJOULES_WERROR=ON "$@" >"build-$name.configure.log" 2>&1; then
        cat "build-$name.configure.log"; echo "FAILED: configure $name"; status=1; total_fail=$((total_fail + 1)); return
    fi
    targets=""
    for t in ${TREE_TARGETS:-}; do targets="$targets --target $t"; done
    # shellcheck disable=SC2086
    if ! cmake --build "build-$name" -j "$JOBS" $targets >"build-$name.build.log" 2>&1; then
        tail -50 "build-$name.build.log"; echo "FAILED: build $name"; status=1; total_fail=$((total_fail + 1)); return
    fi
    echo "=== $name: ctest"
    label=""
    [ -n "${TREE_LABEL:-}" ] && label="-L ${TREE_LABEL}"
    # shellcheck disable=SC2086
    (cd "build-$name" && ctest --output-on-failure -j "$JOBS" --timeout 1200 $label) >"build-$name.ctest.log" 2>&1
    rc=$?
    cat "build-$name.ctest.log" | grep -E '^ *[0-9]+/[0-9]+ Test|tests passed|tests failed|Failed|\*\*\*' || true
    if [ $rc -ne 0 ]; then
        grep -A40 -E 'Output from these tests|\*\*\*Failed|FAIL' "build-$name.ctest.log" | head -200
        status=1
    fi
    p=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed' "build-$name.ctest.log" || true)
    # a test that skips itself (a tool is missing; it says which) is not a failure
    sk=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Skipped' "build-$name.ctest.log" || true)
    f=$(grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(\*\*\*|Failed|Not Run|Timeout)' "build-$name.ctest.log" | grep -cv '\*\*\*Skipped' || true)
    # each skipped test said why (e.g. the public data beside the checkout is absent)
    [ "$sk" -gt 0 ] && grep -h '^SKIP: ' "build-$name/Testing/Temporary/LastTest.log" 2>/dev/null |
        sort | uniq -c | sed "s/^ *\([0-9]*\) SKIP: /  $name: skipped \1 test(s): /"
    echo "$name: $p passed, $f failed, $sk skipped ($(($(date +%s) - t0)) s, load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null))"
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    total_skip=$((total_skip + sk))
}

if [ $QUICK -eq 1 ]; then
    run_tree quick -DCMAKE_BUILD_TYPE=RelWithDebInfo -DJOULES_VALGRIND_GOLDEN=OFF
    echo
    echo "all (--quick: the release tree without valgrind; the asan, shared, mpi and fuzz trees left out): $total_pass passed, $total_fail failed, $total_skip skipped"
    [ $status -eq 0 ] && [ $total_fail -eq 0 ]
    exit
fi
run_tree release -DCMAKE_BUILD_TYPE=RelWithDebInfo -DJOULES_VALGRIND_GOLDEN=ON
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_tree asan -DCMAKE_BUILD_TYPE=Debug -DJOULES_SANITIZE=ON
# the shared library (-DBUILD_SHARED_LIBS=ON), as docs/library.md documents it:
# installed and used by a consumer through pkg-config and CMake, the documented
# example, its exports against include/joules/ (style_exports), the golden CLI
# cases with the program linked to libjoules.so
TREE_LABEL='package|shared|golden' \
    run_tree shared -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_SHARED_LIBS=ON
# the MPI build (-DJOULES_MPI=ON, Open MPI): every study command under mpirun
# byte for byte against one process (docs/scaling.md), and the golden cases
TREE_LABEL='mpi|golden' \
    run_tree mpi -DCMAKE_BUILD_TYPE=RelWithDebInfo -DJOULES_MPI=ON
# libFuzzer sets its own sanitizer options; the targets alone are built.
# the targets: tests/fuzz/targets.txt, the one list the fuzz build reads
TREE_TARGETS=$(python3 tests/fuzz/targets.py --exe | tr '\n' ' ') TREE_LABEL=fuzz \
    run_tree fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DJOULES_SANITIZE=ON -DJOULES_FUZZ=ON

echo
echo "all: $total_pass passed, $total_fail failed, $total_skip skipped"
[ $status -eq 0 ] && [ $total_fail -eq 0 ]
