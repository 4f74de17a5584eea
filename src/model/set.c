/* The model's pipeline as one handle (joules/model.h "the pipeline"): a run
 * list's groups, each fitted and pooled on demand, predictions at batches or
 * caps, what-ifs with one kept engine, and the leave-one-outs. What `joules
 * fit` and `joules predict` call; the top of src/model (it calls fit.c,
 * pool.c, predict.c, loo.c, whatif.c and the documents). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/model.h"
#include "model/model_internal.h"

struct jl_model_set {
    const jl_summary_list *runs;
    const jl_descriptors *desc;
    jl_model_options opt;
    jl_model_group_list groups;
    jl_group_fit **fits; /* one slot per group; NULL until fitted */
    int all_fitted;
    jl_whatif_engine *engine; /* at the first what-if */
    jl_model_progress_fn progress;
    void *progress_ctx;
};

static jl_status oom(jl_error **err, const char *what)
{
    return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "%s", what);
}

jl_status jl_model_set_open(const jl_summary_list *runs, const jl_descriptors *desc,
                            const jl_model_options *opt, jl_model_set **out, jl_error **err)
{
    *out = NULL;
    jl_model_set *m = calloc(1, sizeof *m);
    if (!m)
        return oom(err, "model set");
    m->runs = runs;
    m->desc = desc;
    if (opt)
        m->opt = *opt;
    else
        jl_model_options_default(&m->opt);
    jl_status st = jl_model_groups(runs, &m->groups, err);
    if (st != JL_OK) {
        jl_model_set_free(m);
        return st;
    }
    m->fits = calloc(m->groups.count ? m->groups.count : 1, sizeof *m->fits);
    if (!m->fits) {
        jl_model_set_free(m);
        return oom(err, "model set");
    }
    *out = m;
    return JL_OK;
}

void jl_model_set_free(jl_model_set *m)
{
    if (!m)
        return;
    for (size_t i = 0; m->fits && i < m->groups.count; i++)
        jl_group_fit_free(m->fits[i]);
    free(m->fits);
    jl_whatif_engine_free(m->engine);
    jl_group_list_clear(&m->groups);
    free(m);
}

const jl_model_group_list *jl_model_set_groups(const jl_model_set *m)
{
    return &m->groups;
}

const jl_model_options *jl_model_set_options(const jl_model_set *m)
{
    return &m->opt;
}

void jl_model_set_progress(jl_model_set *m, jl_model_progress_fn fn, void *ctx)
{
    m->progress = fn;
    m->progress_ctx = ctx;
}

jl_status jl_model_set_fit(jl_model_set *m, size_t gi, const jl_group_fit **fit, jl_error **err)
{
    if (gi >= m->groups.count)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "group %zu of %zu", gi,
                       m->groups.count);
    if (!m->fits[gi]) {
        const jl_model_group *g = &m->groups.items[gi];
        jl_group_fit *f = NULL;
        jl_status st = jl_model_fit_group(g->runs, g->n_runs, &m->opt, m->desc, &f, err);
        if (st != JL_OK)
            return st;
        /* the model's other sweeps: sweep ends pooled as in the leave-one-out */
        if (jl_model_fit_pool(f, &m->groups, gi, &m->opt) != JL_OK) {
            jl_group_fit_free(f);
            return oom(err, "pooling sweep ends");
        }
        m->fits[gi] = f;
    }
    if (fit)
        *fit = m->fits[gi];
    return JL_OK;
}

jl_status jl_model_set_fit_all(jl_model_set *m, jl_group_fit *const **fits, jl_error **err)
{
    if (!m->all_fitted) {
        jl_status st = JL_OK;
        for (size_t i = 0; i < m->groups.count && st == JL_OK; i++)
            st = jl_model_set_fit(m, i, NULL, err);
        if (st != JL_OK)
            return st;
        m->all_fitted = 1;
    }
    if (fits)
        *fits = m->fits;
    return JL_OK;
}

jl_status jl_model_groups_select(const jl_model_group_list *gl, const jl_selector *sel,
                                 size_t **idx, size_t *n, jl_error **err)
{
    *idx = NULL;
    *n = 0;
    for (size_t i = 0; i < gl->count; i++) {
        int match = 0;
        for (size_t r = 0; r < gl->items[i].n_runs && !match; r++)
            match = jl_selector_match(sel, gl->items[i].runs[r]);
        if (!match)
            continue;
        size_t *nx = realloc(*idx, (*n + 1) * sizeof *nx);
        if (!nx) {
            free(*idx);
            *idx = NULL;
            *n = 0;
            return oom(err, "group selection");
        }
        *idx = nx;
        (*idx)[(*n)++] = i;
    }
    return JL_OK;
}

jl_status jl_model_set_predict(jl_model_set *m, size_t gi, const double *x, const int *is_cap,
                               size_t n, jl_prediction *out, jl_error **err)
{
    const jl_group_fit *fit = NULL;
    jl_status st = jl_model_set_fit(m, gi, &fit, err);
    if (st != JL_OK)
        return st;
    double *b = malloc((n ? n : 1) * sizeof *b);
    if (!b)
        return oom(err, "prediction");
    /* every batch within the ceiling first: beyond it, nothing is predicted */
    for (size_t i = 0; i < n && st == JL_OK; i++) {
        b[i] = is_cap && is_cap[i] ? x[i] * fit->batch_per_cap : x[i];
        st = jl_model_check_batch(fit, b[i], err);
    }
    /* a prediction's own status (method "none") is in what it fills */
    for (size_t i = 0; i < n && st == JL_OK; i++)
        jl_model_predict(fit, b[i], &out[i]);
    free(b);
    return st;
}

/* *dst = a copy of v; 0, -1 on out-of-memory */
static int set_str(char **dst, const char *v)
{
    char *c = jl__strdup(v ? v : "");
    if (!c)
        return -1;
    free(*dst);
    *dst = c;
    return 0;
}

jl_status jl_whatif_parse(const char *spec, const jl_group_key *base, jl_group_key *out,
                          jl_error **err)
{
    memset(out, 0, sizeof *out);
    char *buf = jl__strdup(spec ? spec : "");
    jl_status st = JL_OK;
    out->num_gpus = base->num_gpus;
    if (!buf || set_str(&out->model, base->model) || set_str(&out->task, base->task) ||
        set_str(&out->gpu_model, base->gpu_model) || set_str(&out->precision, base->precision))
        goto nomem;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || !eq[1]) {
            st = jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "'%s' is not KEY=VALUE", tok);
            goto fail;
        }
        *eq = '\0';
        const char *v = eq + 1;
        int rc = 0;
        if (!strcmp(tok, "num_gpus")) {
            char *end = NULL;
            errno = 0;
            long g = strtol(v, &end, 10);
            if (errno || !end || *end || g < 1 || g > 4096) {
                st = jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                             "num_gpus '%s' is not a GPU count", v);
                goto fail;
            }
            out->num_gpus = g;
        } else if (!strcmp(tok, "gpu_model")) {
            rc = set_str(&out->gpu_model, v);
        } else if (!strcmp(tok, "precision")) {
            rc = set_str(&out->precision, v);
        } else if (!strcmp(tok, "model")) {
            rc = set_str(&out->model, v);
        } else {
            st = jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                         "'%s' cannot be changed (num_gpus, gpu_model, precision or model: the "
                         "FP8/BF16 twin)",
                         tok);
            goto fail;
        }
        if (rc)
            goto nomem;
    }
    free(buf);
    return JL_OK;
nomem:
    st = oom(err, "what-if request");
fail:
    free(buf);
    jl_group_key_clear(out);
    return st;
}

jl_status jl_model_set_whatif(jl_model_set *m, size_t gi, const char *spec, const long *caps,
                              size_t n_caps, jl_whatif *out, jl_error **err)
{
    memset(out, 0, sizeof *out);
    if (gi >= m->groups.count)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "group %zu of %zu", gi,
                       m->groups.count);
    jl_group_key t;
    jl_status st = jl_whatif_parse(spec, &m->groups.items[gi].key, &t, err);
    if (st != JL_OK)
        return st;
    if (!m->engine)
        st = jl_whatif_engine_new(&m->groups, m->desc, &m->engine, err);
    if (st == JL_OK)
        st = jl_whatif_engine_predict(m->engine, &t, JL_TRANSFER_NONE, caps, n_caps, out, err);
    jl_group_key_clear(&t);
    return st;
}

jl_status jl_model_set_loo(jl_model_set *m, jl_loo_model which, jl_loo_result *out, jl_error **err)
{
    return jl_model_loo(&m->groups, which, &m->opt, m->desc, out, err);
}

jl_status jl_model_set_whatif_loo(jl_model_set *m, jl_whatif_loo *out, jl_error **err)
{
    return jl__whatif_loo_run(&m->groups, m->desc, NULL, m->progress, m->progress_ctx, out, err);
}

json_t *jl_model_set_fit_document(const jl_model_set *m, size_t n_grid, const jl_loo_result *loo,
                                  const jl_loo_result *anchor_loo, const jl_whatif_loo *whatif_loo)
{
    if (!m->all_fitted)
        return NULL;
    json_t *doc =
        jl_fit_document(m->fits, m->groups.count, &m->opt, n_grid, loo, anchor_loo, &m->groups);
    if (doc && whatif_loo) {
        json_t *w = jl_whatif_loo_to_json(whatif_loo, &m->groups);
        if (!w) {
            json_decref(doc);
            return NULL;
        }
        json_object_set_new(doc, "what_if_loo", w);
    }
    return doc;
}
