#!/usr/bin/env bash
# large.sh [SIZES]: every step, float and exact, once (--check-only) at each
# size, default 2^31+7, 3*2^30 and 2^32+3: past the largest signed and
# unsigned 32-bit index, where an int index would wrap. The exact build must
# give the exact sum, bit for bit; the float build must be within its error
# bound. `make test-large` runs this (GPU; not part of `make test`).
#
# A size the GPU's free memory cannot hold gets one SKIP line. Prints one
# PASS, FAIL or SKIP line per step, build and size, then a summary; exits 1
# if anything failed.
set -u
cd "$(dirname "$0")/.." || exit 1

sizes=${1:-2^31+7,3*2^30,2^32+3}
LOGS=build/logs
mkdir -p "$LOGS"
pass=0 fail=0 skip=0
STEPS=$(ls steps/[0-9][0-9]_*.cu | sed -E 's|steps/([0-9][0-9])_.*|\1|' | grep -vx 11)   # not step 11 (rows): tests/rows.sh

probe=$(./step00 --check-only --n 1 2>&1 >/dev/null)
if [ $? -ne 0 ]; then
    echo "SKIP large: no usable GPU here (${probe:-step00 did not run})"
    exit 0
fi

# The value of a size as the harness reads it (only the forms used here).
value() { python3 -c "import sys; print(eval(sys.argv[1].replace('^', '**')))" "$1"; }

# Free memory on the GPU the steps use (device 0 of those visible), in
# bytes, or empty if nvidia-smi cannot say; the harness's own exit 3 with
# "needs N bytes" is the fallback.
free_bytes() {
    command -v nvidia-smi >/dev/null 2>&1 || return 0
    local id=${CUDA_VISIBLE_DEVICES:-0}
    id=${id%%,*}
    nvidia-smi --id="$id" --query-gpu=memory.free --format=csv,noheader,nounits 2>/dev/null |
        awk 'NR == 1 && $1 ~ /^[0-9]+$/ { printf "%.0f\n", $1 * 1048576 }'
}

# check NAME N: reads one --csv run from stdin; PASS if it is one row, for n
# = N, OK (within the bound, or exact).
CHECK_PY=$(cat <<'EOF'
import csv, sys
name, n = sys.argv[1], int(sys.argv[2])
rows = list(csv.DictReader(sys.stdin))
if len(rows) != 1:
    print(f"FAIL {name}: {len(rows)} result rows, expected 1")
    sys.exit(1)
r = rows[0]
if int(r["n"]) != n:
    print(f"FAIL {name}: ran n = {r['n']}, asked for {n}")
    sys.exit(1)
if r["status"] != "OK":
    print(f"FAIL {name}: WRONG: sum {r['sum']}, exact {r['reference']}, "
          f"error {r['error']}, bound {r['bound']}")
    sys.exit(1)
shape = f"grid {r['grid']} x {r['block']}"
if r["elem"] == "uint32":
    print(f"PASS {name} (sum {r['sum']} = exact, {shape}")
else:
    print(f"PASS {name} (error {r['error']} <= bound {r['bound']}, {shape}")
EOF
)

IFS=, read -r -a size_list <<<"$sizes"
for size in "${size_list[@]}"; do
    n=$(value "$size")
    need=$((4 * n + (64 << 20)))           # the input, and room for the rest
    free=$(free_bytes)
    if [ -n "$free" ] && [ "$need" -gt "$free" ]; then
        echo "SKIP large/n=$size: needs about $need bytes of GPU memory, $free are free"
        skip=$((skip + 1))
        continue
    fi
    for s in $STEPS; do
        for p in ./step$s build/exact/step$s; do
            kind=float
            [ "$p" = ./step$s ] || kind=exact
            name="large/step$s/$kind/n=$size"
            start=$(date +%s)
            "$p" --check-only --csv --n "$size" >"$LOGS/large.csv" 2>"$LOGS/large.err"
            rc=$?
            secs=$(( $(date +%s) - start ))
            line=$(python3 -c "$CHECK_PY" "$name" "$n" <"$LOGS/large.csv")
            ok=$?
            if [ $rc = 3 ] && grep -Eq "needs [0-9]+ bytes .* but only [0-9]+ bytes" "$LOGS/large.err"; then
                echo "SKIP $name: $(head -1 "$LOGS/large.err")"
                skip=$((skip + 1))
            elif [ $ok = 0 ] && [ $rc = 0 ]; then
                echo "$line, $secs s)"
                pass=$((pass + 1))
            else
                [ $ok = 0 ] && line="FAIL $name: the row is OK, but"
                echo "$line (exit $rc: $(head -1 "$LOGS/large.err"))"
                fail=$((fail + 1))
            fi
        done
    done
done
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
