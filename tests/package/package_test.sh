#!/bin/sh
# package_test.sh BUILD_DIR SOURCE_DIR WORK CC [CFLAGS]
# Installs the build tree to WORK/prefix (cmake --install --prefix) and uses
# it as a user would:
#  - the installed files: joules, the headers with the generated version.h,
#    joulesConfig.cmake + ConfigVersion, joules.pc, joules(1) and one man
#    page per command `joules --help` lists, share/doc/joules;
#  - a consumer (consumer/package_consumer.c) built twice, with CMake
#    (find_package(joules), consumer/CMakeLists.txt) and with pkg-config
#    (--static when the library is static), each run on traces/: energy per
#    token of every run, which must equal `joules summarize --csv -`;
#  - a static libjoules.a linked whole into a shared object (it is PIC).
set -u
build=$1; src=$2; work=$3; cc=$4; cflags=${5:-}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
rm -rf "$work"; mkdir -p "$work"
prefix=$work/prefix

echo "== cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; echo "FAIL: install"; exit 1; }
joules=$prefix/bin/joules
[ -x "$joules" ] || { echo "FAIL: no bin/joules"; exit 1; }
pc=$(find "$prefix" -name joules.pc | head -1)
config=$(find "$prefix" -name joulesConfig.cmake | head -1)
[ -n "$pc" ] || bad "no joules.pc installed"
[ -n "$config" ] || bad "no joulesConfig.cmake installed"
[ -f "$(dirname "$config")/joulesConfigVersion.cmake" ] || bad "no joulesConfigVersion.cmake"
[ -f "$prefix/include/joules/version.h" ] || bad "no include/joules/version.h"
[ -f "$prefix/share/doc/joules/summary.md" ] || bad "docs/ not installed in share/doc/joules"
# the tour's inputs (README, "A short tour") with the documents
for f in budgets.json electricitymaps-hourly.csv watttime-moer.csv constant-hourly.csv; do
    [ -f "$prefix/share/doc/joules/examples/$f" ] || bad "the tour's $f is not installed in share/doc/joules/examples"
done

# one version everywhere
v=$(sed -n 's/^#define JL_VERSION_STRING "\(.*\)"$/\1/p' "$prefix/include/joules/version.h")
[ -n "$v" ] || bad "no JL_VERSION_STRING in version.h"
[ "$("$joules" --version)" = "joules $v" ] || bad "joules --version says '$("$joules" --version)', version.h $v"
grep -q "^Version: $v\$" "$pc" || bad "joules.pc has not Version: $v"
grep -q "\"$v\"" "$(dirname "$config")/joulesConfigVersion.cmake" || bad "joulesConfigVersion.cmake has not $v"

# man pages: joules(1) and one per command; --help points to them and to
# the installed documents, not to the source tree
commands=$("$joules" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}')
n=0
for page in joules $(for c in $commands; do echo "joules-$c"; done); do
    f=$prefix/share/man/man1/$page.1
    if [ ! -f "$f" ]; then bad "no man page $page.1"; continue; fi
    n=$((n + 1))
    grep -q '^\.SH SYNOPSIS' "$f" || bad "$page.1 has no SYNOPSIS"
    if command -v man >/dev/null 2>&1; then
        # troff's complaints, but not those about fitting a long line in 80 columns
        w=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null | grep -v "cannot adjust line\|can't break line")
        [ -z "$w" ] || bad "$page.1: $w"
    fi
done
[ $n -ge 2 ] || bad "only $n man pages"
for c in $commands; do
    h=$("$joules" "$c" --help)
    echo "$h" | grep -q "^Manual: man joules-$c " || bad "$c --help does not name its man page"
    echo "$h" | grep -q "^Documents named \*.md: $prefix/share/doc/joules/\$" ||
        bad "$c --help does not point to $prefix/share/doc/joules: $(echo "$h" | tail -1)"
    echo "$h" | grep -q "docs/" && bad "$c --help names a source path: $(echo "$h" | grep docs/)"
done
echo "ok: $n man pages, --help points to them"

# what the CLI says, to compare with
cd "$src" || exit 1
"$joules" summarize --csv - traces/ 2>/dev/null | awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == "energy_per_token_j") c = i; print "file,run,energy_per_token_j"; next }
    { print $1 "," $2 "," $c }' >"$work/expected.csv"
[ "$(wc -l <"$work/expected.csv")" -gt 20 ] || bad "joules summarize --csv - traces/ printed $(wc -l <"$work/expected.csv") lines"

check_consumer() { # name, executable
    if ! "$2" traces/ >"$work/$1.csv" 2>"$work/$1.err"; then
        bad "$1 consumer failed: $(cat "$work/$1.err")"; return
    fi
    if ! diff -u "$work/expected.csv" "$work/$1.csv" >"$work/$1.diff"; then
        bad "$1 consumer differs from joules summarize:"; head -20 "$work/$1.diff"; return
    fi
    echo "ok: $1 consumer: $(tail -1 "$work/$1.err"); e.g. $(grep -m1 '[0-9]$' "$work/$1.csv")"
}

# 1. CMake: find_package(joules)
echo "== CMake consumer"
if cmake -S "$src/tests/package/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$work/cmake.log" 2>&1 &&
    cmake --build "$work/cmake" >>"$work/cmake.log" 2>&1; then
    check_consumer cmake "$work/cmake/consumer"
else
    tail -30 "$work/cmake.log"; bad "the CMake consumer did not build"
fi

# 2. pkg-config
echo "== pkg-config consumer"
export PKG_CONFIG_PATH="$(dirname "$pc")"
static=""
[ -f "$(dirname "$pc")/../libjoules.a" ] && static="--static"
# a shared libjoules outside the loader's path: the program says where it is
[ -z "$static" ] && cflags="$cflags -Wl,-rpath,$(pkg-config --variable=libdir joules)"
# shellcheck disable=SC2046,SC2086
if "$cc" $cflags $(pkg-config --cflags joules) "$src/tests/package/consumer/package_consumer.c" \
        -o "$work/pc-consumer" $(pkg-config $static --libs joules) >"$work/pc.log" 2>&1; then
    check_consumer pkg-config "$work/pc-consumer"
else
    cat "$work/pc.log"; bad "the pkg-config consumer did not build (pkg-config $static --libs joules: $(pkg-config $static --libs joules))"
fi

# 3. docs/library.md's example, as installed in share/doc/joules/examples/,
# built with the same pkg-config line: its energy per token of one bundled
# trace equals the CLI's
echo "== the documented example"
example=$prefix/share/doc/joules/examples/energy_per_token.c
trace=traces/h100/h100-qwen3-8b-shape-chat.h5
if [ ! -f "$example" ]; then
    bad "docs/examples/energy_per_token.c is not installed"
# shellcheck disable=SC2046,SC2086
elif "$cc" $cflags $(pkg-config --cflags joules) "$example" -o "$work/example" \
        $(pkg-config $static --libs joules) >"$work/example.log" 2>&1; then
    "$work/example" "$trace" >"$work/example.csv" 2>"$work/example.err" ||
        bad "the example failed on $trace: $(cat "$work/example.err")"
    "$joules" summarize --csv - "$trace" 2>/dev/null | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == "energy_per_token_j") c = i; next }
        { printf "%s,%.6g\n", $2, $c }' >"$work/example.expected"
    cut -d, -f1,2 "$work/example.csv" | tail -n +2 >"$work/example.got"
    if [ "$(wc -l <"$work/example.got")" -lt 2 ] || ! diff -u "$work/example.expected" "$work/example.got" >"$work/example.diff"; then
        bad "the example's energy per token differs from joules summarize:"; head -20 "$work/example.diff"
    else
        echo "ok: the documented example: $(wc -l <"$work/example.got") runs, e.g. $(head -1 "$work/example.got")"
    fi
else
    cat "$work/example.log"; bad "the documented example did not build"
fi

# 4. PIC: the whole static library inside a shared object
if [ -n "$static" ]; then
    # shellcheck disable=SC2046,SC2086
    if "$cc" $cflags -shared -o "$work/libprobe.so" -Wl,--whole-archive "$(dirname "$pc")/../libjoules.a" \
            -Wl,--no-whole-archive $(pkg-config --static --libs joules) >"$work/pic.log" 2>&1; then
        echo "ok: libjoules.a links into a shared object (position-independent)"
    else
        head -20 "$work/pic.log"; bad "libjoules.a cannot go into a shared object"
    fi
else
    # a shared library exports the public API and nothing of src/
    nm -D --defined-only "$(dirname "$pc")/../libjoules.so" | awk '{print $3}' | grep -v '^jl_' >"$work/foreign" || true
    [ -s "$work/foreign" ] && bad "libjoules.so exports symbols outside jl_*: $(head -5 "$work/foreign" | tr '\n' ' ')"
    nm -D --defined-only "$(dirname "$pc")/../libjoules.so" | grep -q ' jl_study_load$' || bad "libjoules.so does not export jl_study_load"
fi

[ $fail -eq 0 ] && echo "package: all checks passed"
exit $fail
