/* prom_text.h — the Prometheus text exposition format (version 0.0.4), as
 * vLLM's /metrics writes it: `# HELP` / `# TYPE` comments, samples
 * `name{label="value",...} value [timestamp]` with escaped label values,
 * histograms and summaries as their _bucket/_sum/_count samples. Internal
 * to src/import/. */
#ifndef JOULES_IMPORT_PROM_TEXT_H
#define JOULES_IMPORT_PROM_TEXT_H

#include <stddef.h>

/* Sum of every sample of metric `names[k]` (exact name, any labels: one per
 * engine, summed) into sum[k], with count[k] samples. Returns 0, or -1 with
 * the 1-based line and a message for a malformed line. */
int jl__prom_sums(const char *text, size_t len, const char *const *names, size_t n_names,
                  double *sum, size_t *count, long *bad_line, char *msg, size_t msg_cap);

#endif
