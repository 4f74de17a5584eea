#!/bin/sh
# Record the in-situ truth of issue 39 item 2 on the device machine (an H200) for a
# GPU-bound regime below the power cap, in one call of under 10 minutes
# (tests/device/README.md, section 6): mixed prefill + decode with long contexts
# (320 decode sequences, contexts up to 2,312 tokens; one 256-token prompt chunk
# every second step: attention memory-bound, so the card stays below its cap),
# the recorder pinned (--pin, --sampler-cpus, --steady-host), and the classes'
# doubled runs repeated (--repeats) between base runs seconds apart, so that each
# class's truth is the mean of several paired differences (insitu_prepare.py
# pools them). The recording is unpacked into OUT/long/. The card's settings are
# only read, never changed.
# usage: insitu_long.sh OUT [SECONDS] [REPEATS]   (540 s, 8 repeats)
out=$1 budget=${2:-540} repeats=${3:-8}
dev=$(dirname "$0")
export PYTHONUNBUFFERED=1
end=$(($(date +%s) + budget))
log=long.log tail_n=40
. "$dev/insitu_rec.sh"
log_device
rec long "$budget" --shape mixed --run mixed_b320_long --batch 320 --context-tokens 600000 \
    --pool-tokens 610000 --prefill-chunks 1 --prefill-len 256 --prefill-every 2 \
    --profile-s 8 --phases profile,iso,truth --repeats "$repeats" $steady
unpack long
