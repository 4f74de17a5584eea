#!/bin/sh
# Record the in-situ truth on two shapes other than the shared run's, and a
# clock check of the shared shape, in one device call of under 10 minutes
# (tests/device/README.md, "Other shapes"). Each recording runs in a process
# of its own under a time limit, and is packed into OUT/NAME.tar as soon as
# it ends, so a shape that fails or overruns loses only itself.
# usage: insitu_shapes.sh OUT [SECONDS]     (SECONDS: the whole budget, 560)
out=$1 budget=${2:-560}
dev=$(dirname "$0")
export PYTHONUNBUFFERED=1
end=$(($(date +%s) + budget))
classes=attention,mlp,qkv,o_proj,lm_head,norm
common="--phases profile,iso,truth --classes $classes --warm-s 1 --steady-s 8 \
 --iso-s 2 --iso-idle-s 1 --after-s 3"
log=shapes.log tail_n=40
. "$dev/insitu_rec.sh"
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu \
    --format=csv >>"$out/shapes.log" 2>&1
# mixed: 256 decode sequences; every second step also 2 prompt chunks of 384 tokens
rec mixed 240 --shape mixed --run mixed --batch 256 --context-tokens 194816 \
    --pool-tokens 200000 --prefill-chunks 2 --prefill-len 384 --prefill-every 2 \
    --profile-s 8 $common
# cpu: 8 sequences and 3 ms of host work per step: the GPU idles between kernels
rec cpu 220 --shape cpu --run cpu_b8 --batch 8 --context-tokens 6088 --pool-tokens 8192 \
    --host-ms 3 --profile-s 6 $common
# the shared run's shape, base / mlp doubled / base / attention doubled / base,
# for the SM clock and the throttle reasons while a class is doubled
rec clocks 100 --shape decode --phases truth --classes mlp,attention --warm-s 1.5 --steady-s 5
cat "$out/shapes.log"
