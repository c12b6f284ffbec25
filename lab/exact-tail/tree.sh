# tree.sh: step 10 as these experiments measured it, whatever steps/ holds now.
# Sourced (from the repository's root) by exact_variants.sh and
# exact_timeline.sh: it sets TREE to a copy of the build files, the harness
# and the steps as they were at commit COMMIT (the code the experiments
# timed), taken from git into the build directory once, and builds there with
# that commit's own Makefile. Stops with exit 2 where git or the commit is
# missing (a copy of the files without their history).
COMMIT=7b31581
TREE=build/lab/exact-tail/$COMMIT
if ! git cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
    echo "$0: needs the repository's git history (commit $COMMIT, step 10 as measured)" >&2
    exit 2
fi
if [ ! -f "$TREE/.complete" ]; then
    rm -rf "$TREE"
    mkdir -p "$TREE"
    git archive "$COMMIT" Makefile common steps tests/exact.mk | tar -x -C "$TREE" || exit 2
    touch "$TREE/.complete"
fi
