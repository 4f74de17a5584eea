#!/bin/sh
# Record the in-situ truth of issue 39 item 2 on the device machine (an H200) for a
# decode regime that keeps the GPU busy below the power cap, in one call of under
# 10 minutes (tests/device/README.md, section 7): 128 decode sequences with long
# contexts (up to 8,192 tokens, 600,000 in all: attention streams ~88 GB of KV a
# step, longer than the host takes to launch it), the recorder pinned as in
# insitu_long.sh, and each GEMM class doubled on a copy of its weights
# (--double-fresh), with o_proj and qkv also doubled on the same weights (o_proj_l2,
# qkv_l2) to measure what the first call leaves in L2 for the second. The
# profile's host side is kept (--keep-cpu). The recording is unpacked into
# OUT/fresh/. The card's settings are only read, never changed.
# usage: insitu_fresh.sh OUT [SECONDS] [REPEATS]   (560 s, 10 repeats)
out=$1 budget=${2:-560} repeats=${3:-10}
dev=$(dirname "$0")
export PYTHONUNBUFFERED=1
end=$(($(date +%s) + budget))
log=fresh.log tail_n=40
. "$dev/insitu_rec.sh"
log_device
rec fresh "$budget" --shape decode --run decode_b128_fresh --batch 128 --max-len 8192 \
    --context-tokens 600000 --pool-tokens 614400 --profile-s 8 --phases profile,iso,truth \
    --repeats "$repeats" $steady --classes attention,mlp,qkv,o_proj,lm_head,norm,o_proj_l2,qkv_l2 \
    --double-fresh --keep-cpu
unpack fresh
