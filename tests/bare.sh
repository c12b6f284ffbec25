#!/usr/bin/env bash
# bare.sh: make test on a machine with only the CUDA Toolkit, gcc, make and
# python3 (tests/run's host group "bare"). tests/run runs again, for the
# build tier and the groups that use other tools (bench: gnuplot; docs:
# Pandoc, then Chromium; the build of steps 09 and 10: MPI), with a PATH in
# which gnuplot, Pandoc, Chromium, MPI, cppcheck and clang-tidy are not found.
# It must exit 0 with no FAIL, every missing tool a SKIP line that says what
# to install; and tests/widths.py without Chromium must say so in one line.
# (Not run again, to keep it quick: hygiene, whose cppcheck and clang-tidy
# print their own SKIP lines, and the end of bench, which needs nvcc alone:
# TEST_BARE=1 stops it there.) Prints PASS/FAIL lines.
set -u
cd "$(dirname "$0")/.." || exit 1
LOGS=${TEST_LOGS:-build/logs}
mkdir -p "$LOGS"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The PATH without them: each folder that holds one of them is replaced by a
# folder of links to everything else in it.
HIDE="gnuplot pandoc chromium chromium-browser google-chrome mpicc mpirun mpiexec cppcheck clang-tidy"
path= k=0
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
    [ -d "$d" ] || continue
    holds=0
    for h in $HIDE; do [ -e "$d/$h" ] && holds=1; done
    if [ $holds = 0 ]; then path=$path${path:+:}$d; continue; fi
    k=$((k + 1))
    mkdir -p "$tmp/path$k"
    ln -s "$d"/* "$tmp/path$k/" 2>/dev/null
    for h in $HIDE; do rm -f "$tmp/path$k/$h"; done
    path=$path${path:+:}$tmp/path$k
done
still=
for h in $HIDE; do PATH=$path command -v "$h" >/dev/null 2>&1 && still="$still $h"; done
if [ -n "$still" ]; then
    echo "FAIL bare/PATH: still finds$still"
    exit 0
fi

out=$LOGS/bare.out
env PATH="$path" TEST_LOGS="$LOGS/bare" TEST_BARE=1 T=bench,docs V=0 bash tests/run >"$out" 2>&1
rc=$?
summary=$(tail -1 "$out")
fails=$(grep '^FAIL ' "$out" | head -3 | tr '\n' ' ')
if [ $rc = 0 ] && [ -z "$fails" ] && [[ $summary =~ ^[0-9]+\ passed,\ 0\ failed,\ [0-9]+\ skipped$ ]]; then
    echo "PASS bare/make test T=bench,docs without those tools: exit 0 ($summary)"
else
    echo "FAIL bare/make test T=bench,docs without those tools: exit $rc, '$summary'; ${fails:-see $out}"
fi
# Each missing tool named in a SKIP line, with what to install.
for want in "gnuplot:apt-get install gnuplot-nox" "Pandoc:apt-get install pandoc" "MPI:apt-get install libopenmpi-dev"; do
    tool=${want%%:*} how=${want#*:}
    line=$(grep '^SKIP ' "$out" | grep -F -m1 "$how")
    if [ -n "$line" ]; then
        echo "PASS bare/without $tool, a SKIP line says '$how'"
    else
        echo "FAIL bare/without $tool: no SKIP line says '$how' (see $out)"
    fi
done
reasonless=$(grep '^SKIP ' "$out" | grep -Ev '^SKIP [^:]+: .*[^[:space:]]' | head -3 | tr '\n' ' ')
if [ -z "$reasonless" ]; then
    echo "PASS bare/every SKIP line gives its reason ($(grep -c '^SKIP ' "$out") lines)"
else
    echo "FAIL bare/SKIP lines without a reason: $reasonless"
fi
# The page-width check without Chromium: one line that says what to install.
mkdir -p "$tmp/pages"
printf '<!doctype html><html><body>a page</body></html>\n' >"$tmp/pages/a.html"
msg=$(PATH=$path python3 tests/widths.py "$tmp/pages" 390 2>&1)
rc=$?
if [ $rc = 2 ] && [ "$(printf '%s\n' "$msg" | grep -c .)" = 1 ] && printf '%s' "$msg" | grep -q "apt-get install chromium"; then
    echo "PASS bare/tests/widths.py without Chromium: exit 2, one line ($msg)"
else
    echo "FAIL bare/tests/widths.py without Chromium: exit $rc: $msg"
fi
