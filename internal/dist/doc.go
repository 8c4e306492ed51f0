// Package dist holds the one percentile rule of leasesim and the
// mergeable histogram that sweep summaries keep their distributions in.
//
// [Quantile] is the nearest-rank q-quantile of sorted samples; [Rank] is the
// rank it picks, which [Histogram.Quantile] uses too, so an exact
// percentile and a histogram's percentile mean the same thing.
//
// A [Histogram] of durations has a fixed size whatever it counts: log
// buckets (HdrHistogram, two significant figures, so a quantile is within
// 1% of the exact one), exact counts, exact minimum and maximum, and a
// merge that gives the same histogram in any order. Its JSON lists only
// the non-zero buckets.
package dist
