#!/bin/sh
# Every C file in src/, include/ and tests/ is formatted as .clang-format
# says (clang-format 14, Debian bookworm's; other versions format some
# constructs differently, so they skip rather than fail).
#   sh tests/style/check_format.sh SOURCE_DIR          check (ctest)
#   sh tests/style/check_format.sh SOURCE_DIR --fix    rewrite in place
set -u
src=${1:?usage: check_format.sh SOURCE_DIR [--fix]}
cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
    for c in clang-format-14 clang-format; do
        if command -v "$c" >/dev/null 2>&1; then cf=$c; break; fi
    done
fi
if [ -z "$cf" ]; then
    echo "SKIP: clang-format 14 is missing (sh .ci/install-deps test installs it)"; exit 77
fi
ver=$("$cf" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$ver" != 14 ]; then
    echo "SKIP: clang-format 14 is missing ($cf is version ${ver:-unknown})"; exit 77
fi
cd "$src" || exit 1
files=$(find src include tests -name '*.c' -o -name '*.h' | LC_ALL=C sort)
if [ "${2:-}" = --fix ]; then
    # shellcheck disable=SC2086
    exec "$cf" -i --style=file $files
fi
bad=0
for f in $files; do
    if ! "$cf" --style=file "$f" | cmp -s - "$f"; then
        echo "not formatted: $f (sh tests/style/check_format.sh . --fix)"
        "$cf" --style=file "$f" | diff -u "$f" - | head -20
        bad=$((bad + 1))
    fi
done
n=$(echo "$files" | wc -l)
if [ "$bad" -gt 0 ]; then
    echo "FAIL: $bad of $n files differ from .clang-format"; exit 1
fi
echo "ok: $n files formatted as .clang-format says"
