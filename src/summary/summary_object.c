/* The jl_summary object and the figure/method name tables. The computation
 * itself is in summarize.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/summary.h"
#include "summary/summary_internal.h"

static const char *const fig_names[] = {
#define JL__X(id, name, unit, doc) #name,
    JL_FIGURE_TABLE(JL__X)
#undef JL__X
};
static const char *const fig_units[] = {
#define JL__X(id, name, unit, doc) unit,
    JL_FIGURE_TABLE(JL__X)
#undef JL__X
};
static const char *const fig_docs[] = {
#define JL__X(id, name, unit, doc) doc,
    JL_FIGURE_TABLE(JL__X)
#undef JL__X
};
static const char *const method_names[] = {
#define JL__X(id, name, doc) name,
    JL_STEADY_METHOD_TABLE(JL__X)
#undef JL__X
};

const char *jl_figure_name(jl_figure f)
{
    return (unsigned)f < JL_FIG_COUNT ? fig_names[f] : "unknown";
}

const char *jl_figure_unit(jl_figure f)
{
    return (unsigned)f < JL_FIG_COUNT ? fig_units[f] : "";
}

const char *jl_figure_doc(jl_figure f)
{
    return (unsigned)f < JL_FIG_COUNT ? fig_docs[f] : "";
}

int jl_figure_lookup(const char *name)
{
    for (int i = 0; i < JL_FIG_COUNT; i++)
        if (!strcmp(fig_names[i], name))
            return i;
    return -1;
}

const char *jl_steady_method_name(jl_steady_method m)
{
    return (unsigned)m < JL_STEADY_COUNT ? method_names[m] : "unknown";
}

const char *jl_energy_source_name(jl_energy_source s)
{
    switch (s) {
    case JL_ENERGY_COUNTER: return "energy_counter";
    case JL_ENERGY_INTEGRAL: return "watts_integral";
    case JL_ENERGY_SUMMARY: return "summary";
    default: return "none";
    }
}

jl_summary *jl_summary_new(void)
{
    jl_summary *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    jl_attrs_init(&s->attrs);
    for (int i = 0; i < JL_FIG_COUNT; i++)
        s->fig[i] = NAN;
    s->steady_method = JL_STEADY_WHOLE_RUN;
    s->energy_source = JL_ENERGY_NONE;
    s->power_rise_lag_s = NAN;
    s->boundary.window = JL_WINDOW_STEADY;
    s->boundary.scope = JL_SCOPE_GPU;
    s->total_scope = JL_SCOPE_COUNT;
    return s;
}

void jl_summary_free(jl_summary *s)
{
    if (!s)
        return;
    free(s->file);
    free(s->run);
    jl_attrs_clear(&s->attrs);
    free(s->gpu_energy_j);
    free(s->gpu_avg_power_w);
    for (size_t i = 0; i < s->n_warnings; i++) {
        free(s->warnings[i].rule);
        free(s->warnings[i].message);
    }
    free(s->warnings);
    if (s->published)
        free(s->published->source);
    free(s->published);
    jl__host_summary_free(s->host);
    free(s->peak_power_kind);
    jl_validity_clear(&s->validity);
    free(s);
}

jl_status jl_summary_warn(jl_summary *s, const char *rule, const char *fmt, ...)
{
    jl_warning *w = realloc(s->warnings, (s->n_warnings + 1) * sizeof *w);
    if (!w)
        return JL_ENOMEM;
    s->warnings = w;
    va_list ap;
    va_start(ap, fmt);
    char *msg = jl__vasprintf(fmt, ap);
    va_end(ap);
    char *r = jl__strdup(rule);
    if (!msg || !r) {
        free(msg);
        free(r);
        return JL_ENOMEM;
    }
    s->warnings[s->n_warnings].rule = r;
    s->warnings[s->n_warnings].message = msg;
    s->n_warnings++;
    return JL_OK;
}

static double *dup_doubles(const double *v, size_t n)
{
    if (!v)
        return NULL;
    double *d = jl__malloc_array(n, sizeof *d);
    if (d)
        memcpy(d, v, n * sizeof *d);
    return d;
}

/* host/ (format 1.2): the block of a summary (host.c computes it). */

const char *jl_host_method_name(jl_host_method m)
{
    switch (m) {
    case JL_HOST_CPU_DRAM: return "cpu_dram";
    case JL_HOST_NODE_AC: return "node_ac";
    default: return "none";
    }
}

void jl__host_summary_free(jl_host_summary *h)
{
    if (!h)
        return;
    free(h->source);
    free(h->cpu_energy_j);
    free(h->dram_energy_j);
    free(h);
}

jl_status jl__host_summary_copy(const jl_host_summary *src, jl_host_summary **out)
{
    *out = NULL;
    if (!src)
        return JL_OK;
    jl_host_summary *h = malloc(sizeof *h);
    if (!h)
        return JL_ENOMEM;
    *h = *src;
    h->source = src->source ? jl__strdup(src->source) : NULL;
    h->cpu_energy_j = dup_doubles(src->cpu_energy_j, src->sockets);
    h->dram_energy_j = dup_doubles(src->dram_energy_j, src->sockets);
    if ((src->source && !h->source) || (src->cpu_energy_j && !h->cpu_energy_j) ||
        (src->dram_energy_j && !h->dram_energy_j)) {
        jl__host_summary_free(h);
        return JL_ENOMEM;
    }
    *out = h;
    return JL_OK;
}

jl_status jl_summary_copy(const jl_summary *src, jl_summary **out)
{
    *out = NULL;
    jl_summary *s = jl_summary_new();
    if (!s)
        return JL_ENOMEM;
    s->file = jl__strdup(src->file);
    s->run = jl__strdup(src->run);
    s->steady_method = src->steady_method;
    s->energy_source = src->energy_source;
    memcpy(s->fig, src->fig, sizeof s->fig);
    s->power_rise_lag_s = src->power_rise_lag_s;
    s->power_rise_skip = src->power_rise_skip;
    s->num_gpus = src->num_gpus;
    s->gpu_energy_j = dup_doubles(src->gpu_energy_j, src->num_gpus);
    s->gpu_avg_power_w = dup_doubles(src->gpu_avg_power_w, src->num_gpus);
    jl_status st = jl_attrs_copy(&s->attrs, &src->attrs);
    if (st != JL_OK || (src->file && !s->file) || (src->run && !s->run) ||
        (src->gpu_energy_j && !s->gpu_energy_j) || (src->gpu_avg_power_w && !s->gpu_avg_power_w))
        goto fail;
    for (size_t i = 0; i < src->n_warnings; i++)
        if (jl_summary_warn(s, src->warnings[i].rule, "%s", src->warnings[i].message) != JL_OK)
            goto fail;
    if (src->published) {
        if (!(s->published = malloc(sizeof *s->published)))
            goto fail;
        *s->published = *src->published;
        s->published->source = NULL;
        if (src->published->source && !(s->published->source = jl__strdup(src->published->source)))
            goto fail;
    }
    if (jl__host_summary_copy(src->host, &s->host) != JL_OK ||
        jl_validity_copy(&s->validity, &src->validity) != JL_OK)
        goto fail;
    s->boundary = src->boundary;
    s->total_scope = src->total_scope;
    if (src->peak_power_kind && !(s->peak_power_kind = jl__strdup(src->peak_power_kind)))
        goto fail;
    *out = s;
    return JL_OK;
fail:
    jl_summary_free(s);
    return JL_ENOMEM;
}

size_t jl_summary_disagreements(const jl_summary *s, jl_disagreement *out)
{
    const jl_published *p = s->published;
    size_t n = 0;
    if (!p)
        return 0;
    for (int f = 0; f < JL_FIG_COUNT; f++) {
        double a = p->fig[f], b = p->recomputed[f];
        if (!isfinite(a) || !isfinite(b))
            continue;
        jl_disagreement *d = &out[n++];
        d->figure = (jl_figure)f;
        d->published = a;
        d->recomputed = b;
        d->relative_difference = a != 0.0 ? (b - a) / fabs(a) : (b == 0.0 ? 0.0 : NAN);
        d->marked = !(fabs(d->relative_difference) <= p->mark_threshold);
        d->recomputed_from =
            (p->from_parts >> f) & 1u ? "the source's own parts, recomputed by its importer "
                                        "(summary/<figure>_recomputed: e.g. cpu + gpu + ram energy)"
            : (p->with_published_rate >> f) & 1u
                ? "the series' energy over the window divided by the published rate "
                  "(output_throughput_tok_s or items_per_s): the series hold no tokens"
                : "the time series";
    }
    return n;
}

int jl_summary_figure_marked(const jl_summary *s, jl_figure f)
{
    jl_disagreement d[JL_FIG_COUNT];
    size_t n = jl_summary_disagreements(s, d);
    for (size_t i = 0; i < n; i++)
        if (d[i].figure == f)
            return d[i].marked;
    return 0;
}

void jl_summary_set_mark_threshold(jl_summary *s, double threshold)
{
    if (s->published)
        s->published->mark_threshold = threshold;
}

jl_status jl_summary_list_push(jl_summary_list *l, jl_summary *s)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        jl_summary **items = realloc(l->items, cap * sizeof *items);
        if (!items)
            return JL_ENOMEM;
        l->items = items;
        l->cap = cap;
    }
    l->items[l->count++] = s;
    return JL_OK;
}

void jl_summary_list_clear(jl_summary_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        jl_summary_free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->count = l->cap = 0;
}
