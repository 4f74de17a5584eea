/* The provenance block of a document: what made it, deterministic apart
 * from the time (docs/accounting.md, "Provenance"). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <hdf5.h>

#include "account/account_internal.h"
#include "core/inputs.h"
#include "core/util.h"
#include "core/walk.h"
#include "joules/output.h"
#include "joules/provenance.h"
#include "joules/version.h"

struct jl_provenance {
    json_t *command; /* array of strings */
    char **inputs;   /* as given */
    size_t n_inputs, cap_inputs;
    size_t read_from; /* the read log's entries before this one are not inputs */
    jl_ruleset rules;
    int have_rules;
    json_t *methods; /* object */
    long long time;
    int have_time;
    json_t *block; /* made once */
};

jl_provenance *jl_provenance_new(void)
{
    jl_provenance *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->command = json_array();
    p->methods = json_object();
    if (!p->command || !p->methods) {
        jl_provenance_free(p);
        return NULL;
    }
    return p;
}

void jl_provenance_free(jl_provenance *p)
{
    if (!p)
        return;
    json_decref(p->command);
    json_decref(p->methods);
    json_decref(p->block);
    for (size_t i = 0; i < p->n_inputs; i++)
        free(p->inputs[i]);
    free(p->inputs);
    free(p);
}

static void forget_block(jl_provenance *p)
{
    json_decref(p->block);
    p->block = NULL;
}

jl_status jl_provenance_set_command(jl_provenance *p, int argc, char *const *argv)
{
    forget_block(p);
    json_array_clear(p->command);
    for (int i = 0; i < argc; i++)
        if (json_array_append_new(p->command, json_string(i ? argv[i] : "joules")))
            return JL_ENOMEM;
    return JL_OK;
}

jl_status jl_provenance_add_input(jl_provenance *p, const char *path)
{
    forget_block(p);
    for (size_t i = 0; i < p->n_inputs; i++)
        if (!strcmp(p->inputs[i], path))
            return JL_OK;
    if (p->n_inputs == p->cap_inputs) {
        size_t cap = p->cap_inputs ? 2 * p->cap_inputs : 8;
        char **v = realloc(p->inputs, cap * sizeof *v);
        if (!v)
            return JL_ENOMEM;
        p->inputs = v;
        p->cap_inputs = cap;
    }
    if (!(p->inputs[p->n_inputs] = jl__strdup(path)))
        return JL_ENOMEM;
    p->n_inputs++;
    return JL_OK;
}

jl_status jl_provenance_add_inputs_read(jl_provenance *p, size_t *added)
{
    size_t before = p->n_inputs, n = jl__inputs_count();
    jl_status st = JL_OK;
    for (size_t i = p->read_from; i < n && st == JL_OK; i++) {
        const char *path = jl__inputs_get(i);
        if (path)
            st = jl_provenance_add_input(p, path);
    }
    if (added)
        *added = p->n_inputs - before;
    return st;
}

void jl_provenance_restart_inputs(jl_provenance *p)
{
    forget_block(p);
    for (size_t i = 0; i < p->n_inputs; i++)
        free(p->inputs[i]);
    p->n_inputs = 0;
    p->read_from = jl__inputs_count();
}

void jl_provenance_set_rules(jl_provenance *p, const jl_ruleset *rules)
{
    forget_block(p);
    p->rules = *rules;
    p->have_rules = 1;
}

jl_status jl_provenance_set_method(jl_provenance *p, const char *key, const json_t *v)
{
    forget_block(p);
    json_t *c = v ? json_deep_copy(v) : json_null();
    return c && !json_object_set_new(p->methods, key, c) ? JL_OK : JL_ENOMEM;
}

void jl_provenance_set_time(jl_provenance *p, long long t)
{
    forget_block(p);
    p->time = t;
    p->have_time = 1;
}

/* ---- inputs ---- */

typedef struct strv {
    char **v;
    size_t n, cap;
} strv;

static int strv_push(strv *s, char *x)
{
    if (!x)
        return -1;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        char **v = realloc(s->v, cap * sizeof *v);
        if (!v) {
            free(x);
            return -1;
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return 0;
}

/* Every regular file under dir (not starting with '.'), depth-first in
 * name order, through the one walker (core/walk.h): each folder and file
 * once per device and inode, so links that loop or repeat end. */
static int walk(jl__walk *wk, const char *dir, int depth, strv *out)
{
    if (depth > 32)
        return 0;
    jl__walk_list l;
    int r = jl__walk_dir(wk, dir, &l);
    if (r != 0)
        return r == -2; /* out of memory; else walked before, or unreadable */
    const char *sep = dir[strlen(dir) - 1] == '/' ? "" : "/";
    int bad = 0;
    size_t i = 0, j = 0;
    while (!bad && (i < l.n_files || j < l.n_dirs)) {
        int file = j >= l.n_dirs || (i < l.n_files && strcmp(l.files[i], l.dirs[j]) < 0);
        char *p = jl__asprintf("%s%s%s", dir, sep, file ? l.files[i++] : l.dirs[j++]);
        if (!p || file) {
            bad = strv_push(out, p);
        } else {
            bad = walk(wk, p, depth + 1, out);
            free(p);
        }
    }
    jl__walk_list_free(&l);
    return bad;
}

static json_t *input_json(const char *path)
{
    char hex[65];
    unsigned long long size = 0;
    jl_error *err = NULL;
    /* hashed already where the study read it (jl_study_options.hash_inputs)
     * and unchanged since, or hashed now */
    jl__digest d;
    jl_status st = JL_OK;
    if (jl__digest_lookup(path, &d)) {
        memcpy(hex, d.hex, sizeof hex);
        size = d.size;
    } else {
        st = jl_sha256_file(path, hex, &size, &err);
    }
    json_t *o = json_object();
    if (!o)
        return NULL;
    int bad = json_object_set_new(o, "path", json_string(path));
    /* the file's absolute, resolved name beside the path as read (typed):
     * one file read as `x`, `./x`, `../d/x` or through a link is one
     * "resolved" (docs/accounting.md, "Provenance"; docs/import.md, "Paths as typed") */
    char *real = realpath(path, NULL);
    if (real)
        bad |= json_object_set_new(o, "resolved", json_string(real));
    free(real);
    if (st == JL_OK) {
        bad |= json_object_set_new(o, "bytes", json_integer((json_int_t)size));
        bad |= json_object_set_new(o, "sha256", json_string(hex));
    } else {
        char *m = jl_error_format(err);
        bad |= json_object_set_new(o, "error", json_string(m ? m : jl_strerror(st)));
        free(m);
    }
    jl_error_free(err);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *inputs_json(const jl_provenance *p)
{
    json_t *arr = json_array();
    strv files = {0};
    int bad = !arr;
    /* one walk over the inputs: a file named twice (a folder and a file in
     * it, a link) is listed once, where it is first met */
    jl__walk wk;
    jl__walk_init(&wk);
    for (size_t i = 0; !bad && i < p->n_inputs; i++) {
        struct stat sb;
        int first = stat(p->inputs[i], &sb) != 0 ? 1 /* absent: listed with its error */
                    : S_ISDIR(sb.st_mode)        ? 2
                                                 : jl__walk_claim(&wk, &sb);
        if (first == 2)
            bad = walk(&wk, p->inputs[i], 0, &files);
        else if (first < 0)
            bad = 1;
        else if (first == 1)
            bad = strv_push(&files, jl__strdup(p->inputs[i]));
    }
    jl__walk_free(&wk);
    for (size_t i = 0; i < files.n && !bad; i++)
        bad = json_array_append_new(arr, input_json(files.v[i]));
    for (size_t i = 0; i < files.n; i++)
        free(files.v[i]);
    free(files.v);
    if (bad) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}

/* ---- the block ---- */

static json_t *rules_json(const jl_ruleset *rs)
{
    json_t *o = json_object(), *rules = json_object();
    int bad = !o || !rules;
    for (int i = 0; !bad && i < JL_RULE_COUNT; i++) {
        const jl_rule *r = &rs->rules[i];
        json_t *x = json_pack("{s:o,s:o,s:b}", "warn", jl_json_number(r->warn), "fail",
                              jl_json_number(r->fail), "enabled", r->enabled);
        bad = json_object_set_new(rules, r->name, x);
    }
    if (!bad)
        bad = json_object_set_new(o, "version", json_string(JL_RULES_VERSION)) ||
              json_object_set(o, "rules", rules);
    json_decref(rules);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static long long now_or_epoch(void)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    if (sde && *sde) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(sde, &end, 10);
        if (!errno && end && !*end)
            return v;
    }
    return (long long)time(NULL);
}

static json_t *time_json(long long t)
{
    char buf[32];
    return jl__iso_utc((double)t, buf) ? json_null() : json_string(buf);
}

static json_t *build_json(void)
{
    char hdf5[32] = "";
    unsigned maj = 0, min = 0, rel = 0;
    json_t *b = json_object();
    if (!b)
        return NULL;
#ifdef __VERSION__
    json_object_set_new(b, "compiler", json_string(__VERSION__));
#endif
    json_object_set_new(b, "jansson", json_string(JANSSON_VERSION));
    if (H5get_libversion(&maj, &min, &rel) >= 0) {
        snprintf(hdf5, sizeof hdf5, "%u.%u.%u", maj, min, rel);
        json_object_set_new(b, "hdf5", json_string(hdf5));
    }
#ifdef NDEBUG
    json_object_set_new(b, "assertions", json_false());
#else
    json_object_set_new(b, "assertions", json_true());
#endif
    return b;
}

json_t *jl_provenance_to_json(jl_provenance *p)
{
    if (p->block)
        return json_incref(p->block);
    json_t *o = json_object(), *j = json_object();
    if (!o || !j) {
        json_decref(o);
        json_decref(j);
        return NULL;
    }
    int bad = json_object_set_new(j, "version", json_string(jl_version()));
    bad |= json_object_set_new(j, "build", build_json());
    bad |= json_object_set_new(o, "joules", j);
    bad |= json_object_set_new(o, "schema", json_string(JL_PROVENANCE_SCHEMA));
    bad |= json_object_set(o, "command", p->command);
    bad |= json_object_set_new(o, "inputs", inputs_json(p));
    bad |= json_object_set_new(o, "rules", p->have_rules ? rules_json(&p->rules) : json_null());
    bad |= json_object_set(o, "methods", p->methods);
    bad |= json_object_set_new(o, "created", time_json(p->have_time ? p->time : now_or_epoch()));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    p->block = o;
    return json_incref(o);
}
