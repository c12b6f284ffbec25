/* multi.c: run_multi() (multi.h), one sum over several GPUs.
 *
 *   options     --gpus, --combine-only (and, in the tests' build, --virtual-ranks)
 *   plan        shards, launch shapes and memory, rank by rank
 *   one run     the step's phases on every local rank: the work the driver
 *               (timing.c) runs and times, as it does for one GPU
 *   checks      every rank's result, against the reference of the whole array
 *   run_multi   arguments, ranks, then every size and seed
 */
#define _POSIX_C_SOURCE 200809L    /* getenv in the tests' build */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../parts.h"
#include "team.h"

/* ---- options -------------------------------------------------------------------- */
static int g_gpus, g_virtual, g_combine_only;

static int set_gpus(const char *v, char *why, size_t len)
{
    uint64_t g = 0;
    int rc = parse_count(v, 1024, &g, why, len);
    g_gpus = (int)g;
    return rc;
}
static int set_combine_only(const char *v, char *why, size_t len)
{
    (void)v, (void)why, (void)len;
    g_combine_only = 1;
    return 0;
}
#ifdef VIRTUAL_RANKS
static int set_virtual(const char *v, char *why, size_t len)
{
    uint64_t g = 0;
    int rc = parse_count(v, MAX_GPUS, &g, why, len);
    g_virtual = (int)g;
    return rc;
}
#endif

static const extra_option_t extra[] = {
    { "--gpus", "G", "use the first G GPUs (default: every GPU; under mpirun,\n"
      "                     one GPU a process, and G must be the number of processes)", set_gpus },
    { "--combine-only", NULL, "time only the combine (the collective and the total)\n"
      "                     of what the local phase computed once", set_combine_only },
#ifdef VIRTUAL_RANKS    /* the tests' build (team.h): G ranks on GPU 0, through a stand-in NCCL */
    { "--virtual-ranks", "G", "for the tests: G ranks, one after another on GPU 0", set_virtual },
#endif
};

/* ---- one run ---------------------------------------------------------------------- */
typedef struct {
    const multi_step_t *step;
    const team_t *team;
    rank_t R[MAX_GPUS];
    elem_t *d_in[MAX_GPUS];      /* each rank's shard, `copies` times */
    elem_t *d_slots[MAX_GPUS];   /* each rank's result of every run */
    size_t stride;               /* elements between copies of a shard */
    size_t sums_bytes[MAX_GPUS];
    int slots;
    work_t work;
} multi_run_t;

/* Before every run: every rank's sums poisoned (but the chunk sums of the
 * checked run stay for timed runs of the combine alone). */
static void poison_sums(void *ctx, int slot)
{
    multi_run_t *c = (multi_run_t *)ctx;
    if (g_combine_only && slot >= 2) return;
    for (int i = 0; i < c->team->local; i++) {
        if (!c->sums_bytes[i]) continue;
        CUDA_CHECK(cudaSetDevice(c->R[i].L.device));
        CUDA_CHECK(cudaMemsetAsync(c->R[i].sums, POISON, c->sums_bytes[i], c->work.stream[i]));
    }
}

/* One run over every local rank: the step's three phases. */
static void run_phases(void *ctx, int slot, int copy)
{
    multi_run_t *c = (multi_run_t *)ctx;
    const multi_step_t *step = c->step;
    int local = c->team->local;
    if (!(g_combine_only && slot >= 2))
        for (int i = 0; i < local; i++) {
            const elem_t *in = c->d_in[i] + (size_t)copy * c->stride;
#ifdef INJECT_FAULT     /* the tests' build: REDUCE_FAULT_RANK=r faults rank r's timed runs */
            const char *e = getenv("REDUCE_FAULT_RANK");
            if (slot >= 2 && e && atoi(e) == c->R[i].rank) in = (const elem_t *)(uintptr_t)256;
#endif
            CUDA_CHECK(cudaSetDevice(c->R[i].L.device));
            step->local(in, &c->R[i], c->d_slots[i] + slot, c->work.stream[i]);
        }
    step->collective(c->team, c->R, c->work.stream);
    for (int i = 0; i < local; i++) {
        CUDA_CHECK(cudaSetDevice(c->R[i].L.device));
        step->total(&c->R[i], c->d_slots[i] + slot, c->work.stream[i]);
    }
}

static void wait_ranks(void *ctx, const char *when)
{
    multi_run_t *c = (multi_run_t *)ctx;
    team_wait(c->team, c->work.stream, c->team->local, when);
}

static void agree(void *ctx, double *us, int reps)
{
    team_max(((multi_run_t *)ctx)->team, us, reps);
}

/* ---- plan ------------------------------------------------------------------------------ */
/* Shards, launch shapes and memory, rank by rank; stops, saying which GPU,
 * when one of them has too little memory. */
static void plan_ranks(multi_run_t *c, const options_t *opt, const device_t *dev, size_t n)
{
    const multi_step_t *step = c->step;
    const team_t *t = c->team;
    size_t need[MAX_GPUS] = { 0 }, largest = 1;
    for (int i = 0; i < t->local; i++) {
        shard_t sh;
        rank_t *R = &c->R[i];
        shard_of(n, step->chunk, t->ranks, t->first + i, &sh);
        *R = (rank_t){ .L = { .n = sh.count, .block = opt->block, .device = t->device[i],
                              .sm_count = dev[i].sm_count },
                       .rank = t->first + i, .ranks = t->ranks, .n = n, .first = sh.first,
                       .chunks = sh.chunks, .per_rank = sh.per_rank };
        CUDA_CHECK(cudaSetDevice(t->device[i]));     /* the step may ask (or set) its kernels' */
        if (!R->L.block)                             /* attributes on the rank's GPU */
            R->L.block = step->block_size ? step->block_size(&R->L) : step->default_block;
        if (sh.count)
            R->L.grid = (int)checked_grid(step->grid_size(&R->L), opt->grid, sh.count, R->L.block,
                                        step->max_grid, &dev[i]);
        c->sums_bytes[i] = step->sums_size(R);
        if (sh.count > largest) largest = sh.count;
    }
    c->stride = div_up(largest, 64) * 64;                    /* 256-byte aligned copies */
    c->work.copies = input_copies(opt, largest * sizeof(elem_t), dev[0].l2_bytes);
    c->slots = (opt->check_only ? 0 : opt->reps ? opt->reps : DEFAULT_REPS) + 2;
    for (int i = 0; i < t->local; i++)
        need[t->device[i]] += (size_t)c->work.copies * c->stride * sizeof(elem_t) + c->sums_bytes[i] +
                              step->state_bytes + (size_t)c->slots * sizeof(elem_t) + ((size_t)1 << 20);
    for (int i = 0; i < t->local; i++) {
        char gpu[300];
        snprintf(gpu, sizeof gpu, "GPU %d (%s, rank %d's)", t->device[i], dev[i].name, c->R[i].rank);
        CUDA_CHECK(cudaSetDevice(t->device[i]));
        check_memory(n, need[t->device[i]], gpu);
    }
}

/* Every rank's stream and memory, and the input drawn into its shard. */
static void set_up(multi_run_t *c, size_t n, const source_t *src, reference_t *ref)
{
    const team_t *t = c->team;
    part_t parts[MAX_GPUS];
    c->work = (work_t){ .ctx = c, .count = t->local, .copies = c->work.copies, .prepare = poison_sums,
                        .run = run_phases, .wait = wait_ranks, .agree = agree };
    for (int i = 0; i < t->local; i++) {
        rank_t *R = &c->R[i];
        c->work.device[i] = t->device[i];
        CUDA_CHECK(cudaSetDevice(t->device[i]));
        CUDA_CHECK(cudaStreamCreateWithFlags(&c->work.stream[i], cudaStreamNonBlocking));
        c->d_in[i] = (elem_t *)device_alloc((size_t)c->work.copies * c->stride * sizeof(elem_t),
                                            "a shard of the input");
        c->d_slots[i] = (elem_t *)device_alloc((size_t)c->slots * sizeof(elem_t), "the results");
        R->sums = c->sums_bytes[i] ? device_alloc(c->sums_bytes[i], "the step's sums") : NULL;
        R->L.scratch = R->sums;
        R->L.state = c->step->state_bytes ? device_alloc(c->step->state_bytes, "the step's state") : NULL;
        parts[i] = (part_t){ c->d_in[i], R->first, R->L.n, t->device[i], c->work.stream[i] };
    }
    fill_parts(src, n, c->step->combine == COMBINE_FIXED_ORDER ? c->step->chunk : 0, parts,
               t->local, ref);
    for (int i = 0; i < t->local; i++) {
        cudaStream_t s = c->work.stream[i];
        CUDA_CHECK(cudaSetDevice(t->device[i]));
        for (int k = 1; k < c->work.copies; k++)
            CUDA_CHECK(cudaMemcpyAsync(c->d_in[i] + (size_t)k * c->stride, c->d_in[i],
                                       c->R[i].L.n * sizeof(elem_t), cudaMemcpyDeviceToDevice, s));
        CUDA_CHECK(cudaMemsetAsync(c->d_slots[i], POISON, (size_t)c->slots * sizeof(elem_t), s));
        if (c->R[i].L.state) CUDA_CHECK(cudaMemsetAsync(c->R[i].L.state, 0, c->step->state_bytes, s));
    }
}

static void tear_down(multi_run_t *c)
{
    for (int i = 0; i < c->team->local; i++) {
        CUDA_CHECK(cudaSetDevice(c->R[i].L.device));
        CUDA_CHECK(cudaFree(c->d_in[i]));
        CUDA_CHECK(cudaFree(c->d_slots[i]));
        if (c->R[i].sums) CUDA_CHECK(cudaFree(c->R[i].sums));
        if (c->R[i].L.state) CUDA_CHECK(cudaFree(c->R[i].L.state));
        CUDA_CHECK(cudaStreamDestroy(c->work.stream[i]));
    }
}

/* ---- checks ------------------------------------------------------------------------------ */
/* Rank i's verdict: every run's result, and its state left as it was found. */
static int rank_ok(const multi_run_t *c, int i, int runs, const reference_t *ref, result_t *res)
{
    rule_t rule = { c->step->combine, c->step->chunk, 1 };
    size_t state = c->step->state_bytes;
    elem_t *h = (elem_t *)malloc((size_t)runs * sizeof(elem_t) + state);
    if (!h) device_fail("out of host memory for the results");
    CUDA_CHECK(cudaSetDevice(c->R[i].L.device));
    CUDA_CHECK(cudaMemcpy(h, c->d_slots[i], (size_t)runs * sizeof(elem_t), cudaMemcpyDeviceToHost));
    check_runs(&rule, h, runs, ref, res);
    if (state) {
        unsigned char *s = (unsigned char *)(h + runs);
        CUDA_CHECK(cudaMemcpy(s, c->R[i].L.state, state, cudaMemcpyDeviceToHost));
        for (size_t k = 0; k < state; k++)
            if (s[k]) { fprintf(stderr, "%s: rank %d left its state changed\n", g_step, c->R[i].rank); res->ok = 0; break; }
    }
    free(h);
    if (!res->ok)
        fprintf(stderr, "%s: n = %zu, seed %llu: rank %d of %d was wrong\n", g_step, res->n,
                (unsigned long long)res->seed, c->R[i].rank, c->R[i].ranks);
    return res->ok;
}

/* Every local rank's results; the report is rank 0's, with every rank's verdict. */
static void check_ranks(const multi_run_t *c, int runs, const reference_t *ref, result_t *res)
{
    result_t first = *res;
    int ok = 1;
    for (int i = 0; i < c->team->local; i++) {
        result_t mine = first;
        ok &= rank_ok(c, i, runs, ref, &mine);
        if (i == 0) *res = mine;
    }
    double bad = ok ? 0 : 1;               /* every process's verdict counts */
    team_max(c->team, &bad, 1);
    res->ok = bad == 0;
}

static int multi_one(const multi_step_t *step, const options_t *opt, const team_t *team,
                     const device_t *dev, size_t n, const source_t *src)
{
    static multi_run_t c;                  /* large: not on the stack */
    memset(&c, 0, sizeof c);
    c.step = step;
    c.team = team;
    plan_ranks(&c, opt, dev, n);
    if (g_combine_only && !c.sums_bytes[0]) {        /* one rank of a step that combines in its kernel */
        fprintf(stderr, "%s: --combine-only: with %d rank this step has no combine apart from its kernel\n",
                g_step, team->ranks);
        exit_cleanly(EXIT_USAGE);
    }
    static reference_t ref;
    set_up(&c, n, src, &ref);
    timing_t t;
    measure(&c.work, opt, &t);
    result_t res = { .step = step->name, .technique = step->technique, .device = dev[0].name,
                     .input = src->file ? src->file->path : dist_info[src->dist].name,
                     .n = n, .seed = src->seed, .block = c.R[0].L.block, .grid = c.R[0].L.grid,
                     .gpus = team->ranks, .reps = t.reps, .runs = t.runs, .warm = opt->warm, .waited = opt->wait_each,
                     .read_nothing = g_combine_only, .median_us = t.median_us, .min_us = t.min_us,
                     .peak_gbps = dev[0].peak_gbps * team->ranks };
    check_ranks(&c, t.runs, &ref, &res);
    if (team->first == 0) print_result(opt, &res);
    tear_down(&c);
    return res.ok ? EXIT_OK : EXIT_WRONG;
}

/* ---- run_multi ---------------------------------------------------------------------------- */
static team_t g_team;
static device_t g_dev[MAX_GPUS];

static int check_options(driver_t *d, int argc, char **argv, const options_t *opt, const infile_t *file)
{
    (void)d, (void)argc, (void)opt, (void)file;
    if (!(g_gpus && g_virtual)) return EXIT_OK;
    fprintf(stderr, "%s: --gpus and --virtual-ranks do not go together (virtual ranks share "
            "one GPU)\nTry '%s --help'.\n", g_step, argv[0]);
    return EXIT_USAGE;
}

static const device_t *open_team(driver_t *d, const options_t *opt, const char **how)
{
    (void)opt;
    team_t *t = &g_team;
    team_start(t, (const multi_step_t *)d->ctx, g_virtual ? g_virtual : g_gpus);
    for (int i = 0; i < t->local; i++) open_device_id(&g_dev[i], t->device[i]);
    static char text[128];
    snprintf(text, sizeof text, "%d rank%s: %s", t->ranks, t->ranks == 1 ? "" : "s",
             g_virtual ? "virtual ranks on one GPU (a test)" : t->mpi ? "one process a GPU (mpirun)"
             : t->ranks == 1 ? "one process" : "one process driving every GPU");
    *how = text;
    return t->first == 0 ? &g_dev[0] : NULL;
}

static int team_one(driver_t *d, const options_t *opt, int i, const source_t *src)
{
    return multi_one((const multi_step_t *)d->ctx, opt, &g_team, g_dev, opt->n[i], src);
}

static void close_team(driver_t *d)
{
    (void)d;
    team_finish(&g_team);
    for (int i = 0; i < g_team.local; i++) {          /* lets compute-sanitizer check for leaks */
        CUDA_CHECK(cudaSetDevice(g_team.device[i]));
        CUDA_CHECK(cudaDeviceReset());
    }
}

int run_multi(int argc, char **argv, const multi_step_t *step)
{
    g_step = step->name;
    if (step->chunk == 0 || step->chunk > ((size_t)1 << 24))
        device_fail("the step's chunk must be 1 to 2^24 elements");
    driver_t d = { .prog = { step->name, step->technique, BLOCK_POW2, step->default_block,
                             step->block_size != NULL, 0, 0 },
                   .extra = extra, .extra_count = (int)(sizeof extra / sizeof extra[0]), .ctx = (void *)step,
                   .after_options = check_options, .open = open_team, .one = team_one, .close = close_team };
    return drive(argc, argv, &d);
}
