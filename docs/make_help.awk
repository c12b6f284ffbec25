# docs/make_help.awk: what `make help` prints. Every line of the Makefile and its
# fragments with "## SECTION: text", on a rule (the target is its first word) or
# alone ("## NAME ## SECTION: text"), in the order of the files; (GPU) for the
# targets in gpu (the Makefile's GPU_TARGETS).
function wrap(line, text,   n, w, i, done) {
    n = split(text, w, " ")
    for (i = 1; i <= n; i++) {
        if (length(line) + length(w[i]) >= 100) { done = done line "\n"; line = sprintf("%20s", "") }
        line = line " " w[i]
    }
    return done line "\n"
}
{ if (!cont) first = $0; cont = /\\$/ }
match($0, / ## (build|tests|measure|lab|text): /) {
    sec = substr($0, RSTART + 4, RLENGTH - 6); text = substr($0, RSTART + RLENGTH)
    name = substr($0, 1, RSTART - 1)
    if (name ~ /^## /) name = substr(name, 4); else { sub(/[ :].*/, "", first); name = "make " first }
    if (seen[name]++) next
    split(name, w, " "); if (index(gpu, " " w[2] " ")) text = "(GPU) " text
    body[sec] = body[sec] wrap(sprintf("  %-18s", name), text)
}
END {
    printf "Build\n%sTests\n%sMeasure and look inside\n%s", body["build"], body["tests"], body["measure"]
    printf "The lab: the experiments behind the numbers, one folder each (lab/README.md)\n%s", body["lab"]
    printf "The course text\n%s", body["text"]
    print "(GPU): on a machine without a GPU, the target says so in one line before it builds anything,"
    print "and make exits with status 2."
}
