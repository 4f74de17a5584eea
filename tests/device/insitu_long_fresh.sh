#!/bin/sh
# Record issue 39's long-context mixed shape (insitu_long.sh's mixed_b320_long, at the
# power cap) again with each GEMM class doubled on a copy of its weights
# (--double-fresh) and o_proj also on the same weights (o_proj_l2), profile, loops and
# truth in one call of under 10 minutes (tests/device/README.md, section 7): whether
# o_proj's +64 % there is what the first call leaves in L2 for the second. The
# profile's host side is kept (--keep-cpu). Unpacked into OUT/longfresh/.
# usage: insitu_long_fresh.sh OUT [SECONDS] [REPEATS]   (560 s, 10 repeats)
out=$1 budget=${2:-560} repeats=${3:-10}
dev=$(dirname "$0")
export PYTHONUNBUFFERED=1
end=$(($(date +%s) + budget))
log=longfresh.log tail_n=20
. "$dev/insitu_rec.sh"
log_device
rec longfresh "$budget" --shape mixed --run mixed_b320_fresh --batch 320 --context-tokens 600000 \
    --pool-tokens 610000 --prefill-chunks 1 --prefill-len 256 --prefill-every 2 \
    --profile-s 8 --phases profile,iso,truth --repeats "$repeats" $steady \
    --classes attention,mlp,qkv,o_proj,lm_head,norm,o_proj_l2 --double-fresh --keep-cpu
unpack longfresh
