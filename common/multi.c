/* multi.c: run_multi(), one sum over several GPUs (step 09).
 *
 *   one run      multi_one: shards, memory, input, runs, timing, checks, report
 *   run_multi    arguments, ranks, then every size and seed
 *
 * One run's phases are in phases.c.
 *
 * It is run_step's counterpart (harness.c), with a rank per GPU: the same
 * input (element i is the same wherever it lives), the same reference and
 * replica of the whole array, the same checks, and a time per run that is
 * the slowest rank's, from the first chunk sum to the total.
 */
#define _POSIX_C_SOURCE 200809L    /* clock_gettime */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parts.h"

#define SLOW_RUN_S 0.1           /* above this, automatic --reps shrinks */

static double host_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- one run -------------------------------------------------------------------- */
/* Shards, launch shapes and memory, rank by rank; stops, saying which GPU,
 * when one of them has too little memory. */
static void plan_ranks(multi_run_t *c, const options_t *opt, const device_t *dev, size_t n,
                       int max_reps)
{
    const multi_step_t *step = c->step;
    size_t need[MAX_GPUS] = { 0 };
    size_t shard_max = 0;
    for (int i = 0; i < c->local; i++) {
        shard_t sh;
        rank_t *R = &c->R[i];
        shard_of(n, step->chunk, c->team->ranks, c->team->first + i, &sh);
        memset(R, 0, sizeof *R);
        R->L.n = sh.count;
        R->L.block = opt->block ? opt->block : step->default_block;
        R->L.device = c->team->device[i];
        R->L.sm_count = dev[i].sm_count;
        R->rank = c->team->first + i;
        R->ranks = c->team->ranks;
        R->n = n;
        R->first = sh.first;
        R->chunks = sh.chunks;
        R->per_rank = sh.per_rank;
        R->comm = c->team->comm[i];
        if (sh.count > shard_max) shard_max = sh.count;
        if (sh.count) R->L.grid = (int)(opt->grid ? (size_t)opt->grid : step->grid_size(&R->L));
        c->sums_bytes[i] = step->sums_size(R);
    }
    /* Copies of every shard, enough that the timed runs outrun L2. */
    size_t largest = shard_max > 0 ? shard_max : 1;          /* every local shard may be empty */
    c->stride = div_up(largest, 64) * 64;                    /* 256-byte aligned copies */
    size_t fresh = opt->warm ? 1 : div_up(3 * (size_t)dev[0].l2_bytes / sizeof(elem_t), largest);
    c->copies = (int)min_size(fresh, (size_t)(max_reps > 0 ? max_reps : 1));
    for (int i = 0; i < c->local; i++)
        need[c->R[i].L.device] += (size_t)c->copies * c->stride * sizeof(elem_t) + c->sums_bytes[i] +
                                  (size_t)(max_reps + 2) * sizeof(elem_t) + ((size_t)1 << 20);
    for (int i = 0; i < c->local; i++) {
        int d = c->R[i].L.device;
        size_t free_b = 0, total_b = 0;
        CUDA_CHECK(cudaSetDevice(d));
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        if (need[d] > free_b) {
            char gpu[300];
            snprintf(gpu, sizeof gpu, "GPU %d (%s, rank %d's)", d, dev[i].name, c->R[i].rank);
            memory_fail(n, need[d], free_b, gpu);
        }
    }
}

/* Every rank's streams and memory, and the input drawn into its shard. */
static void set_up(multi_run_t *c, size_t n, uint64_t seed, int max_reps, reference_t *ref)
{
    part_t parts[MAX_GPUS];
    c->on.count = c->team->virtual_ranks ? 1 : c->local;
    c->on.wait = c->team->virtual_ranks ? NULL : team_wait;   /* no NCCL to watch: plain waits */
    for (int i = 0; i < c->on.count; i++) {
        c->on.device[i] = c->R[i].L.device;
        CUDA_CHECK(cudaSetDevice(c->on.device[i]));
        CUDA_CHECK(cudaStreamCreateWithFlags(&c->on.stream[i], cudaStreamNonBlocking));
    }
    for (int i = 0; i < c->local; i++) {
        rank_t *R = &c->R[i];
        CUDA_CHECK(cudaSetDevice(R->L.device));
        c->d_in[i] = (elem_t *)device_alloc((size_t)c->copies * c->stride * sizeof(elem_t),
                                            "a shard of the input");
        c->d_slots[i] = (elem_t *)device_alloc((size_t)(max_reps + 2) * sizeof(elem_t), "the results");
        R->sums = (elem_t *)device_alloc(c->sums_bytes[i], "the chunk sums");
        R->L.scratch = R->sums;
        parts[i] = (part_t){ c->d_in[i], R->first, R->L.n, R->L.device, rank_stream(c, i) };
    }
    fill_parts(seed, n, c->step->chunk, parts, c->local, ref);
    for (int i = 0; i < c->local; i++) {
        CUDA_CHECK(cudaSetDevice(c->R[i].L.device));
        for (int k = 1; k < c->copies; k++)
            CUDA_CHECK(cudaMemcpyAsync(c->d_in[i] + (size_t)k * c->stride, c->d_in[i],
                                       c->R[i].L.n * sizeof(elem_t), cudaMemcpyDeviceToDevice,
                                       rank_stream(c, i)));
        CUDA_CHECK(cudaMemsetAsync(c->d_slots[i], POISON, (size_t)(max_reps + 2) * sizeof(elem_t),
                                   rank_stream(c, i)));
    }
}

static void tear_down(multi_run_t *c)
{
    for (int i = 0; i < c->local; i++) {
        CUDA_CHECK(cudaSetDevice(c->R[i].L.device));
        CUDA_CHECK(cudaFree(c->d_in[i]));
        CUDA_CHECK(cudaFree(c->d_slots[i]));
        CUDA_CHECK(cudaFree(c->R[i].sums));
    }
    for (int i = 0; i < c->on.count; i++) {
        CUDA_CHECK(cudaSetDevice(c->on.device[i]));
        CUDA_CHECK(cudaStreamDestroy(c->on.stream[i]));
    }
}

/* The checked run and (unless --check-only) a warm-up run, with no gate
 * (whatever runs them, a tool that serialises host functions included, sees
 * plain launches); returns how many, and the last one's time (host clock, for
 * choosing the number of timed runs) in *last_us. */
static int first_runs(multi_run_t *c, const options_t *opt, double *last_us)
{
    int runs = opt->check_only ? 1 : 2;
    c->timed = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = host_seconds();
        poison_sums(c, r);
        run_phases(c, r);
        if (c->on.wait) {
            c->on.wait(&c->on, r == 0 ? "in the checked run" : "in the warm-up run");
        } else {
            for (int i = 0; i < c->on.count; i++) {
                CUDA_CHECK(cudaSetDevice(c->on.device[i]));
                sync_or_fail(c->on.stream[i], r == 0 ? "in the checked run" : "in the warm-up run");
            }
        }
        *last_us = (host_seconds() - t0) * 1e6;
    }
    return runs;
}

/* Checks every local rank's results; the report is rank 0's, with the
 * slowest rank's times and every rank's verdict. */
static void check_ranks(multi_run_t *c, int runs, const reference_t *ref, uint64_t seed,
                        result_t *res)
{
    step_t as_step = { .name = c->step->name, .technique = c->step->technique, .deterministic = 1,
                       .combine = COMBINE_FIXED_ORDER, .chunk = c->step->chunk };
    elem_t *h = (elem_t *)malloc((size_t)runs * sizeof(elem_t));
    if (!h) device_fail("out of host memory for the results");
    int ok = 1;
    result_t first = *res;
    for (int i = 0; i < c->local; i++) {
        result_t mine = first;
        CUDA_CHECK(cudaSetDevice(c->R[i].L.device));
        CUDA_CHECK(cudaMemcpy(h, c->d_slots[i], (size_t)runs * sizeof(elem_t), cudaMemcpyDeviceToHost));
        check_runs(&as_step, h, runs, NULL, ref, seed, &mine);
        if (!mine.ok)
            fprintf(stderr, "%s: n = %zu, seed %llu: rank %d of %d was wrong\n", g_step, mine.n,
                    (unsigned long long)seed, c->R[i].rank, c->R[i].ranks);
        ok &= mine.ok;
        if (i == 0) *res = mine;
    }
    double bad = ok ? 0 : 1;               /* every process's verdict counts */
    team_max(c->team, &bad, 1);
    res->ok = bad == 0;
    free(h);
}

static int multi_one(const multi_step_t *step, const options_t *opt, const team_t *team,
                     const device_t *dev, size_t n, uint64_t seed)
{
    static multi_run_t c;                  /* large: not on the stack */
    memset(&c, 0, sizeof c);
    c.step = step;
    c.team = team;
    c.local = team->local;
    c.combine_only = opt->combine_only;
    int max_reps = opt->check_only ? 0 : (opt->reps ? opt->reps : DEFAULT_REPS);
    plan_ranks(&c, opt, dev, n, max_reps);
    reference_t ref;
    set_up(&c, n, seed, max_reps, &ref);

    double warm_us = 0;
    int runs = first_runs(&c, opt, &warm_us);
    int reps = 0;
    double *us = NULL;
    if (!opt->check_only) {
        reps = opt->reps;
        if (reps == 0) {
            reps = DEFAULT_REPS;
            double last = warm_us * 1e-6;
            if (last > SLOW_RUN_S) reps = (int)fmax(3, fmin(DEFAULT_REPS, 2.0 / last));
        }
        us = (double *)calloc((size_t)reps, sizeof *us);
        if (!us) device_fail("out of host memory for the timings");
        c.timed = 1;
        time_device_work(poison_sums, run_phases, &c, reps, us, &c.on);
        team_max(team, us, reps);          /* a run lasts as long as its slowest rank */
        runs = reps + 2;
    }

    result_t res = { .step = step->name, .technique = step->technique, .device = dev[0].name,
                     .n = n, .seed = seed, .block = c.R[0].L.block, .grid = c.R[0].L.grid,
                     .gpus = team->ranks, .reps = reps, .runs = runs, .warm = opt->warm,
                     .combine_only = opt->combine_only,
                     .peak_gbps = dev[0].peak_gbps * team->ranks };
    check_ranks(&c, runs, &ref, seed, &res);
    if (reps > 0) {
        qsort(us, (size_t)reps, sizeof *us, compare_double);
        res.min_us = us[0];
        res.median_us = reps % 2 ? us[reps / 2] : 0.5 * (us[reps / 2 - 1] + us[reps / 2]);
    }
    if (team->first == 0) {
        char line[1024];
        if (opt->csv) format_csv(line, sizeof line, &res);
        else format_report(line, sizeof line, &res);
        printf("%s\n", line);
        fflush(stdout);
    }
    free(us);
    tear_down(&c);
    return res.ok ? EXIT_OK : EXIT_WRONG;
}

/* ---- run_multi ----------------------------------------------------------------- */
static void print_header(const multi_step_t *step, const team_t *team, const device_t *d)
{
    const char *how = team->virtual_ranks ? "virtual ranks, one after another on one GPU (a test)"
                      : team->mpi ? "one process a GPU (mpirun)"
                      : team->ranks == 1 ? "one process" : "one process driving every GPU";
    printf("# %s on %d x %s (sm_%d%d, %d SMs, %.0f MB L2, nominal %.0f GB/s each), %s elements, "
           "%d rank%s: %s\n", step->name, team->virtual_ranks ? 1 : team->ranks, d->name,
           d->cc_major, d->cc_minor, d->sm_count, d->l2_bytes / 1e6, d->peak_gbps, ELEM_NAME,
           team->ranks, team->ranks == 1 ? "" : "s", how);
}

int run_multi(int argc, char **argv, const multi_step_t *step)
{
    g_step = step->name;
    if (step->chunk == 0 || step->chunk % 128 || step->chunk > ((size_t)1 << 24))
        device_fail("the step's chunk must be a multiple of 128 elements, at most 2^24");
    step_t as_step = { .name = step->name, .technique = step->technique,
                       .block_rule = BLOCK_POW2, .default_block = step->default_block };
    options_t opt;
    char err[512];
    allow_several_gpus();
    if (parse_args(argc, argv, BLOCK_POW2, &opt, err, sizeof err)) {
        fprintf(stderr, "%s: %s\nTry '%s --help'.\n", g_step, err, argv[0]);
        return EXIT_USAGE;
    }
    if (opt.help) {
        print_help(stdout, argv[0], &as_step);
        return EXIT_OK;
    }

    static team_t team;
    team_start(&team, &opt);
    static device_t dev[MAX_GPUS];
    for (int i = 0; i < team.local; i++) open_device_id(&dev[i], team.device[i]);
    if (team.first == 0) {
        if (opt.csv) {
            char header[512];
            format_csv_header(header, sizeof header);
            printf("%s\n", header);
        } else {
            print_header(step, &team, &dev[0]);
        }
        fflush(stdout);
    }

    int worst = EXIT_OK;
    for (int i = 0; i < opt.n_count; i++)
        for (int s = 0; s < opt.seed_count; s++) {
            int rc = multi_one(step, &opt, &team, dev, opt.n[i], opt.seed[s]);
            if (rc > worst) worst = rc;
        }
    team_finish(&team);
    for (int i = 0; i < team.local; i++) {          /* lets compute-sanitizer check for leaks */
        CUDA_CHECK(cudaSetDevice(team.device[i]));
        CUDA_CHECK(cudaDeviceReset());
    }
    return worst;
}
