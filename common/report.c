/* report.c: one line per run, for people or (with --csv) for scripts.
 *
 * The human line always has the same fields in the same order, split by '|':
 *   step | technique | n (bytes) | time | bandwidth | sum and error | OK/WRONG | determinism
 */
#include <inttypes.h>
#include <string.h>

#include "parts.h"

double result_gbps(const result_t *r)
{
    /* Bandwidth = bytes read / time: n elements of 4 bytes, each read once.
     * 1 GB/s is 1e9 bytes per second, as in memory datasheets. */
    if (r->reps == 0 || r->median_us <= 0 || r->read_nothing) return 0;
    return (double)r->n * sizeof(elem_t) / (r->median_us * 1e-6) / 1e9;
}

/* 1234567 bytes -> "1.23 MB" (powers of 1000, like GB/s). */
static void human_bytes(char *buf, size_t len, double bytes)
{
    const char *unit[] = { "B", "KB", "MB", "GB", "TB" };
    int u = 0;
    while (bytes >= 1000 && u < 4) { bytes /= 1000; u++; }
    if (u == 0) snprintf(buf, len, "%.0f B", bytes);
    else snprintf(buf, len, "%.2f %s", bytes, unit[u]);
}

/* Microseconds below 10 ms, milliseconds above. */
static void human_time(char *buf, size_t len, double us)
{
    if (us < 10000) snprintf(buf, len, "%.2f us", us);
    else snprintf(buf, len, "%.2f ms", us / 1000);
}

static void determinism_text(char *buf, size_t len, const result_t *r)
{
    int runs = r->runs;
    if (r->replica_checked) {      /* the order is fixed by n: say how far that reaches */
        snprintf(buf, len, "same bits on any GPU, grid and block: %s (%d run%s, %s the CPU "
                 "replica of the order)", r->replica_equal ? "yes" : "NO", runs,
                 runs == 1 ? "" : "s", r->replica_equal ? "equal to" : "not all equal to");
        return;
    }
    const char *word = r->declared_deterministic ? "yes" : "no";
    if (runs <= 1)
        snprintf(buf, len, "deterministic: %s (1 run)", word);
    else if (r->distinct == 1)
        snprintf(buf, len, "deterministic: %s (%d runs, all identical)", word, runs);
    else
        snprintf(buf, len, "deterministic: %s (%d runs, %d distinct, spread %.0f ulp)",
                 word, runs, r->distinct, r->spread_ulp);
}

void format_report(char *buf, size_t len, const result_t *r)
{
    char bytes[32], timing[128], bandwidth[64], sum[160], det[128], med[32], min[32], gpus[32] = "";
    human_bytes(bytes, sizeof bytes, (double)r->n * sizeof(elem_t));
    if (r->gpus) snprintf(gpus, sizeof gpus, " on %d GPU%s", r->gpus, r->gpus == 1 ? "" : "s");
    if (r->reps > 0) {
        human_time(med, sizeof med, r->median_us);
        human_time(min, sizeof min, r->min_us);
        snprintf(timing, sizeof timing, "median %s, min %s%s%s", med, min, r->warm ? " (warm L2)" : "",
                 r->waited ? " (each run waited for)" : "");
        double gbps = result_gbps(r);
        if (r->read_nothing)
            snprintf(bandwidth, sizeof bandwidth, "the combine alone: no element read");
        else if (r->peak_gbps > 0)
            snprintf(bandwidth, sizeof bandwidth, "%.0f GB/s, %.1f%% of peak", gbps,
                     100 * gbps / r->peak_gbps);
        else    /* the driver did not give the memory clock or bus width */
            snprintf(bandwidth, sizeof bandwidth, "%.0f GB/s, peak unknown", gbps);
    } else {
        snprintf(timing, sizeof timing, "not timed");
        snprintf(bandwidth, sizeof bandwidth, "-");
    }
#ifdef REDUCE_EXACT
    snprintf(sum, sizeof sum, "sum %" PRIu32 " (exact %" PRIu32 ")", (uint32_t)r->sum, r->reference_bits);
#else
    snprintf(sum, sizeof sum, "sum %.9g (exact %.9g) err %.1e, bound %.1e%s", (double)r->sum,
             r->reference, r->error, r->bound,
             r->overflow ? " (partial sums may overflow: inf or NaN accepted)" : "");
#endif
    char input[300] = "";
    if (r->input && strcmp(r->input, "uniform") != 0) snprintf(input, sizeof input, ", %s", r->input);
    determinism_text(det, sizeof det, r);
    snprintf(buf, len, "%s | %s | n %zu (%s%s)%s | %s | %s | %s | %s | %s", r->step, r->technique,
             r->n, bytes, input, gpus, timing, bandwidth, sum, r->ok ? "OK" : "WRONG", det);
}

void format_csv_header(char *buf, size_t len, int rows)
{
    if (rows) {
        snprintf(buf, len, "step,technique,elem,device,rows,len,n,bytes,seed,block,grid,reps,runs,median_us,"
                 "min_us,gbps,pct_peak,worst_row,worst_error,worst_bound,rows_wrong,status,"
                 "deterministic,distinct,replica,input,l2");
        return;
    }
    snprintf(buf, len,
             "step,technique,elem,device,n,bytes,seed,block,grid,reps,runs,median_us,min_us,"
             "gbps,pct_peak,sum,reference,error,bound,status,deterministic,distinct,spread_ulp,l2,"
             "replica,gpus,depth,input,sum_hex,reference_hex,overflow,abs_sum");
}

/* Text fields are quoted, with inner quotes doubled (RFC 4180). */
static void csv_text(char *buf, size_t len, const char *s)
{
    size_t o = 0;
    if (len < 3) { if (len) buf[0] = '\0'; return; }
    buf[o++] = '"';
    for (; *s && o + 3 < len; s++) {
        if (*s == '"') buf[o++] = '"';
        buf[o++] = *s;
    }
    buf[o++] = '"';
    buf[o] = '\0';
}

void format_csv(char *buf, size_t len, const result_t *r)
{
    char tech[160], dev[160], input[300], sum[64], ref[64], err[32], bound[32], hex[80];
    csv_text(tech, sizeof tech, r->technique);
    csv_text(dev, sizeof dev, r->device);
    csv_text(input, sizeof input, r->input ? r->input : "uniform");
    uint32_t sum_bits;
    memcpy(&sum_bits, &r->sum, sizeof sum_bits);
#ifdef REDUCE_EXACT
    snprintf(sum, sizeof sum, "%" PRIu32, (uint32_t)r->sum);
    snprintf(ref, sizeof ref, "%" PRIu32, r->reference_bits);
    snprintf(err, sizeof err, "%" PRIu32, (uint32_t)r->sum - r->reference_bits);
    snprintf(bound, sizeof bound, "0");
    snprintf(hex, sizeof hex, "0x%08x,0x%08x,no,0", sum_bits, r->reference_bits);
#else
    snprintf(hex, sizeof hex, "0x%08x,0x%08x,%s,%.17g", sum_bits, r->reference_bits,
             r->overflow ? "yes" : "no", r->abs_sum);
    snprintf(sum, sizeof sum, "%.9g", (double)r->sum);
    snprintf(ref, sizeof ref, "%.17g", r->reference);
    snprintf(err, sizeof err, "%.3g", r->error);
    snprintf(bound, sizeof bound, "%.3g", r->bound);
#endif
    double gbps = result_gbps(r);
    snprintf(buf, len,
             "%s,%s,%s,%s,%zu,%zu,%" PRIu64 ",%d,%d,%d,%d,%.3f,%.3f,%.1f,%.2f,%s,%s,%s,%s,%s,%s,%d,%.0f,%s,%s,%d,%.0f,"
             "%s,%s",
             r->step, tech, ELEM_NAME, dev, r->n, r->n * sizeof(elem_t), r->seed, r->block,
             r->grid, r->reps, r->runs, r->median_us, r->min_us, gbps,
             r->peak_gbps > 0 ? 100 * gbps / r->peak_gbps : 0.0, sum, ref, err, bound,
             r->ok ? "OK" : "WRONG", r->declared_deterministic ? "yes" : "no", r->distinct,
             r->spread_ulp, r->warm ? "warm" : "cold",
             !r->replica_checked ? "-" : r->replica_equal ? "equal" : "differs",
             r->gpus ? r->gpus : 1, r->depth, input, hex);
}

void print_result(const options_t *opt, const result_t *r)
{
    char line[2048];
    if (opt->csv) format_csv(line, sizeof line, r);
    else format_report(line, sizeof line, r);
    printf("%s\n", line);
    fflush(stdout);
}

/* ---- a sum for every row ------------------------------------------------------------ */
void print_rows_result(const options_t *opt, const rows_result_t *r)
{
    size_t n = r->rows * r->len;
    const char *status = r->wrong ? "WRONG" : "OK";
    double bytes = (double)(n + r->rows) * sizeof(elem_t);     /* read once, every row sum written */
    double gbps = r->reps && r->median_us > 0 ? bytes / (r->median_us * 1e-6) / 1e9 : 0;
    double pct = r->peak_gbps > 0 ? 100 * gbps / r->peak_gbps : 0;
    if (opt->csv) {
        printf("\"%s\",\"%s\",%s,\"%s\",%zu,%zu,%zu,%.0f,%llu,%d,%d,%d,%d,%.3f,%.3f,%.1f,%.2f,%zu,"
               "%.6g,%.6g,%zu,%s,%d,%d,%s,\"%s\",%s\n", r->step, r->technique, ELEM_NAME, r->device, r->rows,
               r->len, n, bytes, (unsigned long long)r->seed, r->block, r->grid, r->reps, r->runs,
               r->median_us, r->min_us, gbps, pct, r->worst_row, r->worst_error, r->worst_bound, r->wrong,
               status, r->deterministic, r->distinct, r->fixed ? (r->replica_equal ? "equal" : "differs") : "-",
               r->input, r->warm ? "warm" : "cold");
        return;
    }
    char timing[128] = "not timed", bw[64] = "-", worst[96], det[200], runs[64];
    if (r->reps) {
        snprintf(timing, sizeof timing, "median %.2f us, min %.2f us%s%s", r->median_us, r->min_us,
                 r->warm ? " (warm L2)" : "", r->waited ? " (each run waited for)" : "");
        snprintf(bw, sizeof bw, "%.0f GB/s, %.1f%% of peak", gbps, pct);
    }
#ifdef REDUCE_EXACT
    snprintf(worst, sizeof worst, "every row its exact sum: %s", r->wrong ? "NO" : "yes");
#else
    snprintf(worst, sizeof worst, "worst row %zu: err %.1e, bound %.1e", r->worst_row, r->worst_error,
             r->worst_bound);
#endif
    if (r->kept < r->runs)     /* the sums outgrew the slots: runs shared them */
        snprintf(runs, sizeof runs, "%d runs, the last %d kept", r->runs, r->kept);
    else
        snprintf(runs, sizeof runs, "%d run%s", r->runs, r->runs == 1 ? "" : "s");
    if (r->fixed)
        snprintf(det, sizeof det, "same bits on any GPU, grid, block and batch: %s (every row, %s, "
                 "%s the CPU replica)", r->replica_equal && r->distinct <= 1 ? "yes" : "NO", runs,
                 r->replica_equal ? "equal to" : "not all equal to");
    else
        snprintf(det, sizeof det, "deterministic: %s (%s, at most %d result%s a row)",
                 r->deterministic ? "yes" : "no", runs, r->distinct, r->distinct == 1 ? "" : "s");
    int other = strcmp(r->input, "uniform") != 0;
    printf("%s | %s | %zu x %zu (%.2f GB%s%s) | %s | %s | %s | %s | %s\n", r->step, r->technique, r->rows,
           r->len, (double)n * sizeof(elem_t) / 1e9, other ? ", " : "", other ? r->input : "", timing, bw,
           worst, status, det);
    fflush(stdout);
}
