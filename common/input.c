/* input.c: the array a run sums, drawn once on the CPU (or read from the
 * user's file) and copied to the GPUs that hold it: the whole array to one
 * GPU, or each part to its own. On the way: the exact reference and, for a
 * step that fixes its order of additions, the CPU replica of that order.
 * First of all, the command line that says which array (read_command_line,
 * for run_step and run_multi alike).
 */
#include <stdlib.h>
#include <string.h>

#include "parts.h"

#define STAGE ((size_t)1 << 24)  /* elements drawn on the CPU per copy to the GPUs */

/* With --input-file, opens and checks the file and makes its n the only
 * size: 0, or EXIT_USAGE with a reason in err. Without, does nothing. */
static int open_input(options_t *opt, int matrix, infile_t *file, char *err, size_t errlen)
{
    if (!opt->input_file) return 0;
    int rc = matrix ? infile_open_matrix(file, opt->input_file, err, errlen)
                    : infile_open(file, opt->input_file, err, errlen);
    if (rc) return rc;
    if (file->n > MAX_N) {
        snprintf(err, errlen, "'%s' holds %zu floats: more than the 2^40 the harness takes",
                 opt->input_file, file->n);
        infile_close(file);
        return EXIT_USAGE;
    }
    opt->n[0] = file->n;
    opt->n_count = 1;
    opt->seed[0] = 0;                       /* no seed: the file is the input */
    return 0;
}

int read_command_line(int argc, char **argv, const program_t *prog, options_t *opt, infile_t *file)
{
    char err[512];
    if (parse_args(argc, argv, prog, opt, err, sizeof err)) {
        fprintf(stderr, "%s: %s\nTry '%s --help'.\n", g_step, err, argv[0]);
        return EXIT_USAGE;
    }
    if (opt->help) {
        print_help(stdout, argv[0], prog);
        return EXIT_OK;
    }
    if (open_input(opt, prog->matrix, file, err, sizeof err)) {
        fprintf(stderr, "%s: --input-file: %s\nTry '%s --help'.\n", g_step, err, argv[0]);
        return EXIT_USAGE;
    }
    return -1;
}

/* Elements [s0, s0 + len) into buf, added to the reference. */
static void draw(const source_t *src, size_t n, size_t s0, size_t len, elem_t *buf, reference_t *ref)
{
    char err[512];
    if (src->file && infile_read(src->file, s0, len, buf, err, sizeof err)) {
        fprintf(stderr, "%s: --input-file: %s\n", g_step, err);
        exit_cleanly(EXIT_USAGE);
    }
#ifdef REDUCE_EXACT
    uint32_t sum = 0;
    if (!src->file)
        dist_draw_bits(src->dist, src->seed, s0, len, n, buf, &sum);
    else
        for (size_t j = 0; j < len; j++) sum += buf[j];     /* the floats' bits, modulo 2^32 */
    ref->u_sum += sum;
#else
    if (!src->file)
        dist_draw(src->dist, src->seed, s0, len, n, buf, &ref->exact);
    else
        exact_add_floats_parallel(&ref->exact, buf, len);
#endif
}

/* STAGE elements at a time (a whole number of chunks). Every GPU operation
 * goes through the part's own stream (see harness.c). */
void fill_parts(const source_t *src, size_t n, size_t chunk, const part_t *parts, int count,
                reference_t *ref)
{
    size_t stage = min_size(n, chunk ? STAGE / chunk * chunk : STAGE);
    elem_t *h_stage = NULL, *h_sums = NULL;
    CUDA_CHECK(cudaMallocHost((void **)&h_stage, stage * sizeof(elem_t)));
    if (chunk && !(h_sums = (elem_t *)malloc(div_up(n, chunk) * sizeof(elem_t))))
        device_fail("out of host memory for the CPU replica of the order");
    memset(ref, 0, sizeof *ref);
    exact_init(&ref->exact);
    ref->from_file = src->file != NULL;
    for (size_t s0 = 0; s0 < n; s0 += stage) {
        size_t len = min_size(stage, n - s0);
        draw(src, n, s0, len, h_stage, ref);
        for (int i = 0; i < count; i++) {      /* the stage's elements [lo, hi) that part i holds */
            const part_t *p = &parts[i];
            size_t lo = p->first > s0 ? p->first : s0, hi = min_size(p->first + p->count, s0 + len);
            if (hi <= lo) continue;
            CUDA_CHECK(cudaSetDevice(p->device));
            CUDA_CHECK(cudaMemcpyAsync(p->d + (lo - p->first), h_stage + (lo - s0),
                                       (hi - lo) * sizeof(elem_t), cudaMemcpyHostToDevice, p->stream));
        }
        if (chunk) order_chunk_sums(h_stage, len, chunk, h_sums + s0 / chunk);
        for (int i = 0; i < count; i++)      /* before h_stage is drawn again */
            CUDA_CHECK(cudaStreamSynchronize(parts[i].stream));
    }
    if (chunk) ref->replica = order_combine(h_sums, div_up(n, chunk), chunk);
    free(h_sums);
    CUDA_CHECK(cudaFreeHost(h_stage));
}

int input_copies(const options_t *opt, size_t bytes, int l2_bytes)
{
    size_t max_reps = opt->check_only ? 0 : opt->reps ? (size_t)opt->reps : DEFAULT_REPS;
    size_t fresh = opt->warm ? 1 : div_up(3 * (size_t)l2_bytes, bytes ? bytes : 1);  /* to outrun L2 */
    return (int)min_size(fresh, max_reps > 0 ? max_reps : 1);
}
