#!/bin/sh
# The tests as a newcomer finds them (tests/README.md):
#  - every C file under tests/ (but tests/test.h, the one harness) lives in
#    a kind's folder, tests/<kind>/, and is named
#      test_<subsystem>[_<what>].c|h   a test, a fuzz target, or what one
#                                      test of that subsystem includes, or
#      <kind>_<what>.c|h               a helper of that kind's tests (a
#                                      harness main, an LD_PRELOAD shim,
#                                      a generator, a shared header);
#    <subsystem> is a public header's name (include/joules/<subsystem>.h,
#    one header per subsystem) or a folder of src/;
#  - the fuzz targets are listed in one place, tests/fuzz/targets.txt (read
#    through tests/fuzz/targets.py): a tests/fuzz/ file that defines
#    LLVMFuzzerTestOneInput is test_<target>.c of a listed target, every
#    tests/fuzz/test_*.c is listed, every listed target has its source, and
#    every corpus/<dir> and regressions/<dir> is a listed target's;
#  - every folder of tests/ is named in tests/README.md (`tests/<kind>/`).
# Each offending file is printed with the rule it breaks. Run with
# --self-test, it first builds a small tree with one file breaking each
# rule and fails unless every one of them is reported (the check can fail).
#   sh tests/style/check_tests.sh SOURCE_DIR [--self-test]
set -u
src=${1:?usage: check_tests.sh SOURCE_DIR [--self-test]}
here=$(cd "$(dirname "$0")" && pwd)

check_tree() { # SOURCE_DIR: prints a FAIL line per offence, exit 1 on any
    (
    cd "$1" || exit 1
    bad=0
    fail() { echo "FAIL: $*"; bad=1; }
    subs=$( (ls include/joules/ | sed -n 's/\.h$//p'; find src -mindepth 1 -maxdepth 1 -type d | sed 's|^src/||') \
        | LC_ALL=C sort -u)
    [ -n "$subs" ] || { echo "FAIL: no subsystems under $1/include/joules or $1/src"; exit 1; }
    files=$(find tests -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)
    [ -n "$files" ] || { echo "FAIL: no C files under $1/tests"; exit 1; }
    for f in $files; do
        [ "$f" = tests/test.h ] && continue
        kind=$(echo "$f" | cut -d/ -f2)
        base=$(basename "$f")
        stem=${base%.*}
        case $f in
            tests/*/*) ;;
            *) fail "$f: a C file of the tests lives in a kind's folder, tests/<kind>/"; continue ;;
        esac
        case $stem in
            "${kind}"_?*) continue ;;
            test_?*)
                rest=${stem#test_}
                ok=0
                for s in $subs; do
                    case $rest in "$s" | "$s"_?*) ok=1; break ;; esac
                done
                [ $ok = 1 ] && continue
                fail "$f: test_$rest does not begin with a subsystem (a header of include/joules/ or a folder of src/)" ;;
            *) fail "$f: not test_<subsystem>[_<what>] (a test) nor ${kind}_<what> (a helper of tests/$kind/)" ;;
        esac
    done

    fuzz=tests/fuzz
    if [ -d $fuzz ]; then
        targets=$(python3 $fuzz/targets.py) || { echo "FAIL: $fuzz/targets.py could not read $fuzz/targets.txt"; exit 1; }
        listed() { echo "$targets" | grep -qx "$1"; }
        for f in $(grep -l 'LLVMFuzzerTestOneInput *(' $fuzz/*.c | LC_ALL=C sort); do
            stem=$(basename "$f" .c)
            case $stem in
                test_?*) listed "${stem#test_}" ||
                    fail "$f: a fuzz target not in $fuzz/targets.txt (add a line: ${stem#test_} RUNS SEED INPUT)" ;;
                fuzz_replay_main) ;;
                *) fail "$f: a fuzz target is $fuzz/test_<target>.c, listed in $fuzz/targets.txt" ;;
            esac
        done
        for f in $fuzz/test_*.c; do
            [ -e "$f" ] || continue
            t=$(basename "$f" .c)
            t=${t#test_}
            listed "$t" || fail "$f: not in $fuzz/targets.txt (a fuzz target is listed there)"
        done
        for t in $targets; do
            [ -f "$fuzz/test_$t.c" ] || fail "$fuzz/targets.txt: target $t has no $fuzz/test_$t.c"
        done
        for d in $fuzz/corpus/* $fuzz/regressions/*; do
            [ -d "$d" ] || continue
            listed "$(basename "$d")" || fail "$d: the seeds of no target in $fuzz/targets.txt"
        done
    fi

    for d in tests/*/; do
        d=${d%/}
        grep -qF "\`$d/\`" tests/README.md 2>/dev/null || fail "$d/: not described in tests/README.md (\`$d/\`)"
    done
    exit $bad
    )
}

if [ "${2:-}" = --self-test ]; then
    t=$(mktemp -d "${TMPDIR:-/tmp}/joules-check-tests.XXXXXX") || exit 1
    trap 'rm -rf "$t"' EXIT
    mkdir -p "$t/include/joules" "$t/src/core" "$t/tests/unit" "$t/tests/fuzz/corpus/trace" \
        "$t/tests/fuzz/corpus/gone" "$t/tests/perf" "$t/tests/newkind"
    : >"$t/include/joules/trace.h"
    cp "$src/tests/fuzz/targets.py" "$t/tests/fuzz/"
    printf '# a comment\ntrace 10 - trace images\nmissing 10 - listed, no source\n' >"$t/tests/fuzz/targets.txt"
    printf 'int LLVMFuzzerTestOneInput (void);\n' >"$t/tests/fuzz/test_trace.c"
    printf 'int LLVMFuzzerTestOneInput (void);\n' >"$t/tests/fuzz/test_core_unlisted.c"
    printf 'int LLVMFuzzerTestOneInput (void);\n' >"$t/tests/fuzz/fuzz_other.c"
    : >"$t/tests/test.h"
    : >"$t/tests/unit/test_trace_read.c"
    : >"$t/tests/unit/test_core.c"
    : >"$t/tests/unit/test_nosuch_thing.c"
    : >"$t/tests/unit/helpers.h"
    : >"$t/tests/perf/perf_gen.c"
    : >"$t/tests/loose.c"
    printf '`tests/unit/` `tests/fuzz/` `tests/perf/`\n' >"$t/tests/README.md"
    out=$(check_tree "$t")
    rc=$?
    missed=0
    for want in 'tests/unit/test_nosuch_thing.c: test_nosuch_thing does not begin' \
        'tests/unit/helpers.h: not test_' 'tests/loose.c: a C file of the tests lives' \
        'tests/fuzz/test_core_unlisted.c: a fuzz target not in' \
        'tests/fuzz/test_core_unlisted.c: not in tests/fuzz/targets.txt' \
        'tests/fuzz/fuzz_other.c: a fuzz target is' 'tests/fuzz/targets.txt: target missing has no' \
        'tests/fuzz/corpus/gone: the seeds of no target' 'tests/newkind/: not described'; do
        echo "$out" | grep -qF "FAIL: $want" || { echo "FAIL: self-test: not reported: $want"; missed=1; }
    done
    for good in tests/unit/test_trace_read.c tests/unit/test_core.c tests/perf/perf_gen.c \
        'tests/fuzz/test_trace.c' tests/test.h 'tests/fuzz/corpus/trace'; do
        echo "$out" | grep -qF "FAIL: $good" && { echo "FAIL: self-test: reported a good file: $good"; missed=1; }
    done
    [ $rc -ne 0 ] || { echo "FAIL: self-test: the broken tree passed"; missed=1; }
    [ $missed = 0 ] || { echo "$out"; exit 1; }
    echo "self-test: each of 9 broken rules reported, 6 good names passed"
fi

check_tree "$src" || exit 1
n=$(cd "$src" && find tests -type f \( -name '*.c' -o -name '*.h' \) | wc -l)
echo "ok: $n C files of the tests in the scheme; $(python3 "$src/tests/fuzz/targets.py" | wc -l) fuzz targets, all listed"
