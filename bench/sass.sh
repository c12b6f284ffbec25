#!/usr/bin/env bash
# sass.sh NN: the machine code of step NN's kernels, float and exact builds,
# with the instructions the course talks about marked (>>) and counted:
#   LDG.E.128  16-byte loads          SHFL       warp shuffles
#   REDUX      hardware warp sums     BAR        block barriers
#   ATOM, REDG atomics                MEMBAR     fences
set -u
nn=${1:?usage: sass.sh NN}
pattern='LDG\.E\.128|SHFL|REDUX|BAR\.|ATOM|REDG|RED\.|MEMBAR|FENCE'
if ! command -v cuobjdump >/dev/null 2>&1; then
    echo "sass: cuobjdump (part of the CUDA Toolkit) is not on the PATH" >&2
    exit 3
fi
for bin in ./step$nn build/exact/step$nn; do
    if [ ! -x "$bin" ]; then echo "sass: $bin is not built (make step$nn exact)" >&2; exit 2; fi
    echo "==== $bin"
    # One architecture is enough to read: this GPU's, else the newest in the file.
    arch=$(cuobjdump --list-elf "$bin" | sed -nE 's/.*\.(sm_[0-9]+[a-z]?)\..*/\1/p' | sort -t_ -k2 -n | tail -1)
    cuobjdump -sass -arch "$arch" "$bin" | sed -E 's@ */\*[0-9a-f]{4}\*/ *@  @; s@ */\* 0x[0-9a-f]+ \*/@@' |
        grep -vE '^\s*$|^\s*/\* 0x' | awk -v pat="$pattern" '
            /Function :/ { infn = 1; print ""; print; next }
            !infn || /headerflags|Fatbin|^ *=+ *$|^ *(arch|code version|host|compile_size|identifier) =/ { next }
            $0 ~ pat { print ">> " $0; n = split($0, w, " "); for (i = 1; i <= n; i++) if (w[i] ~ pat) { c[w[i]]++; break } ; next }
            { print "   " $0 }
            END { printf "---- counts:"; for (k in c) printf " %s %d,", k, c[k]; print "" }'
done
