/* The importers' kit (kit.h): the context, notes and errors, runs with
 * unique names, attributes, the result's details and its JSON document,
 * files and folders, JSON trees. The CSV reader is kit_csv.c, times and
 * zones kit_time.c, the GPU-name table gpu_names.c. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/inputs.h"
#include "core/util.h"
#include "core/walk.h"
#include "import/kit.h"
#include "trace/trace_internal.h"
#include "json/json_internal.h"

/* ---- options and results (public: joules/import.h) ------------------------------ */

void jl_import_options_default(jl_import_options *opt)
{
    opt->max_file_bytes = (size_t)512 << 20;
    opt->max_configs = 1000000;
    opt->max_series = 50000000;
    opt->max_files = 100000;
    opt->timeline_power_is_sum = 0;
}

void jl_import_result_free(jl_import_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->runs && i < r->n_runs; i++)
        jl_run_free(r->runs[i]);
    free(r->runs);
    for (size_t i = 0; i < r->n_notes; i++) {
        free(r->notes[i].file);
        free(r->notes[i].field);
        free(r->notes[i].message);
    }
    free(r->notes);
    free(r->source);
    for (size_t i = 0; i < r->n_details; i++) {
        free(r->details[i].key);
        free(r->details[i].value);
    }
    free(r->details);
    free(r->detail_text);
    for (size_t i = 0; i < r->n_skipped; i++) {
        free(r->skipped[i].path);
        free(r->skipped[i].reason);
    }
    free(r->skipped);
    free(r);
}

json_t *jl_import_document(const jl_import_result *r, const char *format, const char *output)
{
    json_t *doc = json_object(), *notes = json_array(), *details = json_object();
    json_object_set_new(doc, "schema", json_string("joules.import/1"));
    json_object_set_new(doc, "format", json_string(format));
    json_object_set_new(doc, "source", r->source ? json_string(r->source) : json_null());
    json_object_set_new(doc, "output", output ? json_string(output) : json_null());
    json_object_set_new(doc, "n_runs", json_integer((json_int_t)r->n_runs));
    json_object_set_new(doc, "n_files", json_integer((json_int_t)r->n_files));
    json_object_set_new(doc, "n_duplicates", json_integer((json_int_t)r->n_duplicates));
    json_object_set_new(doc, "n_with_timelines", json_integer((json_int_t)r->n_with_timelines));
    for (size_t i = 0; i < r->n_notes; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "file", json_string(r->notes[i].file));
        json_object_set_new(o, "field", json_string(r->notes[i].field));
        json_object_set_new(o, "message", json_string(r->notes[i].message));
        json_object_set_new(o, "count", json_integer((json_int_t)r->notes[i].count));
        json_array_append_new(notes, o);
    }
    json_object_set_new(doc, "notes", notes);
    json_t *skipped = json_array();
    for (size_t i = 0; i < r->n_skipped; i++)
        json_array_append_new(skipped, json_pack("{s:s,s:s}", "path", r->skipped[i].path, "reason",
                                                 r->skipped[i].reason));
    json_object_set_new(doc, "skipped", skipped);
    for (size_t i = 0; i < r->n_details; i++) {
        const jl_kv *d = &r->details[i];
        double x = d->is_number ? strtod(d->value, NULL) : 0;
        /* a whole number in json_int_t's range as an integer; NaN or an
         * infinity (strtod reads "nan", "inf") as null, never a cast */
        int whole = isfinite(x) && fabs(x) < 9.2e18 && x == (double)(json_int_t)x;
        json_object_set_new(details, d->key,
                            !d->is_number ? json_string(d->value)
                            : whole       ? json_integer((json_int_t)x)
                            : isfinite(x) ? json_real(x)
                                          : json_null());
    }
    json_object_set_new(doc, "details", details);
    return doc;
}

/* ---- the context ------------------------------------------------------------- */

static void notes_close(jl__imp *c);

int jl__imp_start(jl__imp *c, const jl_import_options *opt, jl_error_list *errors)
{
    memset(c, 0, sizeof *c);
    jl__walk_init(&c->walk);
    c->note_index = (jl__strmap)JL__STRMAP_INIT;
    jl_import_options_default(&c->def);
    c->opt = opt ? opt : &c->def;
    c->errors = errors;
    c->res = calloc(1, sizeof *c->res);
    return c->res ? 0 : -1;
}

static void names_free(jl__imp *c)
{
    jl__strmap_free(&c->names);
}

jl_status jl__imp_end(jl__imp *c, jl_status st, jl_import_result **out)
{
    names_free(c);
    jl__walk_free(&c->walk);
    notes_close(c);
    jl__strmap_free(&c->note_index);
    if (c->oom || st == JL_ENOMEM) {
        int listed = 0;
        for (size_t i = 0; c->errors && i < c->errors->count; i++)
            listed |= c->errors->items[i]->code == JL_ENOMEM;
        if (!listed)
            jl_error_list_push(c->errors, jl_error_new(JL_ENOMEM, NULL, NULL, NULL, -1,
                                                       "out of memory during the import"));
        st = JL_ENOMEM;
    }
    if (st != JL_OK) {
        jl_import_result_free(c->res);
        c->res = NULL;
    }
    *out = c->res;
    return st;
}

jl_status jl__imp_finish(jl__imp *c, jl_import_result **out, const char *what)
{
    if (!c->oom && (!c->res || c->res->n_runs == 0)) {
        /* the runs found and left out, each with its reason: the notes
         * that said so go with the result, which is not handed over */
        size_t k = c->res ? c->res->n_skipped : 0;
        for (size_t i = 0; i < k; i++)
            jl_error_list_push(c->errors,
                               jl_error_new(JL_ENODATA, c->res->skipped[i].path, NULL, NULL, -1,
                                            "skipped: %s", c->res->skipped[i].reason));
        jl_error_list_push(
            c->errors,
            k ? jl_error_new(JL_ENODATA, what, NULL, NULL, -1,
                             "no run could be imported: %zu run%s found, %s skipped (each "
                             "above with its reason)",
                             k, k == 1 ? "" : "s", k == 1 ? "it was" : "all were")
              : jl_error_new(JL_ENODATA, what, NULL, NULL, -1, "no run could be imported"));
        return jl__imp_end(c, JL_ENODATA, out);
    }
    return jl__imp_end(c, JL_OK, out);
}

void jl__imp_skip(jl__imp *c, const char *path, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *why = jl__vasprintf(fmt, ap);
    va_end(ap);
    jl_import_result *r = c->res;
    jl_import_skip *g = why ? realloc(r->skipped, (r->n_skipped + 1) * sizeof *g) : NULL;
    if (!g) {
        free(why);
        c->oom = 1;
        return;
    }
    r->skipped = g;
    g[r->n_skipped].path = jl__strdup(path ? path : "");
    g[r->n_skipped].reason = why;
    if (!g[r->n_skipped].path) {
        free(why);
        c->oom = 1;
        return;
    }
    r->n_skipped++;
    jl__imp_note(c, path, field, "skipped: %s", why);
}

/* ---- notes and errors ------------------------------------------------------------ */

/* The field path with [k] indices as [*] (fold_indices). */
static char *folded_field(const char *field)
{
    jl__strbuf b;
    jl__strbuf_init(&b);
    for (const char *p = field; *p; p++) {
        if (*p == '[') {
            const char *q = p + 1;
            while (*q >= '0' && *q <= '9')
                q++;
            if (*q == ']' && q > p + 1) {
                jl__strbuf_puts(&b, "[*]");
                p = q;
                continue;
            }
        }
        jl__strbuf_append(&b, p, 1);
    }
    return jl__strbuf_take(&b);
}

static int note_grow(jl__imp *c)
{
    size_t ncap = c->notes_cap ? 2 * c->notes_cap : 16;
    jl_import_note *g = jl__malloc_array(ncap + 1, sizeof *g); /* +1: the last note */
    if (!g)
        return -1;
    if (c->res->n_notes)
        memcpy(g, c->res->notes, c->res->n_notes * sizeof *g);
    free(c->res->notes);
    c->res->notes = g;
    c->notes_cap = ncap;
    return 0;
}

/* The notes left out past JL__IMP_MAX_NOTES, said in one more; the
 * attributes left out past JL__IMP_MAX_EXTRAS, in a note. */
static void notes_close(jl__imp *c)
{
    if (c->extras_dropped && c->res) {
        size_t k = c->extras_dropped;
        c->extras_dropped = 0;
        jl__imp_note(c, NULL, NULL,
                     "%zu attributes not kept: a run keeps at most %d attributes beyond the "
                     "typed ones",
                     k, JL__IMP_MAX_EXTRAS);
    }
    if (!c->notes_dropped || !c->res)
        return;
    jl_import_note *n = &c->res->notes[c->res->n_notes];
    n->file = jl__strdup("");
    n->field = jl__strdup("");
    n->message = jl__asprintf("%zu more notes of other kinds not listed (at most %d are kept)",
                              c->notes_dropped, JL__IMP_MAX_NOTES);
    n->count = c->notes_dropped;
    c->res->n_notes++;
    c->notes_dropped = 0;
    if (!n->file || !n->field || !n->message)
        c->oom = 1;
}

void jl__imp_note(jl__imp *c, const char *file, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = jl__vasprintf(fmt, ap);
    va_end(ap);
    char *fld = c->fold_indices ? folded_field(field ? field : "") : jl__strdup(field ? field : "");
    if (!msg || !fld) {
        free(msg);
        free(fld);
        c->oom = 1;
        return;
    }
    jl_import_result *r = c->res;
    /* the note of (field, message), through a hash of both: N notes cost
     * linear time, not a scan of every note per note */
    size_t fl = strlen(fld);
    /* room for a new note first, so the hash never names a note not made */
    if (r->n_notes == c->notes_cap && note_grow(c)) {
        free(msg);
        free(fld);
        c->oom = 1;
        return;
    }
    /* the key: the field's length, the field, the message (unambiguous) */
    char *key = jl__asprintf("%zu:%s%s", fl, fld, msg);
    jl__strmap_entry *slot = NULL;
    int added = 0, have_key = key != NULL;
    if (key) {
        slot = r->n_notes < JL__IMP_MAX_NOTES
                   ? jl__strmap_add(&c->note_index, key, r->n_notes, &added)
                   : jl__strmap_find(&c->note_index, key);
        free(key);
    }
    if (slot && !added) {
        r->notes[slot->value].count++;
        free(msg);
        free(fld);
        return;
    }
    if (!slot && r->n_notes >= JL__IMP_MAX_NOTES && have_key) {
        c->notes_dropped++;
        free(msg);
        free(fld);
        return;
    }
    if (!slot) {
        free(msg);
        free(fld);
        c->oom = 1;
        return;
    }
    jl_import_note *n = &r->notes[r->n_notes++];
    n->file = jl__strdup(file ? file : "");
    n->field = fld;
    n->message = msg;
    n->count = 1;
    if (!n->file)
        c->oom = 1;
}

jl_status jl__imp_err(jl__imp *c, jl_status code, const char *file, const char *field,
                      long long line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = jl__vasprintf(fmt, ap);
    va_end(ap);
    /* the line goes into the text too: jl_error_format() prints no row */
    jl_error *e =
        msg ? (line >= 0 ? jl_error_new(code, file, NULL, field, line, "line %lld: %s", line, msg)
                         : jl_error_new(code, file, NULL, field, line, "%s", msg))
            : NULL;
    free(msg);
    if (!e || jl_error_list_push(c->errors, e) != JL_OK)
        c->oom = 1;
    return code;
}

jl_status jl__imp_err_at(jl_error_list *errors, jl_status code, const char *file, long long line,
                         long long column, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = jl__vasprintf(fmt, ap);
    va_end(ap);
    jl_error *e = jl_error_new(code, file, NULL, NULL, -1, "%s%s%s%s", field ? "field '" : "",
                               field ? field : "", field ? "': " : "", msg ? msg : "");
    free(msg);
    if (!e)
        return JL_ENOMEM;
    jl_error_set_position(e, line, column);
    if (jl_error_list_push(errors, e) != JL_OK)
        return JL_ENOMEM;
    return code;
}

/* ---- run names ------------------------------------------------------------------ */

size_t jl__imp_claim_name(jl__imp *c, jl_run *r)
{
    int added = 0;
    jl__strmap_entry *e = r->name ? jl__strmap_add(&c->names, r->name, 1, &added) : NULL;
    if (!e) {
        c->oom = 1;
        return 0;
    }
    if (added)
        return 1;
    /* asked for the k-th time: __dup2 .. __dup<k-1> are taken already (each
     * earlier repeat took the first free one), so the search starts at k */
    size_t k = ++e->value;
    for (;; k++) {
        char *nn = jl__asprintf("%s__dup%zu", r->name, k);
        if (!nn) {
            c->oom = 1;
            return 0;
        }
        if (!jl__strmap_find(&c->names, nn)) {
            if (!jl__strmap_add(&c->names, nn, 1, NULL)) {
                free(nn);
                c->oom = 1;
                return 0;
            }
            free(r->name);
            r->name = nn;
            c->res->n_duplicates++;
            return k;
        }
        free(nn);
    }
}

void jl__imp_add_run(jl__imp *c, jl_run *r)
{
    jl_import_result *res = c->res;
    if (!r->name) {
        c->oom = 1;
        jl_run_free(r);
        return;
    }
    if (res->n_runs == c->runs_cap) {
        size_t ncap = c->runs_cap ? 2 * c->runs_cap : 64;
        jl_run **g = realloc(res->runs, ncap * sizeof *g);
        if (!g) {
            c->oom = 1;
            jl_run_free(r);
            return;
        }
        res->runs = g;
        c->runs_cap = ncap;
    }
    res->runs[res->n_runs++] = r;
}

void jl__imp_push_run(jl__imp *c, jl_run *r)
{
    if (!jl__imp_claim_name(c, r)) {
        jl_run_free(r);
        return;
    }
    jl__imp_add_run(c, r);
}

jl_status jl__imp_requests(jl_run *r, size_t R)
{
    r->req_n = R;
    r->arrival = jl__malloc_array(R, sizeof(double));
    r->first_token = jl__malloc_array(R, sizeof(double));
    r->finish = jl__malloc_array(R, sizeof(double));
    r->input_tokens = jl__malloc_array(R, sizeof(int32_t));
    r->output_tokens = jl__malloc_array(R, sizeof(int32_t));
    return r->arrival && r->first_token && r->finish && r->input_tokens && r->output_tokens
               ? JL_OK
               : JL_ENOMEM;
}

/* ---- attributes ------------------------------------------------------------------ */

/* key = value into arr (replacing an earlier value of key). A list keeps
 * at most JL__IMP_MAX_EXTRAS keys: more (a crafted file's thousands of
 * columns or keys) are counted and said in one note, so the scan for an
 * earlier value stays bounded. */
static void put(jl__imp *c, jl_kv **arr, size_t *n, const char *key, const char *value, int is_num)
{
    for (size_t i = 0; i < *n; i++)
        if ((*arr)[i].key[0] == key[0] && !strcmp((*arr)[i].key, key)) {
            char *v = jl__strdup(value);
            if (!v) {
                c->oom = 1;
                return;
            }
            free((*arr)[i].value);
            (*arr)[i].value = v;
            (*arr)[i].is_number = is_num;
            return;
        }
    if (*n >= JL__IMP_MAX_EXTRAS) {
        c->extras_dropped++;
        return;
    }
    jl_kv *g = realloc(*arr, (*n + 1) * sizeof *g);
    if (!g) {
        c->oom = 1;
        return;
    }
    *arr = g;
    g[*n].key = jl__strdup(key);
    g[*n].value = jl__strdup(value);
    g[*n].is_number = is_num;
    if (!g[*n].key || !g[*n].value) {
        free(g[*n].key);
        free(g[*n].value);
        c->oom = 1;
        return;
    }
    (*n)++;
}

/* The decimal digits of u, written backwards to end at `end` (exclusive);
 * returns the first. At most 20 bytes. */
static char *digits_before(char *end, unsigned long long u)
{
    do
        *--end = (char)('0' + u % 10);
    while ((u /= 10));
    return end;
}

char *jl__imp_fmt_lld(char *buf, long long q)
{
    char tmp[24], *p = digits_before(tmp + sizeof tmp - 1,
                                     q < 0 ? 0ull - (unsigned long long)q : (unsigned long long)q);
    tmp[sizeof tmp - 1] = '\0';
    if (q < 0)
        *--p = '-';
    memcpy(buf, p, (size_t)(tmp + sizeof tmp - p));
    return buf;
}

/* A whole number below 2^53 is its digits in "%.17g" (no exponent below
 * 1e17, no point): written without printf's cost; -0 and the rest go to
 * snprintf. */
char *jl__imp_fmt_g17(char *buf, double v)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0 && (v != 0 || !signbit(v)))
        return jl__imp_fmt_lld(buf, (long long)v);
    snprintf(buf, 64, "%.17g", v);
    return buf;
}

void jl__imp_extra_num(jl__imp *c, jl_run *r, const char *key, double v)
{
    char buf[64];
    put(c, &r->attrs.extra, &r->attrs.n_extra, key, jl__imp_fmt_g17(buf, v), 1);
}

void jl__imp_extra_text(jl__imp *c, jl_run *r, const char *key, const char *text, int is_num)
{
    put(c, &r->attrs.extra, &r->attrs.n_extra, key, text, is_num);
}

void jl__imp_extra_str(jl__imp *c, jl_run *r, const char *key, const char *v)
{
    put(c, &r->attrs.extra, &r->attrs.n_extra, key, v ? v : "", 0);
}

void jl__imp_summary_num(jl__imp *c, jl_run *r, const char *key, double v)
{
    char buf[64];
    put(c, &r->summary.extra, &r->summary.n_extra, key, jl__imp_fmt_g17(buf, v), 1);
}

void jl__imp_summary_str(jl__imp *c, jl_run *r, const char *key, const char *v)
{
    put(c, &r->summary.extra, &r->summary.n_extra, key, v ? v : "", 0);
}

void jl__imp_extra_default(jl__imp *c, jl_run *r, const char *key, const char *v, int is_num)
{
    if (!jl__imp_extra_get(r, key))
        put(c, &r->attrs.extra, &r->attrs.n_extra, key, v, is_num);
}

const char *jl__imp_extra_get(const jl_run *r, const char *key)
{
    for (size_t i = 0; i < r->attrs.n_extra; i++)
        if (r->attrs.extra[i].key[0] == key[0] && !strcmp(r->attrs.extra[i].key, key))
            return r->attrs.extra[i].value;
    return NULL;
}

void jl__imp_detail(jl__imp *c, const char *key, const char *value, int is_number)
{
    put(c, &c->res->details, &c->res->n_details, key, value, is_number);
}

void jl__imp_detail_num(jl__imp *c, const char *key, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.12g", v);
    jl__imp_detail(c, key, buf, 1);
}

char *jl__imp_sanitize(const char *s)
{
    const char *in = s ? s : "unknown";
    char *out = malloc(2 * strlen(in) + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *p = in; *p; p++) {
        if (*p == '/') {
            *o++ = '_';
            *o++ = '_';
        } else {
            *o++ = (unsigned char)*p <= 0x20 || *p == '\\' || *p == 0x7f ? '_' : *p;
        }
    }
    *o = '\0';
    return out;
}

/* ---- files and folders ------------------------------------------------------------ */

/* NULL on failure with *code (JL_EIO, JL_ELIMIT, JL_ENOMEM), *err_no the
 * errno of a failed open (ENOENT: missing) and the reason in why. */
static char *read_limited(const char *path, size_t max_bytes, size_t *len, jl_status *code,
                          int *err_no, char *why, size_t why_cap)
{
    *err_no = 0;
    *code = JL_EIO;
    /* a FIFO or a device named by mistake is refused, not waited on */
    int fd = jl__open_input(path, why, why_cap);
    if (fd < 0) {
        *err_no = errno == EINVAL ? 0 : errno;
        return NULL;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        close(fd);
        snprintf(why, why_cap, "cannot open: %s", strerror(errno));
        return NULL;
    }
    jl__input_read(path); /* the provenance's inputs */
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        *code = JL_ENOMEM;
        snprintf(why, why_cap, "out of memory");
        return NULL;
    }
    if ((unsigned long long)sb.st_size > max_bytes) {
        fclose(f);
        *code = JL_ELIMIT;
        snprintf(why, why_cap, "the file holds %lld bytes, more than the limit of %zu",
                 (long long)sb.st_size, max_bytes);
        return NULL;
    }
    /* the size checked above is what is read (a file growing meanwhile is
     * cut there, and its parser then reports where the text ends) */
    size_t n = (size_t)sb.st_size;
    char *buf = malloc(n + 1);
    if (!buf) {
        fclose(f);
        *code = JL_ENOMEM;
        snprintf(why, why_cap, "out of memory");
        return NULL;
    }
    size_t got = fread(buf, 1, n, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        snprintf(why, why_cap, "read error");
        return NULL;
    }
    buf[got] = '\0';
    *len = got;
    return buf;
}

char *jl__imp_read_file_opt(jl__imp *c, const char *path, size_t *len, int missing_ok)
{
    jl_status code;
    int err_no;
    char why[160];
    char *text = read_limited(path, c->opt->max_file_bytes, len, &code, &err_no, why, sizeof why);
    if (!text && code == JL_ENOMEM)
        c->oom = 1;
    else if (!text && !(missing_ok && err_no == ENOENT))
        jl__imp_err(c, code, path, NULL, -1, "%s", why);
    return text;
}

char *jl__imp_read_file(jl__imp *c, const char *path, size_t *len)
{
    return jl__imp_read_file_opt(c, path, len, 0);
}

char *jl__imp_join(jl__imp *c, const char *a, const char *b)
{
    char *p = jl__asprintf("%s/%s", a, b);
    if (!p)
        c->oom = 1;
    return p;
}

void jl__imp_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int jl__imp_list_dir(jl__imp *c, const char *dir, char ***dirs, size_t *n_dirs, char ***files,
                     size_t *n_files)
{
    *dirs = *files = NULL;
    *n_dirs = *n_files = 0;
    jl__walk_list l;
    int r = jl__walk_dir(&c->walk, dir, &l);
    if (r == 1)
        return 1; /* walked already in this import, through another name */
    if (r == -2) {
        c->oom = 1;
        return -1;
    }
    if (r < 0) {
        jl__imp_err(c, JL_EIO, dir, NULL, -1, "cannot open the folder: %s", strerror(errno));
        return -1;
    }
    *dirs = l.dirs;
    *n_dirs = l.n_dirs;
    *files = l.files;
    *n_files = l.n_files;
    return 0;
}

int jl__imp_claim_path(jl__imp *c, const char *path)
{
    int r = jl__walk_claim_path(&c->walk, path);
    if (r == -1)
        c->oom = 1;
    return r;
}

static double walk_bytes(jl__walk *w, const char *dir, int depth)
{
    jl__walk_list l;
    if (depth > 8 || jl__walk_dir(w, dir, &l) != 0)
        return 0;
    double sum = 0;
    for (size_t i = 0; i < l.n_files + l.n_dirs; i++) {
        int file = i < l.n_files;
        char *p = jl__asprintf("%s/%s", dir, file ? l.files[i] : l.dirs[i - l.n_files]);
        struct stat sb;
        if (p && file && stat(p, &sb) == 0)
            sum += (double)sb.st_size;
        else if (p && !file)
            sum += walk_bytes(w, p, depth + 1);
        free(p);
    }
    jl__walk_list_free(&l);
    return sum;
}

double jl_import_input_bytes(const char *path)
{
    struct stat sb;
    if (!path || stat(path, &sb) != 0)
        return 0;
    if (S_ISREG(sb.st_mode))
        return (double)sb.st_size;
    if (!S_ISDIR(sb.st_mode))
        return 0;
    jl__walk w;
    jl__walk_init(&w);
    double sum = walk_bytes(&w, path, 0);
    jl__walk_free(&w);
    return sum;
}

int jl__imp_is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

int jl__imp_is_dir(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int jl__imp_refuse_special(jl_error_list *errors, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || S_ISDIR(sb.st_mode) || S_ISREG(sb.st_mode))
        return 0;
    jl__imp_err_at(errors, JL_EIO, path, 0, 0, NULL, "not a regular file (%s)",
                   jl__file_kind(sb.st_mode));
    return 1;
}

int jl__imp_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

jl_status jl__imp_paths(const char *const *paths, size_t n_paths, const jl_import_options *opt,
                        jl_import_result **out, jl_error_list *errors, jl__imp_walk_fn walk,
                        const char *marker, const char *none_msg, const char *source)
{
    jl__imp c;
    *out = NULL;
    if (jl__imp_start(&c, opt, errors))
        return JL_ENOMEM;
    for (size_t i = 0; i < n_paths && !c.oom; i++) {
        size_t found = 0;
        if (jl__imp_refuse_special(errors, paths[i]))
            continue;
        struct stat sb;
        if (stat(paths[i], &sb) == 0 && jl__walk_seen(&c.walk, &sb))
            continue; /* named before, or inside a folder walked before: read once */
        walk(&c, paths[i], 0, &found);
        if (!found)
            jl__imp_err(&c, JL_EMISSING, paths[i], marker, -1, "%s", none_msg);
    }
    c.res->source = jl__strdup(source);
    if (!c.res->source)
        c.oom = 1;
    return jl__imp_finish(&c, out, n_paths ? paths[0] : NULL);
}

jl_status jl__imp_run_plain(jl__imp_paths_entry fn, const char *const *paths, size_t n_paths,
                            jl_import_result **out, jl_error_list *errors, const char *label)
{
    jl_status st = fn(paths, n_paths, NULL, out, errors);
    if (st == JL_OK && *out)
        (*out)->detail_text = label ? jl__asprintf("%s, %zu notes", label, (*out)->n_notes)
                                    : jl__asprintf("%zu with series, %zu notes",
                                                   (*out)->n_with_timelines, (*out)->n_notes);
    return st;
}

const jl_importer_option jl__imp_no_options[] = {{NULL, NULL, NULL}};

/* ---- JSON trees ------------------------------------------------------------------- */

/* Keys given twice (JL__IMP_DUPS_NOTE): differing values are errors (the
 * document is refused, 1), equal ones one note per field (0). */
static int report_dups(jl__imp *c, const char *name, const jl__json_dup *d, size_t nd)
{
    size_t n_diff = 0;
    for (size_t i = 0; i < nd; i++) {
        if (d[i].equal)
            continue;
        if (n_diff++ < 10) {
            jl_error *e = jl_error_new(
                JL_EFORMAT, name, NULL, d[i].path, d[i].line_dup,
                "line %ld: key \"%s\" given again with a different value (%s; at line %ld it "
                "was %s): which one was meant is unknown, the file is not imported",
                d[i].line_dup, d[i].key, d[i].value_dup, d[i].line_first, d[i].value_first);
            if (!e || jl_error_list_push(c->errors, e) != JL_OK)
                c->oom = 1;
        }
    }
    if (n_diff > 10)
        jl__imp_err(c, JL_EFORMAT, name, NULL, -1,
                    "%zu more keys given twice with different values", n_diff - 10);
    /* equal repeats: one note per field, with the first lines and a count
     * (counted through a hash of the folded fields: linear in the repeats) */
    if (n_diff)
        return 1;
    jl__strmap first_of = JL__STRMAP_INIT; /* folded field -> its first repeat */
    size_t *count = jl__calloc_array(nd ? nd : 1, sizeof *count), *first = NULL;
    first = jl__calloc_array(nd ? nd : 1, sizeof *first);
    for (size_t i = 0; i < nd && count && first && !c->oom; i++) {
        if (!d[i].equal)
            continue;
        char *g = folded_field(d[i].path);
        int added;
        const jl__strmap_entry *f = g ? jl__strmap_add(&first_of, g, i, &added) : NULL;
        free(g);
        if (!f) {
            c->oom = 1;
            break;
        }
        first[i] = f->value;
        count[f->value]++;
    }
    if (!count || !first)
        c->oom = 1;
    for (size_t i = 0; i < nd && !c->oom; i++)
        if (d[i].equal && d[i].key && first[i] == i)
            jl__imp_note(c, name, d[i].path,
                         "key \"%s\" given twice with the same value in %zu object%s (first at "
                         "lines %ld and %ld): kept once",
                         d[i].key, count[i], count[i] == 1 ? "" : "s", d[i].line_first,
                         d[i].line_dup);
    free(count);
    free(first);
    jl__strmap_free(&first_of);
    return n_diff > 0;
}

jl__jv *jl__imp_json_tree(jl__imp *c, const char *name, const char *text, size_t len, int dups)
{
    /* the common case: valid, no key twice (json_tree.c, on the streaming
     * reader); anything else goes through jansson, for its error message
     * or the duplicate-key report: the only place a jansson tree is built
     * while importing, and only for a document the fast path declined */
    jl__jv *fast = jl__jv_parse(text, len);
    if (fast)
        return fast;
    json_error_t je;
    json_t *doc =
        json_loadb(text, len, dups == JL__IMP_DUPS_REFUSE ? JSON_REJECT_DUPLICATES : 0, &je);
    if (!doc) {
        jl_error *e =
            jl_error_new(JL_EFORMAT, name, NULL, NULL, je.line > 0 ? je.line : -1,
                         "not valid JSON: %s (line %d, column %d)", je.text, je.line, je.column);
        if (!e || jl_error_list_push(c->errors, e) != JL_OK)
            c->oom = 1;
        return NULL;
    }
    jl__json_dup *d = NULL;
    size_t nd = 0;
    int refused = 0;
    if (dups == JL__IMP_DUPS_NOTE) {
        if (jl__json_find_dups(text, len, &d, &nd)) {
            c->oom = 1;
            json_decref(doc);
            return NULL;
        }
        refused = report_dups(c, name, d, nd);
        jl__json_dups_free(d, nd);
    }
    jl__jv *tree = refused ? NULL : jl__jv_from_json(doc);
    if (!refused && !tree)
        c->oom = 1;
    json_decref(doc);
    return tree;
}

/* ---- typed run attributes ------------------------------------------------------ */

/* The typed field of attribute key in a (the reader's field table,
 * trace_internal.h), or NULL for an attribute kept as an extra. */
const jl__attr_field *jl__imp_attr_field(const char *key)
{
    for (size_t i = 0; i < jl__n_attr_fields; i++)
        if (!strcmp(jl__attr_fields[i].name, key))
            return &jl__attr_fields[i];
    return NULL;
}

#define FIELD(a, f, type) ((type *)((char *)(a) + (f)->off))

/* Set attribute key=value on a; NULL or the reason it cannot be. */
const char *jl__imp_set_attr(jl_attrs *a, const char *key, const char *value)
{
    double x;
    if (!*key)
        return "an empty attribute name";
    if (strlen(value) > JL__IMP_MAX_ATTR_TEXT)
        return "a value longer than 60,000 bytes";
    if (!strcmp(key, "start_time_unix"))
        return "start_time_unix is set from the run's start";
    const jl__attr_field *f = jl__imp_attr_field(key);
    if (f && f->kind == JL__F_LONG) {
        int one = !strcmp(key, "num_gpus") || !strcmp(key, "max_batch_size");
        if (!jl__imp_number(value, &x) || x != floor(x) || x < one || x > 1e9)
            return one ? "expected a whole number >= 1" : "expected a whole number >= 0";
        *FIELD(a, f, long) = (long)x;
        return NULL;
    }
    if (f && f->kind == JL__F_DBL) {
        if (!jl__imp_number(value, &x) || x < 0)
            return "expected a number >= 0";
        *FIELD(a, f, double) = x;
        return NULL;
    }
    if (f) {
        /* the trace format's vocabulary: bf16 -> bfloat16, LLM -> llm, ... */
        char canon[64];
        if (!strcmp(key, "workload") || !strcmp(key, "precision")) {
            const char *why = jl_attrs_canonical_value(key, value, canon, sizeof canon);
            if (why)
                return why;
            value = canon;
        }
        char *d = jl__strdup(value);
        if (!d)
            return "out of memory";
        char **p = FIELD(a, f, char *);
        free(*p);
        *p = d;
        return NULL;
    }
    for (size_t i = 0; i < a->n_extra; i++)
        if (!strcmp(a->extra[i].key, key)) {
            char *d = jl__strdup(value);
            if (!d)
                return "out of memory";
            free(a->extra[i].value);
            a->extra[i].value = d;
            a->extra[i].is_number = jl__imp_number(value, &x);
            return NULL;
        }
    if (jl_attrs_add_extra(a, key, value, jl__imp_number(value, &x)) != JL_OK)
        return "out of memory";
    return NULL;
}

/* ---- --set and the required attributes (summary-table importers) ------------------ */

void jl__imp_sets_free(jl__imp_sets *s)
{
    for (size_t i = 0; s && i < s->n; i++)
        free(s->kv[i].key);
    if (s)
        free(s->kv);
}

jl_status jl__imp_sets_parse(const jl_importer_arg *args, size_t n_args, jl__imp_sets *s,
                             jl_error_list *errors)
{
    memset(s, 0, sizeof *s);
    if (!(s->kv = calloc(n_args ? n_args : 1, sizeof *s->kv)))
        return JL_ENOMEM;
    for (size_t i = 0; i < n_args; i++) {
        const char *k = args[i].name, *v = args[i].value;
        if (!strcmp(k, "timezone")) {
            s->timezone = v;
            continue;
        }
        if (strcmp(k, "set"))
            continue;
        const char *eq = strchr(v, '=');
        if (!eq || eq == v)
            return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL,
                                  "--set wants KEY=VALUE, found '%s'", v);
        if (!(s->kv[s->n].key = jl__asprintf("%.*s", (int)(eq - v), v)))
            return JL_ENOMEM;
        s->kv[s->n].value = (char *)(eq + 1);
        jl_attrs probe;
        jl_attrs_init(&probe);
        const char *why = jl__imp_set_attr(&probe, s->kv[s->n].key, s->kv[s->n].value);
        jl_attrs_clear(&probe);
        s->n++;
        if (why)
            return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL, "--set %s: %s", v, why);
    }
    return JL_OK;
}

void jl__imp_sets_apply(jl__imp *c, const jl__imp_sets *s, jl_run *r)
{
    for (size_t i = 0; i < s->n; i++)
        if (jl__imp_set_attr(&r->attrs, s->kv[i].key, s->kv[i].value))
            c->oom = 1; /* checked by jl__imp_sets_parse: only memory can fail */
}

char *jl__imp_missing_required(const jl_attrs *a)
{
    static const char *const required[] = {"workload",  "model",    "task",           "precision",
                                           "gpu_model", "num_gpus", "max_batch_size", NULL};
    jl__strbuf b;
    jl__strbuf_init(&b);
    for (const char *const *k = required; *k; k++) {
        const jl__attr_field *f = jl__imp_attr_field(*k);
        const char *at = (const char *)a + f->off;
        int missing = f->kind == JL__F_LONG ? *(const long *)at < 1 : !*(char *const *)at;
        if (missing)
            jl__strbuf_printf(&b, "%s%s", b.len ? ", " : "", *k);
    }
    if (!b.len) {
        jl__strbuf_free(&b);
        return NULL;
    }
    return jl__strbuf_take(&b);
}

jl_status jl__imp_sets_check(const jl__imp_sets *s, int file_gives_gpu, const char *path,
                             const char *format, jl_error_list *errors)
{
    jl_attrs a;
    jl_attrs_init(&a);
    int oom = 0;
    for (size_t i = 0; i < s->n; i++)
        oom |= jl__imp_set_attr(&a, s->kv[i].key, s->kv[i].value) != NULL;
    if (file_gives_gpu && !a.gpu_model)
        oom |= !(a.gpu_model = jl__strdup("x"));
    if (a.num_gpus < 1)
        a.num_gpus = 1; /* the file's GPU columns or count */
    char *miss = oom ? NULL : jl__imp_missing_required(&a);
    jl_attrs_clear(&a);
    if (oom)
        return JL_ENOMEM;
    if (!miss)
        return JL_OK;
    int several = strchr(miss, ',') != NULL;
    jl_status st = jl__imp_err_at(
        errors, JL_EMISSING, path, 0, 0, miss,
        "required attribute%s not given: %s. %s records no model, task, precision or batch "
        "cap%s (it measures any code, not an inference server): give %s with --set KEY=VALUE, "
        "e.g. --set workload=llm --set model=org/name --set task=chat --set precision=bfloat16 "
        "--set max_batch_size=1%s; nothing imported",
        several ? "s" : "", miss, format, file_gives_gpu ? "" : " nor the GPU model",
        several ? "them" : "it", file_gives_gpu ? "" : " --set gpu_model=A100");
    free(miss);
    return st;
}

void jl__imp_csv_each(jl__imp *k, const char *path, void *ctx,
                      int (*header)(void *ctx, const jl__csv_row *row),
                      void (*data)(void *ctx, const jl__csv_row *row))
{
    jl__csv *csv = NULL;
    jl_error *err = NULL;
    if (jl__csv_open_file(path, &csv, &err) != JL_OK) {
        if (err)
            jl_error_list_push(k->errors, err);
        else
            k->oom = 1;
        return;
    }
    jl__csv_row row;
    int r, have_header = 0;
    while ((r = jl__csv_next(csv, &row, &err)) > 0 && !k->oom) {
        if (have_header) {
            data(ctx, &row);
            continue;
        }
        if (header(ctx, &row))
            break;
        have_header = 1;
        if (jl__csv_encoding(csv))
            jl__imp_note(k, path, NULL, "read as %s", jl__csv_encoding(csv));
    }
    if (r < 0 && err)
        jl_error_list_push(k->errors, err);
    else
        jl_error_free(err);
    jl__csv_close(csv);
}

jl_status jl__imp_sets_start(jl__imp *k, jl__imp_sets *s, const jl_importer_arg *args,
                             size_t n_args, int file_gives_gpu, const char *path,
                             const char *format, jl_error_list *errors)
{
    jl_status st = jl__imp_sets_parse(args, n_args, s, errors);
    if (st == JL_OK)
        st = jl__imp_sets_check(s, file_gives_gpu, path, format, errors);
    if (st == JL_OK && jl__imp_start(k, NULL, errors))
        st = JL_ENOMEM;
    if (st != JL_OK)
        jl__imp_sets_free(s);
    return st;
}
