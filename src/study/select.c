/* --where / --exclude: run selection by attribute values. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/study.h"

typedef struct clause {
    int exclude;
    char *key;
    char **values;
    size_t n_values;
} clause;

struct jl_selector {
    clause *clauses;
    size_t n;
};

jl_selector *jl_selector_new(void) { return calloc(1, sizeof(jl_selector)); }

void jl_selector_free(jl_selector *sel)
{
    if (!sel)
        return;
    for (size_t i = 0; i < sel->n; i++) {
        free(sel->clauses[i].key);
        for (size_t j = 0; j < sel->clauses[i].n_values; j++)
            free(sel->clauses[i].values[j]);
        free(sel->clauses[i].values);
    }
    free(sel->clauses);
    free(sel);
}

jl_status jl_selector_add(jl_selector *sel, int exclude, const char *text,
                          jl_error **err)
{
    const char *opt = exclude ? "--exclude" : "--where";
    const char *eq = strchr(text, '=');
    if (!eq || eq == text)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                       "%s '%s': expected KEY=VALUE[,VALUE...]", opt, text);
    if (eq[1] == '\0')
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                       "%s '%s': no value after '='", opt, text);
    clause c = {exclude, NULL, NULL, 0};
    c.key = malloc((size_t)(eq - text) + 1);
    if (!c.key)
        return JL_ENOMEM;
    memcpy(c.key, text, (size_t)(eq - text));
    c.key[eq - text] = '\0';
    const char *p = eq + 1;
    while (1) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0) {
            for (size_t j = 0; j < c.n_values; j++)
                free(c.values[j]);
            free(c.values);
            free(c.key);
            return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                           "%s '%s': empty value at offset %ld", opt, text,
                           (long)(p - text));
        }
        char **v = realloc(c.values, (c.n_values + 1) * sizeof *v);
        char *val = malloc(len + 1);
        if (!v || !val) {
            free(val);
            if (v)
                c.values = v;
            for (size_t j = 0; j < c.n_values; j++)
                free(c.values[j]);
            free(c.values);
            free(c.key);
            return JL_ENOMEM;
        }
        memcpy(val, p, len);
        val[len] = '\0';
        c.values = v;
        c.values[c.n_values++] = val;
        if (!comma)
            break;
        p = comma + 1;
    }
    clause *cl = realloc(sel->clauses, (sel->n + 1) * sizeof *cl);
    if (!cl) {
        for (size_t j = 0; j < c.n_values; j++)
            free(c.values[j]);
        free(c.values);
        free(c.key);
        return JL_ENOMEM;
    }
    sel->clauses = cl;
    sel->clauses[sel->n++] = c;
    return JL_OK;
}

/* Equal as text, or both numbers and numerically equal. */
static int value_matches(const char *have, const char *want)
{
    if (!strcmp(have, want))
        return 1;
    char *e1 = NULL, *e2 = NULL;
    double a = strtod(have, &e1), b = strtod(want, &e2);
    return e1 != have && *e1 == '\0' && e2 != want && *e2 == '\0' && a == b;
}

/* Selection also sees the file and run names. */
static int get_value(const jl_summary *s, const char *key, char *buf, size_t cap)
{
    if (!strcmp(key, "file") && s->file) {
        snprintf(buf, cap, "%s", s->file);
        return 0;
    }
    if (!strcmp(key, "run") && s->run) {
        snprintf(buf, cap, "%s", s->run);
        return 0;
    }
    return jl_attrs_get(&s->attrs, key, buf, cap);
}

int jl_selector_match(const jl_selector *sel, const jl_summary *s)
{
    if (!sel)
        return 1;
    char buf[1024];
    for (size_t i = 0; i < sel->n; i++) {
        const clause *c = &sel->clauses[i];
        int have = get_value(s, c->key, buf, sizeof buf) == 0;
        int any = 0;
        for (size_t j = 0; have && j < c->n_values && !any; j++)
            any = value_matches(buf, c->values[j]);
        if (!c->exclude && !any)
            return 0;
        if (c->exclude && any)
            return 0;
    }
    return 1;
}

void jl_summary_list_select(jl_summary_list *l, const jl_selector *sel)
{
    if (!sel)
        return;
    size_t k = 0;
    for (size_t i = 0; i < l->count; i++) {
        if (jl_selector_match(sel, l->items[i]))
            l->items[k++] = l->items[i];
        else
            jl_summary_free(l->items[i]);
    }
    l->count = k;
}
