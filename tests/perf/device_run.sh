#!/bin/sh
# tests/perf/device_run.sh — the scaling measurement past two cores, in one
# command on a machine that has a compiler and CMake but none of joules'
# libraries (docs/scaling.md, "Session 11: 16 cores"): Debian's packages
# carried as .deb files are unpacked into a prefix (never into /), joules is
# built there with MPI, the study and fleet sets are generated, and
# tests/perf/device_scaling.py measures 1, 2, 4, 8 and 16 ranks.
#
#   sh tests/perf/device_run.sh CARRY OUT [SCALE]
#
# CARRY holds debs/*.deb (apt-get download of the packages listed in
# docs/scaling.md) and src.tar.gz (the tree to build: git archive HEAD).
# OUT receives log.txt, results.md and results.json. SCALE: device (the
# default: 800 study files, 1,000 GPUs for a day) or local (small sizes, to
# try the script on a 2-core machine); compare: the tree before
# (CARRY/base.tar.gz) is built too and tests/perf/device_compare.py times
# both, with the ML.ENERGY data of CARRY/mlenergy-v3 (compare.md, compare.json). JOULES_DEVICE_DEADLINE (seconds,
# default 420) bounds the whole run: phases that would not fit are left out
# and say so.
set -u
CARRY=$(cd "${1:?usage: device_run.sh CARRY OUT [SCALE]}" && pwd)
OUT=${2:?}
SCALE=${3:-device}
mkdir -p "$OUT"
T_START=$(date +%s)
LOG=$OUT/log.txt
: >"$LOG"
say() { echo "[$(($(date +%s) - T_START)) s] $*" | tee -a "$LOG" >&2; }
P=${JOULES_DEVICE_PREFIX:-/tmp/joules-prefix}
W=${JOULES_DEVICE_WORK:-/tmp/joules-device}
rm -rf "$W"
mkdir -p "$W" "$P"

say "machine: $(uname -srm); $(nproc) CPUs; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
say "memory: $(free -g 2>/dev/null | awk '/Mem:/ {print $2 " GiB"}'); os: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
for t in cc gcc cmake make ninja python3 dpkg ar mpirun pkg-config bc; do
    say "tool $t: $(command -v $t 2>/dev/null || echo missing) $($t --version 2>/dev/null | head -1)"
done
say "load: $(cat /proc/loadavg); /dev/shm: $(df -h /dev/shm 2>/dev/null | awk 'NR == 2 {print $4}') free; /tmp: $(df -h /tmp | awk 'NR == 2 {print $4}') free"

# ---- 1. Debian's packages into the prefix ------------------------------
n=0
for d in "$CARRY"/debs/*.deb; do
    if command -v dpkg >/dev/null 2>&1; then
        dpkg -x "$d" "$P" || { say "FAIL: dpkg -x $d"; exit 1; }
    else # ar + tar: a .deb is an ar archive holding data.tar.*
        (mkdir -p "$W/deb" && cd "$W/deb" && rm -f data.tar.* && ar x "$d" && tar -xf data.tar.* -C "$P") ||
            { say "FAIL: unpacking $d"; exit 1; }
    fi
    n=$((n + 1))
done
say "unpacked $n packages into $P"
# Debian makes these names with update-alternatives, not in the packages
for x in mpicc mpirun mpiexec; do
    [ -e "$P/usr/bin/$x" ] || ln -s "$x.openmpi" "$P/usr/bin/$x"
done
ML=$P/usr/lib/x86_64-linux-gnu
# HDF5's h5cc wrapper names /usr and links curl and OpenSSL for the S3
# driver joules does not use: a wrapper of the prefix in its place
cat >"$P/usr/bin/h5cc" <<EOF
#!/bin/sh
case "\$1" in
-showconfig) echo "HDF5 Version: 1.10.8"; exit 0 ;;
-show) echo "gcc -I$P/usr/include/hdf5/serial -L$ML/hdf5/serial $ML/hdf5/serial/libhdf5.a -lpthread -lsz -lz -ldl -lm"; exit 0 ;;
esac
exec gcc -I$P/usr/include/hdf5/serial "\$@" -L$ML/hdf5/serial $ML/hdf5/serial/libhdf5.a -L$ML -lpthread -lsz -lz -ldl -lm
EOF
chmod +x "$P/usr/bin/h5cc"
# the .so links of -dev packages are absolute: point them into the prefix
for l in $(find "$P" -type l); do
    t=$(readlink "$l")
    case $t in /*) [ -e "$P$t" ] && ln -sfn "$P$t" "$l" ;; esac
done
export OPAL_PREFIX=$P/usr PMIX_INSTALL_PREFIX=$P/usr
# PMIx's plugins from the prefix, not a system PMIx's of another version
export PMIX_MCA_mca_base_component_path=$ML/pmix2/lib/pmix PMIX_MCA_pcompress_base_silence_warning=1
export PATH=$P/usr/bin:$PATH
export PKG_CONFIG_LIBDIR=$ML/pkgconfig:$P/usr/share/pkgconfig PKG_CONFIG_SYSROOT_DIR=$P
RUNLIBS=$ML:$ML/openmpi/lib:$ML/hdf5/serial
# Open MPI's and PMIx's own plugins find their libraries through this too
export JOULES_DEVICE_LD=$RUNLIBS
OMPI_CONF=$P/etc/openmpi-mca-params.conf
: >"$OMPI_CONF"
export OMPI_MCA_mca_base_param_files=$OMPI_CONF

# ---- 2. build -----------------------------------------------------------
build_tree() { # TARBALL DIR TARGETS...
    tarball=$1 dir=$2
    shift 2
    mkdir -p "$W/$dir-src"
    tar -xzf "$tarball" -C "$W/$dir-src" || { say "FAIL: $tarball"; exit 1; }
    say "configuring $dir"
    LD_LIBRARY_PATH=$RUNLIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} cmake -S "$W/$dir-src" -B "$W/$dir" \
        -DCMAKE_BUILD_TYPE=Release -DJOULES_MPI=ON -DCMAKE_PREFIX_PATH="$P/usr" \
        -DHDF5_C_COMPILER_EXECUTABLE="$P/usr/bin/h5cc" -DMPI_C_COMPILER="$P/usr/bin/mpicc" \
        -DGSL_ROOT_DIR="$P/usr" -DZLIB_ROOT="$P/usr" -DJOULES_SHARED_DIR=/nonexistent \
        -DCMAKE_C_FLAGS="-I$P/usr/include" -DCMAKE_EXE_LINKER_FLAGS="-L$ML" \
        >"$OUT/cmake-$dir.log" 2>&1 || { tail -40 "$OUT/cmake-$dir.log" | tee -a "$LOG"; say "FAIL: configure $dir"; exit 1; }
    targets=""
    for t in "$@"; do targets="$targets --target $t"; done
    say "building $dir"
    # shellcheck disable=SC2086
    LD_LIBRARY_PATH=$RUNLIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} cmake --build "$W/$dir" -j "$(nproc)" \
        $targets >"$OUT/build-$dir.log" 2>&1 ||
        { tail -40 "$OUT/build-$dir.log" | tee -a "$LOG"; say "FAIL: build $dir"; exit 1; }
}
if [ "$SCALE" = compare ]; then
    build_tree "$CARRY/base.tar.gz" build-base joules_cli
    build_tree "$CARRY/src.tar.gz" build joules_cli joules-perf-gen joules-perf-rawread
    ln -sfn "$W/build-src" "$W/src"
else
    build_tree "$CARRY/src.tar.gz" build joules_cli joules-perf-gen joules-perf-rawread joules-perf-genfleet
    ln -sfn "$W/build-src" "$W/src"
fi
grep -E '^(HDF5_C_LIBRARY_hdf5|MPI_C_HEADER_DIR|GSL_LIBRARY|JOULES_HDF5_ARCHIVE|ZLIB_LIBRARY_RELEASE):' \
    "$W/build/CMakeCache.txt" | tee -a "$LOG" >/dev/null
say "built: $(ls -la "$W/build/joules" | awk '{print $5}') bytes"
export LD_LIBRARY_PATH=$RUNLIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
"$W/build/joules" --version 2>&1 | head -1 | tee -a "$LOG"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_oob_tcp_if_include=lo
timeout 60 mpirun -n 2 -x LD_LIBRARY_PATH "$W/build/joules" --version >"$OUT/mpi-probe.log" 2>&1
say "mpirun -n 2 probe: exit $? ($(head -c 300 "$OUT/mpi-probe.log" | tr '\n' ' '))"

# ---- 3. measure -----------------------------------------------------------
TIME_BIN=$P/usr/bin/time
if [ "$SCALE" = compare ]; then
    python3 "$W/src/tests/perf/device_compare.py" --base "$W/build-base" --new "$W/build" --src "$W/src" \
        --work "$W" --out "$OUT" --mlenergy "$CARRY/mlenergy-v3" \
        --deadline $((T_START + ${JOULES_DEVICE_DEADLINE:-420})) 2>&1 | tee -a "$LOG" | tail -40
    say "done"
    exit 0
fi
python3 "$W/src/tests/perf/device_scaling.py" --build "$W/build" --src "$W/src" --work "$W" --out "$OUT" \
    --scale "$SCALE" --time "$TIME_BIN" --deadline $((T_START + ${JOULES_DEVICE_DEADLINE:-420})) 2>&1 |
    tee -a "$LOG" | tail -5
say "done"
