#!/bin/sh
# The installed Python package (docs/python.md, "Install"): cmake --install
# into a scratch prefix, then `import joules` from that prefix alone (the
# documented PYTHONPATH, a working folder outside the checkout), and the
# README's three lines of Python.
#   sh test_install.sh BUILD PYTHON SOURCE
set -eu
build=$1 py=$2 src=$3
tmp=$(mktemp -d /tmp/joules-pyinstall.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
site="$tmp/prefix/lib/python$ver/site-packages"
[ -f "$site/joules/__init__.py" ] || { echo "FAIL: no package in $site"; cat "$tmp/install.log"; exit 1; }
ls "$site"/joules/_joules*.so > /dev/null || { echo "FAIL: no extension in $site/joules"; exit 1; }
grep -q "PYTHONPATH=$site" "$tmp/install.log" || { echo "FAIL: the install does not say where the package is"; exit 1; }
cd "$tmp"
# not the build's copy: only the prefix is on the path
out=$(env -u PYTHONPATH PYTHONPATH="$site" "$py" -c "
import joules, os
assert os.path.dirname(joules.__file__).startswith('$site'), joules.__file__
print(joules.summarize('$src/traces/'))
best = joules.pick('$src/traces/', slo='median_itl<=10ms')
print(best[['model', 'slo', 'feasible', 'energy']])
print(help(joules.summarize) or '')
# the descriptors installed with it, as the installed joules finds them
assert os.environ.get('JOULES_MODELS_DIR') == '$tmp/prefix/share/joules/models', os.environ.get('JOULES_MODELS_DIR')
d = joules.diagnose('$src/traces/')
assert d['batch_ceiling'].notna().any(), 'no batch ceiling: the descriptors were not found'
") || { echo "FAIL: import joules from the installed prefix"; exit 1; }
echo "$out" | grep -q "29 rows" || { echo "FAIL: summarize from the installed prefix:"; echo "$out"; exit 1; }
echo "$out" | grep -q "One row per run" || { echo "FAIL: help() of the installed module"; echo "$out" | tail -20; exit 1; }
echo "ok: installed into $site; PYTHONPATH=$site python3 -c 'import joules; print(joules.summarize(...))' works"
