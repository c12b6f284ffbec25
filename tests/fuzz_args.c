/* fuzz_args.c: random command lines against parse_args and parse_size.
 *
 *     make build/hygiene/fuzz_args && build/hygiene/fuzz_args [ITERATIONS [SECONDS [SEED]]]
 *
 * Built with AddressSanitizer and UndefinedBehaviorSanitizer (tests/tests.mk),
 * so a read past a string, a buffer overflow or a signed overflow stops the
 * program. Each iteration does three things:
 *
 *   1. a random command line: option names from the real list, sometimes
 *      glued to a value with '=', values made of digits, K/M/G suffixes, ^ * +
 *      - e and commas, empty strings, huge numbers, control characters and
 *      bytes above 127. parse_args must return 0 or EXIT_USAGE; on 0 every
 *      option is in its documented range and agrees with what was typed; on
 *      EXIT_USAGE the message is one non-empty printable line.
 *   2. a random well-formed size expression whose value is known (computed
 *      here in 128-bit arithmetic): parse_size must accept exactly the values
 *      in 1..2^40 and return that value, and refuse the rest with the reason.
 *   3. a random string to parse_size, with the same invariants as 1.
 *
 * The seed is fixed unless given, and printed, so a failure can be replayed.
 * Stops after ITERATIONS (default 500000) or SECONDS (default 20), whichever
 * comes first. Prints one line, PASS or FAIL, for tests/run to count.
 */
#define _POSIX_C_SOURCE 200809L    /* strnlen, clock_gettime */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/parts.h"

/* ---- random numbers (SplitMix64: small, fast, reproducible) ------------------ */
static uint64_t g_state;

static uint64_t next64(void)
{
    uint64_t z = (g_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static unsigned below(unsigned n) { return (unsigned)(next64() % n); }
static int chance(unsigned percent) { return below(100) < percent; }

/* ---- failing ---------------------------------------------------------------- */
static long g_iteration;
static uint64_t g_seed;

/* Writes s with every byte outside printable ASCII as \xNN, so the FAIL line
 * itself stays one line. */
static void put_escaped(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p >= 0x7f || *p == '\\') printf("\\x%02x", *p);
        else putchar(*p);
    }
}

_Noreturn static void die(int argc, char **argv, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    printf("FAIL hygiene/fuzz-args: seed %" PRIu64 ", iteration %ld: ", g_seed, g_iteration);
    put_escaped(what);
    printf("; input:");
    for (int i = 0; i < argc; i++) {
        printf(" '");
        put_escaped(argv[i]);
        printf("'");
    }
    printf("\n");
    exit(1);
}

/* A refusal must say why, on one printable line (it goes to a terminal).
 * A message cut short by a small buffer may be empty, but still ends in it. */
static void check_message(const char *err, size_t errlen, int argc, char **argv)
{
    size_t len = strnlen(err, errlen);
    if (len == errlen) die(argc, argv, "the message is not terminated within %zu bytes", errlen);
    if (len == 0 && errlen >= 64) die(argc, argv, "refused without a message");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)err[i];
        if (c < 0x20 || c == 0x7f)
            die(argc, argv, "the message holds control character 0x%02x at %zu: '%s'", c, i, err);
    }
}

/* ---- pieces of values ---------------------------------------------------------- */
static const char *const names[] = {
    "--n", "--reps", "--seed", "--block", "--grid", "--csv", "--check-only", "--warm", "--help", "-h",
};
#define N_NAMES (sizeof names / sizeof names[0])

static const char *const pieces[] = {
    "0", "1", "2", "3", "7", "10", "16", "31", "32", "33", "64", "100", "256", "512", "1000",
    "1023", "1024", "1025", "2048", "65536", "100000", "100001", "2147483647", "2147483648",
    "4294967296", "1099511627776", "1099511627777", "18446744073709551615",
    "18446744073709551616", "99999999999999999999999", "007", "K", "M", "G", "k", "m", "g",
    "e", "E", "^", "*", "+", "-", ",", "=", "", " ", ".", "x", "0x10", "--", "--n", "1e999",
    "2^40", "2^41", "2^62", "2^63", "2^64", "3*2^30", "10^8+7", "2^31+7", "1e8", "64K", "1,2",
    "\n", "\r", "\t", "\x7f", "\x1b[31m", "\xc3\xa9", "\xff", "\x80", "\xef\xbb\xbf", "%s", "%n",
};
#define N_PIECES (sizeof pieces / sizeof pieces[0])

/* Appends to a bounded buffer; returns the new length. */
static size_t append(char *buf, size_t len, size_t cap, const char *s)
{
    size_t add = strlen(s);
    if (len + add >= cap) add = cap - 1 - len;
    memcpy(buf + len, s, add);
    buf[len + add] = '\0';
    return len + add;
}

/* A copy of s in an allocation of exactly its size: a read past the end
 * of an argument is caught. */
static char *dup_exact(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    if (!d) { printf("FAIL hygiene/fuzz-args: out of memory\n"); exit(1); }
    memcpy(d, s, strlen(s) + 1);
    return d;
}

/* A value: a few pieces, or a run of random bytes (1..255: C strings end at 0). */
static void random_value(char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    if (chance(15)) {
        unsigned count = below(12);
        for (unsigned i = 0; i < count && len + 1 < cap; i++) buf[len++] = (char)(1 + below(255));
        buf[len] = '\0';
        return;
    }
    if (chance(3)) {                               /* a list near MAX_LIST items */
        unsigned items = MAX_LIST - 8 + below(16);
        for (unsigned i = 0; i < items; i++) {
            char item[16];
            snprintf(item, sizeof item, i ? ",%u" : "%u", 1 + below(5000));
            len = append(buf, len, cap, item);
        }
        return;
    }
    if (chance(30)) {                              /* one plausible number */
        snprintf(buf, cap, "%u", below(chance(80) ? 1100 : 2200));
        return;
    }
    unsigned count = 1 + below(chance(70) ? 3 : 10);
    for (unsigned i = 0; i < count; i++) {
        if (chance(10)) {                          /* any number up to 2048 */
            char number[8];
            snprintf(number, sizeof number, "%u", below(2049));
            len = append(buf, len, cap, number);
        } else if (chance(10)) {                   /* a long run of digits */
            unsigned digits = 1 + below(40);
            for (unsigned d = 0; d < digits && len + 1 < cap; d++) buf[len++] = (char)('0' + below(10));
            buf[len] = '\0';
        } else {
            len = append(buf, len, cap, pieces[below(N_PIECES)]);
        }
    }
}

/* One argument: an option name (sometimes with =value), a value, or noise. */
static char *random_arg(void)
{
    char buf[600];
    size_t len = 0;
    unsigned kind = below(100);
    buf[0] = '\0';
    if (kind < 55) {
        len = append(buf, len, sizeof buf, names[below(N_NAMES)]);
        if (chance(20)) {
            char value[500];
            random_value(value, sizeof value);
            len = append(buf, len, sizeof buf, "=");
            append(buf, len, sizeof buf, value);
        }
    } else if (kind < 95) {
        random_value(buf, sizeof buf);
    } else {
        len = append(buf, len, sizeof buf, chance(50) ? "--" : "-");
        char value[500];
        random_value(value, sizeof value);
        append(buf, len, sizeof buf, value);
    }
    return dup_exact(buf);
}

/* ---- what a successful parse must look like --------------------------------------- */
static int block_allowed(int block, block_rule_t rule)
{
    if (block == 0) return 1;                       /* not given: the step's default */
    if (rule == BLOCK_NONE) return 0;
    if (rule == BLOCK_ANY) return block >= 1 && block <= 1024;
    return block >= 32 && block <= 1024 && (block & (block - 1)) == 0;
}

/* The value typed for an option name, or NULL: "--reps 5" and "--reps=5". */
static const char *value_of(int argc, char **argv, const char *name, int *present)
{
    size_t len = strlen(name);
    *present = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], name, len) != 0) continue;
        if (argv[i][len] == '=') { *present = 1; return argv[i] + len + 1; }
        if (argv[i][len] == '\0') { *present = 1; return i + 1 < argc ? argv[i + 1] : NULL; }
    }
    return NULL;
}

/* The decimal number at the start of s, read here without strtoull, so that
 * a number past 2^64 - 1 cannot pass for 2^64 - 1. Saturates at 2^100. */
static unsigned __int128 typed_number(const char *s)
{
    unsigned __int128 v = 0, cap = (unsigned __int128)1 << 100;
    for (; *s >= '0' && *s <= '9'; s++) {
        v = v * 10 + (unsigned)(*s - '0');
        if (v > cap) v = cap;
    }
    return v;
}

/* Is s a whole decimal number, digits only, up to a comma or the end? */
static int all_digits(const char *s)
{
    size_t len = strspn(s, "0123456789");
    return len > 0 && (s[len] == '\0' || s[len] == ',');
}

/* Is s a sentence of the size grammar (args.c), up to a comma or the end?
 * Written here again, independently, so that parse_size cannot accept what
 * the grammar does not allow:
 *     expr := term (('+' | '-') term)*      term := factor ('*' factor)*
 *     factor := number ('^' number)?        number := digits ('e' digits)? [KMGkmg]? */
static const char *grammar_number(const char *p)
{
    if (!p || *p < '0' || *p > '9') return NULL;
    while (*p >= '0' && *p <= '9') p++;
    if ((*p == 'e' || *p == 'E') && p[1] >= '0' && p[1] <= '9') {
        p++;
        while (*p >= '0' && *p <= '9') p++;
    }
    if (*p && strchr("KMGkmg", *p)) p++;
    return p;
}

static const char *grammar_factor(const char *p)
{
    p = grammar_number(p);
    return p && *p == '^' ? grammar_number(p + 1) : p;
}

static int is_size_sentence(const char *p)
{
    for (;;) {
        p = grammar_factor(p);
        while (p && *p == '*') p = grammar_factor(p + 1);
        if (!p) return 0;
        if (*p != '+' && *p != '-') return *p == '\0' || *p == ',';
        p++;
    }
}

/* Counts the comma-separated items of a list. */
static int list_items(const char *s)
{
    int count = 1;
    for (; *s; s++) count += *s == ',';
    return count;
}

static void check_success(int argc, char **argv, block_rule_t rule, const options_t *o)
{
    if (o->n_count < 1 || o->n_count > MAX_LIST) die(argc, argv, "%d sizes", o->n_count);
    if (o->seed_count < 1 || o->seed_count > MAX_LIST) die(argc, argv, "%d seeds", o->seed_count);
    for (int i = 0; i < o->n_count; i++)
        if (o->n[i] < 1 || o->n[i] > MAX_N) die(argc, argv, "n = %zu is out of 1..2^40", o->n[i]);
    if (o->reps < 0 || o->reps > MAX_REPS) die(argc, argv, "reps = %d is out of 0..%d", o->reps, MAX_REPS);
    if (o->check_only && o->reps != 0) die(argc, argv, "--check-only with reps = %d", o->reps);
    if (!block_allowed(o->block, rule)) die(argc, argv, "block = %d breaks rule %d", o->block, (int)rule);
    if (o->grid < 0) die(argc, argv, "grid = %d", o->grid);   /* an int is at most 2^31 - 1 */
    if ((o->csv | o->check_only | o->warm | o->help) & ~1)
        die(argc, argv, "a flag is neither 0 nor 1");

    /* And what was parsed is what was typed. */
    int present;
    const char *v = value_of(argc, argv, "--n", &present);
    if (present) {
        if (!v || o->n_count != list_items(v)) die(argc, argv, "--n gave %d sizes", o->n_count);
        const char *p = v;
        for (int i = 0; i < o->n_count; i++) {
            char item[128], err[200];
            size_t len = strcspn(p, ",");
            size_t again = 0;
            if (len >= sizeof item) die(argc, argv, "an item of %zu bytes was accepted", len);
            memcpy(item, p, len);
            item[len] = '\0';
            if (parse_size(item, &again, err, sizeof err) != 0 || again != o->n[i])
                die(argc, argv, "size %d is %zu, but parse_size('%s') says %zu", i, o->n[i], item, again);
            if (!is_size_sentence(item)) die(argc, argv, "size '%s' is not in the grammar", item);
            p += len + 1;
        }
    } else if (o->n_count != 1 || o->n[0] != DEFAULT_N) {
        die(argc, argv, "no --n, yet n is not the default");
    }
    v = value_of(argc, argv, "--seed", &present);
    if (present) {
        if (!v || o->seed_count != list_items(v)) die(argc, argv, "--seed gave %d seeds", o->seed_count);
        const char *p = v;
        for (int i = 0; i < o->seed_count; i++) {
            if (!all_digits(p)) die(argc, argv, "seed %d was accepted from a non-number", i);
            if ((unsigned __int128)o->seed[i] != typed_number(p))
                die(argc, argv, "seed %d is %" PRIu64 ", but something else was typed", i, o->seed[i]);
            p += strcspn(p, ",") + 1;
        }
    } else if (o->seed_count != 1 || o->seed[0] != 1) {
        die(argc, argv, "no --seed, yet the seed is not 1");
    }
    static const char *const numeric[] = { "--reps", "--block", "--grid" };
    int got[] = { o->reps, o->block, o->grid };
    for (int k = 0; k < 3; k++) {
        v = value_of(argc, argv, numeric[k], &present);
        unsigned __int128 want = present && v ? typed_number(v) : 0;
        if (got[k] < 0 || (unsigned __int128)got[k] != want)
            die(argc, argv, "%s is %d, but something else was typed", numeric[k], got[k]);
        if (present && (!v || !all_digits(v)))
            die(argc, argv, "%s was accepted from a non-number", numeric[k]);
        if (present && got[k] < 1)          /* 0 means "not given": a typed 0 is refused */
            die(argc, argv, "%s %d was accepted", numeric[k], got[k]);
    }
    static const char *const flags[] = { "--csv", "--check-only", "--warm" };
    int set[] = { o->csv, o->check_only, o->warm };
    for (int k = 0; k < 3; k++) {
        value_of(argc, argv, flags[k], &present);
        if (set[k] != present) die(argc, argv, "%s is %d", flags[k], set[k]);
    }
    int help_h;
    value_of(argc, argv, "-h", &help_h);
    value_of(argc, argv, "--help", &present);
    if (o->help != (present || help_h)) die(argc, argv, "help is %d", o->help);
}

static void size_text(char *buf, size_t cap);

/* A value near what the option accepts, with its limits well represented. */
static void plausible_value(const char *name, char *buf, size_t cap)
{
    static const char *const edges[] = {
        "0", "1", "2", "16", "31", "32", "33", "48", "63", "64", "96", "100", "128", "256", "511",
        "512", "513", "1000", "1023", "1024", "1025", "2048", "99999", "100000", "100001",
        "2147483647", "2147483648", "4294967295", "4294967296", "18446744073709551615",
        "18446744073709551616",
    };
    if (chance(10)) { random_value(buf, cap); return; }
    if (chance(30)) { snprintf(buf, cap, "%s", edges[below(sizeof edges / sizeof edges[0])]); return; }
    if (strcmp(name, "--n") == 0) {
        size_t len = 0;
        unsigned items = chance(80) ? 1 : 1 + below(chance(90) ? 4 : MAX_LIST + 8);
        buf[0] = '\0';
        for (unsigned i = 0; i < items; i++) {
            char one[256];
            size_text(one, sizeof one);
            if (i) len = append(buf, len, cap, ",");
            len = append(buf, len, cap, one);
        }
    } else if (strcmp(name, "--seed") == 0) {
        snprintf(buf, cap, "%" PRIu64 "%s", chance(50) ? next64() : below(1000),
                 chance(10) ? ",7" : "");
    } else if (strcmp(name, "--grid") == 0) {
        snprintf(buf, cap, "%u", chance(50) ? below(5000) : (unsigned)(next64() >> 32));
    } else {                                      /* --reps, --block */
        snprintf(buf, cap, "%u", below(chance(80) ? 1100 : 120000));
    }
}

/* Mostly sensible command lines: each option at most once (now and then
 * twice), with a plausible value, as "--opt value" or "--opt=value". */
static int structured_args(char **argv)
{
    int argc = 1;
    for (unsigned k = 0; k < N_NAMES; k++) {
        if (!chance(k < 5 ? 45 : 15)) continue;
        int times = chance(5) ? 2 : 1;
        for (int t = 0; t < times; t++) {
            char value[600], arg[700];
            int takes_value = k < 5;
            if (takes_value) plausible_value(names[k], value, sizeof value);
            if (takes_value && chance(70)) {
                argv[argc++] = dup_exact(names[k]);
                argv[argc++] = dup_exact(value);
            } else if (takes_value || chance(5)) {
                snprintf(arg, sizeof arg, "%s=%s", names[k], takes_value ? value : "1");
                argv[argc++] = dup_exact(arg);
            } else {
                argv[argc++] = dup_exact(names[k]);
            }
        }
    }
    if (chance(5)) argv[argc++] = random_arg();
    return argc;
}

static void fuzz_parse_args(long *accepted)
{
    char *argv[40] = { "stepNN" };          /* the rest NULL: argv[argc] too */
    int argc;
    if (chance(50)) {
        argc = structured_args(argv);
    } else {
        argc = 1 + (int)below(8);
        for (int i = 1; i < argc; i++) argv[i] = random_arg();
    }
    block_rule_t rule = (block_rule_t)below(3);

    options_t opt;
    size_t errlen = chance(10) ? 1 + below(40) : 512;   /* short buffers must not overflow */
    char *err = malloc(errlen);
    if (!err) { printf("FAIL hygiene/fuzz-args: out of memory\n"); exit(1); }
    memset(err, 'Z', errlen);
    program_t prog = { "stepNN", "fuzzed", rule, 256, 0, 0, 0 };
    int rc = parse_args(argc, argv, &prog, &opt, err, errlen);
    if (rc == 0) {
        check_success(argc, argv, rule, &opt);
        (*accepted)++;
    } else if (rc == EXIT_USAGE) {
        check_message(err, errlen, argc, argv);
    } else {
        die(argc, argv, "parse_args returned %d", rc);
    }
    free(err);
    for (int i = 1; i < argc; i++) free(argv[i]);
}

/* ---- sizes with a known value ---------------------------------------------------------
 * A random expression in the grammar of parse_size, and its value computed
 * here in 128-bit arithmetic. parse_size saturates at 2^62, so whenever an
 * intermediate value here leaves [-2^62, 2^62] the exact value is not
 * checked, only the invariants. */
typedef __int128 wide_t;
#define LIMIT ((wide_t)1 << 62)

typedef struct {
    char text[256];
    size_t len;
    int saturated;     /* some intermediate value left [-2^62, 2^62] */
} expr_t;

static wide_t clamp(expr_t *e, wide_t v)
{
    if (v > LIMIT || v < -LIMIT) {
        e->saturated = 1;
        return v > 0 ? LIMIT : -LIMIT;
    }
    return v;
}

static void emit(expr_t *e, const char *s) { e->len = append(e->text, e->len, sizeof e->text, s); }

static wide_t gen_number(expr_t *e)
{
    char digits[32];
    unsigned count = 1 + below(chance(90) ? 4 : 21);
    wide_t v = 0;
    for (unsigned i = 0; i < count; i++) {
        int d = (int)below(10);
        digits[i] = (char)('0' + d);
        v = clamp(e, v * 10 + d);
    }
    digits[count] = '\0';
    emit(e, digits);
    if (chance(15)) {
        unsigned x = below(chance(90) ? 10 : 120);
        char exp[16];
        snprintf(exp, sizeof exp, "%c%u", chance(50) ? 'e' : 'E', x);
        emit(e, exp);
        for (unsigned i = 0; i < x && v != 0; i++) v = clamp(e, v * 10);
    }
    if (chance(20)) {
        static const char suffix[] = "KMGkmg";
        unsigned s = below(6);
        char c[2] = { suffix[s], '\0' };
        emit(e, c);
        v = clamp(e, v << (10 * (1 + s % 3)));
    }
    return v;
}

static wide_t gen_factor(expr_t *e)
{
    wide_t base = gen_number(e);
    if (chance(30)) {
        emit(e, "^");
        wide_t x = gen_number(e);
        if (x > 100) x = 100;              /* parse_size caps exponents at 100 */
        wide_t v = 1;
        for (wide_t i = 0; i < x && v != 0; i++) v = clamp(e, v * base);
        if (base == 0 && x > 0) v = 0;
        return v;
    }
    return base;
}

static wide_t gen_term(expr_t *e)
{
    wide_t v = gen_factor(e);
    while (chance(25)) {
        emit(e, "*");
        v = clamp(e, v * gen_factor(e));
    }
    return v;
}

static wide_t gen_expr(expr_t *e)
{
    wide_t v = gen_term(e);
    while (chance(30)) {
        int plus = chance(50);
        emit(e, plus ? "+" : "-");
        wide_t t = gen_term(e);
        v = clamp(e, plus ? v + t : v - t);
    }
    return v;
}

/* The text of a random size expression (its value is not needed here). */
static void size_text(char *buf, size_t cap)
{
    expr_t e = { .len = 0, .saturated = 0 };
    e.text[0] = '\0';
    (void)gen_expr(&e);
    append(buf, 0, cap, e.text);
}

static void fuzz_known_size(long *exact)
{
    expr_t e = { .len = 0, .saturated = 0 };
    e.text[0] = '\0';
    wide_t want = gen_expr(&e);
    char *argv[] = { e.text };
    if (e.len + 1 >= sizeof e.text) return;          /* cut short: not the expression */

    size_t got = 12345;
    char err[300] = "";
    int rc = parse_size(e.text, &got, err, sizeof err);
    if (rc != 0 && rc != -1) die(1, argv, "parse_size returned %d", rc);
    if (rc == 0 && (got < 1 || got > MAX_N)) die(1, argv, "accepted %zu", got);
    if (rc != 0) {
        check_message(err, sizeof err, 1, argv);
        if (got != 12345) die(1, argv, "refused, but wrote %zu", got);
    }
    if (e.saturated) return;
    (*exact)++;
    if (want >= 1 && want <= (wide_t)MAX_N) {
        if (rc != 0 || (wide_t)got != want)
            die(1, argv, "expected %" PRIu64 ", got rc %d, %zu (%s)", (uint64_t)want, rc, got, err);
    } else {
        /* 0 is refused as "must be at least 1" (not as negative). */
        const char *why = want < 0 ? "negative" : want == 0 ? "must be at least 1" : "too large";
        if (rc == 0 || !strstr(err, why) || (want == 0 && strstr(err, "negative")))
            die(1, argv, "expected a refusal saying '%s', got rc %d, %zu (%s)", why, rc, got, err);
    }
}

static void fuzz_random_size(void)
{
    char buf[600];
    random_value(buf, sizeof buf);
    char *s = dup_exact(buf);
    char *argv[] = { s };
    size_t got = 12345;
    char err[300];
    int rc = parse_size(s, &got, err, sizeof err);
    if (rc == 0 && (got < 1 || got > MAX_N)) die(1, argv, "accepted %zu", got);
    if (rc == 0 && (!is_size_sentence(s) || strchr(s, ',')))
        die(1, argv, "accepted what the grammar does not allow");
    if (rc == -1) {
        check_message(err, sizeof err, 1, argv);
        if (got != 12345) die(1, argv, "refused, but wrote %zu", got);
    }
    if (rc != 0 && rc != -1) die(1, argv, "parse_size returned %d", rc);
    free(s);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 500000;
    double limit_s = argc > 2 ? strtod(argv[2], NULL) : 20;
    g_seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 20240601;
    g_state = g_seed;

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long accepted = 0, exact = 0;
    for (g_iteration = 0; g_iteration < iterations; g_iteration++) {
        if (g_iteration % 1024 == 0 && seconds_since(&t0) > limit_s) break;
        fuzz_parse_args(&accepted);
        fuzz_known_size(&exact);
        fuzz_random_size();
    }
    printf("PASS hygiene/fuzz-args (%ld iterations in %.1f s, seed %" PRIu64 ": %ld command lines "
           "accepted, %ld refused; %ld sizes checked against their exact value)\n",
           g_iteration, seconds_since(&t0), g_seed, accepted, g_iteration - accepted, exact);
    return 0;
}
