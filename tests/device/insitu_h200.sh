#!/bin/sh
# Record the in-situ truth of issue 39 on the device machine (an H200) in one
# call of under 10 minutes (tests/device/README.md, section 4): a prefill +
# decode shape other than the shared run's, with the isolated loops recorded
# twice (back to back, and duty-cycled below the power cap at the clocks of a
# profiled run), and a CPU-bound shape. Each recording runs in a process of
# its own under a time limit and is packed into OUT/NAME.tar when it ends,
# so a shape that fails or overruns loses only itself. The card's settings
# are only read (power limit, clocks), never changed.
# usage: insitu_h200.sh OUT [SECONDS]     (SECONDS: the whole budget, 540)
out=$1 budget=${2:-540}
dev=$(dirname "$0")
export PYTHONUNBUFFERED=1
end=$(($(date +%s) + budget))
# the recorder and its sampler on four cores of their own (less host jitter)
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 2-5"
classes=attention,mlp,qkv,o_proj,lm_head,norm
common="--classes $classes --warm-s 1 --steady-s 7 --iso-s 2 --iso-idle-s 1 --after-s 3"
log=h200.log tail_n=45
. "$dev/insitu_rec.sh"
{
    nvidia-smi --query-gpu=name,driver_version,power.limit,power.default_limit,power.min_limit,power.max_limit,clocks.max.sm,clocks.max.mem,temperature.gpu,persistence_mode,vbios_version \
        --format=csv
    nproc
} >>"$out/h200.log" 2>&1
# mixed: 256 decode sequences (contexts of mean 1,200), every second step also
# 2 prompt chunks of 1,024 tokens; GPU-bound on purpose (the H100's mixed loop
# waited for its host in some runs)
rec mixed 260 --shape mixed --run mixed_b256 --batch 256 --context-tokens 307200 \
    --pool-tokens 320000 --prefill-chunks 2 --prefill-len 1024 --prefill-every 2 \
    --profile-s 8 --phases profile,iso,truth --iso-duty 0.5 $common
# cpu: 8 sequences and 3 ms of host work per step: the GPU idles between kernels
rec cpu 230 --shape cpu --run cpu_b8 --batch 8 --context-tokens 6088 --pool-tokens 8192 \
    --host-ms 3 --profile-s 6 --phases profile,iso,truth $common
cat "$out/h200.log"
