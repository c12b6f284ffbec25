/* types.h: what a step that reduces arrays of any type tells the harness (step 12).
 *
 * n elements of one --type (float, double, half, bf16, int32), drawn from the
 * seed or read from a file, reduced by one --op (sum, sumsq, max, min, argmax).
 * The step lists its pairs, each with a kernel and a launcher. A run writes one
 * slot, checked against an exact CPU reference: the same bits for the exact
 * operators, within the error bound for the float sums.
 *
 *     int main(int argc, char **argv) { return run_types(argc, argv, &step); }
 */
#ifndef TYPES_H
#define TYPES_H

#include <stdint.h>
#include "../base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { TYPE_FLOAT, TYPE_DOUBLE, TYPE_HALF, TYPE_BF16, TYPE_INT32, TYPE_COUNT } type_t;
typedef enum { OP_SUM, OP_SUMSQ, OP_MAX, OP_MIN, OP_ARGMAX, OP_COUNT } op_t;

/* What a launcher gets. */
typedef struct {
    size_t n, elem_bytes;  /* elements (n >= 1), and bytes in one: 2, 4 or 8 */
    type_t type;
    op_t op;
    int pair;          /* which of the step's pairs */
    int block;         /* threads per block: --block, or the step's default */
    int grid;          /* blocks: the step's grid_size(), or --grid */
    int device, sm_count;
    void *scratch;     /* scratch_size() bytes, poisoned before every run */
} types_launch_t;

/* What one run writes: the accumulator at byte 0 (float for float, half
 * and bf16; double; int64 for an int32 sum; int32 for its max, min and
 * argmax), and argmax's index at byte 8. */
typedef struct {
    union { float f; double d; int64_t i64; int32_t i32; } value;
    int64_t index;
} types_slot_t;

typedef void (*types_reduce_t)(const void *d_in, types_slot_t *d_out, const types_launch_t *L,
                               cudaStream_t stream);
typedef struct {             /* a pair the step reduces */
    type_t type;
    op_t op;
    const void *kernel;      /* for the occupancy */
    types_reduce_t reduce;   /* enqueues the pair's work on the stream */
} types_pair_t;

typedef struct {
    const char *name, *technique;
    int default_block;       /* a power of two from 32 to 1024 */
    const types_pair_t *pairs;
    int pair_count;
    size_t (*grid_size)(const types_launch_t *L);
    size_t (*scratch_size)(const types_launch_t *L);
} types_step_t;

/* Runs the program and returns its exit code (base.h). */
int run_types(int argc, char **argv, const types_step_t *step);

#ifdef __cplusplus
}
#endif
#endif
