#!/bin/sh
# The library's one prefix scheme, checked on what it links: every global
# symbol libjoules defines starts with jl_ (public API: jl_name; internal
# across files: jl__area_name; docs/architecture.md, "Names"). A static
# function needs no prefix; the CLI's own cli_ helpers are not in the library.
# Names the compiler makes (a leading __, e.g. ASan's __odr_asan.*) are not
# ours and are not checked.
#   sh tests/style/check_symbols.sh LIBRARY (libjoules.a or libjoules.so)
set -u
lib=${1:?usage: check_symbols.sh LIBRARY}
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm (binutils) is missing"; exit 77; }
case $lib in
    *.so*) syms=$(nm -D --defined-only "$lib") ;;
    *) syms=$(nm -g --defined-only "$lib") ;;
esac || { echo "FAIL: nm could not read $lib"; exit 1; }
bad=$(printf '%s\n' "$syms" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ && $2 != "U" && $3 !~ /^jl_/ && $3 !~ /^__/ { print $3 }' | sort -u)
n=$(printf '%s\n' "$syms" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ && $2 != "U"' | wc -l)
if [ -n "$bad" ]; then
    echo "FAIL: global symbols of $(basename "$lib") outside the jl_ prefix (make them static or name them jl__area_name):"
    printf '  %s\n' $bad
    exit 1
fi
echo "ok: all $n global symbols of $(basename "$lib") start with jl_"
