/* Internals of the study subsystem: the wire format that carries summaries
 * and errors from worker processes to the parent (wire.c), the comparison
 * of attribute values that grouping uses (group.c) and a test hook of the
 * worker pool (load.c). Not part of the public API. */
#ifndef JOULES_STUDY_INTERNAL_H
#define JOULES_STUDY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "joules/error.h"
#include "joules/summary.h"

/* A growable byte buffer; on allocation failure it latches `failed` and
 * further appends are no-ops, so callers check once. */
typedef struct jl__wbuf {
    unsigned char *data;
    size_t len, cap;
    int failed;
} jl__wbuf;

void jl__wbuf_free(jl__wbuf *b);
/* Make room for n more bytes; 0 (and `failed` latched) when it cannot. */
int jl__wbuf_grow(jl__wbuf *b, size_t n);

/* Append n bytes. Inline: a summary is ~80 small appends, and the call
 * was a tenth of a worker's time (docs/performance.md, "The study load"). */
static inline void jl__wbuf_put(jl__wbuf *b, const void *p, size_t n)
{
    if ((b->failed || n > b->cap - b->len) && !jl__wbuf_grow(b, n))
        return;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
}

static inline void jl__wbuf_u32(jl__wbuf *b, uint32_t v)
{
    jl__wbuf_put(b, &v, sizeof v);
}

/* Append one summary / one error (with its chain of causes). Both are
 * encoded in the machine's own byte order and doubles bit for bit (NaN
 * payloads included), so a summary read back is identical to the one
 * written: the wire only ever connects a process to its own fork. Returns
 * JL_ENOMEM when the buffer could not grow. */
jl_status jl__wire_put_summary(jl__wbuf *b, const jl_summary *s);
jl_status jl__wire_put_error(jl__wbuf *b, const jl_error *e);

/* Decode one summary / error from p[0..n). On success *used is the number
 * of bytes consumed. Malformed or truncated input is JL_EINVALID (nothing is
 * allocated past the input's own lengths); JL_ENOMEM on exhaustion. */
jl_status jl__wire_get_summary(const unsigned char *p, size_t n, size_t *used, jl_summary **out);
jl_status jl__wire_get_error(const unsigned char *p, size_t n, size_t *used, jl_error **out);

/* Attribute values as grouping compares them (group.c): missing (NULL)
 * last, two numbers numerically ("1" == "1.0"), else strcmp. */
int jl__attr_value_cmp(const char *a, const char *b);

/* Test hook: a worker process that is about to summarise a file (or a part
 * of one) whose base name equals `name` kills itself with SIGKILL (as the
 * OOM killer would), so tests can check that a crashed worker becomes an
 * error naming the file. "FILE#RUN" kills it instead just before it reads
 * run RUN of that file (after it opened the file and said which runs it
 * took). NULL turns it off. */
void jl__study_test_crash_on(const char *name);

#endif
