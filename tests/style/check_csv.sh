#!/bin/sh
# One CSV writer (docs/architecture.md, "Conventions"): every CSV joules
# writes goes through the row writer of src/output/csv.c (output/csv_row.h:
# jl__csvw_* to a FILE, a jl__strbuf or a jl_table; jl_csv_field and
# jl_csv_row for the CLI), which places the commas, quotes as RFC 4180 asks
# and writes numbers at full precision (%.17g). A CSV written by hand
# anywhere else in src/ or include/ fails here, with the file and line of
# the output call (fprintf, fputs, fputc, printf, puts, fwrite,
# jl__strbuf_puts, _printf or _append, the whole statement read):
#  - a separator or quote put as a character: fputc(',' or fputc('"';
#  - a lone "," written as the text of a call (fputs(",", f),
#    jl__strbuf_puts(b, ","));
#  - a format that starts with a comma before a conversion, a comma or a
#    newline (",%.9g", ",\n"), holds two commas in a row (an empty cell:
#    "(budgets),,,%s"), or ends with a comma after a numeric conversion
#    ("%.9g,", "%ld,\n");
#  - a CSV header by hand: a text that starts with two names joined by a
#    comma and goes on with a comma or ends ("time_s,power_w,...",
#    "a,b\n");
#  - a quote doubled by hand (a '"' character tested, then "\"\"" written:
#    RFC 4180's escape; gnuplot's empty "" alone is not CSV).
# Every file but csv.c is read, the JSON writers too (they write their
# commas through their own buffer, which none of these calls is); two
# comma-joined texts that are not CSV are named below.
# With --self-test, it first checks a small tree with one file breaking
# each rule and one good file, and fails unless each break is reported and
# the good file is not (the check can fail).
#   sh tests/style/check_csv.sh SOURCE_DIR [--self-test]
set -u
src=${1:?usage: check_csv.sh SOURCE_DIR [--self-test]}

# Comma-joined texts that are not CSV files (file and the function's
# purpose, one a line; a grep -E pattern each):
#  - trace/trace_attrs.c: an HDF5 string or number array attribute as the
#    text "a,b,c" (the attribute's value, read by jl_attrs);
#  - slo/slo.c: jl_slo_canonical, the SLO's own text "itl<=0.1,ttft<=2".
allowed='^src/trace/trace_attrs\.c:[0-9]+: +jl__strbuf_puts\(&b, ","\);$
^src/slo/slo\.c:[0-9]+: +jl__strbuf_puts\(&b, ","\);$'

check_tree() { # SOURCE_DIR: a FAIL line per hand-written CSV, exit 1 on any
    (
    cd "$1" || exit 1
    files=$(find src include -name '*.c' -o -name '*.h' 2>/dev/null |
        grep -vE '^src/output/csv\.c$' |
        LC_ALL=C sort)
    [ -n "$files" ] || { echo "FAIL: no source files under $1/src"; exit 1; }
    # shellcheck disable=SC2086
    out=$(awk -v sq="'" '
        BEGIN {
            call = "(^|[^a-z_])(fprintf|fputs|fputc|putc|printf|puts|fwrite|jl__strbuf_puts|jl__strbuf_printf|jl__strbuf_append) *\\("
            num = "%[-+ #0-9.*]*(hh|h|ll|l|z|j|t)?[diouxXeEfFgGaA]"
            rule[1] = "(fputc|putc) *\\( *" sq "[,\"]" sq
            rule[2] = "(fputs *\\( *\",\" *,|(jl__strbuf_puts|jl__strbuf_printf|printf|fprintf) *\\([^\"]*\",\" *\\))"
            rule[3] = "(\",(%|,|\\\\n)|,,)"
            rule[4] = "(" num "|,),(\\\\n)?\""
            rule[5] = "\"[A-Za-z_][A-Za-z_0-9]*,[A-Za-z_][A-Za-z_0-9]*(,|\\\\n|\")"
            what[1] = "a separator or quote put as a character"
            what[2] = "a lone comma written by hand"
            what[3] = "a format that starts with a comma"
            what[4] = "a format that ends with a comma after a number"
            what[5] = "a CSV header written by hand"
            rule[6] = sq "\"" sq ".*\\\\\"\\\\\""
            what[6] = "a quote doubled by hand (RFC 4180 quoting)"
        }
        FNR == 1 { stmt = "" }
        /^[ \t]*(\/\*|\*|\/\/)/ { next }
        stmt == "" && $0 ~ call { stmt = $0; start = FNR; first = $0 }
        stmt != "" && FNR > start { stmt = stmt " " $0 }
        stmt != "" {
            if ($0 ~ /;[ \t]*(\/\*.*)?$/ || $0 ~ /\{[ \t]*$/ || FNR - start > 12) {
                for (k = 1; k <= 6; k++)
                    if (stmt ~ rule[k]) {
                        print FILENAME ":" start ":" first "\t" what[k]
                        break
                    }
                stmt = ""
            }
        }' $files)
    printf '%s\n' "$out" | while IFS= read -r hit; do
        [ -n "$hit" ] || continue
        where=${hit%%"	"*}
        printf '%s\n' "$where" | grep -qE "$allowed" && continue
        printf 'FAIL: %s\n' "$where"
        printf '      %s: %s\n' "${hit#*"	"}" \
            "write it through the row writer (output/csv_row.h, jl__csvw_*; the CLI jl_csv_row)"
    done | { grep . && exit 1; exit 0; }
    )
}

if [ "${2:-}" = --self-test ]; then
    t=$(mktemp -d "${TMPDIR:-/tmp}/joules-check-csv.XXXXXX") || exit 1
    trap 'rm -rf "$t"' EXIT
    mkdir -p "$t/src/output" "$t/src/report" "$t/src/slo" "$t/include/joules"
    : >"$t/include/joules/output.h"
    printf 'void jl_csv_field(FILE *f, const char *s)\n{\n    fputc(%s, f);\n}\n' "','" >"$t/src/output/csv.c"
    printf 'static void a(FILE *f)\n{\n    fputc(%s, f);\n}\n' "','" >"$t/src/report/sep_char.c"
    printf 'static void a(jl__strbuf *b)\n{\n    jl__strbuf_puts(b, ",");\n}\n' >"$t/src/report/lone_comma.c"
    printf 'static void a(FILE *f, double v)\n{\n    fprintf(f, ",%%.9g", v);\n}\n' >"$t/src/report/lead_comma.c"
    printf 'static void a(jl__strbuf *b, double v)\n{\n    jl__strbuf_printf(b,\n                      "%%.9g,", v);\n}\n' >"$t/src/report/trail_comma.c"
    printf 'static void a(FILE *f, const char *v)\n{\n    fprintf(f, "(total),,,%%s\\n", v);\n}\n' >"$t/src/report/empty_cells.c"
    printf 'static void a(jl__strbuf *b, char c)\n{\n    jl__strbuf_puts(b, c == %s ? "\\"\\"" : "x");\n}\n' "'\"'" >"$t/src/report/quote.c"
    printf 'static void a(FILE *f)\n{\n    fputs("time_s,power_w,"\n          "running\\n", f);\n}\n' >"$t/src/report/header.c"
    printf 'static void a(FILE *f, const char *k)\n{\n    /* fputc(%s, f) in a comment */\n    fprintf(f, "%%s, then %%g, %%g\\n", k, 1.0, 2.0);\n    printf("%%s %%s", 1 ? "," : "", k);\n}\n' "','" >"$t/src/report/prose.c"
    printf 'static void a(jl__strbuf *b)\n{\n    jl__strbuf_puts(&b, ",");\n}\n' >"$t/src/slo/slo.c"
    out=$(check_tree "$t"); rc=$?
    missed=0
    for want in src/report/sep_char.c:3 src/report/lone_comma.c:3 src/report/lead_comma.c:3 \
        src/report/trail_comma.c:3 src/report/header.c:3 src/report/empty_cells.c:3 \
        src/report/quote.c:3; do
        echo "$out" | grep -qF "FAIL: $want:" || { echo "FAIL: self-test: not reported: $want"; missed=1; }
    done
    for good in src/output/csv.c src/report/prose.c src/slo/slo.c; do
        echo "$out" | grep -qF "FAIL: $good:" && { echo "FAIL: self-test: reported a good file: $good"; missed=1; }
    done
    [ $rc -ne 0 ] || { echo "FAIL: self-test: the broken tree passed"; missed=1; }
    [ $missed = 0 ] || { echo "$out"; exit 1; }
    echo "self-test: each of 7 hand-written CSVs reported, 3 good files passed"
fi

check_tree "$src" || exit 1
n=$(cd "$src" && find src include -name '*.c' -o -name '*.h' | wc -l)
echo "ok: $n files of src/ and include/ write CSV through the row writer only (src/output/csv.c)"
