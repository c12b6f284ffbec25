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

void format_csv_header(char *buf, size_t len)
{
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
