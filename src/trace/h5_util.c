/* HDF5 plumbing shared by the trace reader and writer: silencing HDF5's own
 * error printing, turning its error stack into a jl_error cause, number
 * formatting for messages, lists of names, and the tables of run attributes
 * and summary/ figures. */
#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/util.h"
#include "joules/trace.h"
#include "trace/trace_internal.h"

const jl__summary_field jl__summary_fields[] = {
/* clang-format off */
#define SF(n) {#n, offsetof(jl_run_summary_attrs, n)}
    /* clang-format on */
    SF(energy_per_token_j),
    SF(energy_per_request_j),
    SF(avg_power_w),
    SF(output_throughput_tok_s),
    SF(median_itl_s),
    SF(p90_itl_s),
    SF(p95_itl_s),
    SF(p99_itl_s),
    SF(avg_batch_size),
    SF(avg_output_tokens),
    SF(steady_state_duration_s),
    SF(steady_state_energy_j),
    SF(batch_latency_s),
    SF(energy_per_item_j),
#undef SF
};
const size_t jl__n_summary_fields = sizeof jl__summary_fields / sizeof jl__summary_fields[0];

/* A file HDF5 is writing, pointed elsewhere: its descriptor (the sec2
 * driver's) becomes a scratch memory file, so what HDF5 writes while
 * closing goes nowhere and cannot fail. */
static void discard_writes(hid_t file)
{
    int *fdp = NULL;
    if (H5Fget_vfd_handle(file, H5P_DEFAULT, (void **)&fdp) < 0 || !fdp || *fdp < 0) {
        H5Eclear2(H5E_DEFAULT);
        return;
    }
    int scratch = memfd_create("joules-discarded", MFD_CLOEXEC);
    FILE *tf = scratch < 0 ? tmpfile() : NULL;
    if (tf)
        scratch = fileno(tf);
    if (scratch >= 0)
        (void)dup2(scratch, *fdp);
    if (tf)
        fclose(tf);
    else if (scratch >= 0)
        close(scratch);
}

/* HDF5 1.10 cannot close a file whose flush failed (the metadata cache
 * stays half-flushed: "slist already enabled?"), and a close that fails
 * leaves the file freed in its table of open files, where its exit handler
 * dies on it (SIGSEGV; issue 35). Once that has happened, the process ends
 * without HDF5's exit handler: this one, registered after HDF5's and so run
 * before it, flushes stdio and leaves with the status exit() was given. */
#ifdef __GLIBC__
static void leave_without_hdf5(int status, void *arg)
{
    (void)arg;
    fflush(NULL);
    _exit(status);
}
#endif

static void poisoned(void)
{
#ifdef __GLIBC__
    /* the process's exit, once (atomic: two writers may fail at once) */
    static _Atomic int registered;
    if (!atomic_exchange(&registered, 1) && on_exit(leave_without_hdf5, NULL) != 0)
        registered = 0;
#endif
}

void jl__h5_create_failed(int err_no)
{
    /* H5Fcreate writes the superblock and, when that fails, closes the
     * file it made: a close whose flush failed, which leaves HDF5 as a
     * failed H5Fclose does (its file's buffers never freed, found by
     * LeakSanitizer on a full disk). A create refused before writing
     * (no permission, no folder) leaves HDF5 whole. */
    if (err_no == ENOSPC || err_no == EDQUOT || err_no == EIO || err_no == EFBIG)
        poisoned();
}

int jl__h5_close_written(hid_t file, int keep, int *err_no)
{
    *err_no = 0;
    if (file < 0)
        return 0;
    if (keep) {
        errno = 0;
        if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) {
            /* never closed: HDF5 would fail and free it (poisoned) */
            *err_no = errno;
            poisoned();
            return -1;
        }
        errno = 0;
        if (H5Fclose(file) < 0) {
            *err_no = errno;
            poisoned();
            return -1;
        }
        return 0;
    }
    discard_writes(file);
    if (H5Fclose(file) < 0) {
        H5Eclear2(H5E_DEFAULT);
        poisoned();
        return -1;
    }
    return 0;
}

jl_status jl__h5_init(void)
{
    /* The library never prints: HDF5's automatic stack printing goes off
     * (again on every open, in case a caller turned it back on). */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return jl_zstd_filter_register();
}

typedef struct {
    jl__strbuf buf;
    const char *last;
    int count;
} walk_state;

static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    walk_state *w = data;
    const char *desc = e->desc && *e->desc ? e->desc : NULL;
    if (!desc || (w->last && !strcmp(w->last, desc)))
        return 0;
    if (w->count >= 8) /* a short chain: the deepest entries are the best */
        return 0;
    jl__strbuf_puts(&w->buf, w->count ? ": " : "HDF5: ");
    jl__strbuf_puts(&w->buf, desc);
    w->last = desc;
    w->count++;
    return 0;
}

jl_error *jl__h5_stack_error(void)
{
    walk_state w;
    jl__strbuf_init(&w.buf);
    w.last = NULL;
    w.count = 0;
    /* Downward: from the API function that failed to the place the error
     * was detected, so the text reads from general to specific. */
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, &w);
    H5Eclear2(H5E_DEFAULT);
    char *msg = jl__strbuf_take(&w.buf);
    if (!msg)
        return NULL;
    jl_error *e = jl_error_new(JL_EIO, NULL, NULL, NULL, -1, "%s", msg);
    free(msg);
    return e;
}

jl_status jl__h5_fail(jl_error **err, jl_status code, const char *file, const char *run,
                      const char *object, long long row, const char *fmt, ...)
{
    jl_error *cause = jl__h5_stack_error();
    if (err && !*err) {
        va_list ap;
        va_start(ap, fmt);
        *err = jl_error_vnew(code, file, run, object, row, fmt, ap);
        va_end(ap);
        if (*err) {
            (*err)->cause = cause;
            cause = NULL;
        }
    }
    jl_error_free(cause);
    return code;
}

int jl__names_push(char ***names, size_t *n, size_t *cap, const char *name)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        char **nn = realloc(*names, c * sizeof *nn);
        if (!nn)
            return -1;
        *names = nn;
        *cap = c;
    }
    if (!((*names)[*n] = jl__strdup(name)))
        return -1;
    (*n)++;
    return 0;
}

void jl__fmt_double(char *buf, size_t cap, double v)
{
    if (isnan(v)) {
        snprintf(buf, cap, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, cap, v > 0 ? "inf" : "-inf");
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) {
            /* %g writes 10 as "1e+01" at precision 1: below 1e16 an
             * integer part is written out in full ("10", "1500"). */
            double m = fabs(v);
            if (strchr(buf, 'e') && m >= 1 && m < 1e16) {
                int digits = (int)floor(log10(m)) + 1;
                if (digits > prec)
                    snprintf(buf, cap, "%.*g", digits, v);
            }
            return;
        }
    }
}
