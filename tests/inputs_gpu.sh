#!/usr/bin/env bash
# inputs_gpu.sh: every step on every input (tests/run's GPU group "inputs").
#
#   every step, float build, on every distribution at edge sizes and two
#   seeds, huge on the seeds whose exact sum overflows too: OK (within its
#   bound, or IEEE's answer, or an overflow the bound says nothing about);
#   the exact build on every distribution; one distribution at 2^31+5
#   (make test-full, or this script alone: TEST_FULL=0 leaves it out);
#   step 10 on every distribution: the correctly rounded sum's bits
#   --input-file: a raw file and a .npy of the same floats give the same sum;
#   the file reversed and shuffled give step 10 the same bits; a file larger
#   than the GPU: one line, exit 3
# Prints PASS/FAIL lines; files go to a temporary folder.
set -u
cd "$(dirname "$0")/.." || exit 1
LOGS=build/logs
mkdir -p "$LOGS"
ERR=$LOGS/inputs_gpu.err
: >"$ERR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { echo "$1" | tr ',' '\n' | grep -c .; }
STEPS=$(make -s --no-print-directory print-steps | tr ' ' '\n' | sed -E 's|steps/([0-9][0-9])_.*|\1|')
DISTS="uniform wide cancel ties huge"
SIZES=1,2,3,31,33,4095,4097,10^6+3,2^24+1

for s in $STEPS; do
    [ -x step$s ] || { echo "FAIL gpu/inputs/step$s: not built"; continue; }
    extra=
    [ "$s" = 00 ] && sizes=1,2,3,31,33,4095,4097,10^6+3 || sizes=$SIZES   # one atomic an element
    [ "$s" = 10 ] && extra=--exact-bits
    for d in $DISTS; do
        seeds=1,2; [ "$d" = huge ] && seeds=1,2,3,4
        ./step$s --check-only --csv --input $d --n $sizes --seed $seeds 2>>"$ERR" |
            python3 tests/csvcheck.py "gpu/inputs/step$s/float/$d" --rows $(($(count $sizes) * $(count $seeds))) \
                --ok all $extra
    done
    for d in wide cancel ties huge; do
        build/exact/step$s --check-only --csv --input $d --n 1,4097,10^6+3 --seed 1 2>>"$ERR"
    done | python3 tests/csvcheck.py "gpu/inputs/step$s/exact: every distribution's bits" --rows 12 --ok all
done
for s in 07 10; do                # (make test-full, or this script alone)
    [ "${TEST_FULL:-1}" = 1 ] || break
    [ -x step$s ] || continue
    extra=; [ "$s" = 10 ] && extra=--exact-bits
    ./step$s --check-only --csv --input cancel --n 2^31+5 2>>"$ERR" |
        python3 tests/csvcheck.py "gpu/inputs/step$s/float/cancel at 2^31+5" --rows 1 --ok all $extra
done

# ---- the user's file ----------------------------------------------------------------
python3 - "$tmp" <<'PY'
import random, struct, sys
d = sys.argv[1]
random.seed(7)
x = [random.choice([-1, 1]) * random.random() * 2.0 ** random.randint(-140, 100) for _ in range(1000003)]
x = [struct.unpack("<f", struct.pack("<f", v))[0] for v in x]           # floats, exactly
def raw(name, v):
    open(f"{d}/{name}", "wb").write(struct.pack(f"<{len(v)}f", *v))
raw("x.f32", x)
raw("reversed.f32", x[::-1])
y = x[:]
random.shuffle(y)
raw("shuffled.f32", y)
h = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(x)
h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
open(f"{d}/x.npy", "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode()
                               + struct.pack(f"<{len(x)}f", *x))
PY
for s in 03 07 08 10; do          # (step 03's bits change from run to run: its rows need only be OK)
    [ -x step$s ] || continue
    extra=--same-sum; [ "$s" = 10 ] && extra="--same-sum --exact-bits"; [ "$s" = 03 ] && extra=
    for f in x.f32 x.npy; do ./step$s --check-only --csv --input-file "$tmp/$f" 2>>"$ERR" | sed "s|$tmp/[a-z.0-9]*|file|"; done |
        python3 tests/csvcheck.py "gpu/inputs/step$s/--input-file: a raw file and a .npy of the same floats${extra:+, one sum}" \
            --rows 2 --ok all $extra
done
if [ -x step10 ]; then
    for f in x.f32 reversed.f32 shuffled.f32; do ./step10 --check-only --csv --input-file "$tmp/$f" 2>>"$ERR" | sed "s|$tmp/[a-z.0-9]*|file|"; done |
        python3 tests/csvcheck.py "gpu/inputs/step10/the array, reversed and shuffled: the same bits" \
            --rows 3 --ok all --same-sum --exact-bits
fi
truncate -s $((1 << 39)) "$tmp/big.f32"           # 2^37 floats, a sparse file: more than any GPU holds
out=$(./step03 --check-only --input-file "$tmp/big.f32" 2>&1 >/dev/null)
rc=$?
if [ $rc = 3 ] && [ "$(printf '%s\n' "$out" | grep -c .)" = 1 ] && printf '%s' "$out" | grep -q "needs .* bytes .* of GPU memory"; then
    echo "PASS gpu/inputs/--input-file larger than the GPU: exit 3, one line"
else
    echo "FAIL gpu/inputs/--input-file larger than the GPU: exit $rc: $out"
fi
