#!/bin/sh
# Record the in-situ truth of issue 39 item 2 on the device machine (an H200) in one
# call of under 10 minutes (tests/device/README.md, section 5), with the host held
# steady: the recorder pinned to two cores and the NVML sampler to another
# (--pin, --sampler-cpus), no garbage collection inside a measured run
# (--steady-host), and a paired design: short runs (0.3 s warm-up + 1.5 s), every
# doubled run between two base runs seconds apart, the cycle of classes repeated
# (--repeats), so that a drift of the host's speed over seconds to minutes cancels
# in each class's difference. Two shapes: the CPU-bound one of insitu_h200.sh, and
# a mixed prefill + decode shape with long contexts and one small prompt chunk
# every second step (memory-bound attention: below the power cap). Each recording
# runs in a process of its own under a time limit and is packed into OUT/NAME.tar
# when it ends. The card's settings are only read, never changed.
# usage: insitu_steady.sh OUT [SECONDS]     (SECONDS: the whole budget, 540)
out=$1 budget=${2:-540}
dev=$(dirname "$0")
export PYTHONUNBUFFERED=1
end=$(($(date +%s) + budget))
log=steady.log tail_n=30
. "$dev/insitu_rec.sh"
log_device
# CPU-bound: 8 sequences and 3 ms of host work per step (insitu_h200.sh's shape)
rec cpu 250 --shape cpu --run cpu_b8 --batch 8 --context-tokens 6088 --pool-tokens 8192 \
    --host-ms 3 --profile-s 6 --phases profile,iso,truth --repeats 6 $steady
# mixed, below the cap: 320 decode sequences with long contexts (up to 2,312 tokens),
# every second step one prompt chunk of 256 tokens
rec long 280 --shape mixed --run mixed_b320_long --batch 320 --context-tokens 600000 \
    --pool-tokens 610000 --prefill-chunks 1 --prefill-len 256 --prefill-every 2 \
    --profile-s 8 --phases profile,iso,truth --repeats 4 $steady
cat "$out/steady.log"
