/* compare --by precision: each run of another precision paired with its
 * baseline-precision twin, bucketed by batch size (paper §4.4;
 * docs/choice.md says exactly which pairs enter). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "choice/choice_internal.h"
#include "core/util.h"
#include "frontier/frontier_internal.h"
#include "joules/descriptors.h"
#include "joules/frontier.h"
#include "joules/output.h"

static const char *const precision_tags[] = {
    "fp8",  "bf16", "bfloat16", "fp16",  "float16", "fp32", "float32", "int8",
    "int4", "w8a8", "w4a16",    "nvfp4", "mxfp4",   "fp4",  "awq",     "gptq",
};

char *jl_model_base_id(const char *model)
{
    if (!model)
        return NULL;
    size_t n = strlen(model);
    for (size_t i = 0; i < sizeof precision_tags / sizeof precision_tags[0]; i++) {
        size_t m = strlen(precision_tags[i]);
        if (n > m + 1 && model[n - m - 1] == '-' && !strcasecmp(model + n - m, precision_tags[i]))
            return jl__asprintf("%.*s", (int)(n - m - 1), model);
    }
    return jl__strdup(model);
}

void jl_precision_result_free(jl_precision_result *r)
{
    if (!r)
        return;
    free(r->baseline);
    free(r->pairs);
    for (size_t i = 0; i < r->n_unpaired; i++)
        free(r->unpaired[i].reason);
    free(r->unpaired);
    free(r->buckets);
    free(r);
}

/* The twin key: base model id, task, GPU model, GPU count, batch cap. */
static int is_twin(const jl_summary *run, const char *run_base, const jl_summary *t,
                   const char *t_base)
{
    return jl__str_eq(run_base, t_base) && jl__str_eq(run->attrs.task, t->attrs.task) &&
           jl__str_eq(run->attrs.gpu_model, t->attrs.gpu_model) &&
           run->attrs.num_gpus == t->attrs.num_gpus &&
           run->attrs.max_batch_size == t->attrs.max_batch_size;
}

static int lat_fig(const jl_precision_options *o, const jl_summary *s)
{
    if (o->latency_figure >= 0)
        return o->latency_figure;
    return jl_attrs_is_diffusion(&s->attrs) ? JL_FIG_BATCH_LATENCY_S : JL_FIG_MEDIAN_ITL_S;
}

static int en_fig(const jl_precision_options *o, const jl_summary *s)
{
    if (o->energy_figure >= 0)
        return o->energy_figure;
    return jl_attrs_counts_items(&s->attrs) ? JL_FIG_ENERGY_PER_ITEM_J : JL_FIG_ENERGY_PER_TOKEN_J;
}

static jl_status add_unpaired(jl_precision_result *r, size_t run, char *reason)
{
    if (!reason)
        return JL_ENOMEM;
    jl_unpaired *nu = realloc(r->unpaired, (r->n_unpaired + 1) * sizeof *nu);
    if (!nu) {
        free(reason);
        return JL_ENOMEM;
    }
    r->unpaired = nu;
    nu[r->n_unpaired].run = run;
    nu[r->n_unpaired].reason = reason;
    r->n_unpaired++;
    return JL_OK;
}

static void change_stats(jl_change_stats *st, double *v, size_t n)
{
    st->n = n;
    st->wins = 0;
    for (size_t i = 0; i < n; i++)
        st->wins += v[i] < 0;
    jl__stats(v, n, &st->median, &st->min, &st->max);
}

/* Pairs sorted by the run's model, task, GPU, count, batch. */
typedef struct pair_sort {
    jl_precision_pair p;
    const jl_summary *s;
} pair_sort;

static int cmp_pair(const void *pa, const void *pb)
{
    const pair_sort *a = pa, *b = pb;
    const jl_summary *x = a->s, *y = b->s;
    int c = strcmp(x->attrs.model ? x->attrs.model : "", y->attrs.model ? y->attrs.model : "");
    if (c)
        return c;
    if ((c = strcmp(x->attrs.task ? x->attrs.task : "", y->attrs.task ? y->attrs.task : "")))
        return c;
    if ((c = jl_run_config_cmp(x, y)))
        return c;
    return (a->p.run > b->p.run) - (a->p.run < b->p.run);
}

static jl_status sort_pairs(jl_precision_result *r, const jl_summary_list *l)
{
    if (r->n_pairs < 2)
        return JL_OK;
    pair_sort *t = jl__calloc_array(r->n_pairs, sizeof *t);
    if (!t)
        return JL_ENOMEM;
    for (size_t i = 0; i < r->n_pairs; i++) {
        t[i].p = r->pairs[i];
        t[i].s = l->items[r->pairs[i].run];
    }
    qsort(t, r->n_pairs, sizeof *t, cmp_pair);
    for (size_t i = 0; i < r->n_pairs; i++)
        r->pairs[i] = t[i].p;
    free(t);
    return JL_OK;
}

void jl_precision_options_default(jl_precision_options *opt)
{
    static const double bins[] = JL_PRECISION_DEFAULT_BINS;
    opt->baseline = JL_REFERENCE_PRECISION;
    opt->bins = bins;
    opt->n_bins = JL_PRECISION_DEFAULT_N_BINS;
    opt->latency_figure = opt->energy_figure = -1;
}

/* jl_compare_precision, phase 1: run i (not of the baseline precision)
 * paired with its one twin of the baseline precision, its changes and its
 * batch bucket; or unpaired, with the reason. JL_ENOMEM or JL_OK. */
static jl_status pair_run(jl_precision_result *r, const jl_summary_list *l,
                          const jl_precision_options *opt, char *const *base_ids, size_t i)
{
    const jl_summary *s = l->items[i];
    long twin = -1;
    size_t n_twins = 0;
    for (size_t j = 0; j < l->count; j++) {
        const jl_summary *t = l->items[j];
        if (j == i || !jl__str_eq(t->attrs.precision, opt->baseline) ||
            !is_twin(s, base_ids[i], t, base_ids[j]))
            continue;
        if (!n_twins++)
            twin = (long)j;
    }
    if (n_twins == 0)
        return add_unpaired(r, i,
                            jl__asprintf("no %s run of %s on %s with %s x %ld, batch %ld",
                                         opt->baseline, base_ids[i] ? base_ids[i] : "?",
                                         s->attrs.task ? s->attrs.task : "?",
                                         s->attrs.gpu_model ? s->attrs.gpu_model : "?",
                                         s->attrs.num_gpus, s->attrs.max_batch_size));
    if (n_twins > 1)
        return add_unpaired(r, i,
                            jl__asprintf("%zu %s runs match (re-measurements); ambiguous, not "
                                         "paired",
                                         n_twins, opt->baseline));
    const jl_summary *t = l->items[twin];
    int fe = en_fig(opt, s), fl = lat_fig(opt, s);
    double e = s->fig[fe], et = t->fig[fe], la = s->fig[fl], lt = t->fig[fl];
    if (!isfinite(e) || !isfinite(et) || !(et > 0) || !isfinite(la) || !isfinite(lt) || !(lt > 0))
        return add_unpaired(r, i,
                            jl__asprintf("%s or %s missing in the run or its twin",
                                         jl_figure_name((jl_figure)fe),
                                         jl_figure_name((jl_figure)fl)));
    jl_precision_pair *p = &r->pairs[r->n_pairs++];
    p->run = i;
    p->twin = (size_t)twin;
    p->batch = s->attrs.max_batch_size;
    p->energy_change = e / et - 1.0;
    p->latency_change = la / lt - 1.0;
    p->bucket = -1;
    for (size_t k = 0; k + 1 < opt->n_bins; k++)
        if ((double)p->batch > opt->bins[k] && (double)p->batch <= opt->bins[k + 1]) {
            p->bucket = (int)k;
            break;
        }
    if (p->bucket < 0)
        r->n_outside++;
    return JL_OK;
}

/* jl_compare_precision, phase 2: the statistics of each batch bucket and of
 * all pairs. JL_ENOMEM or JL_OK. */
static jl_status bucket_stats(jl_precision_result *r, const jl_precision_options *opt)
{
    r->n_buckets = opt->n_bins > 1 ? opt->n_bins - 1 : 0;
    if (r->n_buckets && !(r->buckets = jl__calloc_array(r->n_buckets, sizeof *r->buckets)))
        return JL_ENOMEM;
    double *ve = jl__calloc_array(r->n_pairs ? r->n_pairs : 1, sizeof *ve);
    double *vl = jl__calloc_array(r->n_pairs ? r->n_pairs : 1, sizeof *vl);
    if (!ve || !vl) {
        free(ve);
        free(vl);
        return JL_ENOMEM;
    }
    for (size_t k = 0; k < r->n_buckets; k++) {
        jl_precision_bucket *b = &r->buckets[k];
        b->lo = opt->bins[k];
        b->hi = opt->bins[k + 1];
        size_t n = 0;
        for (size_t i = 0; i < r->n_pairs; i++)
            if (r->pairs[i].bucket == (int)k) {
                ve[n] = r->pairs[i].energy_change;
                vl[n] = r->pairs[i].latency_change;
                n++;
            }
        change_stats(&b->energy, ve, n);
        change_stats(&b->latency, vl, n);
    }
    for (size_t i = 0; i < r->n_pairs; i++) {
        ve[i] = r->pairs[i].energy_change;
        vl[i] = r->pairs[i].latency_change;
    }
    change_stats(&r->energy_all, ve, r->n_pairs);
    change_stats(&r->latency_all, vl, r->n_pairs);
    free(ve);
    free(vl);
    return JL_OK;
}

/* Every run of another precision paired with its twin of the baseline
 * precision (phase 1), the pairs sorted, then the statistics (phase 2). */
jl_status jl_compare_precision(const jl_summary_list *l, const jl_precision_options *opt,
                               jl_precision_result **out, jl_error **err)
{
    *out = NULL;
    if (!opt || !opt->baseline)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "compare needs --baseline");
    for (size_t k = 1; k < opt->n_bins; k++)
        if (!(opt->bins[k] > opt->bins[k - 1]))
            return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                           "--bins must be strictly ascending");
    jl_precision_result *r = calloc(1, sizeof *r);
    char **base_ids = NULL;
    jl_status st = JL_OK;
    if (!r || !(r->baseline = jl__strdup(opt->baseline)))
        goto oom;
    if (!(base_ids = jl__calloc_array(l->count ? l->count : 1, sizeof *base_ids)))
        goto oom;
    int any_baseline = 0;
    for (size_t i = 0; i < l->count; i++) {
        if (l->items[i]->attrs.model && !(base_ids[i] = jl_model_base_id(l->items[i]->attrs.model)))
            goto oom;
        any_baseline |= jl__str_eq(l->items[i]->attrs.precision, opt->baseline);
    }
    if (!any_baseline) {
        st = jl_fail(err, JL_ENODATA, NULL, NULL, NULL, -1, "no selected run has precision=%s",
                     opt->baseline);
        goto fail;
    }
    if (!(r->pairs = jl__calloc_array(l->count ? l->count : 1, sizeof *r->pairs)))
        goto oom;
    for (size_t i = 0; i < l->count; i++) {
        const jl_summary *s = l->items[i];
        if (!s->attrs.precision || jl__str_eq(s->attrs.precision, opt->baseline))
            continue;
        if (pair_run(r, l, opt, base_ids, i) != JL_OK)
            goto oom;
    }
    if (sort_pairs(r, l) != JL_OK || bucket_stats(r, opt) != JL_OK)
        goto oom;
    goto end;
oom:
    st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
fail:
    jl_precision_result_free(r);
    r = NULL;
end:
    if (base_ids)
        for (size_t i = 0; i < l->count; i++)
            free(base_ids[i]);
    free(base_ids);
    *out = r;
    return r ? JL_OK : st;
}

/* ---- documents ----------------------------------------------------------------- */

static json_t *stats_json(const jl_change_stats *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "n", json_integer((json_int_t)s->n));
    json_object_set_new(o, "wins", json_integer((json_int_t)s->wins));
    json_object_set_new(o, "median", jl_json_number(s->median));
    json_object_set_new(o, "min", jl_json_number(s->min));
    json_object_set_new(o, "max", jl_json_number(s->max));
    return o;
}

json_t *jl_precision_document(const jl_precision_result *r, const jl_summary_list *l)
{
    json_t *doc = json_object();
    if (!doc)
        return NULL;
    json_object_set_new(doc, "schema", json_string("joules.compare/1"));
    json_object_set_new(doc, "by", json_string("precision"));
    json_object_set_new(doc, "baseline", json_string(r->baseline));
    json_t *bins = json_array();
    for (size_t k = 0; k < r->n_buckets; k++) {
        if (k == 0)
            json_array_append_new(bins, jl_json_number(r->buckets[k].lo));
        json_array_append_new(bins, jl_json_number(r->buckets[k].hi));
    }
    json_object_set_new(doc, "bins", bins);
    json_t *pairs = json_array();
    for (size_t i = 0; i < r->n_pairs; i++) {
        const jl_precision_pair *p = &r->pairs[i];
        json_t *o = json_object();
        json_object_set_new(o, "run", jl_run_key_to_json(l->items[p->run]));
        json_object_set_new(o, "twin", jl_run_key_to_json(l->items[p->twin]));
        json_object_set_new(o, "max_batch_size", json_integer(p->batch));
        json_object_set_new(o, "bucket", p->bucket >= 0 ? json_integer(p->bucket) : json_null());
        json_object_set_new(o, "energy_change", jl_json_number(p->energy_change));
        json_object_set_new(o, "latency_change", jl_json_number(p->latency_change));
        json_array_append_new(pairs, o);
    }
    json_object_set_new(doc, "pairs", pairs);
    json_t *un = json_array();
    for (size_t i = 0; i < r->n_unpaired; i++) {
        json_t *o = jl_run_key_to_json(l->items[r->unpaired[i].run]);
        json_object_set_new(o, "reason", json_string(r->unpaired[i].reason));
        json_array_append_new(un, o);
    }
    json_object_set_new(doc, "unpaired", un);
    json_t *bk = json_array();
    for (size_t k = 0; k < r->n_buckets; k++) {
        json_t *o = json_object();
        json_object_set_new(o, "lo", jl_json_number(r->buckets[k].lo));
        json_object_set_new(o, "hi", jl_json_number(r->buckets[k].hi));
        json_object_set_new(o, "energy", stats_json(&r->buckets[k].energy));
        json_object_set_new(o, "latency", stats_json(&r->buckets[k].latency));
        json_array_append_new(bk, o);
    }
    json_object_set_new(doc, "buckets", bk);
    json_t *t = json_object();
    json_object_set_new(t, "n_pairs", json_integer((json_int_t)r->n_pairs));
    json_object_set_new(t, "n_unpaired", json_integer((json_int_t)r->n_unpaired));
    json_object_set_new(t, "n_outside_bins", json_integer((json_int_t)r->n_outside));
    json_object_set_new(t, "energy", stats_json(&r->energy_all));
    json_object_set_new(t, "latency", stats_json(&r->latency_all));
    json_object_set_new(doc, "totals", t);
    return doc;
}

typedef struct prec_csv_ctx {
    const jl_precision_result *r;
    const jl_summary_list *l;
} prec_csv_ctx;

static int print_precision(FILE *f, const void *vctx)
{
    const prec_csv_ctx *ctx = vctx;
    static const char *const head[] = {
        "model",     "twin_model", "task",          "gpu_model",      "num_gpus", "max_batch_size",
        "bucket_lo", "bucket_hi",  "energy_change", "latency_change", "run",      "twin_run",
        NULL,
    };
    jl__csvw r;
    jl__csvw_begin(&r, f);
    jl__csvw_cells(&r, head);
    jl__csvw_end(&r);
    for (size_t i = 0; i < ctx->r->n_pairs; i++) {
        const jl_precision_pair *p = &ctx->r->pairs[i];
        const jl_summary *s = ctx->l->items[p->run], *t = ctx->l->items[p->twin];
        jl__csvw_cell(&r, s->attrs.model);
        jl__csvw_cell(&r, t->attrs.model);
        jl__csvw_cell(&r, s->attrs.task);
        jl__csvw_cell(&r, s->attrs.gpu_model);
        jl__csvw_cellf(&r, "%ld", s->attrs.num_gpus);
        jl__csvw_cellf(&r, "%ld", p->batch);
        if (p->bucket >= 0) {
            jl__csvw_num(&r, ctx->r->buckets[p->bucket].lo);
            jl__csvw_num(&r, ctx->r->buckets[p->bucket].hi);
        } else {
            jl__csvw_empty(&r);
            jl__csvw_empty(&r);
        }
        jl__csvw_num(&r, p->energy_change);
        jl__csvw_num(&r, p->latency_change);
        jl__csvw_cell(&r, s->run);
        jl__csvw_cell(&r, t->run);
        jl__csvw_end(&r);
    }
    return ferror(f) ? -1 : 0;
}

jl_status jl_write_precision_csv(const char *path, const jl_precision_result *r,
                                 const jl_summary_list *l, jl_error **err)
{
    prec_csv_ctx ctx = {r, l};
    return jl_write_text(path, print_precision, &ctx, err);
}
