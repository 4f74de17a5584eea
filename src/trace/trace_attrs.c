/* The reader's attributes: one attribute read into an attr_val, every
 * attribute of an object walked, a run's attributes and summary/ figures
 * checked against the spec's rules, and a summary-table row read through
 * the same rules (trace_internal.h; docs/trace-reading.md). */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/trace.h"
#include "trace/trace_internal.h"

#define MAX_ATTRS 10000       /* attributes on one object */
#define MAX_ATTR_VALUES 65536 /* elements of one attribute */
#define MAX_ATTR_BYTES (16u << 20)

void jl__attr_val_init(attr_val *v)
{
    memset(v, 0, sizeof *v);
    v->ftype = -1;
}

void jl__attr_val_clear(attr_val *v)
{
    free(v->text);
    CLOSE(v->ftype, H5Tclose);
    jl__attr_val_init(v);
}

const char *jl__av_tname(attr_val *v)
{
    if (!v->tname[0] && v->ftype >= 0)
        jl__type_name(v->ftype, v->tname, sizeof v->tname);
    return v->tname;
}

/* "%llu" of u after `sign` (if not 0), without snprintf (a study's integer
 * attributes are formatted once per run and cell). */
static void format_int(char *out, char sign, unsigned long long u)
{
    char t[24];
    int n = 0;
    do {
        t[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (sign)
        *out++ = sign;
    while (n > 0)
        *out++ = t[--n];
    *out = '\0';
}

const char *jl__av_str(attr_val *v)
{
    if (!v->text && (v->kind == AV_INT || v->kind == AV_FLOAT)) {
        char num[40];
        if (v->num == AN_FLOAT)
            snprintf(num, sizeof num, "%.17g", v->d);
        else if (v->num == AN_UINT)
            format_int(num, 0, v->u);
        else
            format_int(num, v->i < 0 ? '-' : 0,
                       v->i < 0 ? 0ULL - (unsigned long long)v->i : (unsigned long long)v->i);
        v->text = jl__strdup(num);
    }
    return v->text ? v->text : "";
}

/* A string as joules keeps it: bytes that start no UTF-8 sequence become
 * U+FFFD (the outputs are JSON and UTF-8 CSV; docs/robustness.md). */
static char *utf8_text(char *s)
{
    int oom = 0;
    char *fixed = s ? jl__utf8_fix(s, &oom) : NULL;
    if (fixed || oom) {
        free(s);
        return fixed;
    }
    return s;
}

static jl_status av_text(rctx *c, attr_val *v, char *s)
{
    s = utf8_text(s);
    if (!s) {
        rctx at = rctx_at(c, NULL);
        return jl__rctx_fail(&at, JL_ENOMEM, NULL);
    }
    v->text = s;
    return JL_OK;
}

/* c bound to attribute `name` of object opath: messages name
 * "<opath>@<name>". */
static rctx attr_at(const rctx *c, const char *opath, const char *name)
{
    rctx at = rctx_at(c, opath);
    at.attr = name;
    return at;
}

/* A variable-length string type for memory in character set cset (cached
 * per trace when the reader has a cache). */
static hid_t vstr_type(rctx *c, H5T_cset_t cset, int *owned)
{
    *owned = 0;
    if (c->vstr && (cset == H5T_CSET_ASCII || cset == H5T_CSET_UTF8) && c->vstr[cset] >= 0)
        return c->vstr[cset];
    hid_t mem = H5Tcopy(H5T_C_S1);
    if (mem < 0)
        return -1;
    if (H5Tset_size(mem, H5T_VARIABLE) < 0 || H5Tset_cset(mem, cset) < 0) {
        H5Tclose(mem);
        return -1;
    }
    if (c->vstr && (cset == H5T_CSET_ASCII || cset == H5T_CSET_UTF8))
        c->vstr[cset] = mem;
    else
        *owned = 1;
    return mem;
}

/* Strings (fixed or variable length), scalar or array (joined with ","). */
static jl_status read_attr_string(rctx *c, hid_t aid, hid_t ftype, hid_t space, size_t npts,
                                  const char *opath, const char *name, attr_val *v)
{
    rctx at = attr_at(c, opath, name);
    jl_status st = JL_OK;
    hid_t mem = -1;
    int mem_owned = 0;
    char **vbuf = NULL;
    char *one = NULL;
    char *fbuf = NULL;
    jl__strbuf b;
    jl__strbuf_init(&b);
    htri_t isvar = H5Tis_variable_str(ftype);
    if (isvar < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot read the string type");
        goto end;
    }
    if (isvar) {
        H5T_cset_t cset = H5Tget_cset(ftype);
        mem = cset < 0 ? -1 : vstr_type(c, cset, &mem_owned);
        if (mem < 0) {
            st = jl__rctx_h5_fail(&at, JL_EIO, "cannot build a string type");
            goto end;
        }
        vbuf = npts == 1 ? &one : jl__calloc_array(npts, sizeof *vbuf);
        if (!vbuf) {
            st = jl__rctx_fail(&at, JL_ENOMEM, NULL);
            goto end;
        }
        if (H5Aread(aid, mem, vbuf) < 0) {
            st = jl__rctx_h5_fail(&at, JL_EIO, "cannot read");
            goto end;
        }
        if (npts == 1) {
            char *s = jl__strdup(one ? one : "");
            H5free_memory(one);
            one = NULL;
            v->kind = AV_STRING;
            st = av_text(c, v, s);
            goto end;
        }
        for (size_t i = 0; i < npts; i++) {
            if (i)
                jl__strbuf_puts(&b, ",");
            if (vbuf[i])
                jl__strbuf_puts(&b, vbuf[i]);
        }
        H5Dvlen_reclaim(mem, space, H5P_DEFAULT, vbuf);
    } else {
        size_t sz = H5Tget_size(ftype);
        size_t total;
        if (sz == 0 || !jl__mul_size(sz, npts, &total) || total > MAX_ATTR_BYTES) {
            st = jl__rctx_fail(&at, JL_ELIMIT, "string attribute larger than %u bytes",
                               MAX_ATTR_BYTES);
            goto end;
        }
        fbuf = calloc(total + 1, 1);
        if (!fbuf) {
            st = jl__rctx_fail(&at, JL_ENOMEM, NULL);
            goto end;
        }
        /* the file type itself serves as the memory type: no conversion */
        if (H5Aread(aid, ftype, fbuf) < 0) {
            st = jl__rctx_h5_fail(&at, JL_EIO, "cannot read");
            goto end;
        }
        int spacepad = H5Tget_strpad(ftype) == H5T_STR_SPACEPAD;
        for (size_t i = 0; i < npts; i++) {
            const char *s = fbuf + i * sz;
            size_t len = 0;
            while (len < sz && s[len])
                len++;
            while (spacepad && len > 0 && s[len - 1] == ' ')
                len--;
            if (i)
                jl__strbuf_puts(&b, ",");
            jl__strbuf_append(&b, s, len);
        }
    }
    if (!b.data)
        jl__strbuf_puts(&b, "");
    v->kind = npts == 1 ? AV_STRING : AV_ARRAY;
    st = av_text(c, v, jl__strbuf_take(&b));
end:
    if (vbuf && vbuf != &one && st != JL_OK && isvar > 0 && mem >= 0)
        H5Dvlen_reclaim(mem, space, H5P_DEFAULT, vbuf);
    if (one)
        H5free_memory(one);
    if (vbuf != &one)
        free(vbuf);
    free(fbuf);
    jl__strbuf_free(&b);
    if (mem_owned)
        H5Tclose(mem);
    return st;
}

/* Integers and floats, scalar (kept as numbers: the text waits for
 * jl__av_str()) or array (joined with ","). */
static jl_status read_attr_number(rctx *c, const rctx *at, hid_t aid, hid_t ftype, H5T_class_t cls,
                                  size_t npts, attr_val *v)
{
    int is_uint = cls == H5T_INTEGER && H5Tget_sign(ftype) == H5T_SGN_NONE;
    hid_t mt = cls == H5T_FLOAT ? H5T_NATIVE_DOUBLE
               : is_uint        ? H5T_NATIVE_ULLONG
                                : H5T_NATIVE_LLONG;
    unsigned long long one;
    void *buf = npts == 1 ? (void *)&one : jl__calloc_array(npts, 8);
    jl_status st = JL_OK;
    if (!buf)
        return jl__rctx_fail(at, JL_ENOMEM, NULL);
    if (H5Aread(aid, mt, buf) < 0) {
        st = jl__rctx_h5_fail(at, JL_EIO, "cannot read");
        goto end;
    }
    if (cls == H5T_FLOAT) {
        double d = ((double *)buf)[0];
        v->kind = AV_FLOAT;
        v->num = AN_FLOAT;
        v->d = d;
    } else if (is_uint) {
        unsigned long long u = ((unsigned long long *)buf)[0];
        v->kind = u <= LLONG_MAX ? AV_INT : AV_FLOAT;
        v->num = AN_UINT;
        v->u = u;
        v->i = u <= LLONG_MAX ? (long long)u : 0;
        v->d = (double)u;
    } else {
        long long x = ((long long *)buf)[0];
        v->kind = AV_INT;
        v->num = AN_INT;
        v->i = x;
        v->d = (double)x;
    }
    if (npts == 1)
        goto end;
    jl__strbuf b;
    jl__strbuf_init(&b);
    for (size_t i = 0; i < npts; i++) {
        char num[40];
        if (cls == H5T_FLOAT)
            snprintf(num, sizeof num, "%.17g", ((double *)buf)[i]);
        else if (is_uint)
            snprintf(num, sizeof num, "%llu", ((unsigned long long *)buf)[i]);
        else
            snprintf(num, sizeof num, "%lld", ((long long *)buf)[i]);
        if (i)
            jl__strbuf_puts(&b, ",");
        jl__strbuf_puts(&b, num);
    }
    v->kind = AV_ARRAY;
    st = av_text(c, v, jl__strbuf_take(&b));
end:
    if (buf != &one)
        free(buf);
    return st;
}

/* A scalar enum by its name: h5py stores booleans as an enum {FALSE, TRUE}. */
static jl_status read_attr_enum(rctx *c, const rctx *at, hid_t aid, hid_t ftype, attr_val *v)
{
    hid_t mtype = H5Tget_native_type(ftype, H5T_DIR_ASCEND);
    size_t sz = mtype >= 0 ? H5Tget_size(mtype) : 0;
    char name_buf[128];
    void *buf = NULL;
    jl_status st = JL_OK;
    if (sz == 0 || sz > 16) {
        st = jl__rctx_h5_fail(at, JL_ETYPE, "unsupported enum type");
        goto end;
    }
    buf = calloc(1, 16);
    if (!buf) {
        st = jl__rctx_fail(at, JL_ENOMEM, NULL);
        goto end;
    }
    if (H5Aread(aid, mtype, buf) < 0) {
        st = jl__rctx_h5_fail(at, JL_EIO, "cannot read");
        goto end;
    }
    if (H5Tenum_nameof(mtype, buf, name_buf, sizeof name_buf) < 0) {
        H5Eclear2(H5E_DEFAULT);
        snprintf(name_buf, sizeof name_buf, "(enum value not in its type)");
    }
    v->kind = AV_OTHER;
    st = av_text(c, v, jl__strdup(name_buf));
end:
    free(buf);
    CLOSE(mtype, H5Tclose);
    return st;
}

/* One attribute: its type and shape, then the reader of its class
 * (strings, numbers, a scalar enum); anything else is kept as a text that
 * names it. */
jl_status jl__read_attr(rctx *c, hid_t obj, const char *opath, const char *name, attr_val *v)
{
    rctx at = attr_at(c, opath, name);
    jl_status st = JL_OK;
    hid_t aid = -1, space = -1;
    jl__attr_val_init(v);
    aid = H5Aopen(obj, name, H5P_DEFAULT);
    if (aid < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot open the attribute");
        goto end;
    }
    v->ftype = H5Aget_type(aid);
    space = H5Aget_space(aid);
    if (v->ftype < 0 || space < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot read the attribute's type");
        goto end;
    }
    hid_t ftype = v->ftype;
    hssize_t np = H5Sget_simple_extent_npoints(space);
    if (np == 0) { /* a null dataspace or no elements */
        v->kind = AV_NONE;
        st = av_text(c, v, jl__strdup(""));
        goto end;
    }
    if (np < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot read the attribute's shape");
        goto end;
    }
    size_t npts = (size_t)np;
    if ((uint64_t)np > MAX_ATTR_VALUES) {
        v->kind = AV_OTHER;
        st = av_text(c, v, jl__asprintf("(array of %lld values)", (long long)np));
        goto end;
    }
    H5T_class_t cls = H5Tget_class(ftype);
    if (cls == H5T_STRING)
        st = read_attr_string(c, aid, ftype, space, npts, opath, name, v);
    else if (cls == H5T_INTEGER || cls == H5T_FLOAT)
        st = read_attr_number(c, &at, aid, ftype, cls, npts, v);
    else if (cls == H5T_ENUM && npts == 1)
        st = read_attr_enum(c, &at, aid, ftype, v);
    else {
        v->kind = AV_OTHER;
        st = av_text(c, v, jl__asprintf("(%s attribute)", jl__class_name(cls)));
    }
end:
    CLOSE(space, H5Sclose);
    CLOSE(aid, H5Aclose);
    if (st != JL_OK)
        jl__attr_val_clear(v);
    return st;
}

/* Every attribute of obj, in name order, read and handed to `use` as it
 * is met (one pass over the object header, no list of names kept). */
typedef jl_status (*attr_use)(rctx *c, const char *opath, const char *name, attr_val *v,
                              void *data);

typedef struct {
    rctx *c;
    hid_t obj;
    const char *opath;
    attr_use use;
    void *data;
    size_t n;
    jl_status st;
} attr_walk;

static herr_t attr_walk_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)loc;
    (void)info;
    attr_walk *w = data;
    if (w->n >= MAX_ATTRS)
        return 1; /* stop: the caller reports the limit */
    w->n++;
    attr_val v;
    w->st = jl__read_attr(w->c, w->obj, w->opath, name, &v);
    if (w->st == JL_OK)
        w->st = w->use(w->c, w->opath, name, &v, w->data);
    jl__attr_val_clear(&v);
    return w->st == JL_OK ? 0 : 2;
}

static jl_status walk_attrs(rctx *c, hid_t obj, const char *opath, attr_use use, void *data)
{
    rctx at = rctx_at(c, opath);
    attr_walk w = {c, obj, opath, use, data, 0, JL_OK};
    hsize_t idx = 0;
    herr_t r = H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_walk_cb, &w);
    if (r == 2)
        return w.st;
    if (r < 0)
        return jl__rctx_h5_fail(&at, JL_EIO, "cannot list the attributes");
    if (r > 0)
        return jl__rctx_fail(&at, JL_ELIMIT, "more than %d attributes", MAX_ATTRS);
    return JL_OK;
}

/* The run attributes with typed fields: jl__attr_fields (h5_util.c). */

const char *jl__kind_word(const attr_val *v)
{
    switch (v->kind) {
    case AV_STRING: return "a string";
    case AV_INT: return "an integer";
    case AV_FLOAT: return "a float";
    case AV_ARRAY: return "an array";
    case AV_NONE: return "empty";
    default: return "of an unsupported type";
    }
}

/* A finite number (or NaN: missing) into *dst, else the message. */
static jl_status number_field(rctx *c, const char *opath, const char *name, attr_val *v,
                              double *dst)
{
    rctx at = rctx_at(c, opath);
    if (v->kind != AV_INT && v->kind != AV_FLOAT)
        return jl__rctx_fail(&at, JL_ETYPE, "attribute @%s must be a number, found %s (%s)", name,
                             jl__kind_word(v), jl__av_tname(v));
    if (isinf(v->d))
        return jl__rctx_fail(&at, JL_EINVALID, "attribute @%s must be finite, found %s", name,
                             jl__av_str(v));
    *dst = v->d;
    return JL_OK;
}

static jl_status set_field(rctx *c, const char *opath, jl_attrs *a, size_t k, attr_val *v)
{
    rctx at = rctx_at(c, opath);
    const char *name = jl__attr_fields[k].name;
    char *base = (char *)a + jl__attr_fields[k].off;
    switch (jl__attr_fields[k].kind) {
    case JL__F_STR:
        if (v->kind != AV_STRING)
            return jl__rctx_fail(&at, JL_ETYPE, "attribute @%s must be a string, found %s (%s)",
                                 name, jl__kind_word(v), jl__av_tname(v));
        free(*(char **)base); /* a corrupt attribute table can name it twice */
        *(char **)base = v->text;
        v->text = NULL;
        return JL_OK;
    case JL__F_LONG: {
        long long x;
        if (v->kind == AV_INT) {
            x = v->i;
        } else if (v->kind == AV_FLOAT && isfinite(v->d) && v->d == floor(v->d) &&
                   fabs(v->d) < 9.0e15) {
            x = (long long)v->d;
        } else {
            return jl__rctx_fail(&at, JL_ETYPE,
                                 "attribute @%s must be an integer, found %s (%s: %s)", name,
                                 jl__kind_word(v), jl__av_tname(v), jl__av_str(v));
        }
        if (x < 0 || (unsigned long long)x > (unsigned long long)LONG_MAX)
            return jl__rctx_fail(&at, JL_EINVALID, "attribute @%s must be >= 0, found %lld", name,
                                 x);
        *(long *)base = (long)x;
        return JL_OK;
    }
    case JL__F_DBL:
        return number_field(c, opath, name, v, (double *)base); /* NaN stays "missing" */
    }
    return JL_EINTERNAL;
}

static jl_status use_run_attr(rctx *c, const char *opath, const char *name, attr_val *v, void *data)
{
    jl_attrs *a = data;
    size_t k = jl__attr_field_index(name);
    if (k < jl__n_attr_fields)
        return set_field(c, opath, a, k, v);
    const char *text = jl__av_str(v);
    rctx at = rctx_at(c, opath);
    if ((!v->text && (v->kind == AV_INT || v->kind == AV_FLOAT)) ||
        jl_attrs_add_extra(a, name, text, v->kind == AV_INT || v->kind == AV_FLOAT) != JL_OK)
        return jl__rctx_fail(&at, JL_ENOMEM, NULL);
    return JL_OK;
}

/* The spec's rules on a run's attributes once all are read. */
static jl_status check_run_attrs(rctx *c, const char *opath, jl_attrs *a)
{
    rctx at = rctx_at(c, opath);
    /* The MUST attributes. */
    for (size_t k = 0; k < jl__n_attr_fields; k++) {
        if (!jl__attr_fields[k].required)
            continue;
        char *base = (char *)a + jl__attr_fields[k].off;
        int missing =
            jl__attr_fields[k].kind == JL__F_STR ? *(char **)base == NULL : *(long *)base < 0;
        if (missing)
            return jl__rctx_fail(&at, JL_EMISSING, "required attribute @%s is missing",
                                 jl__attr_fields[k].name);
        if (jl__attr_fields[k].kind == JL__F_STR && !**(char **)base)
            return jl__rctx_fail(&at, JL_EINVALID, "required attribute @%s is empty",
                                 jl__attr_fields[k].name);
    }
    if (!jl_workload_is_known(a->workload))
        return jl__rctx_fail(&at, JL_EINVALID,
                             "attribute @workload must be " JL_WORKLOAD_LIST ", found \"%s\"",
                             a->workload);
    const char *scope = jl_attrs_power_scope(a);
    if (strcmp(scope, "gpu") && strcmp(scope, "node_ac"))
        return jl__rctx_fail(&at, JL_EINVALID,
                             "attribute @power_scope must be gpu or node_ac, found \"%s\"", scope);
    if (a->num_gpus < 1)
        return jl__rctx_fail(&at, JL_EINVALID, "attribute @num_gpus must be >= 1, found %ld",
                             a->num_gpus);
    if ((uint64_t)a->num_gpus > c->lim->max_gpus)
        return jl__rctx_fail(&at, JL_ELIMIT,
                             "attribute @num_gpus is %ld, more than the limit of %llu GPUs",
                             a->num_gpus, (unsigned long long)c->lim->max_gpus);
    if (a->max_batch_size < 1)
        return jl__rctx_fail(&at, JL_EINVALID, "attribute @max_batch_size must be >= 1, found %ld",
                             a->max_batch_size);
    return JL_OK;
}

jl_status jl__read_run_attrs(rctx *c, hid_t grp, const char *opath, jl_attrs *a)
{
    jl_status st = walk_attrs(c, grp, opath, use_run_attr, a);
    return st != JL_OK ? st : check_run_attrs(c, opath, a);
}

void jl__summary_init(jl_run_summary_attrs *s)
{
    memset(s, 0, sizeof *s);
    for (size_t k = 0; k < jl__n_summary_fields; k++)
        *(double *)((char *)s + jl__summary_fields[k].off) = jl__nan();
}

/* Attribute `name` of summary/, field k of jl__summary_fields (k ==
 * jl__n_summary_fields: an extra). */
static jl_status put_summary_attr(rctx *c, const char *opath, const char *name, size_t k,
                                  attr_val *v, jl_run_summary_attrs *s)
{
    int is_num = v->kind == AV_INT || v->kind == AV_FLOAT;
    if (k < jl__n_summary_fields)
        return number_field(c, opath, name, v, (double *)((char *)s + jl__summary_fields[k].off));
    jl__av_str(v);
    rctx at = rctx_at(c, opath);
    jl_kv *x = v->text ? realloc(s->extra, (s->n_extra + 1) * sizeof *x) : NULL;
    if (!x)
        return jl__rctx_fail(&at, JL_ENOMEM, NULL);
    s->extra = x;
    x[s->n_extra].key = jl__strdup(name);
    x[s->n_extra].value = v->text;
    x[s->n_extra].is_number = is_num;
    v->text = NULL;
    if (!x[s->n_extra].key) {
        free(x[s->n_extra].value);
        return jl__rctx_fail(&at, JL_ENOMEM, NULL);
    }
    s->n_extra++;
    return JL_OK;
}

static jl_status use_summary_attr(rctx *c, const char *opath, const char *name, attr_val *v,
                                  void *data)
{
    return put_summary_attr(c, opath, name, jl__summary_field_index(name), v, data);
}

jl_status jl__read_summary(rctx *c, hid_t grp, const char *opath, jl_run_summary_attrs *s)
{
    s->present = 1;
    return walk_attrs(c, grp, opath, use_summary_attr, s);
}

/* A cell of the summary table as the attribute it stands for. */
static void cell_attr(const jl__cell *cell, attr_val *v)
{
    jl__attr_val_init(v);
    switch (cell->kind) {
    case JL__CELL_STR:
        v->kind = AV_STRING;
        v->text = malloc(cell->len + 1);
        if (v->text) {
            memcpy(v->text, cell->s, cell->len);
            v->text[cell->len] = '\0';
            v->text = utf8_text(v->text);
        }
        snprintf(v->tname, sizeof v->tname, "string");
        break;
    case JL__CELL_INT:
        v->kind = AV_INT;
        v->num = AN_INT;
        v->i = cell->i;
        v->d = cell->d;
        snprintf(v->tname, sizeof v->tname, "int64");
        break;
    case JL__CELL_UINT:
        v->kind = cell->u <= LLONG_MAX ? AV_INT : AV_FLOAT;
        v->num = AN_UINT;
        v->u = cell->u;
        v->i = cell->u <= LLONG_MAX ? (long long)cell->u : 0;
        v->d = cell->d;
        snprintf(v->tname, sizeof v->tname, "uint64");
        break;
    default:
        v->kind = AV_FLOAT;
        v->num = AN_FLOAT;
        v->d = cell->d;
        snprintf(v->tname, sizeof v->tname, "float64");
        break;
    }
}

/* use_run_attr for a row of the summary table: an extra goes into the
 * array jl__read_table_run sized for every column, and takes the cell's
 * text instead of a copy (one realloc and two copies less per cell). */
static jl_status table_run_attr(rctx *c, const char *opath, const char *name, size_t k, attr_val *v,
                                jl_attrs *a)
{
    if (k < jl__n_attr_fields)
        return set_field(c, opath, a, k, v);
    jl__av_str(v);
    int is_num = v->kind == AV_INT || v->kind == AV_FLOAT;
    char *value = v->text ? v->text : is_num ? NULL : jl__strdup("");
    char *key = value ? jl__strdup(name) : NULL;
    if (!key) {
        if (value != v->text)
            free(value);
        rctx at = rctx_at(c, opath);
        return jl__rctx_fail(&at, JL_ENOMEM, NULL);
    }
    v->text = NULL;
    jl_kv *kv = &a->extra[a->n_extra++];
    kv->key = key;
    kv->value = value;
    kv->is_number = is_num;
    return JL_OK;
}

jl_status jl__read_table_run(const jl__table *tb, size_t row, rctx *c, jl_run *r)
{
    jl_status st = JL_OK;
    /* room for every column as an extra: no more can come from one row */
    size_t n_attr_cols = jl__table_cols(tb, JL__TSET_ATTRS);
    int reserved = 0;
    if (!r->attrs.extra && r->attrs.n_extra == 0 && n_attr_cols > 0) {
        if (!(r->attrs.extra = jl__malloc_array(n_attr_cols, sizeof *r->attrs.extra))) {
            rctx at = rctx_at(c, jl__table_set_path(JL__TSET_ATTRS));
            return jl__rctx_fail(&at, JL_ENOMEM, NULL);
        }
        reserved = 1;
    }
    for (int set = 0; set < JL__TSET_N && st == JL_OK; set++) {
        const char *opath = jl__table_set_path(set);
        for (size_t k = 0; k < jl__table_cols(tb, set) && st == JL_OK; k++) {
            jl__cell cell;
            jl__table_cell(tb, set, k, row, &cell);
            if (cell.kind == JL__CELL_ABSENT)
                continue;
            attr_val v;
            cell_attr(&cell, &v);
            const char *name = jl__table_col_name(tb, set, k);
            rctx at = rctx_at(c, opath);
            if (cell.kind == JL__CELL_STR && !v.text)
                st = jl__rctx_fail(&at, JL_ENOMEM, NULL);
            else if (set == JL__TSET_ATTRS && reserved)
                st = table_run_attr(c, opath, name, jl__table_col_field(tb, set, k), &v, &r->attrs);
            else if (set == JL__TSET_ATTRS)
                st = use_run_attr(c, opath, name, &v, &r->attrs);
            else
                st = put_summary_attr(c, opath, name, jl__table_col_field(tb, set, k), &v,
                                      &r->summary);
            jl__attr_val_clear(&v);
        }
        if (set == JL__TSET_ATTRS && reserved && r->attrs.n_extra == 0) {
            free(r->attrs.extra); /* as when read from a group: no extras, no array */
            r->attrs.extra = NULL;
        }
        if (set == JL__TSET_ATTRS && st == JL_OK)
            st = check_run_attrs(c, opath, &r->attrs);
    }
    r->summary.present = 1;
    return st;
}
