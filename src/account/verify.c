/* Verification: a document's inputs re-hashed, and the document compared
 * with its re-made twin leaf by leaf (docs/accounting.md, "`joules verify`"). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"
#include "joules/output.h"
#include "joules/provenance.h"

void jl_verify_report_clear(jl_verify_report *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->items[i].what);
        free(r->items[i].where);
        free(r->items[i].before);
        free(r->items[i].after);
    }
    free(r->items);
    memset(r, 0, sizeof *r);
}

json_t *jl_verify_load(const char *path, jl_error **err)
{
    char why[128];
    FILE *f = jl__fopen_input(path, why, sizeof why);
    if (!f) {
        jl_fail(err, errno == ENOENT ? JL_EMISSING : JL_EIO, path, NULL, NULL, -1, "%s", why);
        return NULL;
    }
    json_error_t je;
    json_t *doc = json_loadf(f, 0, &je);
    fclose(f);
    if (!doc)
        jl_fail(err, JL_EFORMAT, path, NULL, NULL, -1,
                "not a JSON document: %s (line %d, column %d)", je.text, je.line, je.column);
    return doc;
}

static char *text_of(const json_t *v)
{
    if (!v)
        return NULL;
    return jl_json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY |
                                JSON_REAL_PRECISION(JL_JSON_REAL_PRECISION));
}

static void raise_verdict(jl_verify_report *r, jl_verify_verdict v)
{
    if (v == JL_VERIFY_MISSING || (v == JL_VERIFY_DIFFERS && r->verdict == JL_VERIFY_SAME))
        r->verdict = v;
}

/* One item; before/after are taken (freed on failure). */
static jl_status add_item(jl_verify_report *r, const char *what, const char *where, char *before,
                          char *after, jl_verify_verdict v)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        jl_verify_item *items = realloc(r->items, cap * sizeof *items);
        if (!items) {
            free(before);
            free(after);
            return JL_ENOMEM;
        }
        r->items = items;
        r->cap = cap;
    }
    jl_verify_item *it = &r->items[r->n];
    it->what = jl__strdup(what);
    it->where = jl__strdup(where ? where : "");
    it->before = before;
    it->after = after;
    if (!it->what || !it->where) {
        free(it->what);
        free(it->where);
        free(before);
        free(after);
        return JL_ENOMEM;
    }
    r->n++;
    raise_verdict(r, v);
    return JL_OK;
}

jl_status jl_verify_inputs(const json_t *provenance, jl_verify_report *r)
{
    const json_t *inputs = json_object_get(provenance, "inputs");
    size_t i;
    const json_t *in;
    jl_status st = JL_OK;
    json_array_foreach(inputs, i, in) {
        const char *path = json_string_value(json_object_get(in, "path"));
        const char *want = json_string_value(json_object_get(in, "sha256"));
        if (!path)
            continue;
        r->n_inputs++;
        /* the file the document read, by its resolved name: a path that
         * names another file from here (run elsewhere, a link moved) is not
         * re-hashed as if it were the input (docs/accounting.md, "joules verify") */
        const char *resolved = json_string_value(json_object_get(in, "resolved"));
        struct stat sh, sr;
        if (r->check_resolved && resolved && stat(path, &sh) == 0 && stat(resolved, &sr) == 0 &&
            (sh.st_dev != sr.st_dev || sh.st_ino != sr.st_ino)) {
            char *here = realpath(path, NULL);
            char *after = jl__asprintf("(another file here: %s)", here ? here : path);
            free(here);
            st = add_item(r, "missing", path, jl__strdup(resolved), after, JL_VERIFY_MISSING);
            if (st != JL_OK)
                return st;
            continue;
        }
        char hex[65];
        unsigned long long size = 0;
        jl_error *err = NULL;
        jl_status hs = jl_sha256_file(path, hex, &size, &err);
        jl_error_free(err);
        if (hs != JL_OK && !want)
            continue; /* unreadable when the document was made, still so */
        if (hs == JL_EMISSING)
            st = add_item(r, "missing", path, want ? jl__strdup(want) : NULL, NULL,
                          JL_VERIFY_MISSING);
        else if (hs != JL_OK)
            st = add_item(r, "missing", path, want ? jl__strdup(want) : NULL,
                          jl__strdup("(cannot be read)"), JL_VERIFY_MISSING);
        else if (!want || strcmp(want, hex))
            st = add_item(r, "input", path, want ? jl__strdup(want) : NULL, jl__strdup(hex),
                          JL_VERIFY_DIFFERS);
        if (st != JL_OK)
            return st;
    }
    return JL_OK;
}

typedef struct walker {
    jl_verify_report *r;
    size_t max_items, listed;
    const char *what;
    jl_verify_verdict verdict;
    jl_status st;
} walker;

static void leaf_differs(walker *w, const char *path, const json_t *a, const json_t *b)
{
    if (w->st != JL_OK)
        return;
    if (w->listed >= w->max_items) {
        raise_verdict(w->r, w->verdict);
        return;
    }
    w->listed++;
    w->st = add_item(w->r, w->what, path, text_of(a), text_of(b), w->verdict);
}

/* Equal as written: numbers compare by their printed text (12 digits), so
 * a document and its twin agree exactly when their bytes would. */
static int same_scalar(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b)) {
        char *ta = text_of(a), *tb = text_of(b);
        int same = ta && tb && !strcmp(ta, tb);
        free(ta);
        free(tb);
        return same;
    }
    return json_equal((json_t *)a, (json_t *)b);
}

static void walk(walker *w, const char *path, const json_t *a, const json_t *b)
{
    if (w->st != JL_OK || (!a && !b))
        return;
    if (json_is_object(a) && json_is_object(b)) {
        const char *k;
        const json_t *v;
        json_object_foreach((json_t *)a, k, v) {
            char *sub = jl__asprintf("%s%s%s", path, *path ? "." : "", k);
            if (!sub) {
                w->st = JL_ENOMEM;
                return;
            }
            walk(w, sub, v, json_object_get(b, k));
            free(sub);
        }
        json_object_foreach((json_t *)b, k, v) {
            if (json_object_get(a, k))
                continue;
            char *sub = jl__asprintf("%s%s%s", path, *path ? "." : "", k);
            if (!sub) {
                w->st = JL_ENOMEM;
                return;
            }
            walk(w, sub, NULL, v);
            free(sub);
        }
        return;
    }
    if (json_is_array(a) && json_is_array(b)) {
        size_t na = json_array_size(a), nb = json_array_size(b);
        for (size_t i = 0; i < (na > nb ? na : nb); i++) {
            char *sub = jl__asprintf("%s[%zu]", path, i);
            if (!sub) {
                w->st = JL_ENOMEM;
                return;
            }
            walk(w, sub, json_array_get(a, i), json_array_get(b, i));
            free(sub);
        }
        return;
    }
    w->r->n_figures++;
    if (!a || !b || !same_scalar(a, b))
        leaf_differs(w, path, a, b);
}

jl_status jl_verify_documents(const json_t *before, const json_t *after, size_t max_items,
                              jl_verify_report *r)
{
    const json_t *pa = json_object_get(before, "provenance");
    const json_t *pb = json_object_get(after, "provenance");
    walker w = {r, (size_t)-1, 0, "joules", JL_VERIFY_DIFFERS, JL_OK};
    size_t counted = r->n_figures;
    /* what made them: joules' version, the rules, the method choices
     * differ as a verdict; the build (compiler, libraries) is a note */
    walk(&w, "joules.version", json_object_get(json_object_get(pa, "joules"), "version"),
         json_object_get(json_object_get(pb, "joules"), "version"));
    w.what = "rules";
    walk(&w, "rules", json_object_get(pa, "rules"), json_object_get(pb, "rules"));
    w.what = "methods";
    walk(&w, "methods", json_object_get(pa, "methods"), json_object_get(pb, "methods"));
    w.what = "build";
    w.verdict = JL_VERIFY_SAME;
    walk(&w, "joules.build", json_object_get(json_object_get(pa, "joules"), "build"),
         json_object_get(json_object_get(pb, "joules"), "build"));
    r->n_figures = counted; /* provenance leaves are not figures */
    /* the figures: every other member */
    w.what = "figure";
    w.verdict = JL_VERIFY_DIFFERS;
    w.max_items = max_items;
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)before, k, v) {
        if (strcmp(k, "provenance"))
            walk(&w, k, v, json_object_get(after, k));
    }
    json_object_foreach((json_t *)after, k, v) {
        if (strcmp(k, "provenance") && !json_object_get(before, k))
            walk(&w, k, NULL, v);
    }
    return w.st;
}
