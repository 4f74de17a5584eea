/* --where / --exclude: run selection by attribute values and ranges. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/util.h"
#include "joules/study.h"

typedef enum { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE } sel_op;

static const char *const op_text[] = {"=", "!=", "<", "<=", ">", ">="};

typedef struct clause {
    int exclude;
    sel_op op;
    char *key;
    char **values; /* OP_EQ / OP_NE: one or more; ranges: one number */
    size_t n_values;
    double bound; /* ranges */
} clause;

struct jl_selector {
    clause *clauses;
    size_t n;
};

jl_selector *jl_selector_new(void)
{
    return calloc(1, sizeof(jl_selector));
}

static void clause_free(clause *c)
{
    for (size_t j = 0; j < c->n_values; j++)
        free(c->values[j]);
    free(c->values);
    free(c->key);
}

void jl_selector_free(jl_selector *sel)
{
    if (!sel)
        return;
    for (size_t i = 0; i < sel->n; i++)
        clause_free(&sel->clauses[i]);
    free(sel->clauses);
    free(sel);
}

/* A number written in full ("64", "1e0"); 0 when not. */
static int full_number(const char *s, double *v)
{
    char *end = NULL;
    *v = strtod(s, &end);
    return end != s && end && *end == '\0' && isfinite(*v);
}

static jl_status usage(jl_error **err, const char *opt, const char *text, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static jl_status usage(jl_error **err, const char *opt, const char *text, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = jl__vasprintf(fmt, ap);
    va_end(ap);
    jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "%s '%s': %s", opt, text,
            what ? what : "malformed");
    free(what);
    return JL_EUSAGE;
}

jl_status jl_selector_add(jl_selector *sel, int exclude, const char *text, jl_error **err)
{
    const char *opt = exclude ? "--exclude" : "--where";
    const char *o = strpbrk(text, "<>!=");
    if (!o || o == text)
        return usage(err, opt, text,
                     "expected KEY=VALUE[,VALUE...], KEY!=VALUE or KEY>=N (also <=, <, >)");
    clause c = {exclude, OP_EQ, NULL, NULL, 0, NAN};
    size_t olen = 1;
    if (o[0] == '<' || o[0] == '>') {
        int eq = o[1] == '=';
        c.op = o[0] == '<' ? (eq ? OP_LE : OP_LT) : (eq ? OP_GE : OP_GT);
        olen = eq ? 2 : 1;
    } else if (o[0] == '!') {
        if (o[1] != '=')
            return usage(err, opt, text, "'!' must be followed by '=' (KEY!=VALUE)");
        c.op = OP_NE;
        olen = 2;
    }
    const char *p = o + olen;
    if (*p == '\0')
        return usage(err, opt, text, "no value after '%s'", op_text[c.op]);
    if (c.op >= OP_LT) {
        if (!full_number(p, &c.bound))
            return usage(err, opt, text, "'%s' takes one number", op_text[c.op]);
    } else if (strpbrk(p, "<>=") || strstr(p, "!=")) {
        return usage(err, opt, text, "one operator per clause (at '%s')", p);
    }
    c.key = malloc((size_t)(o - text) + 1);
    if (!c.key)
        return JL_ENOMEM;
    memcpy(c.key, text, (size_t)(o - text));
    c.key[o - text] = '\0';
    while (c.op < OP_LT) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0) {
            clause_free(&c);
            return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                           "%s '%s': empty value at offset %ld", opt, text, (long)(p - text));
        }
        char **v = realloc(c.values, (c.n_values + 1) * sizeof *v);
        if (v)
            c.values = v;
        char *val = v ? malloc(len + 1) : NULL;
        if (!val) {
            clause_free(&c);
            return JL_ENOMEM;
        }
        memcpy(val, p, len);
        val[len] = '\0';
        c.values[c.n_values++] = val;
        if (!comma)
            break;
        p = comma + 1;
    }
    clause *cl = realloc(sel->clauses, (sel->n + 1) * sizeof *cl);
    if (!cl) {
        clause_free(&c);
        return JL_ENOMEM;
    }
    sel->clauses = cl;
    sel->clauses[sel->n++] = c;
    return JL_OK;
}

/* Values match by the case rule of typed names (jl_name_eq: gpu_model=h100
 * is H100), but for a file's path, which names a file. */
static int is_name_key(const char *key)
{
    return strcmp(key, "file") != 0;
}

/* Equal as text (without case for names), or both numbers and equal. */
static int value_matches(const char *have, const char *want, int name)
{
    if (name ? jl_name_eq(want, have) : !strcmp(have, want))
        return 1;
    double a, b;
    return full_number(have, &a) && full_number(want, &b) && a == b;
}

/* Selection also sees the file and run names. A key is a typed name: the
 * attribute spelt so, else one equal to it whatever the case (jl_name_eq:
 * GPU_MODEL is gpu_model). */
static int get_value(const jl_summary *s, const char *key, char *buf, size_t cap)
{
    if (jl_name_eq(key, "file") && s->file) {
        snprintf(buf, cap, "%s", s->file);
        return 0;
    }
    if (jl_name_eq(key, "run") && s->run) {
        snprintf(buf, cap, "%s", s->run);
        return 0;
    }
    int rc = jl_attrs_get(&s->attrs, key, buf, cap);
    if (rc == 0)
        return 0;
    for (size_t k = 0; jl_attr_names[k]; k++)
        if (jl_name_eq(key, jl_attr_names[k]) && strcmp(key, jl_attr_names[k]))
            return jl_attrs_get(&s->attrs, jl_attr_names[k], buf, cap);
    for (size_t k = 0; k < s->attrs.n_extra; k++)
        if (jl_name_eq(key, s->attrs.extra[k].key) && strcmp(key, s->attrs.extra[k].key))
            return jl_attrs_get(&s->attrs, s->attrs.extra[k].key, buf, cap);
    return rc;
}

/* Whether the clause's condition holds for a run (ignoring exclude); a run
 * without the attribute holds no condition. value_hit: for = and !=, which
 * listed value the run's value equals (-1 when none). */
static int clause_holds(const clause *c, const jl_summary *s, long *value_hit)
{
    char buf[1024];
    if (value_hit)
        *value_hit = -1;
    if (get_value(s, c->key, buf, sizeof buf) != 0)
        return 0;
    if (c->op >= OP_LT) {
        double v;
        if (!full_number(buf, &v))
            return 0;
        switch (c->op) {
        case OP_LT: return v < c->bound;
        case OP_LE: return v <= c->bound;
        case OP_GT: return v > c->bound;
        default: return v >= c->bound;
        }
    }
    int name = is_name_key(c->key);
    for (size_t j = 0; j < c->n_values; j++)
        if (value_matches(buf, c->values[j], name)) {
            if (value_hit)
                *value_hit = (long)j;
            return c->op == OP_EQ;
        }
    return c->op == OP_NE;
}

int jl_selector_match(const jl_selector *sel, const jl_summary *s)
{
    if (!sel)
        return 1;
    for (size_t i = 0; i < sel->n; i++) {
        const clause *c = &sel->clauses[i];
        if (clause_holds(c, s, NULL) == c->exclude)
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

/* ---- clauses that select nothing --------------------------------------- */

static int cmp_values(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    double u, v;
    int nx = full_number(x, &u), ny = full_number(y, &v);
    if (nx && ny)
        return (u > v) - (u < v);
    if (nx != ny)
        return nx ? -1 : 1;
    return strcmp(x, y);
}

/* The distinct values of key over l, sorted (numbers numerically first),
 * as "A, B, C" (at most `show`, then "and N more"); NULL when no run has
 * the attribute (or out of memory: *oom set). */
static char *values_present(const jl_summary_list *l, const char *key, size_t show, int *oom,
                            const char *typed, char *near, size_t near_cap)
{
    char buf[1024];
    char **vals = NULL;
    size_t n = 0;
    for (size_t i = 0; i < l->count; i++) {
        if (get_value(l->items[i], key, buf, sizeof buf) != 0)
            continue;
        size_t j = 0;
        while (j < n && strcmp(vals[j], buf))
            j++;
        if (j < n)
            continue;
        char **nv = realloc(vals, (n + 1) * sizeof *nv);
        if (nv)
            vals = nv;
        if (!nv || !(vals[n] = jl__strdup(buf))) {
            *oom = 1;
            break;
        }
        n++;
    }
    char *out = NULL;
    if (near && near_cap)
        near[0] = '\0';
    if (n && !*oom && typed && near)
        jl_suggest_value(typed, (const char *const *)vals, n, near, near_cap);
    if (n && !*oom) {
        qsort(vals, n, sizeof *vals, cmp_values);
        jl__strbuf b;
        jl__strbuf_init(&b);
        for (size_t j = 0; j < n && j < show; j++)
            jl__strbuf_printf(&b, "%s%s", j ? ", " : "", vals[j]);
        if (n > show)
            jl__strbuf_printf(&b, " and %zu more", n - show);
        if (!(out = jl__strbuf_take(&b)))
            *oom = 1;
    }
    for (size_t j = 0; j < n; j++)
        free(vals[j]);
    free(vals);
    return out;
}

/* Add name to the distinct names[0..*n) (borrowed); -1 out of memory. */
static int add_distinct(const char ***names, size_t *n, size_t *cap, const char *name)
{
    for (size_t j = 0; j < *n; j++)
        if (!strcmp((*names)[j], name))
            return 0;
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 32;
        const char **nn = realloc(*names, nc * sizeof *nn);
        if (!nn)
            return -1;
        *names = nn;
        *cap = nc;
    }
    (*names)[(*n)++] = name;
    return 0;
}

int jl_study_suggest_attribute(const jl_summary_list *l, const char *key, char *buf, size_t cap)
{
    const char **names = NULL;
    size_t n = 0, cap_names = 0;
    char v[256];
    int oom = 0;
    for (size_t i = 0; l && i < l->count && !oom; i++) {
        const jl_attrs *a = &l->items[i]->attrs;
        for (size_t k = 0; jl_attr_names[k] && !oom; k++)
            if (jl_attrs_get(a, jl_attr_names[k], v, sizeof v) == 0)
                oom = add_distinct(&names, &n, &cap_names, jl_attr_names[k]);
        for (size_t k = 0; k < a->n_extra && !oom; k++)
            oom = add_distinct(&names, &n, &cap_names, a->extra[k].key);
    }
    int found = jl_suggest_name(key, names, n, buf, cap);
    free(names);
    return found;
}

const char *jl_study_attribute_name(const jl_summary_list *l, const char *typed)
{
    if (!typed)
        return NULL;
    if (jl_name_eq(typed, "file"))
        return "file";
    if (jl_name_eq(typed, "run"))
        return "run";
    const char *found = NULL;
    char v[256];
    for (int pass = 0; pass < 2 && !found; pass++) /* exact first, then any case */
        for (size_t i = 0; l && i < l->count && !found; i++) {
            const jl_attrs *a = &l->items[i]->attrs;
            for (size_t k = 0; jl_attr_names[k] && !found; k++)
                if ((pass ? jl_name_eq(typed, jl_attr_names[k])
                          : !strcmp(typed, jl_attr_names[k])) &&
                    jl_attrs_get(a, jl_attr_names[k], v, sizeof v) == 0)
                    found = jl_attr_names[k];
            for (size_t k = 0; k < a->n_extra && !found; k++)
                if (pass ? jl_name_eq(typed, a->extra[k].key) : !strcmp(typed, a->extra[k].key))
                    found = a->extra[k].key;
        }
    return found;
}

jl_status jl_selector_unmatched(const jl_selector *sel, const jl_summary_list *l, char **report)
{
    *report = NULL;
    if (!sel || !l)
        return JL_OK;
    jl__strbuf b;
    jl__strbuf_init(&b);
    int oom = 0;
    for (size_t i = 0; i < sel->n && !oom; i++) {
        const clause *c = &sel->clauses[i];
        /* which listed values (=, !=) or whether the range matched a run */
        size_t nv = c->op >= OP_LT ? 1 : c->n_values;
        char *seen = calloc(nv, 1);
        if (!seen) {
            oom = 1;
            break;
        }
        for (size_t r = 0; r < l->count; r++) {
            long hit;
            int holds = clause_holds(c, l->items[r], &hit);
            if (c->op >= OP_LT)
                seen[0] |= (char)holds;
            else if (hit >= 0)
                seen[hit] = 1;
        }
        jl__strbuf w;
        jl__strbuf_init(&w);
        size_t missing = 0;
        const char *first_missing = NULL; /* a value no run has: the one suggested for */
        for (size_t j = 0; j < nv; j++)
            if (!seen[j]) {
                if (c->op < OP_LT && !first_missing)
                    first_missing = c->values[j];
                if (c->op >= OP_LT)
                    jl__strbuf_printf(&w, "%s%.17g", op_text[c->op], c->bound);
                else
                    jl__strbuf_printf(&w, "%s%s", missing ? ", " : "", c->values[j]);
                missing++;
            }
        free(seen);
        char *what = jl__strbuf_take(&w);
        if (missing && !what)
            oom = 1;
        if (missing && what) {
            char vnear[128];
            char *present = values_present(l, c->key, 20, &oom, first_missing, vnear, sizeof vnear);
            jl__strbuf_printf(&b, "%s%s '%s%s", b.len ? "\n" : "",
                              c->exclude ? "--exclude" : "--where", c->key, op_text[c->op]);
            for (size_t j = 0; c->op < OP_LT && j < c->n_values; j++)
                jl__strbuf_printf(&b, "%s%s", j ? "," : "", c->values[j]);
            if (c->op >= OP_LT)
                jl__strbuf_printf(&b, "%.17g", c->bound);
            char near[128];
            if (!present && jl_study_suggest_attribute(l, c->key, near, sizeof near))
                jl__strbuf_printf(&b, "': no run has the attribute '%s' (did you mean '%s'?)",
                                  c->key, near);
            else if (!present)
                jl__strbuf_printf(&b, "': no run has the attribute '%s'", c->key);
            else if (c->op >= OP_LT)
                jl__strbuf_printf(&b, "': no run has %s%s (values present: %s)", c->key, what,
                                  present);
            else if (vnear[0])
                jl__strbuf_printf(&b, "': no run has %s %s (did you mean '%s'? values present: %s)",
                                  c->key, what, vnear, present);
            else
                jl__strbuf_printf(&b, "': no run has %s %s (values present: %s)", c->key, what,
                                  present);
            free(present);
        }
        free(what);
    }
    if (oom) {
        jl__strbuf_free(&b);
        return JL_ENOMEM;
    }
    if (!b.len) {
        jl__strbuf_free(&b);
        return JL_OK;
    }
    *report = jl__strbuf_take(&b);
    return *report ? JL_OK : JL_ENOMEM;
}

jl_status jl_selector_add_spec(jl_selector *sel, const char *spec, jl_error **err)
{
    char *s = jl__strdup(spec), *cur = NULL;
    size_t len = 0;
    jl_status st = JL_OK;
    if (!s)
        return JL_ENOMEM;
    char *save = NULL;
    for (char *tok = strtok_r(s, ",", &save);; tok = strtok_r(NULL, ",", &save)) {
        if (!tok || strpbrk(tok, "<>!=")) {
            if (cur && (st = jl_selector_add(sel, 0, cur, err)) != JL_OK)
                break;
            free(cur);
            cur = NULL;
            if (!tok)
                break;
            if (!(cur = jl__strdup(tok))) {
                st = JL_ENOMEM;
                break;
            }
            len = strlen(tok);
        } else {
            if (!cur) {
                st = jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "'%s' is not KEY=VALUE", tok);
                break;
            }
            char *c2 = realloc(cur, len + strlen(tok) + 2);
            if (!c2) {
                st = JL_ENOMEM;
                break;
            }
            cur = c2;
            cur[len++] = ',';
            strcpy(cur + len, tok);
            len += strlen(tok);
        }
        if (cur && cur[0] == '=') {
            st = jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "empty key in '%s'", cur);
            break;
        }
    }
    free(cur);
    free(s);
    return st;
}

/* FILE is the longest prefix before a ':' that names an existing file. */
static int split_spec(const char *spec, char **file, char **sel)
{
    const char *best = NULL;
    for (const char *p = strchr(spec, ':'); p; p = strchr(p + 1, ':')) {
        char *f = strndup(spec, (size_t)(p - spec));
        struct stat st;
        if (f && stat(f, &st) == 0 && S_ISREG(st.st_mode))
            best = p;
        free(f);
    }
    if (!best)
        return -1;
    *file = strndup(spec, (size_t)(best - spec));
    *sel = jl__strdup(best + 1);
    return (*file && *sel) ? 0 : -1;
}

jl_status jl_study_load_run(const char *spec, const jl_study_options *opt, jl_summary **out,
                            jl_error_list *errors, jl_error **err)
{
    char *file = NULL, *text = NULL;
    jl_summary_list runs = {0};
    jl_selector *sel = NULL;
    jl_status st = JL_OK;
    *out = NULL;
    if (split_spec(spec, &file, &text) || !*text) {
        st = jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                     "'%s' is not FILE:RUN or FILE:KEY=VALUE,... with an existing FILE", spec);
        goto end;
    }
    size_t nerr = errors->count;
    if ((jl_study_load_file(file, opt, &runs, errors) != JL_OK || errors->count > nerr) &&
        !runs.count) {
        st = JL_ENODATA;
        goto end;
    }
    if (strpbrk(text, "=<>")) {
        jl_error *e = NULL;
        if (!(sel = jl_selector_new())) {
            st = JL_ENOMEM;
            goto end;
        }
        if ((st = jl_selector_add_spec(sel, text, &e)) != JL_OK) {
            if (e)
                jl_fail(err, st, NULL, NULL, NULL, -1, "%s: %s", spec, e->message);
            jl_error_free(e);
            goto end;
        }
    }
    size_t found = 0, which = 0;
    for (size_t i = 0; i < runs.count; i++) {
        const jl_summary *s = runs.items[i];
        if (sel ? jl_selector_match(sel, s) : (s->run && !strcmp(s->run, text))) {
            if (!found)
                which = i;
            found++;
        }
    }
    if (found != 1) {
        jl__strbuf b;
        jl__strbuf_init(&b);
        jl__strbuf_printf(&b, "%s: %s", spec,
                          found ? "the selection matches more than one run; add clauses"
                                : "no such run in the file");
        for (size_t i = 0, shown = 0; found && i < runs.count && shown < 10; i++)
            if (sel && jl_selector_match(sel, runs.items[i])) {
                jl__strbuf_printf(&b, "\n  %s", runs.items[i]->run ? runs.items[i]->run : "?");
                shown++;
            }
        char *msg = jl__strbuf_take(&b);
        st = jl_fail(err, JL_ENODATA, NULL, NULL, NULL, -1, "%s", msg ? msg : spec);
        free(msg);
        goto end;
    }
    st = jl_summary_copy(runs.items[which], out);
end:
    jl_selector_free(sel);
    jl_summary_list_clear(&runs);
    free(file);
    free(text);
    return st;
}
