/* args.c: the command line. Every mistake ends here, before any GPU work, with
 * one line that names the option and the problem, and EXIT_USAGE. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "parts.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    /* Messages quote what was typed: keep control characters (a newline, a
     * terminal escape) out, so that every message stays one plain line. */
    for (char *p = err; errlen > 0 && *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    return -1;
}

/* ---- sizes ----------------------------------------------------------------
 * A tiny recursive-descent parser:
 *     expr   := term (('+' | '-') term)*
 *     term   := factor ('*' factor)*
 *     factor := number ('^' number)?
 *     number := digits ('e' digits)? ('K' | 'M' | 'G')?
 * Values saturate at CAP, so no intermediate can overflow; anything above
 * MAX_N is refused at the end. */
#define CAP ((uint64_t)1 << 62)

typedef struct {
    const char *p;     /* next character */
    int bad;           /* a syntax error was found at p */
} cursor_t;

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (a == 0 || b == 0) return 0;
    return a > CAP / b ? CAP : a * b;
}

/* base^exp: 0 and 1 stay, any other base reaches CAP in 62 steps at most. */
static uint64_t sat_pow(uint64_t base, uint64_t exp)
{
    if (base < 2) return exp == 0 ? 1 : base;
    uint64_t r = 1;
    for (uint64_t i = 0; i < exp && r < CAP; i++) r = sat_mul(r, base);
    return r;
}

/* The digits at the cursor, as far as they go. */
static uint64_t digits(cursor_t *c)
{
    uint64_t v = 0;
    while (isdigit((unsigned char)*c->p)) {
        v = sat_mul(v, 10) + (uint64_t)(*c->p++ - '0');
        if (v > CAP) v = CAP;
    }
    return v;
}

static uint64_t parse_number(cursor_t *c)
{
    if (!isdigit((unsigned char)*c->p)) { c->bad = 1; return 0; }
    uint64_t v = digits(c);
    if ((*c->p == 'e' || *c->p == 'E') && isdigit((unsigned char)c->p[1])) {
        c->p++;
        v = sat_mul(v, sat_pow(10, digits(c)));
    }
    switch (*c->p) {
    case 'K': case 'k': c->p++; v = sat_mul(v, (uint64_t)1 << 10); break;
    case 'M': case 'm': c->p++; v = sat_mul(v, (uint64_t)1 << 20); break;
    case 'G': case 'g': c->p++; v = sat_mul(v, (uint64_t)1 << 30); break;
    default: break;
    }
    return v;
}

static uint64_t parse_factor(cursor_t *c)
{
    uint64_t v = parse_number(c);
    if (!c->bad && *c->p == '^') {
        c->p++;
        v = sat_pow(v, parse_number(c));
    }
    return v;
}

static uint64_t parse_term(cursor_t *c)
{
    uint64_t v = parse_factor(c);
    while (!c->bad && *c->p == '*') {
        c->p++;
        v = sat_mul(v, parse_factor(c));
    }
    return v;
}

/* Returns the value as a signed number so that 5-10 can say "negative". */
static int64_t parse_expr(cursor_t *c)
{
    int64_t v = (int64_t)parse_term(c);
    while (!c->bad && (*c->p == '+' || *c->p == '-')) {
        char op = *c->p++;
        int64_t t = (int64_t)parse_term(c);
        /* |v| <= CAP and 0 <= t <= CAP, so v - t fits in 64 bits but v + t
         * may not (2^62 + 2^62): saturate before adding. */
        v = op == '+' ? (v > (int64_t)CAP - t ? (int64_t)CAP : v + t) : v - t;
        if (v < -(int64_t)CAP) v = -(int64_t)CAP;
    }
    return v;
}

int parse_size(const char *s, size_t *out, char *err, size_t errlen)
{
    if (*s == '\0') return fail(err, errlen, "the value is empty");
    if (*s == '-') return fail(err, errlen, "'%s' is negative: n must be at least 1", s);
    cursor_t c = { s, 0 };
    int64_t v = parse_expr(&c);
    if (c.bad && c.p == s)
        return fail(err, errlen, "'%s' is not a size (try 1000, 1M, 2^24, 3*2^30 or 10^8+7)", s);
    if (c.bad && *c.p == '\0')
        return fail(err, errlen, "'%s' ends too early", s);
    if (c.bad || *c.p != '\0')
        return fail(err, errlen, "'%s': unexpected '%s' after '%.*s'", s, c.p, (int)(c.p - s), s);
    if (v < 0)
        return fail(err, errlen, "'%s' is negative: n must be at least 1", s);
    if (v == 0 && strspn(s, "0") == strlen(s))
        return fail(err, errlen, "n must be at least 1, not 0");
    if (v == 0)
        return fail(err, errlen, "'%s' comes to 0: n must be at least 1", s);
    if ((uint64_t)v > (uint64_t)MAX_N)
        return fail(err, errlen, "'%s' is too large: n can be at most 2^40 = %" PRIu64,
                    s, (uint64_t)MAX_N);
    *out = (size_t)v;
    return 0;
}

/* A plain non-negative decimal integer no larger than max. */
static int parse_uint(const char *s, uint64_t max, uint64_t *out, char *err, size_t errlen)
{
    if (*s == '\0') return fail(err, errlen, "the value is empty");
    if (*s == '-') return fail(err, errlen, "'%s' is negative", s);
    if (!isdigit((unsigned char)*s)) return fail(err, errlen, "'%s' is not a whole number", s);
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0') return fail(err, errlen, "'%s': unexpected '%s' after the number", s, end);
    if (errno == ERANGE || v > max)
        return fail(err, errlen, "'%s' is too large (at most %" PRIu64 ")", s, max);
    *out = v;
    return 0;
}

int parse_count(const char *s, uint64_t max, uint64_t *out, char *err, size_t errlen)
{
    if (parse_uint(s, max, out, err, errlen)) return -1;
    if (*out == 0) return fail(err, errlen, "0 is too few: at least 1");
    return 0;
}

/* Splits a comma-separated list and parses each item with the given parser. */
static int parse_list(const char *s, int is_size, void *values, int *count,
                      char *err, size_t errlen)
{
    char item[128];
    const char *p = s;
    *count = 0;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len >= sizeof item) return fail(err, errlen, "'%.20s...' is too long", p);
        if (*count == MAX_LIST) return fail(err, errlen, "more than %d values in one list", MAX_LIST);
        memcpy(item, p, len);
        item[len] = '\0';
        if (len == 0 && (comma || *count > 0)) return fail(err, errlen, "'%s' has an empty item", s);
        int rc = is_size ? parse_size(item, &((size_t *)values)[*count], err, errlen)
                         : parse_uint(item, UINT64_MAX, &((uint64_t *)values)[*count], err, errlen);
        if (rc) return rc;
        (*count)++;
        if (!comma) return 0;
        p = comma + 1;
    }
}

/* ---- the options ------------------------------------------------------------
 * The common ones, then those a program adds (add_options). Each takes its
 * value, or none, and sets its field of options_t; every mistake is one line
 * that names the option. */
typedef enum { OPT_N, OPT_SEED, OPT_INPUT, OPT_FILE, OPT_REPS, OPT_BLOCK, OPT_GRID, OPT_CSV,
               OPT_CHECK, OPT_WARM, OPT_WAIT, OPT_HELP, OPT_H, N_OPTIONS } opt_id_t;

/* In opt_id_t's order, described as extra options are (print_help has their
 * help); a value means the option takes one. */
static const extra_option_t options[N_OPTIONS] = {
    { "--n", "N", NULL, NULL }, { "--seed", "S", NULL, NULL }, { "--input", "NAME", NULL, NULL },
    { "--input-file", "PATH", NULL, NULL }, { "--reps", "R", NULL, NULL },
    { "--block", "T", NULL, NULL }, { "--grid", "G", NULL, NULL }, { "--csv", NULL, NULL, NULL },
    { "--check-only", NULL, NULL, NULL }, { "--warm", NULL, NULL, NULL },
    { "--wait-each", NULL, NULL, NULL }, { "--help", NULL, NULL, NULL }, { "-h", NULL, NULL, NULL },
};
#define MAX_EXTRA 8

static const extra_option_t *g_extra;
static int g_extra_count;
void add_options(const extra_option_t *extra, int count)
{
    g_extra = extra;
    g_extra_count = count < MAX_EXTRA ? count : MAX_EXTRA;
}

static const char *const *g_inputs;
static int g_input_count;
void add_inputs(const char *const *names, int count)
{
    g_inputs = names;
    g_input_count = count;
}

/* Option k: a common one (k < N_OPTIONS), or extra option k - N_OPTIONS. */
static const extra_option_t *option(int k)
{
    return k < N_OPTIONS ? &options[k] : &g_extra[k - N_OPTIONS];
}

/* The option named by arg ("--n", "--n=5"), as k for option(k), or -1. */
static int find_option(const char *arg, size_t len)
{
    for (int k = 0; k < N_OPTIONS + g_extra_count; k++)
        if (strlen(option(k)->name) == len && strncmp(arg, option(k)->name, len) == 0) return k;
    return -1;
}

/* Is this word an option name ("--csv", "--n=5", "-h") rather than a value?
 * A value never starts with "--"; "-5" is a (negative) value, not an option. */
static int is_option(const char *arg)
{
    return strncmp(arg, "--", 2) == 0 || find_option(arg, strlen(arg)) >= 0;
}

/* Gives option k's value (or none) to its field of *opt. */
static int apply(int k, const char *value, block_rule_t rule, options_t *opt, char *why, size_t len)
{
    uint64_t v = 0;
    int rc = 0;
    switch (k) {
    case OPT_N: return parse_list(value, 1, opt->n, &opt->n_count, why, len);
    case OPT_SEED: return parse_list(value, 0, opt->seed, &opt->seed_count, why, len);
    case OPT_INPUT:
        rc = dist_parse(value, why, len);
        for (int i = 0; rc < 0 && i < g_input_count; i++)
            if (strcmp(value, g_inputs[i]) == 0) rc = DIST_COUNT + i;
        for (int i = 0; rc < 0 && i < g_input_count; i++)
            snprintf(why + strlen(why), len - strlen(why), ", %s", g_inputs[i]);
        opt->input = rc < 0 ? DIST_UNIFORM : (dist_t)rc;
        return rc < 0 ? -1 : 0;
    case OPT_FILE:
        if (*value == '\0') return fail(why, len, "the value is empty");
        opt->input_file = value;
        return 0;
    case OPT_REPS:
        rc = parse_count(value, MAX_REPS, &v, why, len);
        opt->reps = (int)v;
        return rc;
    case OPT_BLOCK:
        if (rule == BLOCK_NONE) return fail(why, len, "this program chooses its own block size");
        if (parse_uint(value, 1u << 20, &v, why, len)) return -1;
        opt->block = (int)v;
        if (rule == BLOCK_ANY && (v < 1 || v > 1024))
            return fail(why, len, "%d is out of range: use 1 to 1024 threads", opt->block);
        if (rule == BLOCK_POW2 && (v < 32 || v > 1024 || (v & (v - 1)) != 0))
            return fail(why, len, "%d is not allowed: this step needs a power of two "
                        "from 32 to 1024 (32, 64, 128, 256, 512 or 1024)", opt->block);
        return 0;
    case OPT_GRID:
        rc = parse_uint(value, 2147483647u, &v, why, len);
        if (!rc && v == 0) rc = fail(why, len, "0 is too few: at least 1 block");
        opt->grid = (int)v;
        return rc;
    case OPT_CSV: opt->csv = 1; return 0;
    case OPT_CHECK: opt->check_only = 1; return 0;
    case OPT_WARM: opt->warm = 1; return 0;
    case OPT_WAIT: opt->wait_each = 1; return 0;
    case OPT_HELP: case OPT_H: opt->help = 1; return 0;
    default: return option(k)->set(value, why, len);
    }
}

/* One option at argv[*i], with its value from "=..." or the next word. */
static int parse_one(int argc, char **argv, int *i, const program_t *prog, options_t *opt,
                     int *seen, char *err, size_t errlen)
{
    const char *arg = argv[*i], *value = NULL;
    size_t name_len = strcspn(arg, "=");
    int k = find_option(arg, name_len);
    if (k < 0)
        return arg[0] != '-' ? fail(err, errlen, "unexpected argument '%s' (options start with --)", arg)
                             : fail(err, errlen, "unknown option '%s'", arg);
    const char *name = option(k)->name;
    if (arg[name_len] == '=') {
        if (!option(k)->value) return fail(err, errlen, "%s takes no value", name);
        value = arg + name_len + 1;
    } else if (option(k)->value) {
        /* "--n --check-only": the next word is an option, not the value. */
        if (*i + 1 >= argc) return fail(err, errlen, "%s needs a value", name);
        if (is_option(argv[*i + 1])) return fail(err, errlen, "%s needs a value before '%s'", name, argv[*i + 1]);
        value = argv[++*i];
    }
    if (seen[k == OPT_H ? OPT_HELP : k]++) return fail(err, errlen, "%s is given more than once", name);
    char why[200];
    if (apply(k, value, prog->block_rule, opt, why, sizeof why)) return fail(err, errlen, "%s: %s", name, why);
    return 0;
}

int parse_args(int argc, char **argv, const program_t *prog, options_t *opt,
               char *err, size_t errlen)
{
    memset(opt, 0, sizeof *opt);
    int seen[N_OPTIONS + MAX_EXTRA] = { 0 };
    for (int i = 1; i < argc; i++)
        if (parse_one(argc, argv, &i, prog, opt, seen, err, errlen)) return EXIT_USAGE;
    if (opt->check_only && (opt->reps || opt->wait_each)) {
        fail(err, errlen, "%s and --check-only do not go together (--check-only runs once, untimed)",
             opt->reps ? "--reps" : "--wait-each");
        return EXIT_USAGE;
    }
    for (int k = OPT_N; opt->input_file && k <= OPT_INPUT; k++)
        if (seen[k]) {
            fail(err, errlen, "%s and --input-file do not go together (the file is the input: its "
                 "floats, all of them)", options[k].name);
            return EXIT_USAGE;
        }
    if (opt->n_count == 0) { opt->n[0] = DEFAULT_N; opt->n_count = 1; }
    if (opt->seed_count == 0) { opt->seed[0] = 1; opt->seed_count = 1; }
    return 0;
}

void print_help(FILE *f, const char *prog, const program_t *p)
{
    fprintf(f,
        "%s: %s\n"
        "%s %s on the GPU, checks %s against\n"
        "an exact CPU reference and reports the time.\n"
        "\n"
        "usage: %s [options]\n"
        "  --n N[,N...]       elements to sum (default 2^28 = %zu). Forms: 1000, 64K,\n"
        "                     1M, 2G (K, M, G are 2^10, 2^20, 2^30), 2^24, 1e8,\n"
        "                     3*2^30, 10^8+7. A list runs each size in turn.\n"
        "  --seed S[,S...]    input seed(s) (default 1); same seed, same input\n"
        "  --input NAME       the array to sum (default uniform), drawn from the seed:\n",
        p->name, p->technique, p->matrix ? "Sums every row of a matrix of" : p->typed ? "Reduces an array of"
        : "Sums an array of", p->typed ? "--type's elements by --op" : ELEM_NAME,
        p->matrix ? "each row's sum" : "the result", prog, (size_t)DEFAULT_N);
    for (int d = 0; d < DIST_COUNT; d++)
        fprintf(f, "                     %-8s %s\n", dist_info[d].name, dist_info[d].line);
    if (p->typed)
        fprintf(f, "  --input-file PATH  reduce the array in PATH instead: a 1-D .npy of '<f2' (half),\n"
                   "                     '<f4', '<f8' or '<i4' (int32), or raw bf16 named *.bf16 (the\n"
                   "                     file sets n; its type must be --type's)\n");
    else
        fprintf(f, "  --input-file PATH  sum the floats in PATH instead: raw little-endian float32,\n"
                   "                     or a %s float32 .npy (the file sets n)\n",
                p->matrix ? "1-D or 2-D (rows, length)" : "one-dimensional");
    fprintf(f,
        "  --reps R           timed runs after the warm-up (default %d, fewer if\n"
        "                     one run takes over 0.1 s); max %d\n", DEFAULT_REPS, MAX_REPS);
    if (p->block_rule == BLOCK_POW2 && p->block_from_n)
        fprintf(f, "  --block T          threads per block, a power of two 32..1024 (default: the\n"
                   "                     step chooses from n, %d for small n)\n", p->default_block);
    else if (p->block_rule == BLOCK_POW2)
        fprintf(f, "  --block T          threads per block, a power of two 32..1024 (default %d)\n",
                p->default_block);
    else if (p->block_rule == BLOCK_ANY)
        fprintf(f, "  --block T          threads per block, 1..1024 (default %d)\n", p->default_block);
    for (int k = 0; k < g_extra_count; k++) {
        char head[64];
        snprintf(head, sizeof head, "%s%s%s", g_extra[k].name, g_extra[k].value ? " " : "",
                 g_extra[k].value ? g_extra[k].value : "");
        fprintf(f, "  %-18s %s\n", head, g_extra[k].help);
    }
    fprintf(f,
        "  --grid G           launch G blocks instead of the step's choice (to experiment)\n"
        "  --check-only       run once and check; no timing\n"
        "  --warm             time with the input left in L2 between runs (default:\n"
        "                     each run reads a copy that is no longer in L2)\n"
        "  --wait-each        time a loop that waits for every sum: each run queued alone\n"
        "                     and waited for, its time the host's (default: runs queued\n"
        "                     back to back, timed on the GPU)\n"
        "  --csv              print CSV (a header line, then one row per run)\n"
        "  --help, -h         this text\n"
        "\n"
        "exit status: 0 correct, 1 wrong result, 2 bad usage, 3 CUDA or device problem\n");
}
