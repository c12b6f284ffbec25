/* replica.c: step 08's sum on the CPU alone, for the host tests.
 *
 *     build/tests/replica N SEED     prints the bits of the replica (hex) and its value
 *
 * It draws the same input as the steps (data.c) and adds it in step 08's
 * order (order.c). tests/bits.py checks the committed GPU results against it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../common/parts.h"

#define CHUNK 4096              /* step 08's chunk (steps/08_fixed_order.cu) */

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
        fprintf(stderr, "replica: out of host memory for %zu elements\n", n);
        return EXIT_DEVICE;
    }
    dist_draw(DIST_UNIFORM, seed, 0, n, n, x, NULL);
    elem_t sum = order_sum(x, n, CHUNK);
    uint32_t bits;
    memcpy(&bits, &sum, sizeof bits);
    printf("%08" PRIx32 " %.9g\n", bits, (double)sum);
    free(x);
    return EXIT_OK;
}
