#!/bin/sh
# The Python module's wall (docs/python.md, docs/architecture.md): the C
# extension (src/python/) uses the library only through its public
# headers, as the CLI does: it includes only joules/ headers and its own
# pyjoules.h, its objects use no internal jl__ name, and every global
# symbol they define is pyj_* (or PyInit__joules, the interpreter's entry).
#   sh tests/style/check_python_wall.sh SOURCE_DIR PYTHON_OBJECT...
set -u
src=${1:?usage: check_python_wall.sh SOURCE_DIR PYTHON_OBJECT...}; shift
# shellcheck disable=SC2046
set -- $(printf '%s' "$*" | tr ';' ' ')
fail=0
bad=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src"/src/python/*.c "$src"/src/python/*.h |
    grep -vE '#[[:space:]]*include[[:space:]]*"(joules/[a-z_]*\.h|pyjoules\.h)"' | sed "s@^$src/@@")
if [ -n "$bad" ]; then
    echo "FAIL: the Python module includes a header that is neither joules/ (public) nor pyjoules.h:"
    printf '%s\n' "$bad" | sed 's/^/  /'
    fail=1
fi
if [ $# -gt 0 ]; then
    command -v nm >/dev/null 2>&1 || { echo "SKIP: nm (binutils) is missing"; exit 77; }
    internal=$(nm -u "$@" | awk '$2 ~ /^jl__/ { print $2 }' | sort -u)
    if [ -n "$internal" ]; then
        echo "FAIL: the Python module uses the library's internals (jl__):"
        printf '  %s\n' $internal
        fail=1
    fi
    names=$(nm -g --defined-only "$@" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ && $3 !~ /^(pyj_|PyInit__joules$|_)/ { print $3 }' | sort -u)
    if [ -n "$names" ]; then
        echo "FAIL: global symbols of the Python module outside pyj_ (make them static or name them pyj_*):"
        printf '  %s\n' $names
        fail=1
    fi
fi
[ $fail -eq 0 ] && echo "ok: src/python includes only joules/ headers; its $# objects use no jl__ name and define only pyj_* and PyInit__joules"
exit $fail
