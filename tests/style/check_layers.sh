#!/bin/sh
# Data flows one way, checked on what the compiler made (docs/architecture.md,
# "Layers") and on the includes: for every object file of the library and the CLI, each jl_ or
# cli_ symbol it uses (nm -u; public jl_name and internal jl__name alike)
# that another object defines must be defined in the same folder of src/ or
# in a folder of a lower layer; and inside a folder no files call each other
# in a circle (a pair may only through the exceptions named below). Every folder of src/ must have a layer, so a new
# folder is placed on purpose.
#   sh tests/style/check_layers.sh SRC_DIR OBJECT_LIST
# OBJECT_LIST: a file naming the object files, one a line (CMake writes it
# from $<TARGET_OBJECTS:joules_objects> and $<TARGET_OBJECTS:joules_cli>);
# an object's folder is the part of its path after the last /src/.
set -u
src=${1:?usage: check_layers.sh SRC_DIR OBJECT_LIST}
list=${2:?usage: check_layers.sh SRC_DIR OBJECT_LIST}
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm (binutils) is missing"; exit 77; }

# The layers, lowest first. A folder may call its own files and the folders
# of the layers before its own, never a folder of its own layer or above.
# The CLI (src/cli, a program over the library) is the top: nothing in the
# library may call it.
layers='
0 core
1 json
2 output descriptors
3 trace
4 summary import attribution
5 check slo
6 study
7 model frontier account
8 choice
9 report
10 cli python
'

# Calls between files of one folder that may close a circle, each named with
# its reason ("folder/file folder/file"). The one exception by design is the
# inline fast path: study_internal.h's jl__wbuf_put is inlined into every
# file that appends to the wire buffer and calls wire.c's jl__wbuf_grow only
# when the buffer is full, so nm sees load.c use wire.c although load.c
# calls wire.c's code only through the header (one way today: wire.c calls
# nothing of load.c). Two pairs are left to their owners (remove a line
# when its circle is untied):
#  - import/mlenergy.c <-> mlenergy_v2.c: jl_import_mlenergy_auto, in
#    mlenergy_v2.c, picks the format and calls mlenergy.c's
#    jl_import_mlenergy; mlenergy.c's importer row calls it;
#  - cli/common.c <-> cli/choice_common.c: the option loop's SLO list
#    (cli_slos_add) and the error helpers it reports through (cli_oom,
#    cli_usage_error).
allowed_circles='
study/load study/wire
import/mlenergy import/mlenergy_v2
cli/common cli/choice_common
'

[ -s "$list" ] || { echo "FAIL: no object list at $list"; exit 1; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

# Every folder of src/ has a layer.
for d in "$src"/*/; do
    f=$(basename "$d")
    printf '%s\n' "$layers" | awk -v f="$f" '{for (i = 2; i <= NF; i++) if ($i == f) found = 1} END {exit !found}' ||
        { echo "FAIL: src/$f has no layer in tests/style/check_layers.sh (and docs/architecture.md)"; exit 1; }
done

# Includes go down the layers too, even for types: a file of src/FOLDER
# (or a public header of FOLDER) includes only the headers of its own
# folder and of lower layers — "FOLDER/x.h" internal headers by their
# folder, the public joules/x.h by the folder that defines them (the table
# below; every public header must have a line). The umbrella joules.h is
# the CLI's.
headers='
error core
context core
attrs core
export core
version core
json json
validity core
output output
descriptors descriptors
trace trace
trace_write trace
spans trace
summary summary
import import
attribution attribution
check check
slo slo
study study
model model
ceiling model
explain model
diagnose model
frontier frontier
account account
provenance account
budget account
carbon account
publish account
counted account
choice choice
report report
joules cli
'
printf '%s\n' "$layers" >"$work/layers"
printf '%s\n' "$headers" >"$work/headers"
for h in "$src"/../include/joules/*.h; do
    [ -e "$h" ] || continue
    b=$(basename "$h" .h)
    awk -v b="$b" '$1 == b {found = 1} END {exit !found}' "$work/headers" ||
        { echo "FAIL: include/joules/$b.h has no folder in tests/style/check_layers.sh's header table"; exit 1; }
done
# "file folder included-header" for every #include "x/y.h" of src/ and include/joules/
(cd "$src/.." && find src include/joules -name '*.c' -o -name '*.h') | LC_ALL=C sort | while IFS= read -r f; do
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_]*\/[a-z_0-9]*\.h\)".*/\1/p' "$src/../$f" |
        while IFS= read -r inc; do printf '%s %s\n' "$f" "$inc"; done
done >"$work/includes"
awk -v LAYERS="$work/layers" -v HEADERS="$work/headers" '
    BEGIN {
        while ((getline l < LAYERS) > 0) { k = split(l, a, " "); for (i = 2; i <= k; i++) rank[a[i]] = a[1] + 0 }
        while ((getline l < HEADERS) > 0) { if (split(l, a, " ") == 2) owner[a[1]] = a[2] }
    }
    function folder_of_header(inc,   d, b) {
        d = inc; sub(/\/.*/, "", d); b = inc; sub(/^[^\/]*\//, "", b); sub(/\.h$/, "", b)
        if (d == "joules") return (b in owner) ? owner[b] : ""
        return d
    }
    {
        f = $1
        if (f ~ /^include\/joules\//) { b = f; sub(/^include\/joules\//, "", b); sub(/\.h$/, "", b); mine = owner[b] }
        else { mine = f; sub(/^src\//, "", mine); sub(/\/.*/, "", mine) }
        t = folder_of_header($2)
        if (t == "" || !(t in rank)) next # not a header of ours
        if (t == mine) next
        if (rank[t] >= rank[mine]) {
            printf "FAIL: %s (layer %d, %s) includes %s (layer %d, %s): includes go down the layers only\n", f, rank[mine], mine, $2, rank[t], t
            bad = 1
        }
    }
    END { exit bad }' "$work/includes"
includes_st=$?

# D folder file symbol / U folder file symbol, from every object (one nm
# over all of them; -A names the object on each line).
n=0
while IFS= read -r obj; do
    [ -n "$obj" ] || continue
    case $obj in */src/*/*.o) ;; *) echo "FAIL: $obj is not an object under a folder of src/"; exit 1 ;; esac
    rel=${obj##*/src/}
    [ -d "$src/${rel%%/*}" ] || { echo "FAIL: $obj: no folder src/${rel%%/*}"; exit 1; }
    printf '%s\n' "$obj" >>"$work/objs"
    n=$((n + 1))
done <"$list"
[ "$n" -gt 0 ] || { echo "FAIL: no object in $list"; exit 1; }
# "OBJ: ADDR T sym" / "OBJ:   U sym" -> "D|U folder file sym"
tosyms='{
    obj = $1; sub(/\.o:.*/, ".o", obj); sub(/.*\/src\//, "", obj); sub(/\.o$/, "", obj); sub(/\.c$/, "", obj)
    folder = obj; sub(/\/.*/, "", folder); file = obj; sub(/^[^\/]*\//, "", file)
    if ($NF ~ /^(jl_|cli_)/) print K, folder, file, $NF
}'
xargs nm -A -g --defined-only <"$work/objs" | awk -v K=D "$tosyms" >"$work/syms" &&
    xargs nm -A -u <"$work/objs" | awk -v K=U "$tosyms" >>"$work/syms" ||
    { echo "FAIL: nm could not read the objects of $list"; exit 1; }

printf '%s\n' "$layers" >"$work/layers"
printf '%s\n' "$allowed_circles" >"$work/allowed"
# Folders: a use of a symbol of another folder must go down the layers.
# Files: the calls between files of one folder, for the circle search.
awk -v LAYERS="$work/layers" '
    BEGIN { while ((getline l < LAYERS) > 0) { k = split(l, a, " "); for (i = 2; i <= k; i++) rank[a[i]] = a[1] + 0 } }
    $1 == "D" { def[$4] = $2 "/" $3; defdir[$4] = $2; next }
    { use[++nu] = $0 }
    END {
        bad = 0
        for (i = 1; i <= nu; i++) {
            split(use[i], u, " ")
            s = u[4]
            if (!(s in def))
                continue
            if (defdir[s] == u[2]) {
                if (def[s] != u[2] "/" u[3])
                    print "E", u[2] "/" u[3], def[s]
                continue
            }
            if (rank[defdir[s]] >= rank[u[2]]) {
                printf "FAIL: src/%s.c (layer %d) uses %s of src/%s.c (layer %d): folders call only the layers below their own\n", u[2] "/" u[3], rank[u[2]], s, def[s], rank[defdir[s]]
                bad = 1
            }
        }
        exit bad
    }' "$work/syms" >"$work/out"
layers_st=$?
grep '^FAIL' "$work/out"
grep '^E ' "$work/out" | sort -u >"$work/edges"

# Circles among the files of a folder: a file is in one when it reaches
# itself through the calls (transitive closure; a folder has a few dozen
# files at most).
awk -v ALLOWED="$work/allowed" '
    BEGIN { while ((getline l < ALLOWED) > 0) { k = split(l, a, " "); if (k >= 2) ok[a[1] " " a[2]] = 1 } }
    { if (($2 " " $3) in ok || ($3 " " $2) in ok) next; e[$2, $3] = 1; node[$2] = 1; node[$3] = 1 }
    END {
        for (k in node) for (i in node) if ((i, k) in e) for (j in node) if ((k, j) in e) e[i, j] = 1
        bad = 0
        for (i in node) if ((i, i) in e) {
            line = "FAIL: src/" i ".c calls itself back through:"
            for (j in node) if (j != i && (i, j) in e && (j, i) in e) line = line " src/" j ".c"
            print line
            bad = 1
        }
        exit bad
    }' "$work/edges" >"$work/circles"
circles_st=$?
sort "$work/circles"
[ $layers_st -eq 0 ] && [ $circles_st -eq 0 ] && [ $includes_st -eq 0 ] || exit 1
echo "ok: $n objects; folders call only the layers below theirs (core < output, descriptors < trace < summary, import, attribution < check, slo < study < model, frontier < choice < report < cli); no circle of files in a folder; includes go down the layers"
