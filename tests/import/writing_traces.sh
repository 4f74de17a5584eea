#!/bin/sh
# writing_traces.sh JOULES C_EXAMPLE PYTHON SOURCE_DIR OUT_DIR
# Runs docs/writing-traces.md's examples (made-up numbers: --made-up for the
# Python one) and checks that `joules check` passes their files with no
# failed rule, and that the doc shows each example file verbatim.
set -u
joules=$1; cexe=$2; py=$3; src=$4; out=$5
mkdir -p "$out"
fail=0
"$py" "$src/tests/import/doc_blocks.py" "$src/docs/writing-traces.md" \
    "$src/docs/examples/write_trace.py" "$src/docs/examples/write_trace.c" || fail=1
rm -f "$out/c.h5" "$out/py.h5"
"$cexe" "$out/c.h5" || fail=1
if "$py" -c 'import h5py, numpy' 2>/dev/null; then
    "$py" "$src/docs/examples/write_trace.py" "$out/py.h5" --made-up || fail=1
else
    echo "no h5py/numpy for $py: the Python example is not run"
fi
for f in "$out/c.h5" "$out/py.h5"; do
    [ -f "$f" ] || continue
    "$joules" check "$f" > "$out/check.txt" 2>&1
    rc=$?
    cat "$out/check.txt"
    if [ $rc -ne 0 ] || ! grep -q ' 0 fail, .*; 0 runs fail a rule' "$out/check.txt"; then
        echo "FAIL: joules check on $f (exit $rc)"; fail=1
    fi
done
exit $fail
