/* runs_replica.c: the order of runs.cu on the CPU, for lab/fixed-order/runs.sh.
 *
 *     runs_replica N SEED    prints the bits of the sum (hex) and its value
 *
 * The same input as the steps (data.c), added as runs.cu adds it: step 08's
 * chunk sums (order.c); above them, while there are at least two runs, each
 * run of RUN chunk sums in one warp's shuffle tree (0 past the last chunk);
 * then the run sums in step 08's levels. One run or less: step 08's order.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/parts.h"

#define CHUNK 4096              /* step 08's chunk */
#define RUN 32                  /* chunk sums a run: one warp's lanes (runs.cu) */

static elem_t runs_sum(const elem_t *x, size_t n)
{
    size_t chunks = div_up(n, CHUNK), runs = div_up(chunks, RUN);
    if (runs < 2) return order_sum(x, n, CHUNK);
    elem_t *sums = (elem_t *)calloc(runs * RUN, sizeof *sums);   /* zeros past the last chunk */
    elem_t *run_sums = (elem_t *)malloc(runs * sizeof *run_sums);
    if (!sums || !run_sums) device_fail("out of host memory for the replica of runs.cu's order");
    order_chunk_sums(x, n, CHUNK, sums);
    for (size_t r = 0; r < runs; r++) {
        elem_t *lane = sums + r * RUN;
        for (size_t offset = RUN / 2; offset > 0; offset /= 2)   /* the shuffle tree, as order.c's */
            for (size_t l = 0; l < offset; l++)
                lane[l] += lane[l + offset];
        run_sums[r] = lane[0];
    }
    elem_t total = order_combine(run_sums, runs, CHUNK);
    free(sums);
    free(run_sums);
    return total;
}

int main(int argc, char **argv)
{
    size_t n = 0;
    char err[200];
    if (argc != 3 || parse_size(argv[1], &n, err, sizeof err) != 0) {
        fprintf(stderr, "usage: %s N SEED\n", argv[0]);
        return EXIT_USAGE;
    }
    uint64_t seed = strtoull(argv[2], NULL, 10);
    elem_t *x = (elem_t *)malloc(n * sizeof *x);
    if (!x) {
        fprintf(stderr, "runs_replica: out of host memory for %zu elements\n", n);
        return EXIT_DEVICE;
    }
    dist_draw(DIST_UNIFORM, seed, 0, n, n, x, NULL);
    elem_t sum = runs_sum(x, n);
    uint32_t bits;
    memcpy(&bits, &sum, sizeof bits);
    printf("%08" PRIx32 " %.9g\n", bits, (double)sum);
    free(x);
    return EXIT_OK;
}
