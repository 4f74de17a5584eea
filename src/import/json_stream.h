/* json_stream.h — a small pull parser for JSON read from a file in chunks
 * (docs/import.md, "Why a streaming parser of our own"). Memory is the
 * read buffer plus the longest string or number the caller asks to keep;
 * values the caller does not want (prompt and output texts of tens of MB)
 * are skipped without being copied: strings are scanned with memchr.
 *
 * Errors (syntax, truncation, I/O, size limits) name the line and column;
 * after one, every call returns JS_ERROR. Internal to src/import/.
 */
#ifndef JOULES_IMPORT_JSON_STREAM_H
#define JOULES_IMPORT_JSON_STREAM_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
    JS_ERROR = 0,
    JS_OBJ_START, /* '{' */
    JS_OBJ_END,
    JS_ARR_START,
    JS_ARR_END,
    JS_KEY, /* an object key: text in js->str */
    JS_STR, /* a string value: text in js->str (len js->len) */
    JS_NUM, /* a number: value in js->num */
    JS_TRUE,
    JS_FALSE,
    JS_NULL,
    JS_EOF
} jl__jstream_tok;

typedef struct js {
    FILE *f;              /* NULL: parsing a buffer in memory */
    char *buf;            /* read buffer (owned when f != NULL) */
    size_t cap, pos, len; /* buffer: [pos, len) unread */
    long long line, col0; /* line number; byte offset of the line start */
    long long off;        /* file offset of buf[0] */
    char *str;            /* last string / key (NUL-terminated, owned) */
    size_t slen, scap, max_str;
    double num;
    int num_kind; /* the last number: 1 written as an integer (no '.', no
                               * exponent) that fits in num_int, 2 an integer that does
                               * not, 0 otherwise */
    long long num_int;
    int depth;
    unsigned char stack[256]; /* '{' or '[' per level */
    int need_value;           /* after a key or ',' in an array, or at the top */
    int after_value;          /* a value ended: ',' or a closer may follow */
    int done_top;
    int skip_bs; /* parity of backslashes ending the last chunk of a skipped string */
    char err[200];
    /* what went wrong when the FILE reports an error (a stream behind a
     * cookie, e.g. gzip's CRC): NULL, or the cause in words */
    const char *(*read_why)(void *ctx);
    void *read_ctx;
} js;

/* Parse a file (opened by the caller) or a buffer in memory. max_str:
 * longest string kept (longer ones are an error unless skipped). */
void jl__jstream_init_file(js *p, FILE *f, size_t chunk, size_t max_str);
void jl__jstream_init_mem(js *p, const char *text, size_t len, size_t max_str);
void jl__jstream_free(js *p);

jl__jstream_tok jl__jstream_next(js *p);
/* Inside an array (after its '['): the next element when it is a number
 * (1, *out set), 0 at the closing ']' (consumed), -2 when the element is
 * something else (nothing consumed: read it with jl__jstream_next), -1 on error. The
 * fast path for long arrays of numbers. */
int jl__jstream_array_number(js *p, double *out);
/* jl__jstream_array_number for up to max elements at once, into out[]:
 * *got numbers read, and what ended the batch: 1 max reached, or a number
 * that is negative or not finite (the last one, the parser just after it,
 * so that a caller rejecting it names the right place), 0 the closing ']',
 * -2 an element that is not a number, -1 an error. The same values and
 * errors, element by element, as jl__jstream_array_number. */
int jl__jstream_array_numbers(js *p, double *out, size_t max, size_t *got);
/* Inside an array, after an element: the common case of the next
 * element being [number, "string"] (a Prometheus sample), read at once
 * when ',' '[' the number ',' and the string without escapes or control
 * bytes, of at most *len bytes, are whole in the buffer: 1 with *num, and
 * *str and *len the string's
 * bytes in the read buffer (valid until the next call, not NUL-ended), the
 * parser then just after the string, inside the pair (its ']' read with
 * jl__jstream_next) — the state, value and errors of reading those tokens
 * one by one. 0: not that shape here (nothing consumed: read it token by
 * token); -1: a bad number (the error set, as jl__jstream_next sets it). */
int jl__jstream_num_str(js *p, double *num, const char **str, size_t *len);
/* Skip the next value whole (after a key, or an array element). Returns
 * 0, or -1 on error. */
int jl__jstream_skip(js *p);
/* Skip the rest of an object or array whose '{' or '[' was just read
 * (jl__jstream_next returned JS_OBJ_START or JS_ARR_START). 0 or -1. */
int jl__jstream_skip_open(js *p);
/* Where the parser is (1-based line and column of the next byte). */
long long jl__jstream_line(const js *p);
long long jl__jstream_col(const js *p);
const char *jl__jstream_tok_name(jl__jstream_tok t);

#endif
