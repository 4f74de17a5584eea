#!/bin/sh
# One prefix scheme, one meaning per word (docs/architecture.md,
# "Conventions", "Names"):
#  - jl_ / JL_ names are the public API's: every jl_ or JL_ identifier the
#    code of src/ uses (comments and strings aside) is one that
#    include/joules/ declares or defines. A library internal is jl__ /
#    JL__ (declared in its folder's internal header), the CLI's own names
#    are cli_ / CLI_; a jl_jw, a JL_EXIT_OK or a local JL_X macro fails.
#    The public names are read by the compiler (the public headers
#    preprocessed, so the X-macro tables' enum constants count) and from
#    the headers' text (their macros); a token pasted with ## is a
#    macro's parameter, not a name.
#  - "attr" means run attributes only (jl_attrs*, jl_attr_names): energy
#    attribution is jl_attribution_* / JL_ATTRIBUTION_*, so a public
#    jl_attr_ or JL_ATTR name other than jl_attr_names fails.
#   sh tests/style/check_names.sh SOURCE_DIR BUILD_DIR
set -u
src=${1:?usage: check_names.sh SOURCE_DIR BUILD_DIR}
build=${2:?usage: check_names.sh SOURCE_DIR BUILD_DIR}
command -v gcc >/dev/null 2>&1 || { echo "SKIP: gcc is missing (it preprocesses the public headers)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
printf '#include <joules/joules.h>\n' >"$tmp/all.c"
for h in "$src"/include/joules/*.h; do printf '#include <joules/%s>\n' "$(basename "$h")" >>"$tmp/all.c"; done
if ! gcc -std=c11 -DJOULES_EXPERIMENTAL -I"$src/include" -I"$build/include" -E -P "$tmp/all.c" >"$tmp/pp" 2>"$tmp/cc.err"; then
    echo "FAIL: the public headers do not preprocess:"; cat "$tmp/cc.err"; exit 1
fi
names='\b(jl|JL)_[A-Za-z0-9][A-Za-z0-9_]*'
{
    grep -oE "$names" "$tmp/pp"
    cat "$src"/include/joules/*.h "$build"/include/joules/*.h 2>/dev/null | grep -oE "$names"
} | sort -u >"$tmp/public"
[ -s "$tmp/public" ] || { echo "FAIL: no public name found in $src/include/joules"; exit 1; }

# The names each file of src/ uses: comments removed by the compiler
# (-fpreprocessed: no include is read, no macro expanded), strings blanked.
n=0
for f in $(cd "$src" && find src -name '*.c' -o -name '*.h' | LC_ALL=C sort); do
    n=$((n + 1))
    gcc -fpreprocessed -dD -E -P "$src/$f" 2>/dev/null |
        sed -E "s/\"([^\"\\\\]|\\\\.)*\"/\"\"/g; s/'([^'\\\\]|\\\\.)'/''/g" |
        grep -noE "$names( *##)?" | grep -v '##$' | sed "s|^|$f:|"
done >"$tmp/used"
[ "$n" -gt 0 ] || { echo "FAIL: no source under $src/src"; exit 1; }
bad=0
awk -F: 'NR == FNR { pub[$0] = 1; next } !($3 in pub) { print $1 ": " $3 }' "$tmp/public" "$tmp/used" |
    sort -u >"$tmp/internal"
if [ -s "$tmp/internal" ]; then
    echo "FAIL: jl_/JL_ names no public header declares (internal: jl__/JL__ in the library, cli_/CLI_ in the CLI):"
    sed 's/^/  /' "$tmp/internal"
    bad=1
fi
grep -E '^(jl_attr|JL_ATTR)' "$tmp/public" | grep -vE '^(jl_attrs|jl_attr_names$|jl_attribution|JL_ATTRIBUTION)' >"$tmp/attr"
if [ -s "$tmp/attr" ]; then
    echo "FAIL: public names with attr that are not run attributes (energy attribution is jl_attribution_*):"
    sed 's/^/  /' "$tmp/attr"
    bad=1
fi
[ $bad -eq 0 ] || exit 1
echo "ok: $n files of src/ use only the $(wc -l <"$tmp/public") jl_/JL_ names include/joules/ declares; attr means run attributes"
