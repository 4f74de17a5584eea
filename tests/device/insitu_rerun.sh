#!/bin/sh
# usage: insitu_rerun.sh OUT   (tests/device/README.md, section 3)
# the follow-up call: the unresolved classes of the mixed and CPU-bound shapes again
out=$1
export PYTHONUNBUFFERED=1
d=$(dirname "$0")
c="--phases truth --warm-s 1 --steady-s 8"
mkdir -p /tmp/rec/mixed-rerun /tmp/rec/cpu-rerun
timeout -k 5 110 python3 $d/insitu_record.py --out /tmp/rec/mixed-rerun --shape mixed --run mixed \
  --batch 256 --context-tokens 194816 --pool-tokens 200000 --prefill-chunks 2 --prefill-len 384 \
  --prefill-every 2 $c --classes attention,norm,lm_head > /tmp/rec/mixed-rerun/log.txt 2>&1
echo "mixed exit $?"; cat /tmp/rec/mixed-rerun/log.txt
(cd /tmp/rec && tar cf $out/mixed-rerun.tar mixed-rerun)
timeout -k 5 110 python3 $d/insitu_record.py --out /tmp/rec/cpu-rerun --shape cpu --run cpu_b8 \
  --batch 8 --context-tokens 6088 --pool-tokens 8192 --host-ms 3 $c \
  --classes attention,qkv,lm_head > /tmp/rec/cpu-rerun/log.txt 2>&1
echo "cpu exit $?"; cat /tmp/rec/cpu-rerun/log.txt
(cd /tmp/rec && tar cf $out/cpu-rerun.tar cpu-rerun)
