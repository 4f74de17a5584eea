/* Helpers shared by the importers: results and notes, the GPU-name table,
 * the CSV reader, numbers with units, wall-clock times and zones
 * (src/import/import_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "core/util.h"
#include "import/import_internal.h"

/* ---- results ---------------------------------------------------------------- */

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
    free(r);
}

json_t *jl_import_result_to_json(const jl_import_result *r, const char *format, const char *output)
{
    json_t *doc = json_object(), *notes = json_array(), *details = json_object();
    json_object_set_new(doc, "schema", json_string("joules.import/1"));
    json_object_set_new(doc, "format", json_string(format));
    json_object_set_new(doc, "source", r->source ? json_string(r->source) : json_null());
    json_object_set_new(doc, "output", json_string(output));
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
    for (size_t i = 0; i < r->n_details; i++) {
        const jl_kv *d = &r->details[i];
        double x = d->is_number ? strtod(d->value, NULL) : 0;
        json_object_set_new(details, d->key,
                            !d->is_number                ? json_string(d->value)
                            : x == (double)(json_int_t)x ? json_integer((json_int_t)x)
                                                         : json_real(x));
    }
    json_object_set_new(doc, "details", details);
    return doc;
}

jl_status jl__import_run_requests(jl_run *r, size_t R)
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

jl_import_result *jl__import_result_new(void)
{
    return calloc(1, sizeof(jl_import_result));
}

void jl__import_note(jl_import_result *r, const char *file, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = jl__vasprintf(fmt, ap);
    va_end(ap);
    if (!msg)
        return;
    const char *fld = field ? field : "";
    for (size_t i = 0; i < r->n_notes; i++)
        if (!strcmp(r->notes[i].field, fld) && !strcmp(r->notes[i].message, msg)) {
            r->notes[i].count++;
            free(msg);
            return;
        }
    jl_import_note *n = realloc(r->notes, (r->n_notes + 1) * sizeof *n);
    if (!n) {
        free(msg);
        return;
    }
    r->notes = n;
    jl_import_note *x = &n[r->n_notes];
    x->file = jl__strdup(file ? file : "");
    x->field = jl__strdup(fld);
    x->message = msg;
    x->count = 1;
    if (!x->file || !x->field) {
        free(x->file);
        free(x->field);
        free(msg);
        return;
    }
    r->n_notes++;
}

void jl__import_detail(jl_import_result *r, const char *key, const char *value, int is_number)
{
    for (size_t i = 0; i < r->n_details; i++)
        if (!strcmp(r->details[i].key, key)) {
            char *v = jl__strdup(value);
            if (v) {
                free(r->details[i].value);
                r->details[i].value = v;
                r->details[i].is_number = is_number;
            }
            return;
        }
    jl_kv *d = realloc(r->details, (r->n_details + 1) * sizeof *d);
    if (!d)
        return;
    r->details = d;
    d[r->n_details].key = jl__strdup(key);
    d[r->n_details].value = jl__strdup(value);
    d[r->n_details].is_number = is_number;
    if (!d[r->n_details].key || !d[r->n_details].value) {
        free(d[r->n_details].key);
        free(d[r->n_details].value);
        return;
    }
    r->n_details++;
}

void jl__import_detail_num(jl_import_result *r, const char *key, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.12g", v);
    jl__import_detail(r, key, buf, 1);
}

int jl__import_push_run(jl_import_result *r, jl_run *run)
{
    jl_run **x = realloc(r->runs, (r->n_runs + 1) * sizeof *x);
    if (!x)
        return 0;
    r->runs = x;
    x[r->n_runs++] = run;
    return 1;
}

jl_status jl__import_error(jl_error_list *errors, jl_status code, const char *file, long long line,
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

/* ---- GPU names ---------------------------------------------------------------- */

/* Device-name tokens that name a GPU model, longest first where one is a
 * prefix of another. Matched as whole tokens (split at space, '-', '_'),
 * case-insensitively. */
static const char *const gpu_ids[] = {
    "GB300", "GB200", "GH200", "B300", "B200", "B100",  "H200",  "H100",  "H800", "H20", "A100",
    "A800",  "A40",   "A30",   "A10G", "A10",  "A16",   "A2",    "L40S",  "L40",  "L20", "L4",
    "V100",  "T4",    "P100",  "P40",  "P4",   "A6000", "A5000", "A4000", NULL,
};

int jl_gpu_model_from_name(const char *name, char *buf, size_t cap)
{
    if (!cap)
        return 0;
    buf[0] = '\0';
    if (!name)
        return 0;
    const char *p = name;
    while (isspace((unsigned char)*p))
        p++;
    for (const char *const *pre = (const char *const[]){"NVIDIA ", "Tesla ", NULL}; *pre; pre++)
        if (!strncmp(p, *pre, strlen(*pre)))
            p += strlen(*pre);
    const char *s = p;
    while (*s) {
        while (*s == ' ' || *s == '-' || *s == '_')
            s++;
        const char *e = s;
        while (*e && *e != ' ' && *e != '-' && *e != '_')
            e++;
        size_t len = (size_t)(e - s);
        for (size_t k = 0; len && gpu_ids[k]; k++) {
            if (strlen(gpu_ids[k]) != len)
                continue;
            size_t j = 0;
            while (j < len && toupper((unsigned char)s[j]) == gpu_ids[k][j])
                j++;
            if (j == len) {
                snprintf(buf, cap, "%s", gpu_ids[k]);
                return 1;
            }
        }
        s = e;
    }
    snprintf(buf, cap, "%s", p);
    size_t n = strlen(buf);
    while (n && isspace((unsigned char)buf[n - 1]))
        buf[--n] = '\0';
    return 0;
}

/* ---- CSV ---------------------------------------------------------------- */

#define CSV_BLOCK ((size_t)1 << 20)    /* read size */
#define CSV_MAX_ROW ((size_t)16 << 20) /* a row longer than this is an error */

struct jl__csv {
    char *name;
    FILE *fp;  /* NULL for a buffer */
    char *buf; /* data: [pos, end) not yet consumed */
    size_t cap, pos, end;
    int eof;
    long long line; /* line number of buf[pos] */
    jl__csv_field *f;
    size_t fcap;
};

static jl_status csv_new(const char *name, jl__csv **out, jl_error **err)
{
    jl__csv *c = calloc(1, sizeof *c);
    if (!c || !(c->name = jl__strdup(name ? name : "<buffer>"))) {
        free(c);
        return jl_fail(err, JL_ENOMEM, name, NULL, NULL, -1, NULL);
    }
    c->line = 1;
    *out = c;
    return JL_OK;
}

jl_status jl__csv_open_file(const char *path, jl__csv **out, jl_error **err)
{
    *out = NULL;
    jl__csv *c = NULL;
    jl_status st = csv_new(path, &c, err);
    if (st != JL_OK)
        return st;
    c->fp = fopen(path, "rb");
    if (!c->fp) {
        st = jl_fail(err, JL_EIO, path, NULL, NULL, -1, "%s", strerror(errno));
        jl__csv_close(c);
        return st;
    }
    c->cap = CSV_BLOCK + 1;
    if (!(c->buf = malloc(c->cap))) {
        jl__csv_close(c);
        return jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, NULL);
    }
    *out = c;
    return JL_OK;
}

jl_status jl__csv_open_buffer(const char *buf, size_t len, const char *name, jl__csv **out,
                              jl_error **err)
{
    *out = NULL;
    jl__csv *c = NULL;
    jl_status st = csv_new(name, &c, err);
    if (st != JL_OK)
        return st;
    c->cap = len + 1;
    if (!(c->buf = malloc(c->cap))) {
        jl__csv_close(c);
        return jl_fail(err, JL_ENOMEM, name, NULL, NULL, -1, NULL);
    }
    if (len)
        memcpy(c->buf, buf, len);
    c->end = len;
    c->eof = 1;
    *out = c;
    return JL_OK;
}

const char *jl__csv_name(const jl__csv *c)
{
    return c->name;
}

void jl__csv_close(jl__csv *c)
{
    if (!c)
        return;
    if (c->fp)
        fclose(c->fp);
    free(c->buf);
    free(c->f);
    free(c->name);
    free(c);
}

static int csv_fail(jl__csv *c, jl_error **err, jl_status code, long long line, long long col,
                    const char *msg)
{
    if (err && !*err) {
        *err = jl_error_new(code, c->name, NULL, NULL, -1, "%s", msg);
        jl_error_set_position(*err, line, col);
    }
    return -1;
}

/* More data after [pos, end): moves the rest to the front and reads. */
static int csv_fill(jl__csv *c, jl_error **err)
{
    if (c->eof)
        return 0;
    if (c->pos > 0) {
        memmove(c->buf, c->buf + c->pos, c->end - c->pos);
        c->end -= c->pos;
        c->pos = 0;
    }
    if (c->cap - 1 - c->end < CSV_BLOCK / 2) {
        if (c->cap - 1 >= CSV_MAX_ROW + CSV_BLOCK)
            return csv_fail(c, err, JL_ELIMIT, c->line, 0,
                            "a line longer than 16 MiB (not a CSV log?)");
        size_t ncap = c->cap * 2;
        char *nb = realloc(c->buf, ncap);
        if (!nb)
            return csv_fail(c, err, JL_ENOMEM, c->line, 0, "out of memory");
        c->buf = nb;
        c->cap = ncap;
    }
    size_t got = fread(c->buf + c->end, 1, c->cap - 1 - c->end, c->fp);
    if (got == 0) {
        if (ferror(c->fp))
            return csv_fail(c, err, JL_EIO, c->line, 0, "read error");
        c->eof = 1;
        return 0;
    }
    c->end += got;
    return 1;
}

static int csv_push_field(jl__csv *c, size_t i, const char *s, size_t len, long long col)
{
    if (i >= c->fcap) {
        size_t nc = c->fcap ? c->fcap * 2 : 32;
        jl__csv_field *f = realloc(c->f, nc * sizeof *f);
        if (!f)
            return 0;
        c->f = f;
        c->fcap = nc;
    }
    c->f[i].s = s;
    c->f[i].len = len;
    c->f[i].column = col;
    return 1;
}

int jl__csv_next(jl__csv *c, jl__csv_row *row, jl_error **err)
{
    for (;;) {
        /* Find the end of the row: a '\n' outside quotes. */
        size_t scan = c->pos, stop = 0;
        int inq = 0, found = 0, quoted = 0;
        for (;;) {
            char *b = c->buf;
            while (scan < c->end) {
                const char *nl = memchr(b + scan, '\n', c->end - scan);
                size_t lim = nl ? (size_t)(nl - b) : c->end;
                const char *q = memchr(b + scan, '"', lim - scan);
                if (!q && !inq) {
                    scan = lim;
                    if (nl) {
                        found = 1;
                        stop = lim;
                    }
                    break;
                }
                quoted = 1;
                for (size_t k = scan; k < lim; k++)
                    if (b[k] == '"')
                        inq = !inq;
                scan = lim;
                if (!nl)
                    break;
                if (!inq) {
                    found = 1;
                    stop = lim;
                    break;
                }
                scan = lim + 1;
            }
            if (found)
                break;
            size_t done = scan - c->pos;
            int r = csv_fill(c, err);
            if (r < 0)
                return -1;
            scan = c->pos + done;
            if (r == 0) {
                if (c->pos >= c->end)
                    return 0;
                if (inq)
                    return csv_fail(c, err, JL_EINVALID, c->line, 0,
                                    "a quoted field is not closed before the end of the file");
                stop = c->end;
                break;
            }
            /* rescan the partial line from its start: quote state reset */
            scan = c->pos;
            inq = 0;
        }
        /* Parse [pos, stop) in place. */
        char *p = c->buf + c->pos, *e = c->buf + stop;
        long long line = c->line;
        size_t nlines = 1;
        if (quoted) /* only a quoted field can hold a line break */
            for (char *k = p; k < e; k++)
                nlines += *k == '\n';
        c->pos = stop < c->end ? stop + 1 : stop;
        c->line += (long long)nlines;
        *e = '\0';
        if (e > p && e[-1] == '\r')
            *--e = '\0';
        /* blank line */
        char *t = p;
        while (t < e && (*t == ' ' || *t == '\t'))
            t++;
        if (t == e)
            continue;
        size_t nf = 0;
        char *s = p;
        for (;;) {
            while (s < e && (*s == ' ' || *s == '\t'))
                s++;
            long long col = (long long)(s - p) + 1;
            char *start = s, *d = s;
            if (s < e && *s == '"') {
                s++;
                start = d = s - 1;
                for (;;) {
                    if (s >= e)
                        return csv_fail(c, err, JL_EINVALID, line, col,
                                        "a quoted field is not closed");
                    if (*s == '"') {
                        if (s + 1 < e && s[1] == '"') {
                            *d++ = '"';
                            s += 2;
                            continue;
                        }
                        s++;
                        break;
                    }
                    *d++ = *s++;
                }
                while (s < e && (*s == ' ' || *s == '\t'))
                    s++;
                if (s < e && *s != ',')
                    return csv_fail(
                        c, err, JL_EINVALID, line, (long long)(s - p) + 1,
                        "text after a closing quote (expected ',' or the end of the line)");
            } else {
                while (s < e && *s != ',')
                    s++;
                d = s;
                while (d > start && (d[-1] == ' ' || d[-1] == '\t' || d[-1] == '\r'))
                    d--;
            }
            int last = s >= e;
            *d = '\0';
            if (!csv_push_field(c, nf, start, (size_t)(d - start), col))
                return csv_fail(c, err, JL_ENOMEM, line, col, "out of memory");
            nf++;
            if (last)
                break;
            s++; /* the comma */
        }
        row->f = c->f;
        row->n = nf;
        row->line = line;
        return 1;
    }
}

void jl__csv_split_unit(const char *header, char *name, char *unit, size_t cap)
{
    const char *lb = strrchr(header, '[');
    size_t hl = strlen(header);
    unit[0] = '\0';
    if (lb && hl && header[hl - 1] == ']') {
        size_t ul = (size_t)(header + hl - 1 - (lb + 1));
        snprintf(unit, cap, "%.*s", (int)ul, lb + 1);
        hl = (size_t)(lb - header);
    }
    while (hl && isspace((unsigned char)header[hl - 1]))
        hl--;
    const char *h = header;
    while (hl && isspace((unsigned char)*h)) {
        h++;
        hl--;
    }
    snprintf(name, cap, "%.*s", (int)hl, h);
}

static const double pow10_tab[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

int jl__parse_number_unit(const char *s, double *v, const char **unit)
{
    const char *p = s;
    int neg = 0;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    uint64_t m = 0;
    int digits = 0, frac = 0, any = 0;
    while (*p >= '0' && *p <= '9') {
        if (digits < 19)
            m = m * 10 + (uint64_t)(*p - '0'), digits += m != 0;
        else
            frac--; /* too many digits: let strtod do it */
        p++;
        any = 1;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            if (digits < 19) {
                m = m * 10 + (uint64_t)(*p - '0');
                digits += m != 0;
                frac++;
            }
            p++;
            any = 1;
        }
    }
    if (!any)
        return 0;
    double x;
    if (*p == 'e' || *p == 'E' || frac < 0 || frac > 22 || m >= ((uint64_t)1 << 53)) {
        char *end;
        errno = 0;
        x = strtod(s, &end);
        if (end == s)
            return 0;
        p = end;
        neg = 0;
    } else {
        x = (double)m / pow10_tab[frac];
    }
    *v = neg ? -x : x;
    while (*p == ' ' || *p == '\t')
        p++;
    *unit = p;
    return 1;
}

int jl__csv_is_missing(const char *s)
{
    switch (s[0]) {
    case '\0': return 1;
    case '[': return s[strlen(s) - 1] == ']';
    case 'N': return !strcmp(s, "N/A") || !strcmp(s, "NA");
    case 'n': return !strcmp(s, "n/a");
    default: return 0; /* a number starts with a digit, '-', '+' or '.' */
    }
}

/* ---- times and zones ----------------------------------------------------- */

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static long long days_from_civil(long long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const long long era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

static int digits_n(const char **pp, int n, int *out)
{
    const char *p = *pp;
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    *pp = p + n;
    return 1;
}

int jl__parse_civil(const char *s, jl__civil *out)
{
    const char *p = s;
    memset(out, 0, sizeof *out);
    while (*p == ' ')
        p++;
    int y, mo, d, h, mi, se;
    if (!digits_n(&p, 4, &y) || (*p != '/' && *p != '-'))
        return 0;
    char sep = *p++;
    if (!digits_n(&p, 2, &mo) || *p++ != sep || !digits_n(&p, 2, &d))
        return 0;
    if (*p != ' ' && *p != 'T')
        return 0;
    p++;
    if (!digits_n(&p, 2, &h) || *p++ != ':' || !digits_n(&p, 2, &mi) || *p++ != ':' ||
        !digits_n(&p, 2, &se))
        return 0;
    double sec = se;
    if (*p == '.' || *p == ',') {
        p++;
        double f = 0.1;
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9') {
            sec += (*p - '0') * f;
            f *= 0.1;
            p++;
        }
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return 0;
    if (*p == 'Z') {
        out->has_offset = 1;
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1, oh, om = 0;
        if (!digits_n(&p, 2, &oh))
            return 0;
        if (*p == ':')
            p++;
        if (*p >= '0' && *p <= '9' && !digits_n(&p, 2, &om))
            return 0;
        if (oh > 23 || om > 59)
            return 0;
        out->has_offset = 1;
        out->offset_s = sign * (oh * 3600 + om * 60);
    }
    while (*p == ' ')
        p++;
    if (*p)
        return 0;
    out->year = y;
    out->mon = mo;
    out->day = d;
    out->hour = h;
    out->min = mi;
    out->sec = sec;
    return 1;
}

double jl__civil_utc(const jl__civil *c)
{
    long long days = days_from_civil(c->year, (unsigned)c->mon, (unsigned)c->day);
    return (double)((days * 24 + c->hour) * 60 + c->min) * 60.0 + c->sec;
}

enum { Z_LOCAL, Z_FIXED, Z_NAMED };

struct jl__zone {
    int kind;
    int offset_s; /* Z_FIXED */
    char *name;   /* what was used */
    char *tz;     /* Z_NAMED: the TZ value */
    /* cache: the last local minute converted */
    long long key;
    double early, late; /* Unix time of the minute's start; late != early: repeated */
    int gap;
};

static int parse_offset(const char *s, int *off)
{
    const char *p = s;
    if (!strcmp(s, "UTC") || !strcmp(s, "Z") || !strcmp(s, "GMT")) {
        *off = 0;
        return 1;
    }
    if (!strncmp(p, "UTC", 3))
        p += 3;
    if (*p != '+' && *p != '-')
        return 0;
    int sign = *p++ == '-' ? -1 : 1, h, m = 0;
    if (!digits_n(&p, 2, &h))
        return 0;
    if (*p == ':')
        p++;
    if (*p && !digits_n(&p, 2, &m))
        return 0;
    if (*p || h > 23 || m > 59)
        return 0;
    *off = sign * (h * 3600 + m * 60);
    return 1;
}

jl_status jl__zone_open(const char *spec, jl__zone **out, jl_error **err)
{
    *out = NULL;
    jl__zone *z = calloc(1, sizeof *z);
    if (!z)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, NULL);
    z->key = LLONG_MIN;
    if (spec && parse_offset(spec, &z->offset_s)) {
        z->kind = Z_FIXED;
        z->name = z->offset_s == 0
                      ? jl__strdup("UTC")
                      : jl__asprintf("UTC%c%02d:%02d", z->offset_s < 0 ? '-' : '+',
                                     abs(z->offset_s) / 3600, abs(z->offset_s) % 3600 / 60);
    } else if (spec) {
        /* A tz database name: it must be a file of the system's database. */
        const char *dir = getenv("TZDIR");
        if (!dir || !*dir)
            dir = "/usr/share/zoneinfo";
        struct stat sb;
        char *path = jl__asprintf("%s/%s", dir, spec);
        int ok = path && *spec && spec[0] != '/' && !strstr(spec, "..") && stat(path, &sb) == 0 &&
                 S_ISREG(sb.st_mode);
        free(path);
        if (!ok) {
            free(z);
            return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                           "unknown time zone '%s' (give UTC, an offset like +05:30, or a "
                           "name of the tz database in %s such as America/Chicago)",
                           spec, dir);
        }
        z->kind = Z_NAMED;
        z->name = jl__strdup(spec);
        z->tz = jl__strdup(spec);
    } else {
        z->kind = Z_LOCAL;
        const char *tz = getenv("TZ");
        char link[512];
        ssize_t n;
        if (tz && *tz) {
            z->name = jl__asprintf("%s (TZ)", tz[0] == ':' ? tz + 1 : tz);
        } else if ((n = readlink("/etc/localtime", link, sizeof link - 1)) > 0) {
            link[n] = '\0';
            const char *zi = strstr(link, "zoneinfo/");
            z->name = jl__asprintf("%s (this machine's zone)", zi ? zi + 9 : link);
        } else {
            z->name = jl__strdup("this machine's local time");
        }
    }
    if (!z->name || (z->kind == Z_NAMED && !z->tz)) {
        jl__zone_free(z);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, NULL);
    }
    *out = z;
    return JL_OK;
}

const char *jl__zone_name(const jl__zone *z)
{
    return z->name;
}

void jl__zone_free(jl__zone *z)
{
    if (!z)
        return;
    free(z->name);
    free(z->tz);
    free(z);
}

/* One local minute through the C library's zone rules (TZ set for a named
 * zone and put back afterwards). */
static void zone_minute(jl__zone *z, const jl__civil *c)
{
    char *saved = NULL;
    int had = 0;
    if (z->kind == Z_NAMED) {
        const char *old = getenv("TZ");
        had = old != NULL;
        saved = old ? jl__strdup(old) : NULL;
        setenv("TZ", z->tz, 1);
        tzset();
    }
    struct tm a = {0};
    a.tm_year = c->year - 1900;
    a.tm_mon = c->mon - 1;
    a.tm_mday = c->day;
    a.tm_hour = c->hour;
    a.tm_min = c->min;
    a.tm_isdst = -1;
    struct tm b = a;
    time_t t1 = mktime(&a);
    z->gap = a.tm_hour != c->hour || a.tm_min != c->min || a.tm_mday != c->day;
    z->early = z->late = (double)t1;
    if (!z->gap && a.tm_isdst >= 0) {
        b.tm_isdst = !a.tm_isdst;
        time_t t2 = mktime(&b);
        struct tm chk;
        if (t2 != (time_t)-1 && t2 != t1 && localtime_r(&t2, &chk) && chk.tm_hour == c->hour &&
            chk.tm_min == c->min && chk.tm_mday == c->day) {
            z->early = (double)(t1 < t2 ? t1 : t2);
            z->late = (double)(t1 < t2 ? t2 : t1);
        }
    }
    if (z->kind == Z_NAMED) {
        if (had)
            setenv("TZ", saved, 1);
        else
            unsetenv("TZ");
        tzset();
        free(saved);
    }
}

double jl__zone_to_unix(jl__zone *z, const jl__civil *c, double prev, int *gap)
{
    *gap = 0;
    if (c->has_offset)
        return jl__civil_utc(c) - c->offset_s;
    if (z->kind == Z_FIXED)
        return jl__civil_utc(c) - z->offset_s;
    long long key =
        days_from_civil(c->year, (unsigned)c->mon, (unsigned)c->day) * 1440 + c->hour * 60 + c->min;
    if (key != z->key) {
        zone_minute(z, c);
        z->key = key;
    }
    *gap = z->gap;
    double t = z->early + c->sec;
    if (z->late != z->early && !isnan(prev) && t < prev)
        t = z->late + c->sec;
    return t;
}
