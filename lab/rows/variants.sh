#!/usr/bin/env bash
# variants.sh OUT.csv [SHAPES]: step 11's long-row kernel changed, timed
# beside step 11 and CUB's offsets call on the rows that reach it (parts of
# one chunk a warp), cold L2, the harness's median, in one CSV. The harness
# checks every row of every run against the CPU replica of step 08's order.
# Needs a GPU; lab/rows/README.md says what was predicted and what came.
#
#   acqrel   step 08's ticket: thread 0 draws each row's ticket with one
#            fetch_add(acq_rel) after the block's barrier, no __threadfence()
#   queue    acqrel, and a block takes its next part from a queue (one
#            atomic counter, drawn while it sums the part it has) instead
#            of parts b, b + gridDim.x, ...: the SMs' shares of parts even
#            where parts / blocks is not whole. The draw of the last part
#            puts the counter back to 0.
set -eu
out=${1:?usage: variants.sh OUT.csv [SHAPES]}
shapes=${2:-65536x4096,4096x65536,256x1048576,16x16777216,1x268435456,2048x262144}
cd "$(dirname "$0")/../.."
make -s step11 build/bench/cub_rows
B=build/lab/rows
mkdir -p "$B"
python3 - steps/11_rows.cu "$B/acqrel.cu" "$B/queue.cu" <<'PY'
import sys
src, dst, dst_queue = sys.argv[1:]
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
QUEUE = [('''
template <bool ALIGNED>
__global__ void long_rows_kernel(''', '''
__device__ unsigned part_queue;               // parts drawn past the first gridDim.x; 0 between launches
template <bool ALIGNED>
__global__ void long_rows_kernel('''),
    ('''    __shared__ bool is_last;
''', '''    __shared__ bool is_last;
    __shared__ unsigned queued;
'''),
    ('''    for (size_t u = blockIdx.x; u < rows * parts; u += gridDim.x) {
''', '''    for (size_t u = blockIdx.x; u < rows * parts;) {
        unsigned drawn = 0;
        if (block.thread_rank() == 0) drawn = atomicAdd(&part_queue, 1);
'''),
    ('''            store_sum(warp, level, c, chunks, s);
        }
''', '''            store_sum(warp, level, c, chunks, s);
        }
        if (block.thread_rank() == 0) queued = drawn;
'''),
    ('''        block.sync();                         // share is_last
        if (is_last) combine_row(block, level, chunks, out + row);
        block.sync();                         // is_last read by all before the next part sets it
''', '''        block.sync();                         // share is_last
        size_t u_next = gridDim.x + queued;
        if (is_last) combine_row(block, level, chunks, out + row);
        if (block.thread_rank() == 0 && drawn == rows * parts - 1) part_queue = 0;
        block.sync();                         // is_last read by all before the next part sets it
        u = u_next;
''')]
def edit(s, pairs, dst):
    for a, b in pairs:
        if s.count(a) != 1:
            sys.exit(f"variants.sh: {dst}: '{a.strip()[:40]}' found {s.count(a)} times")
        s = s.replace(a, b)
    open(dst, "w").write(s)
    return s
s = edit(s, ((old, new), (inc_old, inc_new)), dst)
edit(s, QUEUE, dst_queue)
PY
for v in acqrel queue; do
    nvcc -O3 -lineinfo -std=c++20 $(cat build/gencode) -o "$B/$v" "$B/$v.cu" build/float/rows/rows.o \
        build/float/libharness.a -lgomp
done
[ -n "${BUILD_ONLY:-}" ] && exit 0
first=1
: > "$out"
for p in ./step11 "$B/acqrel" "$B/queue" build/bench/cub_rows ./step11 "$B/acqrel" "$B/queue"; do
    "$p" --shape "$shapes" --csv > "$B/one.csv" || echo "$p: exit $?" >&2
    if [ $first = 1 ]; then sed -n '1s/^/program,/p' "$B/one.csv" >> "$out"; first=0; fi
    sed -n "2,\$s|^|$(basename "$p"),|p" "$B/one.csv" >> "$out"
    echo "$(basename "$p") done" >&2
done
