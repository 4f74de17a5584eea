/* The CSV reader (core/csv.h): RFC 4180, read in blocks of a fixed size,
 * byte-order marks and UTF-16 decoded as it is read. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/inputs.h"
#include "core/util.h"

/* ---- CSV ---------------------------------------------------------------- */

#define CSV_BLOCK ((size_t)1 << 20)    /* read size */
#define CSV_MAX_ROW ((size_t)16 << 20) /* a row longer than this is an error */
#define CSV_MAX_FIELDS 4096 /* and a row of more fields (a header's work stays bounded) */

struct jl__csv {
    char *name;
    FILE *fp;  /* NULL for a buffer */
    char *buf; /* data: [pos, end) not yet consumed */
    size_t cap, pos, end;
    int eof;
    int plain;                   /* quotes are ordinary characters (jl__csv_plain) */
    int encoding;                /* ENC_*: what the file's first bytes said */
    unsigned char raw[4096 + 4]; /* UTF-16: bytes read, not yet decoded */
    size_t raw_n;
    long long line; /* line number of buf[pos] */
    jl__csv_field *f;
    size_t fcap;
};

enum { ENC_PLAIN, ENC_UTF8_BOM, ENC_UTF16LE, ENC_UTF16BE };

/* code point cp as UTF-8 at o; returns the bytes written (1-4). */
static size_t utf8_put(unsigned char *o, unsigned long cp)
{
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | cp >> 6);
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | cp >> 12);
        o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | cp >> 18);
    o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* UTF-16 in[0..n) as UTF-8 into out (room for 2 * n bytes); *used: the
 * input bytes decoded (an odd byte or half a surrogate pair at the end is
 * left for the next call). An unpaired surrogate becomes U+FFFD. */
static size_t utf16_decode(const unsigned char *in, size_t n, int be, unsigned char *out,
                           size_t *used)
{
    size_t i = 0, o = 0;
    while (i + 1 < n) {
        unsigned long u =
            be ? (unsigned long)in[i] << 8 | in[i + 1] : (unsigned long)in[i + 1] << 8 | in[i];
        if (u >= 0xD800 && u < 0xDC00) {
            if (i + 3 >= n)
                break;
            unsigned long v = be ? (unsigned long)in[i + 2] << 8 | in[i + 3]
                                 : (unsigned long)in[i + 3] << 8 | in[i + 2];
            if (v >= 0xDC00 && v < 0xE000) {
                o += utf8_put(out + o, 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00));
                i += 4;
                continue;
            }
            u = 0xFFFD;
        } else if (u >= 0xDC00 && u < 0xE000) {
            u = 0xFFFD;
        }
        o += utf8_put(out + o, u);
        i += 2;
    }
    *used = i;
    return o;
}

/* The encoding its first bytes say: a UTF-8 byte-order mark (dropped) or a
 * UTF-16 one (what Windows PowerShell's `>` writes). Returns the BOM's
 * length. */
static size_t sniff_bom(const unsigned char *b, size_t n, int *enc)
{
    *enc = ENC_PLAIN;
    if (n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF)
        return *enc = ENC_UTF8_BOM, 3;
    if (n >= 2 && b[0] == 0xFF && b[1] == 0xFE)
        return *enc = ENC_UTF16LE, 2;
    if (n >= 2 && b[0] == 0xFE && b[1] == 0xFF)
        return *enc = ENC_UTF16BE, 2;
    return 0;
}

const char *jl__csv_encoding(const jl__csv *c)
{
    static const char *const names[] = {NULL, "UTF-8 with a byte-order mark", "UTF-16LE",
                                        "UTF-16BE"};
    return names[c->encoding];
}

/* Up to cap bytes of UTF-8 text into dst: the file's bytes, or its UTF-16
 * decoded (cap >= 8). 0 at the end of the file. */
static size_t csv_read(jl__csv *c, char *dst, size_t cap)
{
    if (c->encoding != ENC_UTF16LE && c->encoding != ENC_UTF16BE)
        return fread(dst, 1, cap, c->fp);
    size_t want = cap / 2 < sizeof c->raw - 4 ? cap / 2 : sizeof c->raw - 4;
    for (;;) {
        size_t got = c->raw_n < want ? fread(c->raw + c->raw_n, 1, want - c->raw_n, c->fp) : 0;
        size_t n = c->raw_n + got, used;
        size_t out =
            utf16_decode(c->raw, n, c->encoding == ENC_UTF16BE, (unsigned char *)dst, &used);
        memmove(c->raw, c->raw + used, n - used);
        c->raw_n = n - used;
        if (out || got == 0)
            return out;
    }
}

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
    char why[128];
    c->fp = jl__fopen_input(path, why, sizeof why);
    if (!c->fp) {
        st = jl_fail(err, JL_EIO, path, NULL, NULL, -1, "%s", why);
        jl__csv_close(c);
        return st;
    }
    jl__input_read(path); /* the provenance's inputs */
    c->cap = CSV_BLOCK + 1;
    if (!(c->buf = malloc(c->cap))) {
        jl__csv_close(c);
        return jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, NULL);
    }
    /* the first bytes: a byte-order mark is dropped and says the encoding */
    unsigned char head[3];
    size_t n = fread(head, 1, sizeof head, c->fp), bom = sniff_bom(head, n, &c->encoding);
    if (c->encoding == ENC_UTF16LE || c->encoding == ENC_UTF16BE) {
        memcpy(c->raw, head + bom, n - bom);
        c->raw_n = n - bom;
    } else {
        memcpy(c->buf, head + bom, n - bom);
        c->end = n - bom;
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
    size_t bom = sniff_bom((const unsigned char *)buf, len, &c->encoding);
    int utf16 = c->encoding == ENC_UTF16LE || c->encoding == ENC_UTF16BE;
    c->cap = utf16 ? len + 1 : len - bom + 1; /* UTF-16: at most 3 bytes for 2 */
    if (!(c->buf = malloc(c->cap + (utf16 ? len / 2 + 4 : 0)))) {
        jl__csv_close(c);
        return jl_fail(err, JL_ENOMEM, name, NULL, NULL, -1, NULL);
    }
    size_t used;
    if (utf16)
        c->end = utf16_decode((const unsigned char *)buf + bom, len - bom,
                              c->encoding == ENC_UTF16BE, (unsigned char *)c->buf, &used);
    else if (len - bom)
        memcpy(c->buf, buf + bom, (c->end = len - bom));
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
    size_t got = csv_read(c, c->buf + c->end, c->cap - 1 - c->end);
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
                const char *q = c->plain ? NULL : memchr(b + scan, '"', lim - scan);
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
            if (!c->plain && s < e && *s == '"') {
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
            if (nf >= CSV_MAX_FIELDS)
                return csv_fail(c, err, JL_ELIMIT, line, col,
                                "more than 4096 fields in a row (not a CSV log?)");
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
        row->complete = stop < c->end;
        return 1;
    }
}

void jl__csv_plain(jl__csv *c)
{
    c->plain = 1;
}
