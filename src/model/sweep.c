/* A group's measured sweep: a run's energy per token and the per-cap means
 * of a group's runs. The lowest file of the fit's data: fit.c (points,
 * freeing a fit's pooled sweeps), pool.c (sweep ends), loo.c and whatif.c
 * read it; it calls none of them. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "joules/model.h"
#include "model/model_internal.h"

double jl__model_run_energy(const jl_summary *s)
{
    double e = s->fig[JL_FIG_ENERGY_PER_TOKEN_J];
    return isfinite(e) ? e : s->fig[JL_FIG_AVG_POWER_W] / s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
}

void jl__model_sweep_clear(jl_sweep_means *s)
{
    if (!s)
        return;
    free(s->cap);
    free(s->ln_batch);
    free(s->ln_energy);
    memset(s, 0, sizeof *s);
}

int jl__model_sweep_of(const jl_model_group *g, jl_sweep_means *out)
{
    memset(out, 0, sizeof *out);
    size_t n = g->n_runs ? g->n_runs : 1;
    out->cap = malloc(n * sizeof *out->cap);
    out->ln_batch = malloc(n * sizeof *out->ln_batch);
    out->ln_energy = malloc(n * sizeof *out->ln_energy);
    if (!out->cap || !out->ln_batch || !out->ln_energy) {
        jl__model_sweep_clear(out);
        return -1;
    }
    /* runs are sorted by cap: one entry per run of consecutive equal caps,
     * the sums in list order */
    for (size_t i = 0; i < g->n_runs;) {
        long c = g->runs[i]->attrs.max_batch_size;
        double se = 0, sb = 0;
        size_t j = i;
        for (; j < g->n_runs && g->runs[j]->attrs.max_batch_size == c; j++) {
            se += log(jl__model_run_energy(g->runs[j]));
            sb += log(g->runs[j]->fig[JL_FIG_AVG_BATCH_SIZE]);
        }
        out->cap[out->n] = c;
        out->ln_energy[out->n] = se / (double)(j - i);
        out->ln_batch[out->n] = sb / (double)(j - i);
        out->n++;
        i = j;
    }
    return 0;
}
