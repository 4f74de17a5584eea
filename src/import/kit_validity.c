/* A reason an importer found (issue 37; core/reasons.h): on the run, as
 * its attribute validity_reasons (JSON text that jl_summarize() reads into
 * the run's validity), and said as a note naming the code. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/reasons.h"
#include "core/util.h"
#include "import/kit.h"

void jl__imp_reason(jl__imp *c, jl_run *r, int reason, double bound, const char *file,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = jl__vasprintf(fmt, ap);
    va_end(ap);
    jl_validity v = {0};
    const char *old = jl__imp_extra_get(r, JL__VALIDITY_ATTR);
    char *text = NULL;
    if (!msg || (old && jl_validity_parse_text(&v, old) == JL_ENOMEM) ||
        jl_validity_add(&v, jl__reason_code((jl__reason)reason), bound, msg) != JL_OK ||
        !(text = jl_validity_to_text(&v))) {
        c->oom = 1;
    } else {
        jl__imp_extra_text(c, r, JL__VALIDITY_ATTR, text, 0);
        jl__imp_note(c, file, jl__reason_code((jl__reason)reason), "run %s: %s",
                     r->name ? r->name : "?", msg);
    }
    free(text);
    free(msg);
    jl_validity_clear(&v);
}
