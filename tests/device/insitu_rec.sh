# Sourced by the device-call scripts (insitu_shapes.sh, insitu_h200.sh,
# insitu_steady.sh, insitu_long.sh, insitu_fresh.sh, insitu_long_fresh.sh): rec NAME LIMIT_S ARGS... records one
# shape with insitu_record.py under a time limit that the call's budget
# ($end, Unix s) still allows, logs to $out/$log, shows the recorder's last
# $tail_n lines (cut to 160 columns) and tars /tmp/rec/NAME into $out.
# $pin: a command prefix (taskset -c ...) or empty; $dev: tests/device.
rec() {  # NAME LIMIT_S ARGS...
    name=$1 lim=$2
    shift 2
    left=$((end - $(date +%s) - 5))
    [ "$lim" -gt "$left" ] && lim=$left
    if [ "$lim" -lt 30 ]; then
        echo "== $name: not run, $left s left" | tee -a "$out/$log"
        return
    fi
    echo "== $name: limit $lim s: $*" | tee -a "$out/$log"
    mkdir -p "/tmp/rec/$name"
    # shellcheck disable=SC2086 # $pin is a command prefix or empty
    timeout -k 5 "$lim" ${pin:-} python3 "$dev/insitu_record.py" --out "/tmp/rec/$name" \
        "$@" >"/tmp/rec/$name/log.txt" 2>&1
    echo "== $name: exit $?" | tee -a "$out/$log"
    tail -n "${tail_n:-40}" "/tmp/rec/$name/log.txt" | cut -c1-160
    (cd /tmp/rec && tar cf "$out/$name.tar" "$name")
}

# The steady host's recorder options (insitu_steady.sh, insitu_long.sh): the
# recorder pinned to two cores and the NVML sampler to another, no garbage
# collection inside a measured run, short paired runs.
steady="--classes attention,mlp,qkv,o_proj,lm_head,norm --pin 2,3 --sampler-cpus 8"
steady="$steady --steady-host --warm-s 0.3 --steady-s 1.5 --iso-s 2 --iso-idle-s 1 --after-s 3"

# The card and the host, as read (never changed), appended to $out/$log.
log_device() {
    {
        nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu,vbios_version \
            --format=csv
        nproc
        uptime
    } >>"$out/$log" 2>&1
}

# unpack NAME: $out/NAME.tar into $out/NAME/, its phases.json and samples.csv
# gzipped (as tests/data/insitu keeps them), then the call's log shown.
unpack() {  # NAME
    if [ -f "$out/$1.tar" ]; then
        (cd "$out" && tar xf "$1.tar" && rm -f "$1.tar")
        [ -f "$out/$1/phases.json" ] && gzip -f "$out/$1/phases.json"
        [ -f "$out/$1/samples.csv" ] && gzip -f "$out/$1/samples.csv"
        ls -la "$out/$1"
    fi
    cat "$out/$log"
}
