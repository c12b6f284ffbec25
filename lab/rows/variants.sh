#!/usr/bin/env bash
# variants.sh OUT.csv [SHAPES]: step 11's long-row kernel as it was before,
# timed beside step 11 and CUB's offsets call on the rows that reach it
# (parts of one chunk a warp), cold L2, the harness's median, in one CSV.
# The harness checks every row of every run against the CPU replica of step
# 08's order. Needs a GPU; lab/rows/README.md says what was predicted and
# what came (the runs before step 11 took both changes: ticket.csv, queue.csv).
#
#   static   block b takes parts b, b + gridDim.x, ... (no queue), dealt to
#            the rows in turn, with the step's ticket (the variant called
#            acqrel in ticket.csv)
#   fences   static, with step 06's ticket: every thread fences, a relaxed
#            atomicAdd, the last part's block fences again (the step before
#            both changes)
#   inturn   the step with its parts dealt to the rows in turn (part u in
#            row u % rows), not row after row (row u / parts): the step
#            before bytrow.csv (where the step was this and bytrow the step)
# PROGRAMS="./step11 build/lab/rows/inturn ..." times only those.
set -eu
out=${1:?usage: variants.sh OUT.csv [SHAPES]}
shapes=${2:-65536x4096,4096x65536,256x1048576,16x16777216,1x268435456,2048x262144}
cd "$(dirname "$0")/../.."
make -s step11 build/bench/cub_rows
B=build/lab/rows
mkdir -p "$B"
python3 - steps/11_rows.cu "$B" <<'PY'
import sys
src, b = sys.argv[1:]
def edit(s, pairs, dst):
    for a, new in pairs:
        if s.count(a) != 1:
            sys.exit(f"variants.sh: {dst}: '{a.strip()[:40]}' found {s.count(a)} times")
        s = s.replace(a, new)
    open(dst, "w").write(s)
    return s
s = open(src).read()
static = edit(s, [
    ('#include "../common/rows/rows.h"', '#include "../../../common/rows/rows.h"'),
    ('size_t row = u / parts, c = u % parts * warp.meta_group_size()', 'size_t row = u % rows, c = u / rows * warp.meta_group_size()'),
    ('''    __shared__ unsigned queued;
''', ''),
    ('''    unsigned *queue = tickets + rows;         // parts drawn past the first gridDim.x
''', ''),
    ('''    for (size_t u = blockIdx.x; u < rows * parts;) {
        unsigned drawn = 0;
        if (block.thread_rank() == 0) drawn = atomicAdd(queue, 1);   // the next part, while this one is summed
''', '''    for (size_t u = blockIdx.x; u < rows * parts; u += gridDim.x) {
'''),
    ('''        if (block.thread_rank() == 0) queued = drawn;
''', ''),
    ('''            if (drawn == rows * parts - 1) *queue = 0;   // the last draw: ready for the next launch
''', ''),
    ('''        u = gridDim.x + queued;
''', '')], f"{b}/static.cu")
edit(static, [
    ('''        block.sync();                         // every chunk sum of this part is written
        if (block.thread_rank() == 0) {       // the row's ticket: releases this part's sums, acquires the rest
            cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(tickets[row]);
            is_last = parts == 1 || done.fetch_add(1, cuda::memory_order_acq_rel) == parts - 1;
            if (is_last && parts > 1)
                tickets[row] = 0;             // every part has drawn: ready for the next launch
''', '''        if (parts > 1)
            __threadfence();                  // release: this part's chunk sums before its ticket
        block.sync();
        if (block.thread_rank() == 0) {
            is_last = parts == 1 || atomicAdd(&tickets[row], 1) == parts - 1;
            if (is_last && parts > 1) {
                __threadfence();              // acquire: the tickets before the chunk sums
                tickets[row] = 0;             // every part has drawn: ready for the next launch
            }
''')], f"{b}/fences.cu")
edit(s, [
    ('#include "../common/rows/rows.h"', '#include "../../../common/rows/rows.h"'),
    ('size_t row = u / parts, c = u % parts * warp.meta_group_size()', 'size_t row = u % rows, c = u / rows * warp.meta_group_size()')],
    f"{b}/inturn.cu")
PY
for v in static fences inturn; do
    nvcc -O3 -lineinfo -std=c++20 $(cat build/gencode) -o "$B/$v" "$B/$v.cu" build/float/rows/rows.o \
        build/float/libharness.a -lgomp
done
[ -n "${BUILD_ONLY:-}" ] && exit 0
first=1
: > "$out"
for p in ${PROGRAMS:-./step11 "$B/static" "$B/fences" build/bench/cub_rows ./step11 "$B/static" "$B/fences"}; do
    "$p" --shape "$shapes" --csv > "$B/one.csv" || echo "$p: exit $?" >&2
    if [ $first = 1 ]; then sed -n '1s/^/program,/p' "$B/one.csv" >> "$out"; first=0; fi
    sed -n "2,\$s|^|$(basename "$p"),|p" "$B/one.csv" >> "$out"
    echo "$(basename "$p") done" >&2
done
