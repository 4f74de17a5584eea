/* Pooled sweep ends (docs/model-design.md §4, "Sweep ends"; docs/model.md):
 * one predictor for a batch outside a group's measured range, used by the
 * leave-one-out (loo.c) and by every prediction of a fit with its siblings
 * attached (jl_model_fit_pool, called by fit.c's jl_model_fit_groups;
 * predict.c). It stands on sweep.c and core.c only. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "joules/model.h"
#include "model/model_internal.h"

/* index of cap c in s, or -1 */
static long find_cap(const jl_sweep_means *s, long c)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->cap[i] == c)
            return (long)i;
    return -1;
}

/* Sort the pairs (x, y) by x (insertion sort: a sweep has few caps). */
static void sort_xy(double *x, double *y, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double a = x[i], b = y[i];
        size_t j = i;
        for (; j > 0 && x[j - 1] > a; j--) {
            x[j] = x[j - 1];
            y[j] = y[j - 1];
        }
        x[j] = a;
        y[j] = b;
    }
}

/* A sweep end is an extrapolation: the group's own points say little about
 * how the curve bends beyond them, and the regime changes seen there (CPU
 * preprocessing at small batch, KV pressure at large) are properties of the
 * model and its serving stack more than of one GPU configuration. So the
 * other sweeps of the same model that measured both the target cap c and
 * the group's measured end cap a lend their elasticity d ln e / d ln b
 * between a and c; the median of those is applied from the group's own
 * measurement at a:
 *     ln e(b) = ln e_g(a) + s_med (ln b - ln b_g(a)).
 * When no sibling measured both caps, the siblings whose measured range
 * covers both batches lend theirs, their per-cap means interpolated
 * linearly in ln b. */
int jl__model_pooled_end(const jl_sweep_means *own, const jl_sweep_means *sib, size_t ns, long c,
                         long a, double lnb, double *lne, size_t *n_used, int *interpolated)
{
    long ia = find_cap(own, a);
    if (ia < 0 || !ns)
        return -1;
    double ea = own->ln_energy[ia], ba = own->ln_batch[ia];
    double *sl = malloc(ns * sizeof *sl);
    size_t k = 0;
    if (!sl)
        return -1;
    for (size_t j = 0; j < ns; j++) {
        long jc = find_cap(&sib[j], c), ja = find_cap(&sib[j], a);
        if (jc < 0 || ja < 0)
            continue;
        double bc = sib[j].ln_batch[jc], bh = sib[j].ln_batch[ja];
        if (fabs(bc - bh) < 1e-3)
            continue;
        sl[k++] = (sib[j].ln_energy[jc] - sib[j].ln_energy[ja]) / (bc - bh);
    }
    int interp = 0;
    if (!k && fabs(lnb - ba) >= 1e-3) {
        interp = 1;
        for (size_t j = 0; j < ns; j++) {
            size_t nc = sib[j].n;
            double *x = malloc(2 * (nc ? nc : 1) * sizeof *x), *y = x ? x + nc : NULL;
            if (!x)
                break;
            memcpy(x, sib[j].ln_batch, nc * sizeof *x);
            memcpy(y, sib[j].ln_energy, nc * sizeof *y);
            sort_xy(x, y, nc);
            if (nc >= 2 && fmin(lnb, ba) >= x[0] && fmax(lnb, ba) <= x[nc - 1]) {
                double v =
                    (jl__model_interp(x, y, nc, lnb) - jl__model_interp(x, y, nc, ba)) / (lnb - ba);
                if (isfinite(v))
                    sl[k++] = v;
            }
            free(x);
        }
    }
    int rc = -1;
    if (k) {
        *lne = ea + jl__model_median(sl, k) * (lnb - ba);
        rc = isfinite(*lne) ? 0 : -1;
        if (n_used)
            *n_used = k;
        if (interpolated)
            *interpolated = interp;
    }
    free(sl);
    return rc;
}

double jl__model_pool_mix(double lne_model, double lne_pooled, double w)
{
    w = fmin(w, 1.0);
    return (1 - w) * lne_model + w * lne_pooled;
}

int jl__model_siblings(const jl_model_group_list *groups, size_t gi, jl_sweep_means **out,
                       size_t *n)
{
    const jl_model_group *g = &groups->items[gi];
    *out = NULL;
    *n = 0;
    jl_sweep_means *s = calloc(groups->count ? groups->count : 1, sizeof *s);
    if (!s)
        return -1;
    for (size_t j = 0; j < groups->count; j++) {
        const jl_model_group *h = &groups->items[j];
        if (j == gi || !g->key.model || !h->key.model || strcmp(h->key.model, g->key.model))
            continue;
        if (jl__model_sweep_of(h, &s[*n])) {
            for (size_t k = 0; k < *n; k++)
                jl__model_sweep_clear(&s[k]);
            free(s);
            *n = 0;
            return -1;
        }
        (*n)++;
    }
    *out = s;
    return 0;
}

jl_status jl_model_fit_pool(jl_group_fit *f, const jl_model_group_list *groups, size_t gi,
                            const jl_model_options *opt)
{
    jl_model_options dflt;
    if (!opt) {
        jl_model_options_default(&dflt);
        opt = &dflt;
    }
    if (!f || f->method != JL_FIT_MODEL || !(opt->pool_weight > 0) || gi >= groups->count)
        return JL_OK;
    jl_sweep_means *sib = NULL;
    size_t ns = 0;
    if (jl__model_siblings(groups, gi, &sib, &ns))
        return JL_ENOMEM;
    if (!ns) {
        free(sib);
        return JL_OK;
    }
    jl_sweep_means own;
    if (jl__model_sweep_of(&groups->items[gi], &own)) {
        for (size_t k = 0; k < ns; k++)
            jl__model_sweep_clear(&sib[k]);
        free(sib);
        return JL_ENOMEM;
    }
    jl__model_sweep_clear(&f->pool_own);
    for (size_t k = 0; k < f->pool_n_siblings; k++)
        jl__model_sweep_clear(&f->pool_siblings[k]);
    free(f->pool_siblings);
    f->pool_own = own;
    f->pool_siblings = sib;
    f->pool_n_siblings = ns;
    f->pool_weight = fmin(opt->pool_weight, 1.0);
    return JL_OK;
}
