#!/bin/sh
# The public headers in two sections (docs/library.md, "Stable and
# experimental"), as zstd's ZSTD_STATIC_LINKING_ONLY: in every header of
# include/joules/,
#  - the line after JL_API_BEGIN is the stable marker, and every
#    declaration is between JL_API_BEGIN and JL_API_END: stable, or
#    experimental inside `#ifdef JOULES_EXPERIMENTAL` ...
#    `#endif /* JOULES_EXPERIMENTAL */` (blocks closed, not nested);
#  - the stable section names no json_t (a pointer member may say
#    `struct json_t`, an incomplete type) and jansson.h is included only
#    under `#ifdef JOULES_EXPERIMENTAL`, so a program on the stable part
#    builds without jansson (tests/unit/test_json_stable_api.c builds one);
#  - a header without JL_API_BEGIN (joules.h, account.h) declares nothing.
# Each offence is printed with its file and line. With --self-test it first
# checks a small tree with one header breaking each rule and fails unless
# every one is reported (the check can fail).
#   sh tests/style/check_api.sh SOURCE_DIR [--self-test]
set -u
src=${1:?usage: check_api.sh SOURCE_DIR [--self-test]}
mark='/* ---- stable (docs/library.md, "Stable and experimental") ---- */'

check_headers() { # DIR of headers: a FAIL line per offence, exit 1 on any
    for h in "$1"/*.h; do
        [ -e "$h" ] || continue
        case $(basename "$h") in export.h) continue ;; esac # the marks themselves
        awk -v MARK="$mark" -v F="$h" '
            function fail(msg) { printf "FAIL: %s:%d: %s\n", F, FNR, msg; bad = 1 }
            BEGIN { region = "pre"; inexp = 0; incom = 0; after_begin = 0; prev = "" }
            {
                raw = $0
                # the code of the line: comments removed
                code = ""; s = raw
                while (s != "") {
                    if (incom) { i = index(s, "*/"); if (!i) { s = ""; break } s = substr(s, i + 2); incom = 0; continue }
                    i = index(s, "/*"); if (!i) { code = code s; break }
                    code = code substr(s, 1, i - 1); s = substr(s, i + 2); incom = 1
                }
                gsub(/^[ \t]+|[ \t]+$/, "", code)
                if (after_begin) {
                    after_begin = 0
                    if (raw != MARK) fail("the line after JL_API_BEGIN is not the stable marker")
                }
                if (code == "JL_API_BEGIN") { region = "api"; has_api = 1; after_begin = 1; prev = code; next }
                if (code == "JL_API_END") {
                    if (inexp) fail("JL_API_END inside an experimental block")
                    region = "post"; prev = code; next
                }
                if (raw == "#ifdef JOULES_EXPERIMENTAL") {
                    if (inexp) fail("experimental blocks nested")
                    if (region == "api") inexp = 1
                    prev = raw; next
                }
                if (raw == "#endif /* JOULES_EXPERIMENTAL */") {
                    if (!inexp) fail("#endif /* JOULES_EXPERIMENTAL */ without its #ifdef")
                    inexp = 0; prev = raw; next
                }
                if (code ~ /^#[ \t]*include[ \t]*<jansson\.h>/ && prev != "#ifdef JOULES_EXPERIMENTAL")
                    fail("jansson.h included outside #ifdef JOULES_EXPERIMENTAL")
                if (code != "") prev = raw
                if (code == "" || code ~ /^#/ || code == "extern \"C\" {" || code == "}") next
                if (region != "api") { fail("a declaration outside JL_API_BEGIN ... JL_API_END: " code); next }
                if (!inexp) {
                    t = code; gsub(/struct[ \t]+json_t/, "", t)
                    if (t ~ /(^|[^A-Za-z0-9_])json_t([^A-Za-z0-9_]|$)/)
                        fail("json_t in the stable section (move it under #ifdef JOULES_EXPERIMENTAL): " code)
                }
            }
            END { if (inexp) fail("an experimental block is not closed"); exit bad }' "$h" || st=1
    done
    return ${st:-0}
}

if [ "${2:-}" = --self-test ]; then
    t=$(mktemp -d) || exit 1
    trap 'rm -rf "$t"' EXIT INT TERM
    ok() { printf '%s\n' '#include <stddef.h>' 'JL_API_BEGIN' "$mark"; }
    { ok; printf '%s\n' 'int jl_a(void);' 'JL_API_END'; } >"$t/good.h"
    { printf '%s\n' 'JL_API_BEGIN' 'int jl_a(void);' 'JL_API_END'; } >"$t/no_marker.h"
    { ok; printf '%s\n' 'json_t *jl_b(void);' 'JL_API_END'; } >"$t/stable_json.h"
    { printf '%s\n' '#include <jansson.h>'; ok; printf '%s\n' 'JL_API_END'; } >"$t/jansson_always.h"
    { ok; printf '%s\n' 'JL_API_END' 'int jl_outside(void);'; } >"$t/outside.h"
    { ok; printf '%s\n' '#ifdef JOULES_EXPERIMENTAL' 'json_t *jl_c(void);' 'JL_API_END'; } >"$t/unclosed.h"
    { printf '%s\n' 'int jl_no_api(void);'; } >"$t/no_api.h"
    out=$(check_headers "$t")
    for f in no_marker stable_json jansson_always outside unclosed no_api; do
        printf '%s\n' "$out" | grep -q "^FAIL: $t/$f.h:" ||
            { echo "FAIL: self-test: $f.h was not reported"; exit 1; }
    done
    printf '%s\n' "$out" | grep -q "^FAIL: $t/good.h:" && { echo "FAIL: self-test: good.h was reported"; exit 1; }
    rm -rf "$t"
    trap - EXIT INT TERM
fi
check_headers "$src/include/joules"
