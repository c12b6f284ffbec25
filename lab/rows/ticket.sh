#!/usr/bin/env bash
# ticket.sh OUT.csv [SHAPES]: step 11 with step 08's acquire-release ticket
# (acqrel: thread 0 draws each row's ticket with one fetch_add(acq_rel) after
# the block's barrier, no __threadfence()), timed beside step 11 and CUB's
# two segmented sums on the rows that reach the ticket (long rows, parts of
# one chunk a warp), cold L2, the harness's median, in one CSV. The harness
# checks every row of every run against the CPU replica of step 08's order.
# Needs a GPU; lab/rows/README.md says what was predicted and what came.
set -eu
out=${1:?usage: ticket.sh OUT.csv [SHAPES]}
shapes=${2:-65536x4096,4096x65536,256x1048576,16x16777216,1x268435456,2048x262144}
cd "$(dirname "$0")/../.."
make -s step11 build/bench/cub_rows
B=build/lab/rows
mkdir -p "$B"
python3 - steps/11_rows.cu "$B/acqrel.cu" <<'PY'
import sys
src, dst = sys.argv[1:]
s = open(src).read()
old = '''        if (parts > 1)
            __threadfence();                  // release: this part's chunk sums before its ticket
        block.sync();
        if (block.thread_rank() == 0) {
            is_last = parts == 1 || atomicAdd(&tickets[row], 1) == parts - 1;
            if (is_last && parts > 1) {
                __threadfence();              // acquire: the tickets before the chunk sums
                tickets[row] = 0;             // every part has drawn: ready for the next launch
            }
        }
'''
new = '''        block.sync();
        if (block.thread_rank() == 0) {
            cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(tickets[row]);
            is_last = parts == 1 || done.fetch_add(1, cuda::memory_order_acq_rel) == parts - 1;
            if (is_last && parts > 1)
                tickets[row] = 0;             // every part has drawn: ready for the next launch
        }
'''
inc_old = '#include "../common/rows/rows.h"'
inc_new = '#include <cuda/atomic>\n\n#include "../../../common/rows/rows.h"'
for a, b in ((old, new), (inc_old, inc_new)):
    if s.count(a) != 1:
        sys.exit(f"ticket.sh: '{a.strip()[:40]}' found {s.count(a)} times in {src}")
    s = s.replace(a, b)
open(dst, "w").write(s)
PY
nvcc -O3 -lineinfo -std=c++20 $(cat build/gencode) -o "$B/acqrel" "$B/acqrel.cu" build/float/rows/rows.o \
    build/float/libharness.a -lgomp
[ -n "${BUILD_ONLY:-}" ] && exit 0
first=1
: > "$out"
for p in ./step11 "$B/acqrel" build/bench/cub_rows ./step11 "$B/acqrel"; do
    "$p" --shape "$shapes" --csv > "$B/one.csv" || echo "$p: exit $?" >&2
    if [ $first = 1 ]; then sed -n '1s/^/program,/p' "$B/one.csv" >> "$out"; first=0; fi
    sed -n "2,\$s|^|$(basename "$p"),|p" "$B/one.csv" >> "$out"
    echo "$(basename "$p") done" >&2
done
