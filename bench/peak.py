"""peak.py: the nominal peak and a row's GB/s, read back from the harness's CSV.

The harness knows the nominal peak (memory clock x 2 x bus width, from the
device attributes) but writes only what it divides by it: each row has gbps
(one decimal), pct_peak (two decimals), bytes and median_us (three
decimals). One row gives the peak to about a part in ten thousand, and two
rows rounded differently can name two peaks a whole GB/s apart (3352 and
3353). So every table and plot takes it from all the rows at once:

    each row says the peak lies between 100 * gbps_low / pct_high and
    100 * gbps_high / pct_low, where gbps is known from both the gbps column
    and bytes / median_us, each to within its rounding; the rows together
    say it lies in the intersection of those ranges, a few hundredths of a
    GB/s wide; the peak is its middle.

bench/compare_tables.py writes it to results/<gpu>/peak.csv for the course pages.
A row's GB/s is shown as bytes / median_us, which has more digits than the
gbps column: 4096 bytes in 7.392 us are 0.55 GB/s, where the column says 0.6.
"""


def gbps_of(row):
    """The row's GB/s: bytes / median_us where both are there, else its gbps column."""
    try:
        b, us = float(row["bytes"]), float(row["median_us"])
        if b > 0 and us > 0:
            return b / us / 1e3
    except (KeyError, TypeError, ValueError):
        pass
    return float(row["gbps"])


LIB_ROWS = ("torch.sum", "cupy.sum")    # rows that imitate the harness's: not counted


def peak_bounds(rows):
    """(low, high): the nominal peak of one GPU that every row allows, or None."""
    low, high = 0.0, float("inf")
    for r in rows:
        if r.get("step") in LIB_ROWS:
            continue
        try:
            g, p = float(r["gbps"]), float(r["pct_peak"])
            b, us = float(r["bytes"]), float(r["median_us"])
            gpus = int(r.get("gpus") or 1)
        except (KeyError, TypeError, ValueError):
            continue
        if p <= 0.005 or g <= 0 or us <= 0.0005 or b <= 0:
            continue
        g_low = max(g - 0.05, b / (us + 0.0005) / 1e3)
        g_high = min(g + 0.05, b / (us - 0.0005) / 1e3)
        low = max(low, 100 * g_low / (p + 0.005) / gpus)
        high = min(high, 100 * g_high / (p - 0.005) / gpus)
    return (low, high) if high < float("inf") else None


def nominal_peak(rows):
    """The nominal peak in GB/s (0 if no row has one). Should the rows not
    agree (no range fits all), the row with the largest share of the peak,
    whose digits say the most, decides alone."""
    bounds = peak_bounds(rows)
    if bounds and bounds[0] <= bounds[1]:
        return (bounds[0] + bounds[1]) / 2
    best = max((r for r in rows if _float(r.get("pct_peak")) > 0),
               key=lambda r: _float(r.get("pct_peak")), default=None)
    if best is None:
        return 0.0
    return 100 * float(best["gbps"]) / float(best["pct_peak"]) / int(best.get("gpus") or 1)


def _float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0


def gbps_text(g):
    """GB/s with the digits it deserves: 0.55, 46.3, 3083."""
    if g < 10:
        return f"{g:.2f}"
    if g < 100:
        return f"{g:.1f}"
    return f"{g:.0f}"
