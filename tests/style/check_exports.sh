#!/bin/sh
# The shared library exports exactly the public API (htslib's
# test-shlib-exports is the model): every symbol libjoules.so exports is
# declared in include/joules/, and every function and variable declared
# there is exported. The declarations are read by the compiler, not by a
# pattern over the text: gcc's -aux-info writes the prototype of every
# function a translation unit declares, with the file it came from.
#   sh tests/style/check_exports.sh LIBJOULES.so SOURCE_DIR BUILD_DIR
set -u
lib=${1:?usage: check_exports.sh LIBJOULES.so SOURCE_DIR BUILD_DIR}
src=${2:?}; build=${3:?}
case $lib in *.so*) ;; *) echo "SKIP: $lib is not a shared library (configure with -DBUILD_SHARED_LIBS=ON)"; exit 77 ;; esac
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm (binutils) is missing"; exit 77; }
command -v gcc >/dev/null 2>&1 || { echo "SKIP: gcc is missing (its -aux-info lists the declarations)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '#include <joules/joules.h>\n' >"$tmp/all.c"
# every public header, whether or not the umbrella includes it
for h in "$src"/include/joules/*.h; do printf '#include <joules/%s>\n' "$(basename "$h")" >>"$tmp/all.c"; done
if ! gcc -std=c11 -DJOULES_EXPERIMENTAL -I"$src/include" -I"$build/include" -fsyntax-only -aux-info "$tmp/aux.txt" "$tmp/all.c" 2>"$tmp/cc.err"; then
    echo "FAIL: the public headers do not compile on their own:"; cat "$tmp/cc.err"; exit 1
fi
# "/* .../include/joules/x.h:12:NC */ extern T name (args);" -> name
grep '/include/joules/[^ ]*\.h:' "$tmp/aux.txt" | grep -v '^/\*[^*]*\*/ static ' |
    sed -E 's@^/\*[^*]*\*/ @@; s@ \(.*@@; s@.*[ *]@@' >"$tmp/decl"
# variables: extern declarations that are not functions
gcc -std=c11 -DJOULES_EXPERIMENTAL -I"$src/include" -I"$build/include" -E -P "$tmp/all.c" | tr '\n' ' ' | tr ';{}' '\n\n\n' |
    sed -nE 's@^ *extern [^()]*[ *](jl_[A-Za-z0-9_]+) *(\[[^]]*\])? *$@\1@p' >>"$tmp/decl"
sort -u "$tmp/decl" -o "$tmp/decl"
nm -D --defined-only "$lib" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ && $3 !~ /^_/ { print $3 }' | sort -u >"$tmp/exported"
fail=0
extra=$(comm -13 "$tmp/decl" "$tmp/exported")
missing=$(comm -23 "$tmp/decl" "$tmp/exported")
if [ -n "$extra" ]; then
    echo "FAIL: $(basename "$lib") exports symbols no public header declares (make them static, or jl__ and hidden):"
    printf '  %s\n' $extra; fail=1
fi
if [ -n "$missing" ]; then
    echo "FAIL: declared in include/joules/ but not exported by $(basename "$lib") (undefined, or hidden):"
    printf '  %s\n' $missing; fail=1
fi
[ $fail -eq 0 ] && echo "ok: $(basename "$lib") exports exactly the $(wc -l <"$tmp/decl") functions and variables include/joules/ declares"
exit $fail
