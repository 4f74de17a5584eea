#!/bin/sh
# The wall between the library and its CLI (docs/architecture.md, "Names"):
# the CLI (src/cli/) includes only the public headers (joules/...) and its
# own (cli/...), never the library's internals; and every global symbol the
# CLI's objects define is cli_* (or main), so no CLI name looks like API.
#   sh tests/style/check_cli_wall.sh SOURCE_DIR CLI_OBJECT...
set -u
src=${1:?usage: check_cli_wall.sh SOURCE_DIR CLI_OBJECT...}; shift
# ctest passes the objects as one ;-separated list
# shellcheck disable=SC2046
set -- $(printf '%s' "$*" | tr ';' ' ')
fail=0
bad=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src"/src/cli/*.c "$src"/src/cli/*.h |
    grep -vE '#[[:space:]]*include[[:space:]]*"(joules|cli)/' | sed "s@^$src/@@")
if [ -n "$bad" ]; then
    echo "FAIL: the CLI includes a header that is neither joules/ (public) nor cli/:"
    printf '%s\n' "$bad" | sed 's/^/  /'
    fail=1
fi
if [ $# -gt 0 ]; then
    command -v nm >/dev/null 2>&1 || { echo "SKIP: nm (binutils) is missing"; exit 77; }
    names=$(nm -g --defined-only "$@" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ && $3 !~ /^(cli_|main$|_)/ { print $3 }' | sort -u)
    if [ -n "$names" ]; then
        echo "FAIL: global symbols of the CLI outside cli_ (make them static or name them cli_*):"
        printf '  %s\n' $names
        fail=1
    fi
fi
[ $fail -eq 0 ] && echo "ok: src/cli includes only joules/ and cli/ headers; its $# objects define only cli_* and main"
exit $fail
