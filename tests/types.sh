#!/usr/bin/env bash
# types.sh: step 12 (any type, any operator) on this GPU (tests/run's gpu/types).
# Prints PASS, FAIL or SKIP lines:
#   pairs        every pair of --type and --op, every input it draws, odd and
#                even sizes from 1 to 2^20+3, seeds 1-3: every run right (the
#                exact operators equal to the reference, float sums within
#                their bound) and the same bits run to run
#   launches     exact operators: one result over blocks 32, 256, 1024 and
#                grids 1, 7, the step's; float sums: the same bits at one
#                launch (five runs), and the spread across grids, reported
#   files        --save-input, read back with --input-file: the same result;
#                arrays written by numpy (SKIP without it): the same answers
#                as numpy's argmax, max, min and int64 sum, NaNs included, an
#                int32 array of INT32_MIN only, and torch's argmax of the NaNs
#                where python3 imports torch
#   mutants      a wrong identity, ties to the last index (in combine, in
#                the tile tree, and between a thread's vectors), argmax's
#                search skipped over the identity, the tail dropped: each caught
set -u
cd "$(dirname "$0")/.." || exit 1
G=gpu/types
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass() { echo "PASS $G/$1${2:+ ($2)}"; }
fail() { echo "FAIL $G/$1: $(printf '%s' "$2" | tr '\n' ' ' | cut -c1-300)"; }
if [ ! -x ./step12 ]; then
    echo "SKIP $G: step12 is not built (make step12)"
    exit 0
fi
if ! probe=$(./step12 --check-only --n 1 2>&1 >/dev/null); then
    echo "SKIP $G: no usable GPU here ($probe)"
    exit 0
fi

# check NAME ROWS CMD...: the CSV has ROWS rows, every one OK with one result a run.
check() {
    local name=$1 rows=$2
    shift 2
    local out rc got bad
    out=$("$@" --csv 2>"$TMP/err")
    rc=$?
    got=$(printf '%s\n' "$out" | tail -n +2 | grep -c .)
    bad=$(printf '%s\n' "$out" | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    if r["status"] != "OK" or r["distinct"] != "1":
        print("n", r["n"], "seed", r["seed"], r["status"], r["result"], r["reference"]); break')
    if [ "$rc" != 0 ] || [ "$got" != "$rows" ] || [ -n "$bad" ]; then
        fail "$name" "exit $rc, $got of $rows rows; ${bad:-} $(head -c 300 "$TMP/err")"
    else
        pass "$name" "$rows runs right"
    fi
}

PAIRS="sum:float sum:double sum:half sum:bf16 sum:int32 sumsq:float sumsq:bf16 max:float max:bf16
       max:int32 min:float min:bf16 min:int32 argmax:float argmax:bf16 argmax:int32"
# The inputs each pair draws (./step12 --help lists them).
inputs_of() {
    case "$1" in
    sum:float) echo uniform wide cancel ties huge ;;
    sum:double) echo uniform wide cancel ties ;;
    sum:bf16) echo uniform wide huge ;;
    sum:*) echo uniform ;;
    sumsq:*) echo uniform wide ;;
    *:int32) echo uniform ties inf ;;
    *) echo uniform wide ties nan inf ;;
    esac
}
SIZES_T=1,2,3,7,8,9,15,16,17,31,32,33,255,1023,1024,1025,4097,65537,2^20+3
ROWS_T=$(($(echo $SIZES_T | tr ',' '\n' | grep -c .) * 3))
for p in $PAIRS; do
    op=${p%%:*} type=${p#*:}
    for d in $(inputs_of "$p"); do
        check "pairs/$type/$op/$d" "$ROWS_T" ./step12 --type "$type" --op "$op" --input "$d" --check-only \
            --n $SIZES_T --seed 1,2,3
    done
done
check timed/bf16/argmax 2 ./step12 --type bf16 --op argmax --n 2^24,2^20+3 --reps 5

# One answer for the exact operators over every launch shape; for the float
# sums, the same bits at one shape (five timed runs), and the spread across shapes.
N=2^20+3
for p in $PAIRS; do
    op=${p%%:*} type=${p#*:}
    for launch in "--block 32" "--block 256" "--block 1024" "--grid 1" "--grid 7" ""; do
        # shellcheck disable=SC2086
        ./step12 --type "$type" --op "$op" --input uniform --n $N --seed 2 --reps 5 $launch --csv \
            2>>"$TMP/err" | tail -n +2
    done >"$TMP/launches.csv"
    summary=$(python3 - "$op" "$type" "$TMP/launches.csv" <<'EOF'
import csv, sys
op, typ, path = sys.argv[1:]
cols = "step,type,op,device,n,bytes,seed,block,grid,reps,median_us,min_us,gbps,result,reference,error,bound,status,index,reference_index,pct_peak,input,runs,distinct,l2".split(",")
rows = list(csv.DictReader(open(path), fieldnames=cols))
exact = op in ("max", "min", "argmax") or typ == "int32"
bad = [r for r in rows if r["status"] != "OK" or r["distinct"] != "1"]
answers = sorted({(r["result"], r["index"]) for r in rows})
if len(rows) != 6 or bad:
    print("FAIL %d of 6 launches, %d wrong or not the same bits run to run" % (len(rows), len(bad)))
elif exact and len(answers) != 1:
    print("FAIL %d different answers over the launches: %s" % (len(answers), answers[:3]))
elif exact:
    print("PASS one answer over blocks 32, 256, 1024, grids 1, 7 and the step's")
else:
    vals = [float(r["result"]) for r in rows]
    print("PASS same bits at each launch; %d different results across the 6 launches, spread %.3g "
          "(bound %s)" % (len(answers), max(vals) - min(vals), rows[0]["bound"]))
EOF
)
    case "$summary" in
    PASS*) pass "launches/$type/$op" "${summary#PASS }" ;;
    *) fail "launches/$type/$op" "${summary#FAIL } $(head -c 200 "$TMP/err")" ;;
    esac
done

# --save-input, then --input-file: the same array, the same result.
for p in sum:float sum:double sum:half sum:bf16 sum:int32 argmax:float argmax:bf16 max:int32; do
    op=${p%%:*} type=${p#*:}
    f=$TMP/saved.npy
    [ "$type" = bf16 ] && f=$TMP/saved.bf16
    a=$(./step12 --type "$type" --op "$op" --check-only --csv --n 4097,65537 --seed 3 --save-input "$f" 2>"$TMP/err" |
        tail -1 | cut -d, -f14,15,18,19)
    b=$(./step12 --type "$type" --op "$op" --check-only --csv --input-file "$f" 2>>"$TMP/err" | tail -1 | cut -d, -f14,15,18,19)
    if [ -n "$a" ] && [ "$a" = "$b" ] && [ "${a#*,*,OK}" != "$a" ]; then
        pass "files/saved/$type/$op" "the saved array gives $a again"
    else
        fail "files/saved/$type/$op" "drawn: '$a', read back: '$b'; $(head -c 200 "$TMP/err")"
    fi
done

if python3 -c "import numpy" 2>/dev/null; then
    python3 - "$TMP" <<'EOF'
import numpy as np, sys
d = sys.argv[1]
rng = np.random.default_rng(12)
x = rng.standard_normal(100003).astype(np.float32)
x[[5, 777, 99999]] = x.max() + 1                        # ties for the largest
np.save(d + "/f4.npy", x)
np.save(d + "/f8.npy", rng.standard_normal(70001))
np.save(d + "/f2.npy", rng.standard_normal(33333).astype(np.float16))
np.save(d + "/i4.npy", rng.integers(-2**31, 2**31, 100001, dtype=np.int64).astype(np.int32))
np.save(d + "/low.npy", np.full(100001, -2**31, dtype=np.int32))   # every key the identity's
u = x.view(np.uint32).astype(np.uint64)
b = ((u + 0x7fff + (u >> 16 & 1)) >> 16).astype("<u2")
b.tofile(d + "/x.bf16")
xb = (b.astype(np.uint32) << 16).view(np.float32)
n = x.copy()                                            # NaNs: a negative one first, then a positive
n[[1000, 50000]] = [-np.nan, np.nan]
np.save(d + "/nan.npy", n)
with open(d + "/want", "w") as f:
    f.write("float argmax %d %r f4.npy\n" % (np.argmax(x), float(x.max())))
    f.write("float min -1 %r f4.npy\n" % float(x.min()))
    f.write("bf16 argmax %d %r x.bf16\n" % (np.argmax(xb), float(xb.max())))
    i = np.load(d + "/i4.npy")
    f.write("int32 sum -1 %d i4.npy\n" % int(i.astype(np.int64).sum()))
    f.write("int32 argmax %d %d i4.npy\n" % (np.argmax(i), int(i.max())))
    f.write("int32 argmax 0 %d low.npy\n" % -2**31)
    f.write("float argmax %d %r nan.npy\n" % (np.argmax(n), float(np.max(n))))
    f.write("float min -1 %r nan.npy\n" % float(np.min(n)))
    try:                                                # torch, where it is: the same index for NaN
        import torch
        t = torch.from_numpy(n)
        f.write("float argmax %d %r nan.npy torch\n" % (int(torch.argmax(t)), float(torch.max(t))))
    except ImportError:
        pass
EOF
    while read -r type op index value file who; do
        got=$(./step12 --type "$type" --op "$op" --check-only --csv --input-file "$TMP/$file" 2>"$TMP/err" | tail -1)
        ok=$(python3 -c '
import csv, math, sys
r = next(csv.reader([sys.argv[1]])); index, value = sys.argv[2], float(sys.argv[3])
got = float(r[13])
same = (got == value or math.isnan(got) and math.isnan(value)) and (index == "-1" or r[18] == index)
print("yes" if same and r[17] == "OK" else "no")' "$got" "$index" "$value" 2>/dev/null)
        name="files/${who:-numpy}/$type/$op/${file%.*}"
        if [ "$ok" = yes ]; then pass "$name" "${who:-numpy}'s answer: index $index, value $value"
        else fail "$name" "${who:-numpy} says index $index, value $value; step12: $got $(head -c 200 "$TMP/err")"; fi
    done <"$TMP/want"
    for p in float:f4.npy double:f8.npy half:f2.npy int32:i4.npy bf16:x.bf16; do
        check "files/numpy/${p%%:*}/sum" 1 ./step12 --type "${p%%:*}" --check-only --input-file "$TMP/${p#*:}"
    done
else
    echo "SKIP $G/files/numpy: needs numpy (pip install numpy)"
fi

# The mutants: each must be caught (exit 1) where its fault shows.
mutant() {
    local m=$1
    shift
    local exe=build/mutants/types/$m
    if [ ! -x "$exe" ]; then fail "mutants/$m" "not built (make types-mutants)"; return; fi
    "$exe" --check-only "$@" >/dev/null 2>"$TMP/err"
    local rc=$?
    if [ $rc = 1 ]; then pass "mutants/$m" "caught: $(head -1 "$TMP/err" | cut -c1-120)"
    else fail "mutants/$m" "exit $rc, not caught: $(head -c 200 "$TMP/err")"; fi
}
mutant wrong_identity --type float --op max --input ties --n 1,33,4097 --seed 2
mutant wrong_identity --type bf16 --op argmax --input ties --n 1,33,4097 --seed 2
# combine decides ties between a thread's elements and between the blocks'
# partials; blocks of 32 give thread 0 many partials. The tile tree: its own.
mutant ties_last --type float --op argmax --input ties --n 33,4097,2^20+3 --seed 1 --block 32
mutant ties_last --type int32 --op argmax --input ties --n 33,4097,2^20+3 --seed 3 --block 32
mutant ties_last_tree --type float --op argmax --input ties --n 33,4097,2^20+3 --seed 1
mutant ties_last_tree --type bf16 --op argmax --input ties --n 4097,2^20+3 --seed 2
mutant drop_tail --type int32 --n 1,3,31,33,1025 --seed 1
mutant drop_tail --type bf16 --n 7,15,1023 --seed 1
mutant ties_later_vector --type float --op argmax --input ties --n 4097,2^20+3 --seed 1
mutant ties_later_vector --type bf16 --op argmax --input ties --n 4097,2^20+3 --seed 2
if [ -f "$TMP/low.npy" ]; then
    mutant identity_search --type int32 --op argmax --input-file "$TMP/low.npy"
else
    echo "SKIP $G/mutants/identity_search: needs numpy for its array of INT32_MIN (pip install numpy)"
fi
