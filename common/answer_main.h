/* answer_main.h: the command line of an answer that is a program of its own
 * (chapter 12's argmin and int8 dot product), so that the answer holds only
 * its kernel and its check:
 *
 *     --n N[,N...]   sizes, 1 to the answer's largest (default 2^24)
 *     --input NAME   one of the answer's input names (default the first)
 *     --seed S       the input's seed (default 1)
 *
 * answer_main() reads them, opens GPU 0, runs run(dev, n, input, seed) for
 * each n and returns the worst exit status. A bad option: one line and
 * "Try ... --help" on stderr, exit 2; --help prints the answer's help.
 */
#ifndef ANSWER_MAIN_H
#define ANSWER_MAIN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parts.h"

typedef struct {
    const char *const *inputs;  /* the --input names; run() gets the index */
    int input_count;
    size_t max_n;               /* the largest --n, and as help writes it */
    const char *max_text;
    void (*help)(const char *argv0);
    int (*run)(const device_t *dev, size_t n, int input, uint64_t seed);
} answer_t;

static int answer_usage(const char *argv0, const char *why)
{
    fprintf(stderr, "%s: %s\nTry '%s --help'.\n", g_step, why, argv0);
    return EXIT_USAGE;
}

/* "--input: 'x' is not a, b or c" into why. */
static int answer_bad_input(const answer_t *A, const char *argv0, const char *val, char *why, size_t len)
{
    size_t k = (size_t)snprintf(why, len, "--input: '%s' is not ", val);
    for (int j = 0; j < A->input_count && k < len; j++)
        k += (size_t)snprintf(why + k, len - k, "%s%s", j == 0 ? "" : j + 1 < A->input_count ? ", " : " or ",
                              A->inputs[j]);
    return answer_usage(argv0, why);
}

static int answer_main(int argc, char **argv, const answer_t *A)
{
    size_t ns[MAX_LIST] = { (size_t)1 << 24 };
    int count = 1, input = 0;
    uint64_t seed = 1;
    char why[300];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return A->help(argv[0]), EXIT_OK;
        if (strcmp(a, "--n") && strcmp(a, "--input") && strcmp(a, "--seed"))
            return snprintf(why, sizeof why, "unknown option '%s'", a), answer_usage(argv[0], why);
        if (!val) return snprintf(why, sizeof why, "%s needs a value", a), answer_usage(argv[0], why);
        i++;
        if (!strcmp(a, "--n")) {
            char item[64], err[200];
            for (count = 0; *val; count++) {
                size_t k = strcspn(val, ",");
                if (count == MAX_LIST) return answer_usage(argv[0], "--n: too many sizes");
                snprintf(item, sizeof item, "%.*s", (int)(k < 63 ? k : 63), val);
                if (parse_size(item, &ns[count], err, sizeof err))
                    return snprintf(why, sizeof why, "--n: %s", err), answer_usage(argv[0], why);
                if (ns[count] < 1 || ns[count] > A->max_n)
                    return snprintf(why, sizeof why, "--n: %s is not 1 to %s", item, A->max_text),
                           answer_usage(argv[0], why);
                val += k + (val[k] == ',');
            }
        } else if (!strcmp(a, "--input")) {
            for (input = 0; input < A->input_count && strcmp(val, A->inputs[input]); input++) {}
            if (input == A->input_count) return answer_bad_input(A, argv[0], val, why, sizeof why);
        } else {
            char *end;
            seed = strtoull(val, &end, 10);
            if (*end || !*val)
                return snprintf(why, sizeof why, "--seed: '%s' is not a whole number", val), answer_usage(argv[0], why);
        }
    }
    device_t dev;
    count_devices();
    open_device_id(&dev, 0);
    int rc = EXIT_OK;
    for (int k = 0; k < count; k++) {
        int r = A->run(&dev, ns[k], input, seed);
        if (r > rc) rc = r;
    }
    return rc;
}

#endif
