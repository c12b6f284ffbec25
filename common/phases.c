/* phases.c: one run of a step on several GPUs, phase by phase (step 09):
 * every rank's local sums, then the gather (one NCCL group, or copies for
 * virtual ranks), then every rank's total; and the poison before each run.
 * multi.c plans, times and checks the runs; ranks.c holds the communicators.
 */
#include <stdint.h>
#include <stdlib.h>

#include "parts.h"

/* For the tests only: REDUCE_FAULT_RANK=r hands rank r's kernel a shard at a
 * bad address in the timed runs, so that its GPU work faults mid-run and the
 * tests can watch the other ranks stop (tests/multi.sh). */
static int fault_rank(void)
{
    static int rank = -2;
    if (rank == -2) {
        const char *e = getenv("REDUCE_FAULT_RANK");
        rank = e && *e ? (int)strtol(e, NULL, 10) : -1;
    }
    return rank;
}

/* ---- the phases -------------------------------------------------------------- */
/* Virtual ranks: what the all-gather would do, by copies on the one stream
 * they share: every rank's slots to every rank's gathered array. */
static void gather_by_copies(multi_run_t *c)
{
    size_t bytes = c->R[0].per_rank * sizeof(elem_t);
    for (int i = 0; i < c->local; i++)
        for (int j = 0; j < c->local; j++)
            if (i != j)
                CUDA_CHECK(cudaMemcpyAsync(c->R[i].sums + (size_t)j * c->R[j].per_rank,
                                           c->R[j].sums + (size_t)j * c->R[j].per_rank, bytes,
                                           cudaMemcpyDeviceToDevice, rank_stream(c, i)));
}

void poison_sums(void *ctx, int r)
{
    multi_run_t *c = (multi_run_t *)ctx;
    (void)r;
    if (c->combine_only && c->timed) return;    /* the checked run's chunk sums stay */
    for (int i = 0; i < c->local; i++) {
        CUDA_CHECK(cudaSetDevice(c->R[i].L.device));
        CUDA_CHECK(cudaMemsetAsync(c->R[i].sums, POISON, c->sums_bytes[i], rank_stream(c, i)));
    }
}

/* One run over every rank. The checked and warm-up runs (r = 0, 1) read copy
 * 0 of each shard and write slots 0 and 1; timed run r reads copy
 * (r + 1) % copies, so that a small input is not still in L2, and writes
 * slot 2 + r. */
void run_phases(void *ctx, int r)
{
    multi_run_t *c = (multi_run_t *)ctx;
    const multi_step_t *step = c->step;
    size_t copy = c->timed ? (size_t)((r + 1) % c->copies) : 0;
    size_t slot = c->timed ? (size_t)r + 2 : (size_t)r;
    if (!(c->combine_only && c->timed))
        for (int i = 0; i < c->local; i++) {
            const elem_t *in = c->d_in[i] + copy * c->stride;
            if (c->timed && c->R[i].rank == fault_rank())
                in = (const elem_t *)(uintptr_t)256;   // NOLINT(performance-no-int-to-ptr): on purpose
            CUDA_CHECK(cudaSetDevice(c->R[i].L.device));
            step->local(in, &c->R[i], rank_stream(c, i));
        }
    if (c->team->virtual_ranks) {
        gather_by_copies(c);
    } else {
        team_group_start(c->team);
        for (int i = 0; i < c->local; i++) {
            CUDA_CHECK(cudaSetDevice(c->R[i].L.device));
            step->gather(&c->R[i], rank_stream(c, i));
        }
        team_group_end(c->team);
    }
    for (int i = 0; i < c->local; i++) {
        CUDA_CHECK(cudaSetDevice(c->R[i].L.device));
        step->total(&c->R[i], c->d_slots[i] + slot, rank_stream(c, i));
    }
}
