/* Grouping runs by attribute values, and the deterministic configuration
 * order used to break ties (joules/frontier.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "frontier/frontier_internal.h"
#include "joules/frontier.h"

static int parse_num(const char *s, double *v)
{
    if (!s || !*s)
        return 0;
    char *end = NULL;
    *v = strtod(s, &end);
    return end && *end == '\0' && isfinite(*v);
}

/* Missing (NULL) sorts last; two numbers compare numerically. */
int jl__attr_value_cmp(const char *a, const char *b)
{
    if (!a || !b)
        return (a == NULL) - (b == NULL);
    double x, y;
    if (parse_num(a, &x) && parse_num(b, &y))
        return (x > y) - (x < y);
    return strcmp(a, b);
}

static int cmp_str_null_last(const char *a, const char *b)
{
    if (!a || !b)
        return (a == NULL) - (b == NULL);
    return strcmp(a, b);
}

int jl_run_config_cmp(const jl_summary *a, const jl_summary *b)
{
    int c = cmp_str_null_last(a->attrs.gpu_model, b->attrs.gpu_model);
    if (c)
        return c;
    if (a->attrs.num_gpus != b->attrs.num_gpus)
        return a->attrs.num_gpus < b->attrs.num_gpus ? -1 : 1;
    if (a->attrs.max_batch_size != b->attrs.max_batch_size)
        return a->attrs.max_batch_size < b->attrs.max_batch_size ? -1 : 1;
    if ((c = cmp_str_null_last(a->attrs.precision, b->attrs.precision)))
        return c;
    if ((c = cmp_str_null_last(a->file, b->file)))
        return c;
    return cmp_str_null_last(a->run, b->run);
}

typedef struct item {
    char **vals;
    size_t nk;
    size_t run;
    int node_ac; /* @power_scope node_ac: never in a group with GPU power */
} item;

static int cmp_item(const void *pa, const void *pb)
{
    const item *a = pa, *b = pb;
    for (size_t k = 0; k < a->nk; k++) {
        int c = jl__attr_value_cmp(a->vals[k], b->vals[k]);
        if (c)
            return c;
    }
    if (a->node_ac != b->node_ac)
        return a->node_ac - b->node_ac;
    return (a->run > b->run) - (a->run < b->run);
}

static int same_key(const item *a, const item *b)
{
    for (size_t k = 0; k < a->nk; k++)
        if (jl__attr_value_cmp(a->vals[k], b->vals[k]))
            return 0;
    return a->node_ac == b->node_ac;
}

void jl_group_set_clear(jl_group_set *gs)
{
    if (!gs)
        return;
    for (size_t g = 0; g < gs->n; g++) {
        for (size_t k = 0; k < gs->groups[g].n_keys; k++)
            free(gs->groups[g].values[k]);
        free(gs->groups[g].values);
        free(gs->groups[g].runs);
    }
    free(gs->groups);
    gs->groups = NULL;
    gs->n = 0;
}

jl_status jl_group_runs(const jl_summary_list *l, const char *const *keys, size_t n_keys,
                        const unsigned char *keep, jl_group_set *out, jl_error **err)
{
    out->groups = NULL;
    out->n = 0;
    size_t n = 0;
    jl_status st = JL_OK;
    item *items = jl_calloc_array(l->count ? l->count : 1, sizeof *items);
    if (!items)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    char buf[1024];
    for (size_t i = 0; i < l->count; i++) {
        if (keep && !keep[i])
            continue;
        item *it = &items[n++];
        it->nk = n_keys;
        it->run = i;
        it->node_ac = jl_attrs_is_node_ac(&l->items[i]->attrs);
        it->vals = jl_calloc_array(n_keys ? n_keys : 1, sizeof *it->vals);
        if (!it->vals)
            goto oom;
        for (size_t k = 0; k < n_keys; k++)
            if (jl_attrs_get(&l->items[i]->attrs, keys[k], buf, sizeof buf) == 0 &&
                !(it->vals[k] = jl_strdup(buf)))
                goto oom;
    }
    qsort(items, n, sizeof *items, cmp_item);
    /* count groups */
    size_t ng = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || !same_key(&items[i - 1], &items[i]))
            ng++;
    if (ng && !(out->groups = jl_calloc_array(ng, sizeof *out->groups)))
        goto oom;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && same_key(&items[i], &items[j]))
            j++;
        jl_group *g = &out->groups[out->n++];
        g->n_keys = n_keys;
        g->node_ac = items[i].node_ac;
        g->values = items[i].vals; /* take the first item's values */
        items[i].vals = NULL;
        g->runs = jl_malloc_array(j - i, sizeof *g->runs);
        if (!g->runs)
            goto oom;
        g->n_runs = j - i;
        for (size_t k = i; k < j; k++)
            g->runs[k - i] = items[k].run;
        /* runs in list order */
        for (size_t a = 1; a < g->n_runs; a++)
            for (size_t b = a; b > 0 && g->runs[b - 1] > g->runs[b]; b--) {
                size_t t = g->runs[b];
                g->runs[b] = g->runs[b - 1];
                g->runs[b - 1] = t;
            }
        i = j;
    }
    goto end;
oom:
    st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    jl_group_set_clear(out);
end:
    for (size_t i = 0; i < n; i++) {
        if (items[i].vals)
            for (size_t k = 0; k < n_keys; k++)
                free(items[i].vals[k]);
        free(items[i].vals);
    }
    free(items);
    return st;
}
