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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
