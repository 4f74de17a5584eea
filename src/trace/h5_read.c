/* The trace reader's ground, shared by every room of the reader
 * (trace_read.c, summary_table.c, trace_attrs.c, trace_columns.c,
 * trace_describe.c) and calling none of them: the read context's one way to
 * fail (jl__rctx_fail and its _row, _cause and _h5 forms), the names of
 * HDF5 types and classes for messages, links (a child's presence, a child
 * opened as the type it must be) and the fields of the typed attributes by
 * name. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/util.h"
#include "joules/trace.h"
#include "trace/trace_internal.h"

jl_status jl__rctx_vfail(const rctx *c, jl_status code, long long row, jl_error *cause,
                         const char *fmt, va_list ap)
{
    if (c->err && !*c->err) {
        char *where = c->attr && c->obj ? jl__asprintf("%s@%s", c->obj, c->attr) : NULL;
        *c->err = jl_error_vnew(code, c->file, c->run, where ? where : c->obj, row, fmt, ap);
        free(where);
        if (*c->err) {
            (*c->err)->cause = cause;
            cause = NULL;
        }
    }
    jl_error_free(cause);
    return code;
}

jl_status jl__rctx_fail(const rctx *c, jl_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    jl__rctx_vfail(c, code, -1, NULL, fmt, ap);
    va_end(ap);
    return code;
}

jl_status jl__rctx_fail_row(const rctx *c, jl_status code, long long row, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    jl__rctx_vfail(c, code, row, NULL, fmt, ap);
    va_end(ap);
    return code;
}

jl_status jl__rctx_fail_cause(const rctx *c, jl_status code, jl_error *cause, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    jl__rctx_vfail(c, code, -1, cause, fmt, ap);
    va_end(ap);
    return code;
}

jl_status jl__rctx_h5_fail(const rctx *c, jl_status code, const char *fmt, ...)
{
    jl_error *cause = jl__h5_stack_error();
    va_list ap;
    va_start(ap, fmt);
    jl__rctx_vfail(c, code, -1, cause, fmt, ap);
    va_end(ap);
    return code;
}

const char *jl__class_name(H5T_class_t c)
{
    switch (c) {
    case H5T_INTEGER: return "integer";
    case H5T_FLOAT: return "float";
    case H5T_TIME: return "time";
    case H5T_STRING: return "string";
    case H5T_BITFIELD: return "bitfield";
    case H5T_OPAQUE: return "opaque";
    case H5T_COMPOUND: return "compound";
    case H5T_REFERENCE: return "reference";
    case H5T_ENUM: return "enum";
    case H5T_VLEN: return "variable-length";
    case H5T_ARRAY: return "array";
    default: return "unknown";
    }
}

void jl__type_name(hid_t t, char *buf, size_t cap)
{
    H5T_class_t c = H5Tget_class(t);
    size_t sz = H5Tget_size(t);
    if (c == H5T_FLOAT)
        snprintf(buf, cap, "float%zu", sz * 8);
    else if (c == H5T_INTEGER)
        snprintf(buf, cap, "%sint%zu", H5Tget_sign(t) == H5T_SGN_NONE ? "u" : "", sz * 8);
    else
        snprintf(buf, cap, "%s", jl__class_name(c));
}

jl_status jl__child_exists(rctx *c, hid_t grp, const char *obj, const char *name, int *present)
{
    rctx at = rctx_at(c, obj);
    *present = 0;
    /* One look-up when the link is there (the common case); when it fails,
     * the calls of the plain order (does it exist, then its info) again, so
     * an absent link and each failure read as they always did. */
    H5L_info_t li;
    if (H5Lget_info(grp, name, &li, H5P_DEFAULT) < 0) {
        H5Eclear2(H5E_DEFAULT);
        htri_t ex = H5Lexists(grp, name, H5P_DEFAULT);
        if (ex < 0)
            return jl__rctx_h5_fail(&at, JL_EIO, "cannot look up the link");
        if (!ex)
            return JL_OK;
        if (H5Lget_info(grp, name, &li, H5P_DEFAULT) < 0)
            return jl__rctx_h5_fail(&at, JL_EIO, "cannot read the link");
    }
    if (li.type != H5L_TYPE_HARD)
        return jl__not_hard(c, obj);
    *present = 1;
    return JL_OK;
}

jl_status jl__not_hard(rctx *c, const char *obj)
{
    rctx at = rctx_at(c, obj);
    return jl__rctx_fail(&at, JL_ETYPE,
                         "is a soft or external link; joules follows only hard links");
}

jl_status jl__open_child(rctx *c, hid_t grp, const char *obj, const char *name, H5I_type_t want,
                         hid_t *id)
{
    *id = -1;
    int ex = 0;
    jl_status st = jl__child_exists(c, grp, obj, name, &ex);
    if (st != JL_OK || !ex)
        return st;
    return jl__open_present(c, grp, obj, name, want, id);
}

jl_status jl__open_present(rctx *c, hid_t grp, const char *obj, const char *name, H5I_type_t want,
                           hid_t *id)
{
    *id = -1;
    rctx at = rctx_at(c, obj);
    hid_t o = H5Oopen(grp, name, H5P_DEFAULT);
    if (o < 0)
        return jl__rctx_h5_fail(&at, JL_EIO, "cannot open");
    H5I_type_t t = H5Iget_type(o);
    if (t != want) {
        H5Oclose(o);
        return jl__rctx_fail(&at, JL_ETYPE, "is a %s, expected a %s",
                             t == H5I_GROUP     ? "group"
                             : t == H5I_DATASET ? "dataset"
                                                : "named datatype",
                             want == H5I_GROUP ? "group" : "dataset");
    }
    *id = o;
    return JL_OK;
}

/* ------------------------------------------------------------------ */
/* Storage: a dataset holds its own data, no more than its file can     */

/* A name from the file (an external file's, a virtual source's) for a
 * message: printable ASCII kept, anything else '?', at most cap - 1 bytes. */
static void safe_name(char *out, size_t cap, const char *in)
{
    size_t k = 0;
    for (; in && in[k] && k + 1 < cap; k++)
        out[k] = (unsigned char)in[k] >= 0x20 && (unsigned char)in[k] < 0x7f ? in[k] : '?';
    out[k] = '\0';
}

#define TRUST_HINT \
    "(a trace must hold its own data; for a file you trust: --allow-external-storage)"

/* The largest ratio of decoded to stored bytes the filters f[0..n) allow:
 * deflate 1032:1 (a 258-byte match in two bits, RFC 1951's limit),
 * Zstandard 32768:1 (an RLE block repeats one byte 128 KiB times for 4
 * bytes), shuffle and fletcher32 1:1; 0 when a filter has no such bound
 * (scale-offset, n-bit, szip, a plugin's): then only the chunk count and
 * the last chunk are checked. */
static uint64_t filters_ratio(const H5Z_filter_t *f, int n)
{
    uint64_t ratio = 1;
    for (int i = 0; i < n; i++) {
        if (i >= 8)
            return 0;
        if (f[i] == H5Z_FILTER_SHUFFLE || f[i] == H5Z_FILTER_FLETCHER32)
            continue;
        uint64_t r = f[i] == H5Z_FILTER_DEFLATE ? 1032 : f[i] == JL__ZSTD_FILTER_ID ? 32768 : 0;
        if (r == 0 || ratio > UINT64_MAX / r)
            return 0;
        ratio *= r;
    }
    return n < 0 ? 0 : ratio;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

/* What the reader needs of dcpl, asked once. */
static void storage_of(hid_t dcpl, jl__storage *s)
{
    s->crank = 0;
    s->nf = 0;
    if (s->layout != H5D_CHUNKED)
        return; /* filters need chunks */
    if ((s->crank = H5Pget_chunk(dcpl, H5S_MAX_RANK, s->chunk)) < 0)
        s->crank = 0;
    s->nf = H5Pget_nfilters(dcpl);
    for (int i = 0; i < s->nf && i < 8; i++) {
        unsigned flags = 0;
        size_t ncd = 0;
        s->filter[i] = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, NULL, 0, NULL, NULL);
    }
    H5Eclear2(H5E_DEFAULT);
}

jl_status jl__check_storage(const rctx *c, hid_t dset, hid_t dcpl, const hsize_t *dims, int rank,
                            size_t fsize, jl__storage *out)
{
    jl__storage local, *s = out ? out : &local;
    s->layout = H5Pget_layout(dcpl);
    char name[160];
    if (s->layout < 0)
        return jl__rctx_h5_fail(c, JL_EIO, "cannot read the storage layout");
    if (s->layout == H5D_VIRTUAL) {
        s->crank = s->nf = 0;
        if (c->allow_external)
            return JL_OK;
        size_t n = 0;
        char src[1024] = "";
        if (H5Pget_virtual_count(dcpl, &n) >= 0 && n > 0 &&
            H5Pget_virtual_filename(dcpl, 0, src, sizeof src) < 0)
            src[0] = '\0';
        H5Eclear2(H5E_DEFAULT);
        safe_name(name, sizeof name, src);
        return jl__rctx_fail(c, JL_EFORMAT,
                             "is a virtual dataset: its data is read from %s%s%s, outside "
                             "this trace; refused " TRUST_HINT,
                             *name ? "\"" : "other files", name, *name ? "\"" : "");
    }
    int external = s->layout == H5D_CONTIGUOUS ? H5Pget_external_count(dcpl) : 0;
    if (external > 0 && !c->allow_external) {
        char ext[1024] = "";
        off_t off = 0;
        hsize_t size = 0;
        if (H5Pget_external(dcpl, 0, sizeof ext, ext, &off, &size) < 0)
            ext[0] = '\0';
        H5Eclear2(H5E_DEFAULT);
        ext[sizeof ext - 1] = '\0';
        safe_name(name, sizeof name, ext);
        return jl__rctx_fail(c, JL_EFORMAT,
                             "stores its data in %s%s%s (HDF5 external storage), outside "
                             "this trace; refused " TRUST_HINT,
                             *name ? "the external file \"" : "external files", name,
                             *name ? "\"" : "");
    }
    storage_of(dcpl, s);
    if (external != 0)
        return JL_OK; /* external and allowed: its bytes are not the file's */
    uint64_t vals = 1;
    for (int i = 0; i < rank; i++)
        vals = mul_sat(vals, dims[i]);
    uint64_t bytes = mul_sat(vals, fsize), fb = c->file_bytes;
    if (bytes == 0 || fb == 0 || s->layout == H5D_COMPACT)
        return JL_OK; /* compact: in the object header, inside the file */
    if (s->layout == H5D_CONTIGUOUS) {
        haddr_t a = H5Dget_offset(dset);
        H5Eclear2(H5E_DEFAULT);
        if (a == HADDR_UNDEF)
            return jl__rctx_fail(c, JL_EFORMAT,
                                 "declares %llu values (%llu bytes) but stores none: its data "
                                 "was never written, and would read as fill values",
                                 (unsigned long long)vals, (unsigned long long)bytes);
        if (a > fb || bytes > fb - a)
            return jl__rctx_fail(c, JL_EFORMAT,
                                 "declares %llu values (%llu bytes from byte %llu), beyond the "
                                 "end of the file (%llu bytes)",
                                 (unsigned long long)vals, (unsigned long long)bytes,
                                 (unsigned long long)a, (unsigned long long)fb);
        return JL_OK;
    }
    if (s->layout != H5D_CHUNKED || rank < 1 || s->crank != rank)
        return JL_OK; /* the reader's own checks say what is wrong */
    hsize_t last[H5S_MAX_RANK];
    uint64_t chunks = 1;
    for (int i = 0; i < rank; i++) {
        if (s->chunk[i] == 0 || dims[i] == 0)
            return JL_OK;
        chunks = mul_sat(chunks, (dims[i] + s->chunk[i] - 1) / s->chunk[i]);
        last[i] = (dims[i] - 1) / s->chunk[i] * s->chunk[i];
    }
    uint64_t ratio = filters_ratio(s->filter, s->nf);
    uint64_t need = ratio ? bytes / ratio + (bytes % ratio != 0) : 0;
    if (need < chunks)
        need = chunks;
    if (need > fb)
        return jl__rctx_fail(c, JL_EFORMAT,
                             "declares %llu values (%llu bytes decoded) in %llu chunks, which "
                             "need at least %llu bytes stored, more than the file's %llu bytes",
                             (unsigned long long)vals, (unsigned long long)bytes,
                             (unsigned long long)chunks, (unsigned long long)need,
                             (unsigned long long)fb);
    /* a dataset that alone declares 64 times its file: one look at the
     * chunk index (real series compress less; the others' missing chunks
     * the chunk reader refuses as it meets them) */
    hsize_t stored = 0;
    if (bytes / 64 > fb && (H5Dget_chunk_storage_size(dset, last, &stored) < 0 || stored == 0)) {
        H5Eclear2(H5E_DEFAULT);
        return jl__rctx_fail(c, JL_EFORMAT,
                             "declares %llu rows but its last chunk (from row %llu) is not "
                             "stored: its extent reaches beyond the data written, and those "
                             "rows would read as fill values",
                             (unsigned long long)dims[0], (unsigned long long)last[0]);
    }
    return JL_OK;
}

/* ------------------------------------------------------------------ */
/* Fields by name                                                      */

/* The field of jl__attr_fields named `name`, jl__n_attr_fields when none. */
size_t jl__attr_field_index(const char *name)
{
    for (size_t k = 0; k < jl__n_attr_fields; k++)
        if (jl__attr_fields[k].name[0] == name[0] && !strcmp(jl__attr_fields[k].name, name))
            return k;
    return jl__n_attr_fields;
}

size_t jl__summary_field_index(const char *name)
{
    size_t k;
    for (k = 0; k < jl__n_summary_fields; k++)
        if (jl__summary_fields[k].name[0] == name[0] && !strcmp(jl__summary_fields[k].name, name))
            break;
    return k;
}
