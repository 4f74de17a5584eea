/* Reading and validating trace files (format v1): see include/joules/trace.h
 * and docs/trace-reading.md, which lists every rule and its message. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"
#include "joules/trace.h"
#include "trace/trace_internal.h"

#define MAX_ATTRS 10000         /* attributes on one object */
#define MAX_ATTR_VALUES 65536   /* elements of one attribute */
#define MAX_ATTR_BYTES (16u << 20)
#define MAX_DESCRIBE_DEPTH 8

struct jl_trace {
    char *path;
    hid_t file;
    jl_trace_limits lim;
    int summary_fields_only; /* jl_trace_options.summary_fields_only */
    int stream_itl;          /* jl_trace_options.stream_itl */
    char **runs;
    size_t n_runs, cap_runs;
    char *harness;
    char *created_utc;
    hid_t runs_grp;  /* /runs, open while the trace is */
    hid_t vstr[2];   /* variable-length string memory types (ASCII, UTF-8) */
    jl__table *table; /* /summary_table, NULL when the file has none */
    size_t *row_of;   /* per run: its table row, SIZE_MAX for a group; NULL: all groups */
};

void jl_trace_limits_default(jl_trace_limits *lim)
{
    lim->max_rows = (uint64_t)1 << 31;
    lim->max_dataset_bytes = (uint64_t)4 << 30;
    lim->max_gpus = 1024;
    lim->max_runs = 1000000;
}

void jl_trace_options_default(jl_trace_options *opt)
{
    memset(opt, 0, sizeof *opt);
    jl_trace_limits_default(&opt->limits);
}

/* ------------------------------------------------------------------ */
/* Context of one read: where we are, for messages.                    */

typedef struct {
    const char *file;
    const char *run; /* NULL at the root */
    const jl_trace_limits *lim;
    jl_error **err;
    hid_t *vstr; /* the trace's variable-length string types by cset, or NULL */
    long long run_links; /* links in the run group; RUN_LINKS_UNKNOWN when not counted */
} rctx;
#define RUN_LINKS_UNKNOWN (-1LL)

static const char *class_name(H5T_class_t c)
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

/* "float32", "int64", "string", ... into buf. */
static void type_name(hid_t t, char *buf, size_t cap)
{
    H5T_class_t c = H5Tget_class(t);
    size_t sz = H5Tget_size(t);
    if (c == H5T_FLOAT)
        snprintf(buf, cap, "float%zu", sz * 8);
    else if (c == H5T_INTEGER)
        snprintf(buf, cap, "%sint%zu", H5Tget_sign(t) == H5T_SGN_NONE ? "u" : "", sz * 8);
    else
        snprintf(buf, cap, "%s", class_name(c));
}

/* *present = 1 when a hard link named `name` exists in grp, 0 when absent. */
static jl_status child_exists(rctx *c, hid_t grp, const char *obj, const char *name,
                              int *present)
{
    *present = 0;
    htri_t ex = H5Lexists(grp, name, H5P_DEFAULT);
    if (ex < 0)
        return jl__h5_fail(c->err, JL_EIO, c->file, c->run, obj, -1, "cannot look up the link");
    if (!ex)
        return JL_OK;
    H5L_info_t li;
    if (H5Lget_info(grp, name, &li, H5P_DEFAULT) < 0)
        return jl__h5_fail(c->err, JL_EIO, c->file, c->run, obj, -1, "cannot read the link");
    if (li.type != H5L_TYPE_HARD)
        return jl_fail(c->err, JL_ETYPE, c->file, c->run, obj, -1,
                       "is a soft or external link; joules follows only hard links");
    *present = 1;
    return JL_OK;
}

/* Open child `name` of grp expecting an object of type `want` (H5I_GROUP or
 * H5I_DATASET). *id = -1 and returns JL_OK when absent. */
static jl_status open_child(rctx *c, hid_t grp, const char *obj, const char *name,
                            H5I_type_t want, hid_t *id)
{
    *id = -1;
    int ex = 0;
    jl_status st = child_exists(c, grp, obj, name, &ex);
    if (st != JL_OK || !ex)
        return st;
    hid_t o = H5Oopen(grp, name, H5P_DEFAULT);
    if (o < 0)
        return jl__h5_fail(c->err, JL_EIO, c->file, c->run, obj, -1, "cannot open");
    H5I_type_t t = H5Iget_type(o);
    if (t != want) {
        H5Oclose(o);
        return jl_fail(c->err, JL_ETYPE, c->file, c->run, obj, -1, "is a %s, expected a %s",
                       t == H5I_GROUP ? "group" : t == H5I_DATASET ? "dataset" : "named datatype",
                       want == H5I_GROUP ? "group" : "dataset");
    }
    *id = o;
    return JL_OK;
}

/* ------------------------------------------------------------------ */
/* Attributes                                                          */

typedef enum { AV_NONE, AV_STRING, AV_INT, AV_FLOAT, AV_ARRAY, AV_OTHER } av_kind;
typedef enum { AN_FLOAT, AN_INT, AN_UINT } av_num;

/* One attribute's value. Strings, arrays and other types carry their text
 * from the read; a scalar number gets its text (and the type's name) only
 * when something asks for it: a message or an extra attribute. */
typedef struct {
    av_kind kind;
    char *text;      /* heap; NULL for a scalar number until av_str() */
    long long i;
    double d;
    unsigned long long u;
    av_num num;      /* how a scalar number was stored, for its text */
    hid_t ftype;     /* the file type, for av_tname(); -1 when none */
    char tname[32];
} attr_val;

static void attr_val_init(attr_val *v)
{
    memset(v, 0, sizeof *v);
    v->ftype = -1;
}

static void attr_val_clear(attr_val *v)
{
    free(v->text);
    CLOSE(v->ftype, H5Tclose);
    attr_val_init(v);
}

/* "float64", "string", ...: the name of the attribute's file type. */
static const char *av_tname(attr_val *v)
{
    if (!v->tname[0] && v->ftype >= 0)
        type_name(v->ftype, v->tname, sizeof v->tname);
    return v->tname;
}

/* The value as text ("" when out of memory while formatting a number). */
static const char *av_str(attr_val *v)
{
    if (!v->text && (v->kind == AV_INT || v->kind == AV_FLOAT)) {
        char num[40];
        if (v->num == AN_FLOAT)
            snprintf(num, sizeof num, "%.17g", v->d);
        else if (v->num == AN_UINT)
            snprintf(num, sizeof num, "%llu", v->u);
        else
            snprintf(num, sizeof num, "%lld", v->i);
        v->text = jl_strdup(num);
    }
    return v->text ? v->text : "";
}

static jl_status av_text(rctx *c, attr_val *v, char *s)
{
    if (!s)
        return jl_fail(c->err, JL_ENOMEM, c->file, c->run, NULL, -1, NULL);
    v->text = s;
    return JL_OK;
}

/* The object path and attribute name of a message: "<obj>@<name>". */
typedef struct {
    char *s;
} where_buf;

static const char *where_of(where_buf *w, const char *opath, const char *name)
{
    if (!w->s)
        w->s = jl_asprintf("%s@%s", opath, name);
    return w->s ? w->s : opath;
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
static jl_status read_attr_string(rctx *c, hid_t aid, hid_t ftype, hid_t space,
                                  size_t npts, const char *opath, const char *name,
                                  where_buf *w, attr_val *v)
{
    jl_status st = JL_OK;
    hid_t mem = -1;
    int mem_owned = 0;
    char **vbuf = NULL;
    char *one = NULL;
    char *fbuf = NULL;
    jl_strbuf b;
    jl_strbuf_init(&b);
    htri_t isvar = H5Tis_variable_str(ftype);
    if (isvar < 0) {
        st = jl__h5_fail(c->err, JL_EIO, c->file, c->run, where_of(w, opath, name), -1,
                         "cannot read the string type");
        goto end;
    }
    if (isvar) {
        H5T_cset_t cset = H5Tget_cset(ftype);
        mem = cset < 0 ? -1 : vstr_type(c, cset, &mem_owned);
        if (mem < 0) {
            st = jl__h5_fail(c->err, JL_EIO, c->file, c->run, where_of(w, opath, name), -1,
                             "cannot build a string type");
            goto end;
        }
        vbuf = npts == 1 ? &one : jl_calloc_array(npts, sizeof *vbuf);
        if (!vbuf) {
            st = jl_fail(c->err, JL_ENOMEM, c->file, c->run, where_of(w, opath, name), -1, NULL);
            goto end;
        }
        if (H5Aread(aid, mem, vbuf) < 0) {
            st = jl__h5_fail(c->err, JL_EIO, c->file, c->run, where_of(w, opath, name), -1,
                             "cannot read");
            goto end;
        }
        if (npts == 1) {
            char *s = jl_strdup(one ? one : "");
            H5free_memory(one);
            one = NULL;
            v->kind = AV_STRING;
            st = av_text(c, v, s);
            goto end;
        }
        for (size_t i = 0; i < npts; i++) {
            if (i)
                jl_strbuf_puts(&b, ",");
            if (vbuf[i])
                jl_strbuf_puts(&b, vbuf[i]);
        }
        H5Dvlen_reclaim(mem, space, H5P_DEFAULT, vbuf);
    } else {
        size_t sz = H5Tget_size(ftype);
        size_t total;
        if (sz == 0 || !jl_mul_size(sz, npts, &total) || total > MAX_ATTR_BYTES) {
            st = jl_fail(c->err, JL_ELIMIT, c->file, c->run, where_of(w, opath, name), -1,
                         "string attribute larger than %u bytes", MAX_ATTR_BYTES);
            goto end;
        }
        fbuf = calloc(total + 1, 1);
        if (!fbuf) {
            st = jl_fail(c->err, JL_ENOMEM, c->file, c->run, where_of(w, opath, name), -1, NULL);
            goto end;
        }
        /* the file type itself serves as the memory type: no conversion */
        if (H5Aread(aid, ftype, fbuf) < 0) {
            st = jl__h5_fail(c->err, JL_EIO, c->file, c->run, where_of(w, opath, name), -1,
                             "cannot read");
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
                jl_strbuf_puts(&b, ",");
            jl_strbuf_append(&b, s, len);
        }
    }
    if (!b.data)
        jl_strbuf_puts(&b, "");
    v->kind = npts == 1 ? AV_STRING : AV_ARRAY;
    st = av_text(c, v, jl_strbuf_take(&b));
end:
    if (vbuf && vbuf != &one && st != JL_OK && isvar > 0 && mem >= 0)
        H5Dvlen_reclaim(mem, space, H5P_DEFAULT, vbuf);
    if (one)
        H5free_memory(one);
    if (vbuf != &one)
        free(vbuf);
    free(fbuf);
    jl_strbuf_free(&b);
    if (mem_owned)
        H5Tclose(mem);
    return st;
}

/* Read attribute `name` of obj (object path `opath`, for messages) into v. */
static jl_status read_attr(rctx *c, hid_t obj, const char *opath, const char *name,
                           attr_val *v)
{
    jl_status st = JL_OK;
    hid_t aid = -1, space = -1, mtype = -1;
    void *buf = NULL;
    where_buf w = {NULL};
    attr_val_init(v);
    aid = H5Aopen(obj, name, H5P_DEFAULT);
    if (aid < 0) {
        st = jl__h5_fail(c->err, JL_EIO, c->file, c->run, where_of(&w, opath, name), -1,
                         "cannot open the attribute");
        goto end;
    }
    v->ftype = H5Aget_type(aid);
    space = H5Aget_space(aid);
    if (v->ftype < 0 || space < 0) {
        st = jl__h5_fail(c->err, JL_EIO, c->file, c->run, where_of(&w, opath, name), -1,
                         "cannot read the attribute's type");
        goto end;
    }
    hid_t ftype = v->ftype;
    hssize_t np = H5Sget_simple_extent_npoints(space);
    if (np == 0) { /* a null dataspace or no elements */
        v->kind = AV_NONE;
        st = av_text(c, v, jl_strdup(""));
        goto end;
    }
    if (np < 0) {
        st = jl__h5_fail(c->err, JL_EIO, c->file, c->run, where_of(&w, opath, name), -1,
                         "cannot read the attribute's shape");
        goto end;
    }
    size_t npts = (size_t)np;
    if ((uint64_t)np > MAX_ATTR_VALUES) {
        v->kind = AV_OTHER;
        st = av_text(c, v, jl_asprintf("(array of %lld values)", (long long)np));
        goto end;
    }
    H5T_class_t cls = H5Tget_class(ftype);
    if (cls == H5T_STRING) {
        st = read_attr_string(c, aid, ftype, space, npts, opath, name, &w, v);
        goto end;
    }
    if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
        int is_uint = cls == H5T_INTEGER && H5Tget_sign(ftype) == H5T_SGN_NONE;
        hid_t mt = cls == H5T_FLOAT ? H5T_NATIVE_DOUBLE
                                    : is_uint ? H5T_NATIVE_ULLONG : H5T_NATIVE_LLONG;
        unsigned long long one;
        buf = npts == 1 ? (void *)&one : jl_calloc_array(npts, 8);
        if (!buf) {
            st = jl_fail(c->err, JL_ENOMEM, c->file, c->run, where_of(&w, opath, name), -1, NULL);
            goto end;
        }
        if (H5Aread(aid, mt, buf) < 0) {
            st = jl__h5_fail(c->err, JL_EIO, c->file, c->run, where_of(&w, opath, name), -1,
                             "cannot read");
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
        if (npts == 1) {
            buf = NULL; /* the text waits for av_str() */
            goto end;
        }
        jl_strbuf b;
        jl_strbuf_init(&b);
        for (size_t i = 0; i < npts; i++) {
            char num[40];
            if (cls == H5T_FLOAT)
                snprintf(num, sizeof num, "%.17g", ((double *)buf)[i]);
            else if (is_uint)
                snprintf(num, sizeof num, "%llu", ((unsigned long long *)buf)[i]);
            else
                snprintf(num, sizeof num, "%lld", ((long long *)buf)[i]);
            if (i)
                jl_strbuf_puts(&b, ",");
            jl_strbuf_puts(&b, num);
        }
        v->kind = AV_ARRAY;
        st = av_text(c, v, jl_strbuf_take(&b));
        goto end;
    }
    if (cls == H5T_ENUM && npts == 1) {
        /* h5py stores booleans as an enum {FALSE, TRUE}: keep the name. */
        mtype = H5Tget_native_type(ftype, H5T_DIR_ASCEND);
        size_t sz = mtype >= 0 ? H5Tget_size(mtype) : 0;
        char name_buf[128];
        if (sz == 0 || sz > 16) {
            st = jl__h5_fail(c->err, JL_ETYPE, c->file, c->run, where_of(&w, opath, name), -1,
                             "unsupported enum type");
            goto end;
        }
        buf = calloc(1, 16);
        if (!buf) {
            st = jl_fail(c->err, JL_ENOMEM, c->file, c->run, where_of(&w, opath, name), -1, NULL);
            goto end;
        }
        if (H5Aread(aid, mtype, buf) < 0) {
            st = jl__h5_fail(c->err, JL_EIO, c->file, c->run, where_of(&w, opath, name), -1,
                             "cannot read");
            goto end;
        }
        if (H5Tenum_nameof(mtype, buf, name_buf, sizeof name_buf) < 0) {
            H5Eclear2(H5E_DEFAULT);
            snprintf(name_buf, sizeof name_buf, "(enum value not in its type)");
        }
        v->kind = AV_OTHER;
        st = av_text(c, v, jl_strdup(name_buf));
        goto end;
    }
    v->kind = AV_OTHER;
    st = av_text(c, v, jl_asprintf("(%s attribute)", class_name(cls)));
end:
    free(buf);
    free(w.s);
    CLOSE(mtype, H5Tclose);
    CLOSE(space, H5Sclose);
    CLOSE(aid, H5Aclose);
    if (st != JL_OK)
        attr_val_clear(v);
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
    w->st = read_attr(w->c, w->obj, w->opath, name, &v);
    if (w->st == JL_OK)
        w->st = w->use(w->c, w->opath, name, &v, w->data);
    attr_val_clear(&v);
    return w->st == JL_OK ? 0 : 2;
}

static jl_status walk_attrs(rctx *c, hid_t obj, const char *opath, attr_use use, void *data)
{
    attr_walk w = {c, obj, opath, use, data, 0, JL_OK};
    hsize_t idx = 0;
    herr_t r = H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_walk_cb, &w);
    if (r == 2)
        return w.st;
    if (r < 0)
        return jl__h5_fail(c->err, JL_EIO, c->file, c->run, opath, -1, "cannot list the attributes");
    if (r > 0)
        return jl_fail(c->err, JL_ELIMIT, c->file, c->run, opath, -1,
                       "more than %d attributes", MAX_ATTRS);
    return JL_OK;
}

/* The run attributes with typed fields: jl__attr_fields (h5_util.c). */

static const char *kind_word(const attr_val *v)
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
    if (v->kind != AV_INT && v->kind != AV_FLOAT)
        return jl_fail(c->err, JL_ETYPE, c->file, c->run, opath, -1,
                       "attribute @%s must be a number, found %s (%s)", name, kind_word(v),
                       av_tname(v));
    if (isinf(v->d))
        return jl_fail(c->err, JL_EINVALID, c->file, c->run, opath, -1,
                       "attribute @%s must be finite, found %s", name, av_str(v));
    *dst = v->d;
    return JL_OK;
}

static jl_status set_field(rctx *c, const char *opath, jl_attrs *a, size_t k, attr_val *v)
{
    const char *name = jl__attr_fields[k].name;
    char *base = (char *)a + jl__attr_fields[k].off;
    switch (jl__attr_fields[k].kind) {
    case JL__F_STR:
        if (v->kind != AV_STRING)
            return jl_fail(c->err, JL_ETYPE, c->file, c->run, opath, -1,
                           "attribute @%s must be a string, found %s (%s)", name,
                           kind_word(v), av_tname(v));
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
            return jl_fail(c->err, JL_ETYPE, c->file, c->run, opath, -1,
                           "attribute @%s must be an integer, found %s (%s: %s)", name,
                           kind_word(v), av_tname(v), av_str(v));
        }
        if (x < 0 || (unsigned long long)x > (unsigned long long)LONG_MAX)
            return jl_fail(c->err, JL_EINVALID, c->file, c->run, opath, -1,
                           "attribute @%s must be >= 0, found %lld", name, x);
        *(long *)base = (long)x;
        return JL_OK;
    }
    case JL__F_DBL:
        return number_field(c, opath, name, v, (double *)base); /* NaN stays "missing" */
    }
    return JL_EINTERNAL;
}

/* The field of jl__attr_fields named `name`, jl__n_attr_fields when none. */
static size_t attr_field_index(const char *name)
{
    for (size_t k = 0; k < jl__n_attr_fields; k++)
        if (jl__attr_fields[k].name[0] == name[0] && !strcmp(jl__attr_fields[k].name, name))
            return k;
    return jl__n_attr_fields;
}

static jl_status use_run_attr(rctx *c, const char *opath, const char *name, attr_val *v,
                              void *data)
{
    jl_attrs *a = data;
    size_t k = attr_field_index(name);
    if (k < jl__n_attr_fields)
        return set_field(c, opath, a, k, v);
    const char *text = av_str(v);
    if ((!v->text && (v->kind == AV_INT || v->kind == AV_FLOAT)) ||
        jl_attrs_add_extra(a, name, text, v->kind == AV_INT || v->kind == AV_FLOAT) != JL_OK)
        return jl_fail(c->err, JL_ENOMEM, c->file, c->run, opath, -1, NULL);
    return JL_OK;
}

/* The spec's rules on a run's attributes once all are read. */
static jl_status check_run_attrs(rctx *c, const char *opath, jl_attrs *a)
{
    /* The MUST attributes. */
    for (size_t k = 0; k < jl__n_attr_fields; k++) {
        if (!jl__attr_fields[k].required)
            continue;
        char *base = (char *)a + jl__attr_fields[k].off;
        int missing = jl__attr_fields[k].kind == JL__F_STR ? *(char **)base == NULL
                                                   : *(long *)base < 0;
        if (missing)
            return jl_fail(c->err, JL_EMISSING, c->file, c->run, opath, -1,
                           "required attribute @%s is missing", jl__attr_fields[k].name);
        if (jl__attr_fields[k].kind == JL__F_STR && !**(char **)base)
            return jl_fail(c->err, JL_EINVALID, c->file, c->run, opath, -1,
                           "required attribute @%s is empty", jl__attr_fields[k].name);
    }
    if (strcmp(a->workload, "llm") && strcmp(a->workload, "mllm") &&
        strcmp(a->workload, "diffusion"))
        return jl_fail(c->err, JL_EINVALID, c->file, c->run, opath, -1,
                       "attribute @workload must be llm, mllm or diffusion, found \"%s\"",
                       a->workload);
    const char *scope = jl_attrs_power_scope(a);
    if (strcmp(scope, "gpu") && strcmp(scope, "node_ac"))
        return jl_fail(c->err, JL_EINVALID, c->file, c->run, opath, -1,
                       "attribute @power_scope must be gpu or node_ac, found \"%s\"", scope);
    if (a->num_gpus < 1)
        return jl_fail(c->err, JL_EINVALID, c->file, c->run, opath, -1,
                       "attribute @num_gpus must be >= 1, found %ld", a->num_gpus);
    if ((uint64_t)a->num_gpus > c->lim->max_gpus)
        return jl_fail(c->err, JL_ELIMIT, c->file, c->run, opath, -1,
                       "attribute @num_gpus is %ld, more than the limit of %llu GPUs",
                       a->num_gpus, (unsigned long long)c->lim->max_gpus);
    if (a->max_batch_size < 1)
        return jl_fail(c->err, JL_EINVALID, c->file, c->run, opath, -1,
                       "attribute @max_batch_size must be >= 1, found %ld", a->max_batch_size);
    return JL_OK;
}

static jl_status read_run_attrs(rctx *c, hid_t grp, const char *opath, jl_attrs *a)
{
    jl_status st = walk_attrs(c, grp, opath, use_run_attr, a);
    return st != JL_OK ? st : check_run_attrs(c, opath, a);
}

static void summary_init(jl_run_summary_attrs *s)
{
    memset(s, 0, sizeof *s);
    for (size_t k = 0; k < jl__n_summary_fields; k++)
        *(double *)((char *)s + jl__summary_fields[k].off) = jl_nan();
}

static jl_status use_summary_attr(rctx *c, const char *opath, const char *name, attr_val *v,
                                  void *data)
{
    jl_run_summary_attrs *s = data;
    size_t k;
    for (k = 0; k < jl__n_summary_fields; k++)
        if (jl__summary_fields[k].name[0] == name[0] && !strcmp(jl__summary_fields[k].name, name))
            break;
    int is_num = v->kind == AV_INT || v->kind == AV_FLOAT;
    if (k < jl__n_summary_fields)
        return number_field(c, opath, name, v, (double *)((char *)s + jl__summary_fields[k].off));
    av_str(v);
    jl_kv *x = v->text ? realloc(s->extra, (s->n_extra + 1) * sizeof *x) : NULL;
    if (!x)
        return jl_fail(c->err, JL_ENOMEM, c->file, c->run, opath, -1, NULL);
    s->extra = x;
    x[s->n_extra].key = jl_strdup(name);
    x[s->n_extra].value = v->text;
    x[s->n_extra].is_number = is_num;
    v->text = NULL;
    if (!x[s->n_extra].key) {
        free(x[s->n_extra].value);
        return jl_fail(c->err, JL_ENOMEM, c->file, c->run, opath, -1, NULL);
    }
    s->n_extra++;
    return JL_OK;
}

static jl_status read_summary(rctx *c, hid_t grp, const char *opath, jl_run_summary_attrs *s)
{
    s->present = 1;
    return walk_attrs(c, grp, opath, use_summary_attr, s);
}

/* ------------------------------------------------------------------ */
/* Datasets                                                            */

typedef enum { T_F64, T_F32, T_I32, T_I64 } target_t;

/* HDF5 1.10's own conversion buffer size; the most the reader lends it. */
#define TCONV_MAX_BYTES ((size_t)1 << 20)

static int fits_size(uint64_t v)
{
    return v == (uint64_t)(size_t)v;
}

static size_t target_size(target_t t)
{
    return t == T_F64 || t == T_I64 ? 8 : 4;
}

/* One run being read: where it is, the run, its G, and what its dataset
 * reads share. */
typedef struct {
    rctx *c;
    hid_t run_grp;
    const char *run_path;
    jl_run *run;
    size_t g;
    hid_t dxpl;       /* transfer properties of every read, lending tconv */
    void *tconv;      /* type-conversion buffer lent to HDF5 */
    size_t tconv_cap; /* its size (<= TCONV_MAX_BYTES) */
    int summary_fields_only; /* skip the columns marked summary_unused */
    int stream_itl;          /* itl/ columns go to the run's stream (column_stream.c) */
    int kept;                /* the last read_ds kept its dataset in the stream */
} run_reader;

typedef struct group_reader group_reader;

/* A rule on the values of one column: v holds n rows x cols values of the
 * column's target type; obj is its object path. */
typedef jl_status (*col_check)(group_reader *gr, const char *obj, const void *v, size_t n,
                               size_t cols);

/* One dataset of a group: what it must be and where it goes. */
typedef struct {
    const char *name;  /* dataset name in its group */
    int rank;          /* 1: [n] into a pointer of jl_run; 2: [n, G] into a jl_series */
    target_t target;
    int required;
    size_t off;        /* offsetof(jl_run, that pointer or jl_series) */
    col_check check;   /* its own value rule, or NULL */
    int check_at_once; /* checked as soon as read, before the next column is (times) */
    int summary_unused; /* optional, and jl_summarize never reads it */
} col_spec;

/* A group of the run: its datasets in reading order. The first dataset
 * present sets the group's row count; every later one must have as many
 * rows. */
typedef struct {
    const char *name;
    size_t rows_off; /* offsetof(jl_run, the group's row count) */
    const col_spec *cols;
    size_t n_cols;
    /* a rule across the group's columns, after they are read and before
     * their own checks; called also when the group is absent (grp < 0) */
    jl_status (*rule)(group_reader *gr);
} group_spec;

struct group_reader {
    run_reader *rr;
    const group_spec *gs;
    hid_t grp;   /* -1: absent */
    char *path;  /* /runs/<run>/<group> */
    char **objs; /* object path of each column reached, NULL-filled */
};

/* Decoded bytes of one chunk of a dataset with creation properties dcpl (0
 * when not chunked); refuses chunks larger than the dataset limit and
 * filters HDF5 cannot decode. */
static jl_status chunk_bytes(rctx *c, hid_t dcpl, hid_t ftype, const char *obj, size_t *out)
{
    jl_status st = JL_OK;
    *out = 0;
    H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout == H5D_CHUNKED) {
        hsize_t dims[H5S_MAX_RANK];
        int r = H5Pget_chunk(dcpl, H5S_MAX_RANK, dims);
        if (r <= 0) {
            st = jl__h5_fail(c->err, JL_EIO, c->file, c->run, obj, -1, "cannot read the chunk shape");
            goto end;
        }
        uint64_t bytes = H5Tget_size(ftype);
        for (int i = 0; i < r; i++) {
            if (dims[i] && bytes > UINT64_MAX / dims[i]) {
                bytes = UINT64_MAX;
                break;
            }
            bytes *= dims[i];
        }
        if (bytes > c->lim->max_dataset_bytes || !fits_size(bytes)) {
            st = jl_fail(c->err, JL_ELIMIT, c->file, c->run, obj, -1,
                         "chunks of %llu bytes, more than the limit of %llu bytes",
                         (unsigned long long)bytes,
                         (unsigned long long)c->lim->max_dataset_bytes);
            goto end;
        }
        *out = (size_t)bytes;
    }
    int nf = H5Pget_nfilters(dcpl);
    for (int i = 0; i < nf; i++) {
        unsigned flags = 0;
        size_t ncd = 0;
        char fname[64] = "";
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, NULL,
                                         sizeof fname, fname, NULL);
        if (id < 0) {
            st = jl__h5_fail(c->err, JL_EIO, c->file, c->run, obj, -1, "cannot read the filter pipeline");
            goto end;
        }
        htri_t avail = H5Zfilter_avail(id);
        if (avail <= 0) {
            H5Eclear2(H5E_DEFAULT);
            fname[sizeof fname - 1] = '\0';
            st = jl_fail(c->err, JL_EFORMAT, c->file, c->run, obj, -1,
                         "compressed with HDF5 filter %d%s%s%s, which joules cannot decode",
                         (int)id, *fname ? " (" : "", fname, *fname ? ")" : "");
            goto end;
        }
    }
end:
    return st;
}

/* The memory type a dataset of integer or float file type ftype is read as.
 * int32 targets are read as int32 when every value of ftype fits, else as
 * int64 and narrowed after a range check (*narrow = 1). */
static hid_t mem_type(target_t t, hid_t ftype, int *narrow)
{
    *narrow = 0;
    switch (t) {
    case T_F64: return H5T_NATIVE_DOUBLE;
    case T_F32: return H5T_NATIVE_FLOAT;
    case T_I64: return H5T_NATIVE_INT64;
    case T_I32: break;
    }
    size_t sz = H5Tget_size(ftype);
    if (sz < 4 || (sz == 4 && H5Tget_sign(ftype) == H5T_SGN_2))
        return H5T_NATIVE_INT32;
    *narrow = 1;
    return H5T_NATIVE_INT64;
}

/* Before a read of nv values from ftype into mtype: if HDF5 must convert,
 * lend it the run's buffer, grown to the data up to TCONV_MAX_BYTES (HDF5
 * 1.10 would calloc 1 MiB for every converting read). */
static jl_status lend_tconv(run_reader *rr, const char *obj, hid_t ftype, hid_t mtype,
                            size_t nv)
{
    htri_t same = H5Tequal(ftype, mtype);
    if (same > 0)
        return JL_OK;
    if (same < 0)
        H5Eclear2(H5E_DEFAULT); /* then assume it converts */
    size_t fs = H5Tget_size(ftype), ms = H5Tget_size(mtype);
    size_t elem = fs > ms ? fs : ms; /* <= 16: read_ds refuses larger types */
    size_t want = nv <= TCONV_MAX_BYTES / elem ? nv * elem : TCONV_MAX_BYTES;
    if (want <= rr->tconv_cap)
        return JL_OK;
    void *b = realloc(rr->tconv, want);
    if (!b)
        return jl_fail(rr->c->err, JL_ENOMEM, rr->c->file, rr->c->run, obj, -1, NULL);
    rr->tconv = b;
    rr->tconv_cap = want;
    if (H5Pset_buffer(rr->dxpl, want, b, NULL) < 0)
        return jl__h5_fail(rr->c->err, JL_EINTERNAL, rr->c->file, rr->c->run, obj, -1,
                           "cannot set up the type conversion buffer");
    return JL_OK;
}

/* Read dataset cs->name of grp (object path obj). Rank 2 datasets must have
 * G columns; if expect_n != SIZE_MAX the row count must equal it (n_from
 * names where that count comes from). On success *out is the data (NULL
 * when absent and not required) and *n the row count. */
static jl_status read_ds(run_reader *rr, hid_t grp, const char *obj, const col_spec *cs,
                         size_t expect_n, const char *n_from, void **out, size_t *n)
{
    rctx *c = rr->c;
    size_t g = cs->rank == 2 ? rr->g : 1;
    jl_status st = JL_OK;
    hid_t dset = -1, ftype = -1, space = -1, dcpl = -1;
    void *buf = NULL;
    int64_t *tmp = NULL;
    *out = NULL;
    *n = 0;
    if ((st = open_child(c, grp, obj, cs->name, H5I_DATASET, &dset)) != JL_OK)
        goto end;
    if (dset < 0) {
        if (cs->required)
            st = jl_fail(c->err, JL_EMISSING, c->file, c->run, obj, -1,
                         "required dataset is missing");
        goto end;
    }
    ftype = H5Dget_type(dset);
    space = H5Dget_space(dset);
    if (ftype < 0 || space < 0) {
        st = jl__h5_fail(c->err, JL_EIO, c->file, c->run, obj, -1, "cannot read the type or shape");
        goto end;
    }
    H5T_class_t cls = H5Tget_class(ftype);
    int want_int = cs->target == T_I32 || cs->target == T_I64;
    if (want_int ? cls != H5T_INTEGER : (cls != H5T_INTEGER && cls != H5T_FLOAT)) {
        char tname[32];
        type_name(ftype, tname, sizeof tname);
        st = jl_fail(c->err, JL_ETYPE, c->file, c->run, obj, -1, "has type %s, expected %s",
                     tname, want_int ? "integers" : "numbers");
        goto end;
    }
    if (H5Tget_size(ftype) > 16) {
        st = jl_fail(c->err, JL_ETYPE, c->file, c->run, obj, -1,
                     "has a %zu-byte %s type, which joules does not read",
                     H5Tget_size(ftype), class_name(cls));
        goto end;
    }
    const char *shape = cs->rank == 1 ? "[N]" : "[N, G]";
    H5S_class_t sc = H5Sget_simple_extent_type(space);
    int rank = H5Sget_simple_extent_ndims(space);
    if (sc != H5S_SIMPLE || rank < 0) {
        st = jl_fail(c->err, JL_ETYPE, c->file, c->run, obj, -1, "is %s, expected shape %s",
                     sc == H5S_SCALAR ? "a scalar" : sc == H5S_NULL ? "empty (null dataspace)"
                                                                    : "of unknown shape",
                     shape);
        goto end;
    }
    if (rank != cs->rank) {
        st = jl_fail(c->err, JL_ETYPE, c->file, c->run, obj, -1,
                     "has rank %d, expected %d (shape %s)", rank, cs->rank, shape);
        goto end;
    }
    hsize_t dims[2] = {0, 1};
    if (H5Sget_simple_extent_dims(space, dims, NULL) < 0) {
        st = jl__h5_fail(c->err, JL_EIO, c->file, c->run, obj, -1, "cannot read the shape");
        goto end;
    }
    if (rank == 2 && dims[1] != g) {
        st = jl_fail(c->err, JL_ETYPE, c->file, c->run, obj, -1,
                     "has shape [%llu, %llu], expected [N, %zu] (%s = %zu)",
                     (unsigned long long)dims[0], (unsigned long long)dims[1], g,
                     g == (size_t)rr->run->attrs.num_gpus ? "num_gpus"
                                                          : "@power_scope node_ac: columns",
                     g);
        goto end;
    }
    /* Sizes before allocation: rows, then rows x G x 8 bytes. */
    if (dims[0] > c->lim->max_rows) {
        st = jl_fail(c->err, JL_ELIMIT, c->file, c->run, obj, -1,
                     "declares %llu rows, more than the limit of %llu rows",
                     (unsigned long long)dims[0], (unsigned long long)c->lim->max_rows);
        goto end;
    }
    int ovf = dims[1] && dims[0] > UINT64_MAX / dims[1];
    uint64_t vals = ovf ? UINT64_MAX : dims[0] * dims[1];
    ovf = ovf || vals > UINT64_MAX / 8;
    uint64_t bytes = ovf ? UINT64_MAX : vals * 8;
    if (ovf || bytes > c->lim->max_dataset_bytes || !fits_size(bytes)) {
        st = jl_fail(c->err, JL_ELIMIT, c->file, c->run, obj, -1,
                     "declares %llu x %llu values (%llu bytes decoded), more than the limit of %llu bytes",
                     (unsigned long long)dims[0], (unsigned long long)dims[1],
                     (unsigned long long)bytes, (unsigned long long)c->lim->max_dataset_bytes);
        goto end;
    }
    if (expect_n != SIZE_MAX && dims[0] != expect_n) {
        st = jl_fail(c->err, JL_EINVALID, c->file, c->run, obj, -1,
                     "has %llu rows, expected %zu (the length of %s)",
                     (unsigned long long)dims[0], expect_n, n_from);
        goto end;
    }
    size_t cbytes;
    if ((dcpl = H5Dget_create_plist(dset)) < 0) {
        st = jl__h5_fail(c->err, JL_EIO, c->file, c->run, obj, -1, "cannot read the storage layout");
        goto end;
    }
    if ((st = chunk_bytes(c, dcpl, ftype, obj, &cbytes)) != JL_OK)
        goto end;
    if (rr->stream_itl && (cs->off == offsetof(jl_run, itl_seconds) ||
                           cs->off == offsetof(jl_run, itl_request))) {
        int kept = jl__itl_stream_keep(rr->run, cs->off == offsetof(jl_run, itl_request), obj,
                                       dset, dcpl, ftype, (size_t)dims[0], cbytes);
        if (kept < 0)
            st = jl_fail(c->err, JL_ENOMEM, c->file, c->run, obj, -1, NULL);
        if (kept > 0) { /* checked; itl_rule and the summary stream it */
            dset = -1;
            rr->kept = 1;
            *n = (size_t)dims[0];
        }
        if (kept)
            goto end;
    }
    size_t nv = (size_t)vals;
    buf = jl_malloc_array(nv ? nv : 1, target_size(cs->target));
    if (!buf) {
        st = jl_fail(c->err, JL_ENOMEM, c->file, c->run, obj, -1,
                     "out of memory for %zu values", nv);
        goto end;
    }
    if (nv > 0) {
        int narrow;
        hid_t mt = mem_type(cs->target, ftype, &narrow);
        void *dst = buf;
        if (narrow) {
            tmp = jl_malloc_array(nv, sizeof *tmp);
            if (!tmp) {
                st = jl_fail(c->err, JL_ENOMEM, c->file, c->run, obj, -1,
                             "out of memory for %zu values", nv);
                goto end;
            }
            dst = tmp;
        }
        int direct = jl__read_chunks_direct(dset, dcpl, ftype, mt, dims, rank, cbytes, dst);
        if (!direct && (st = lend_tconv(rr, obj, ftype, mt, nv)) != JL_OK)
            goto end;
        jl__zstd_set_chunk_bytes(cbytes);
        herr_t r = direct ? 0 : H5Dread(dset, mt, H5S_ALL, H5S_ALL, rr->dxpl, dst);
        jl_error *cause = NULL;
        if (r < 0) {
            cause = jl__h5_stack_error();
            if (*jl__zstd_last_error()) {
                jl_error *z = jl_error_new(JL_EFORMAT, NULL, NULL, NULL, -1, "%s",
                                           jl__zstd_last_error());
                if (z) {
                    z->cause = cause;
                    cause = z;
                }
            }
        }
        int chunk_failed = r < 0 && *jl__zstd_last_error();
        jl__zstd_set_chunk_bytes(0);
        if (r < 0 && !chunk_failed && cause) {
            /* deflate, shuffle, fletcher32...: HDF5 says its filter failed */
            char *m = jl_error_format(cause);
            if (m && (strstr(m, "data pipeline read failed") || strstr(m, "filter returned failure")))
                chunk_failed = 1;
            free(m);
        }
        if (r < 0) {
            int fresh = *c->err == NULL;
            st = jl_fail(c->err, chunk_failed ? JL_EFORMAT : JL_EIO, c->file, c->run, obj, -1,
                         "cannot read the data%s", chunk_failed ? " (corrupt compressed chunk)" : "");
            if (fresh && *c->err)
                (*c->err)->cause = cause;
            else
                jl_error_free(cause);
            goto end;
        }
        if (narrow) {
            int32_t *o = buf;
            for (size_t i = 0; i < nv; i++) {
                if (tmp[i] < INT32_MIN || tmp[i] > INT32_MAX) {
                    st = jl_fail(c->err, JL_EINVALID, c->file, c->run, obj,
                                 (long long)(i / dims[1]),
                                 "value %lld at row %zu does not fit in int32",
                                 (long long)tmp[i], (size_t)(i / dims[1]));
                    goto end;
                }
                o[i] = (int32_t)tmp[i];
            }
        }
    }
    *out = buf;
    buf = NULL;
    *n = (size_t)dims[0];
end:
    free(tmp);
    free(buf);
    CLOSE(dcpl, H5Pclose);
    CLOSE(space, H5Sclose);
    CLOSE(ftype, H5Tclose);
    CLOSE(dset, H5Dclose);
    return st;
}

/* ------------------------------------------------------------------ */
/* Value checks, one column each                                        */

#define KV_TOLERANCE 1e-6

/* An invalid value at row i of obj. */
static jl_status bad_value(group_reader *gr, const char *obj, size_t i, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static jl_status bad_value(group_reader *gr, const char *obj, size_t i, const char *fmt, ...)
{
    rctx *c = gr->rr->c;
    if (c->err && !*c->err) {
        va_list ap;
        va_start(ap, fmt);
        *c->err = jl_error_vnew(JL_EINVALID, c->file, c->run, obj, (long long)i, fmt, ap);
        va_end(ap);
    }
    return JL_EINVALID;
}

/* The object path of column `name` of the group being read. */
static const char *col_obj(const group_reader *gr, const char *name)
{
    for (size_t k = 0; k < gr->gs->n_cols; k++)
        if (!strcmp(gr->gs->cols[k].name, name))
            return gr->objs[k];
    return NULL;
}

/* Times: finite and non-decreasing. */
static jl_status check_time(group_reader *gr, const char *obj, const void *v, size_t n,
                            size_t cols)
{
    const double *t = v;
    char a[40], b[40];
    (void)cols;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(t[i])) {
            jl__fmt_double(a, sizeof a, t[i]);
            return bad_value(gr, obj, i, "not finite at row %zu (%s)", i, a);
        }
        if (i > 0 && t[i] < t[i - 1]) {
            jl__fmt_double(a, sizeof a, t[i]);
            jl__fmt_double(b, sizeof b, t[i - 1]);
            return bad_value(gr, obj, i, "not non-decreasing at row %zu (%s after %s)", i, a, b);
        }
    }
    return JL_OK;
}

/* Every value of a [n, cols] series finite; if nonneg, also >= 0. */
static jl_status check_series(group_reader *gr, const char *obj, const double *v, size_t n,
                              size_t cols, int nonneg, const char *unit)
{
    for (size_t i = 0; i < n * cols; i++) {
        double x = v[i];
        if (!isfinite(x) || (nonneg && x < 0)) {
            char a[40], w[64];
            jl__fmt_double(a, sizeof a, x);
            if (cols > 1)
                snprintf(w, sizeof w, "row %zu, GPU %zu", i / cols, i % cols);
            else
                snprintf(w, sizeof w, "row %zu", i);
            return bad_value(gr, obj, i / cols, "%s at %s (%s %s)",
                             isfinite(x) ? "negative power" : "not finite", w, a, unit);
        }
    }
    return JL_OK;
}

static jl_status check_power(group_reader *gr, const char *obj, const void *v, size_t n,
                             size_t cols)
{
    return check_series(gr, obj, v, n, cols, 1, "W");
}

/* energy_j is a counter with any offset: finite, any sign. */
static jl_status check_energy(group_reader *gr, const char *obj, const void *v, size_t n,
                              size_t cols)
{
    return check_series(gr, obj, v, n, cols, 0, "J");
}

static jl_status check_count(group_reader *gr, const char *obj, const void *v, size_t n,
                             size_t cols)
{
    const int32_t *x = v;
    (void)cols;
    for (size_t i = 0; i < n; i++)
        if (x[i] < 0)
            return bad_value(gr, obj, i, "negative value at row %zu (%d)", i, (int)x[i]);
    return JL_OK;
}

static jl_status check_cumulative(group_reader *gr, const char *obj, const void *v, size_t n,
                                  size_t cols)
{
    const int64_t *x = v;
    (void)cols;
    for (size_t i = 0; i < n; i++) {
        if (x[i] < 0)
            return bad_value(gr, obj, i, "negative value at row %zu (%lld)", i, (long long)x[i]);
        if (i > 0 && x[i] < x[i - 1])
            return bad_value(gr, obj, i, "cumulative count decreases at row %zu (%lld after %lld)",
                             i, (long long)x[i], (long long)x[i - 1]);
    }
    return JL_OK;
}

static jl_status check_fraction(group_reader *gr, const char *obj, const void *v, size_t n,
                                size_t cols)
{
    const float *x = v;
    (void)cols;
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] >= -KV_TOLERANCE && x[i] <= 1 + KV_TOLERANCE)) {
            char a[40];
            jl__fmt_double(a, sizeof a, x[i]);
            return bad_value(gr, obj, i, "outside 0..1 at row %zu (%s)", i, a);
        }
    }
    return JL_OK;
}

/* Request times: NaN means the request never got that far; inf is wrong. */
static jl_status check_request_time(group_reader *gr, const char *obj, const void *v, size_t n,
                                    size_t cols)
{
    const double *t = v;
    (void)cols;
    for (size_t i = 0; i < n; i++)
        if (isinf(t[i]))
            return bad_value(gr, obj, i, "infinite at row %zu (NaN marks a missing time)", i);
    return JL_OK;
}

static jl_status bad_latency(group_reader *gr, const char *obj, size_t i, float x)
{
    char a[40];
    jl__fmt_double(a, sizeof a, x);
    return bad_value(gr, obj, i, "%s at row %zu (%s)",
                     isfinite(x) ? "negative latency" : "not finite", i, a);
}

static void **col_data(jl_run *r, const col_spec *cs);

static int has_requests(const jl_run *r)
{
    return r->arrival || r->first_token || r->finish || r->input_tokens || r->output_tokens;
}

/* itl/request indexes requests/ (when that group is there). */
/* itl/: seconds finite and >= 0, request in 0..R-1 (R = rows of requests/
 * when present), in one pass over both columns: ~10^7 samples per long
 * run, where each separate pass cost about as much as decoding them
 * (docs/performance.md). A bad latency is reported before a bad index, as
 * when the columns were checked one after the other. The pass itself is
 * jl__itl_scan (column_stream.c), over the columns in memory or streamed. */
static jl_status itl_rule(group_reader *gr)
{
    jl_run *r = gr->rr->run;
    rctx *c = gr->rr->c;
    if (!r->itl_seconds && !r->itl_stream)
        return JL_OK;
    const uint32_t R = has_requests(r) ? (r->req_n > (size_t)INT32_MAX ? (uint32_t)INT32_MAX + 1
                                                                      : (uint32_t)r->req_n)
                                       : (uint32_t)INT32_MAX + 1;
    size_t bad_lat, bad_q;
    float lat;
    int32_t qv;
    int rc = jl__itl_scan(r, R, &bad_lat, &lat, &bad_q, &qv);
    if (rc == 0) { /* a streamed chunk does not decode: read whole, as unstreamed */
        jl__itl_stream_drop(r);
        jl_status st = JL_OK;
        gr->rr->stream_itl = 0;
        for (size_t k = 0; k < gr->gs->n_cols && st == JL_OK; k++) {
            void **dst = col_data(r, &gr->gs->cols[k]);
            size_t rows;
            if (gr->objs[k] && !*dst)
                st = read_ds(gr->rr, gr->grp, gr->objs[k], &gr->gs->cols[k], SIZE_MAX, NULL,
                             dst, &rows);
        }
        gr->rr->stream_itl = 1;
        if (st != JL_OK)
            return st;
        rc = jl__itl_scan(r, R, &bad_lat, &lat, &bad_q, &qv);
    }
    if (rc < 0)
        return jl_fail(c->err, JL_ENOMEM, c->file, c->run, gr->path, -1, NULL);
    if (bad_lat != SIZE_MAX)
        return bad_latency(gr, col_obj(gr, "seconds"), bad_lat, lat);
    if (bad_q == SIZE_MAX)
        return JL_OK;
    if (qv < 0 || !has_requests(r))
        return bad_value(gr, col_obj(gr, "request"), bad_q,
                         "request index out of range at row %zu (%d)", bad_q, (int)qv);
    return bad_value(gr, col_obj(gr, "request"), bad_q,
                     "request index out of range at row %zu (%d; requests/ has %zu rows)", bad_q,
                     (int)qv, r->req_n);
}

/* power/ is required unless summary/ is there; watts or energy_j is. */
static jl_status power_rule(group_reader *gr)
{
    const jl_run *r = gr->rr->run;
    rctx *c = gr->rr->c;
    if (gr->grp < 0 && !r->summary.present)
        return jl_fail(c->err, JL_EMISSING, c->file, c->run, gr->path, -1,
                       "required group is missing (power/ is required unless summary/ is present)");
    if (gr->grp >= 0 && !r->watts.v && !r->energy_j.v)
        return jl_fail(c->err, JL_EMISSING, c->file, c->run, gr->path, -1,
                       "has neither watts nor energy_j (at least one is required)");
    return JL_OK;
}

/* batches/: start and end finite, start <= end, row by row. */
static jl_status batch_rule(group_reader *gr)
{
    const jl_run *r = gr->rr->run;
    for (size_t i = 0; i < r->batch_n; i++) {
        double s = r->batch_start[i], e = r->batch_end[i];
        if (isfinite(s) && isfinite(e) && s <= e)
            continue;
        char a[40], b[40];
        jl__fmt_double(a, sizeof a, s);
        jl__fmt_double(b, sizeof b, e);
        if (!isfinite(s) || !isfinite(e))
            return bad_value(gr, col_obj(gr, isfinite(s) ? "end" : "start"), i,
                             "not finite at row %zu (%s)", i, isfinite(s) ? b : a);
        return bad_value(gr, col_obj(gr, "end"), i,
                         "batch ends before it starts at row %zu (end %s < start %s)", i, b, a);
    }
    return JL_OK;
}

/* ------------------------------------------------------------------ */
/* Groups: a table of datasets each, read by one loop                  */

#define COL(name, rank, target, required, field, check) \
    {name, rank, target, required, offsetof(jl_run, field), check, 0, 0}
/* an optional column the summary does not use (summary_fields_only) */
#define UNUSED_COL(name, rank, target, field, check) \
    {name, rank, target, 0, offsetof(jl_run, field), check, 0, 1}
#define TIME_COL(field) {"time", 1, T_F64, 1, offsetof(jl_run, field), check_time, 1, 0}

static const col_spec power_cols[] = {
    TIME_COL(power_time),
    COL("watts", 2, T_F64, 0, watts, check_power),
    COL("energy_j", 2, T_F64, 0, energy_j, check_energy),
    UNUSED_COL("watts_avg", 2, T_F64, watts_avg, check_power),
};
static const col_spec gpu_cols[] = {
    TIME_COL(gpu_time),
    COL("sm_util", 2, T_F64, 0, sm_util, NULL),
    UNUSED_COL("mem_util", 2, T_F64, mem_util, NULL),
    UNUSED_COL("mem_used_bytes", 2, T_F64, mem_used_bytes, NULL),
    COL("sm_clock_mhz", 2, T_F64, 0, sm_clock_mhz, NULL),
    UNUSED_COL("temp_c", 2, T_F64, temp_c, NULL),
};
static const col_spec engine_cols[] = {
    TIME_COL(engine_time),
    COL("running", 1, T_I32, 1, running, check_count),
    UNUSED_COL("waiting", 1, T_I32, waiting, check_count),
    COL("tokens_generated", 1, T_I64, 0, tokens_generated, check_cumulative),
    COL("prefill_tokens", 1, T_I64, 0, prefill_tokens, check_cumulative),
    COL("kv_cache_usage", 1, T_F32, 0, kv_cache_usage, check_fraction),
};
/* Every column optional; those present have one length. */
static const col_spec request_cols[] = {
    COL("arrival", 1, T_F64, 0, arrival, check_request_time),
    COL("first_token", 1, T_F64, 0, first_token, check_request_time),
    COL("finish", 1, T_F64, 0, finish, check_request_time),
    UNUSED_COL("input_tokens", 1, T_I32, input_tokens, check_count),
    COL("output_tokens", 1, T_I32, 0, output_tokens, check_count),
};
static const col_spec itl_cols[] = {
    COL("seconds", 1, T_F32, 1, itl_seconds, NULL), /* both: itl_rule */
    COL("request", 1, T_I32, 0, itl_request, NULL),
};
static const col_spec batch_cols[] = {
    COL("start", 1, T_F64, 1, batch_start, NULL),
    COL("end", 1, T_F64, 1, batch_end, NULL),
    COL("size", 1, T_I32, 0, batch_size, check_count),
};
#undef COL
#undef UNUSED_COL
#undef TIME_COL

#define GROUP(name, rows, cols, rule) \
    {name, offsetof(jl_run, rows), cols, sizeof cols / sizeof cols[0], rule}
/* In reading order: itl/ after requests/, whose length it checks against. */
static const group_spec groups[] = {
    GROUP("power", power_n, power_cols, power_rule),
    GROUP("gpu", gpu_n, gpu_cols, NULL),
    GROUP("engine", engine_n, engine_cols, NULL),
    GROUP("requests", req_n, request_cols, NULL),
    GROUP("itl", itl_n, itl_cols, itl_rule),
    GROUP("batches", batch_n, batch_cols, batch_rule),
};
#undef GROUP
#define N_GROUPS (sizeof groups / sizeof groups[0])

/* Where column cs of run r lives: the pointer field, or the jl_series. */
static void **col_data(jl_run *r, const col_spec *cs)
{
    char *base = (char *)r + cs->off;
    return cs->rank == 2 ? (void **)&((jl_series *)base)->v : (void **)base;
}

/* 1 when the run group is known to link to nothing but summary/ (looked up
 * first): its link count is 1 with summary/ there, 0 without. */
static int no_groups_beside_summary(const run_reader *rr)
{
    return rr->c->run_links == (rr->run->summary.present ? 1 : 0);
}

/* Open group `name` of the run; *grp = -1 when absent. *path = its path,
 * NULL for a group known absent beside summary/ (no message can name it:
 * a group may be missing only when summary/ is there). */
static jl_status open_group(run_reader *rr, const char *name, hid_t *grp, char **path)
{
    *path = NULL;
    *grp = -1;
    int known_absent = strcmp(name, "summary") && no_groups_beside_summary(rr);
    if (known_absent && rr->run->summary.present)
        return JL_OK;
    *path = jl_asprintf("%s/%s", rr->run_path, name);
    if (!*path)
        return jl_fail(rr->c->err, JL_ENOMEM, rr->c->file, rr->c->run, rr->run_path, -1, NULL);
    if (known_absent)
        return JL_OK;
    return open_child(rr->c, rr->run_grp, *path, name, H5I_GROUP, grp);
}

/* Read group gs of the run: every column (times checked at once), the
 * group's rule, then every column's own check, in table order. */
static jl_status read_group(run_reader *rr, const group_spec *gs)
{
    jl_run *r = rr->run;
    rctx *c = rr->c;
    group_reader gr = {rr, gs, -1, NULL, calloc(gs->n_cols, sizeof(char *))};
    char **objs = gr.objs;
    /* @power_scope node_ac: power/ has one column whatever num_gpus says */
    const size_t g_run = rr->g;
    if (!strcmp(gs->name, "power") && jl_attrs_is_node_ac(&r->attrs))
        rr->g = 1;
    size_t rows = SIZE_MAX; /* of the first column present */
    char *from = NULL;      /* "<group>/<that column>", for length messages */
    jl_status st = objs ? open_group(rr, gs->name, &gr.grp, &gr.path)
                        : jl_fail(c->err, JL_ENOMEM, c->file, c->run, rr->run_path, -1, NULL);
    if (st != JL_OK)
        goto end;
    for (size_t k = 0; gr.grp >= 0 && k < gs->n_cols; k++) {
        const col_spec *cs = &gs->cols[k];
        void **dst = col_data(r, cs);
        size_t n = 0;
        if (cs->summary_unused && rr->summary_fields_only)
            continue; /* stays NULL, as if absent */
        if (!(objs[k] = jl_asprintf("%s/%s", gr.path, cs->name))) {
            st = jl_fail(c->err, JL_ENOMEM, c->file, c->run, gr.path, -1, NULL);
            goto end;
        }
        rr->kept = 0;
        if ((st = read_ds(rr, gr.grp, objs[k], cs, rows, from, dst, &n)) != JL_OK)
            goto end;
        if (!*dst && !rr->kept)
            continue;
        if (cs->rank == 2) {
            jl_series *s = (jl_series *)((char *)r + cs->off);
            s->n = n;
            s->g = rr->g;
        }
        if (rows == SIZE_MAX) {
            rows = n;
            *(size_t *)((char *)r + gs->rows_off) = n;
            if (!(from = jl_asprintf("%s/%s", gs->name, cs->name))) {
                st = jl_fail(c->err, JL_ENOMEM, c->file, c->run, gr.path, -1, NULL);
                goto end;
            }
        }
        if (cs->check_at_once && (st = cs->check(&gr, objs[k], *dst, n, 1)) != JL_OK)
            goto end;
    }
    if (gs->rule && (st = gs->rule(&gr)) != JL_OK)
        goto end;
    for (size_t k = 0; gr.grp >= 0 && k < gs->n_cols; k++) {
        const col_spec *cs = &gs->cols[k];
        void *v = *col_data(r, cs);
        if (v && cs->check && !cs->check_at_once &&
            (st = cs->check(&gr, objs[k], v, rows, cs->rank == 2 ? rr->g : 1)) != JL_OK)
            goto end;
    }
end:
    for (size_t k = 0; objs && k < gs->n_cols; k++)
        free(objs[k]);
    free(objs);
    free(from);
    free(gr.path);
    CLOSE(gr.grp, H5Gclose);
    rr->g = g_run;
    return st;
}

static jl_status read_summary_group(run_reader *rr)
{
    hid_t grp = -1;
    char *path = NULL;
    jl_status st = open_group(rr, "summary", &grp, &path);
    if (st == JL_OK && grp >= 0)
        st = read_summary(rr->c, grp, path, &rr->run->summary);
    free(path);
    CLOSE(grp, H5Gclose);
    return st;
}

/* ------------------------------------------------------------------ */
/* Runs                                                                */

void jl_run_free(jl_run *r)
{
    if (!r)
        return;
    free(r->file);
    free(r->name);
    jl_attrs_clear(&r->attrs);
    for (size_t i = 0; i < N_GROUPS; i++)
        for (size_t k = 0; k < groups[i].n_cols; k++)
            free(*col_data(r, &groups[i].cols[k]));
    for (size_t i = 0; i < r->summary.n_extra; i++) {
        free(r->summary.extra[i].key);
        free(r->summary.extra[i].value);
    }
    free(r->summary.extra);
    jl__itl_stream_drop(r);
    free(r);
}

jl_run *jl_run_new(void)
{
    jl_run *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    jl_attrs_init(&r->attrs);
    summary_init(&r->summary);
    return r;
}

/* A cell of the summary table as the attribute it stands for. */
static void cell_attr(const jl__cell *cell, attr_val *v)
{
    attr_val_init(v);
    switch (cell->kind) {
    case JL__CELL_STR:
        v->kind = AV_STRING;
        v->text = malloc(cell->len + 1);
        if (v->text) {
            memcpy(v->text, cell->s, cell->len);
            v->text[cell->len] = '\0';
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

/* Run `row` of the summary table: each cell goes through the rules of the
 * attribute it stands for (attributes, then summary/), as a group's would. */
static jl_status read_table_run(const jl__table *tb, size_t row, rctx *c, jl_run *r)
{
    jl_status st = JL_OK;
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
            if (cell.kind == JL__CELL_STR && !v.text)
                st = jl_fail(c->err, JL_ENOMEM, c->file, c->run, opath, -1, NULL);
            else if (set == JL__TSET_ATTRS)
                st = use_run_attr(c, opath, name, &v, &r->attrs);
            else
                st = use_summary_attr(c, opath, name, &v, &r->summary);
            attr_val_clear(&v);
        }
        if (set == JL__TSET_ATTRS && st == JL_OK)
            st = check_run_attrs(c, opath, &r->attrs);
    }
    r->summary.present = 1;
    return st;
}

jl_status jl_trace_read_run(jl_trace *t, size_t i, jl_run **out, jl_error **err)
{
    *out = NULL;
    if (!t || i >= t->n_runs)
        return jl_fail(err, JL_EUSAGE, t ? t->path : NULL, NULL, NULL, -1,
                       "run index %zu out of range", i);
    rctx c = {t->path, t->runs[i], &t->lim, err, t->vstr, RUN_LINKS_UNKNOWN};
    jl_error *local = NULL;
    if (!err)
        c.err = &local;
    jl_status st = JL_OK;
    run_reader rr = {&c, -1, NULL, NULL, 0, -1, NULL, 0, t->summary_fields_only, t->stream_itl, 0};
    char *run_path = jl_asprintf("/runs/%s", t->runs[i]);
    jl_run *r = jl_run_new();
    rr.run_path = run_path;
    rr.run = r;
    if (!run_path || !r) {
        st = jl_fail(c.err, JL_ENOMEM, c.file, c.run, NULL, -1, NULL);
        goto end;
    }
    if (!(r->file = jl_strdup(t->path)) || !(r->name = jl_strdup(t->runs[i]))) {
        st = jl_fail(c.err, JL_ENOMEM, c.file, c.run, NULL, -1, NULL);
        goto end;
    }
    if (t->row_of && t->row_of[i] != SIZE_MAX) {
        if ((st = read_table_run(t->table, t->row_of[i], &c, r)) != JL_OK)
            goto end;
        *out = r;
        r = NULL;
        goto end;
    }
    rr.run_grp = H5Gopen2(t->runs_grp, t->runs[i], H5P_DEFAULT);
    if (rr.run_grp < 0) {
        st = jl__h5_fail(c.err, JL_EIO, c.file, c.run, run_path, -1, "cannot open");
        goto end;
    }
    if ((st = read_run_attrs(&c, rr.run_grp, run_path, &r->attrs)) != JL_OK)
        goto end;
    H5G_info_t gi;
    if (H5Gget_info(rr.run_grp, &gi) < 0)
        H5Eclear2(H5E_DEFAULT); /* look every group up, as without the count */
    else
        c.run_links = (long long)gi.nlinks;
    rr.g = (size_t)r->attrs.num_gpus;
    /* summary/ first: power/ is required only without it. */
    if ((st = read_summary_group(&rr)) != JL_OK)
        goto end;
    /* a run with summary/ alone reads no dataset: no transfer list */
    if (!no_groups_beside_summary(&rr) && (rr.dxpl = H5Pcreate(H5P_DATASET_XFER)) < 0) {
        st = jl__h5_fail(c.err, JL_EINTERNAL, c.file, c.run, run_path, -1,
                         "cannot set up the data transfer");
        goto end;
    }
    for (size_t k = 0; k < N_GROUPS; k++)
        if ((st = read_group(&rr, &groups[k])) != JL_OK)
            goto end;
    *out = r;
    r = NULL;
end:
    jl_error_free(local);
    jl_run_free(r);
    free(run_path);
    free(rr.tconv);
    CLOSE(rr.dxpl, H5Pclose);
    CLOSE(rr.run_grp, H5Gclose);
    return st;
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

typedef struct {
    jl_trace *t;
    int nomem, limit, bad_link;
    char *bad;
} run_list_state;

static herr_t run_name_cb(hid_t grp, const char *name, const H5L_info_t *info, void *data)
{
    run_list_state *s = data;
    if (info->type != H5L_TYPE_HARD) {
        s->bad_link = 1;
        s->bad = jl_strdup(name);
        return 1;
    }
    hid_t o = H5Oopen(grp, name, H5P_DEFAULT);
    if (o < 0)
        return -1;
    H5I_type_t type = H5Iget_type(o);
    H5Oclose(o);
    if (type != H5I_GROUP)
        return 0; /* not a run: ignored, like any unknown object */
    jl_trace *t = s->t;
    if (t->n_runs >= t->lim.max_runs) {
        s->limit = 1;
        return 1;
    }
    if (t->n_runs == t->cap_runs) {
        size_t cap = t->cap_runs ? t->cap_runs * 2 : 16;
        char **nr = realloc(t->runs, cap * sizeof *nr);
        if (!nr) {
            s->nomem = 1;
            return -1;
        }
        t->runs = nr;
        t->cap_runs = cap;
    }
    if (!(t->runs[t->n_runs] = jl_strdup(name))) {
        s->nomem = 1;
        return -1;
    }
    t->n_runs++;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read an optional string attribute of the root; NULL when absent. */
static jl_status root_string(rctx *c, hid_t root, const char *name, int required,
                             char **out)
{
    *out = NULL;
    htri_t ex = H5Aexists(root, name);
    if (ex < 0)
        return jl__h5_fail(c->err, JL_EFORMAT, c->file, NULL, "/", -1,
                           "cannot read the root attributes");
    if (!ex) {
        if (required)
            return jl_fail(c->err, JL_EFORMAT, c->file, NULL, "/", -1,
                           "not a joules trace: the root has no @%s attribute", name);
        return JL_OK;
    }
    attr_val v;
    jl_status st = read_attr(c, root, "/", name, &v);
    if (st != JL_OK)
        return st;
    if (v.kind != AV_STRING) {
        st = jl_fail(c->err, required ? JL_EFORMAT : JL_ETYPE, c->file, NULL, "/", -1,
                     "attribute @%s must be a string, found %s (%s)", name, kind_word(&v),
                     av_tname(&v));
        attr_val_clear(&v);
        return st;
    }
    *out = v.text;
    v.text = NULL;
    attr_val_clear(&v);
    return JL_OK;
}

/* The runs of /runs (sorted) and the rows of the summary table, merged in
 * name order; a name in both, or twice in the table, is an error. */
typedef struct {
    char *name;
    size_t row;
} run_entry;

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const run_entry *)a)->name, ((const run_entry *)b)->name);
}

static jl_status merge_table_runs(jl_trace *t, jl_error **err)
{
    size_t nt = jl__table_rows(t->table), n = t->n_runs + nt;
    if (n > t->lim.max_runs)
        return jl_fail(err, JL_ELIMIT, t->path, NULL, "/" JL__TABLE_NAME, -1,
                       "more than the limit of %llu runs", (unsigned long long)t->lim.max_runs);
    run_entry *e = jl_calloc_array(n, sizeof *e);
    char **names = jl_calloc_array(n, sizeof *names);
    size_t *row_of = jl_calloc_array(n, sizeof *row_of);
    jl_status st = JL_OK;
    if (!e || !names || !row_of) {
        st = jl_fail(err, JL_ENOMEM, t->path, NULL, NULL, -1, NULL);
        goto end;
    }
    for (size_t i = 0; i < t->n_runs; i++)
        e[i] = (run_entry){t->runs[i], SIZE_MAX};
    for (size_t r = 0; r < nt; r++)
        e[t->n_runs + r] = (run_entry){(char *)jl__table_run(t->table, r), r};
    qsort(e, n, sizeof *e, cmp_entry);
    for (size_t i = 1; i < n; i++)
        if (!strcmp(e[i - 1].name, e[i].name)) {
            int both = e[i - 1].row == SIZE_MAX || e[i].row == SIZE_MAX;
            st = jl_fail(err, JL_EFORMAT, t->path, e[i].name, "/" JL__TABLE_NAME "/run", -1,
                         both ? "run %s is both a group in /runs and a row of the summary table"
                              : "run %s appears twice in the summary table",
                         e[i].name);
            goto end;
        }
    for (size_t i = 0; i < n; i++) {
        row_of[i] = e[i].row;
        names[i] = e[i].row == SIZE_MAX ? e[i].name : jl_strdup(e[i].name);
        if (!names[i]) {
            for (size_t k = 0; k < i; k++)
                if (row_of[k] != SIZE_MAX)
                    free(names[k]);
            st = jl_fail(err, JL_ENOMEM, t->path, NULL, NULL, -1, NULL);
            goto end;
        }
    }
    free(t->runs); /* the group names live on in names */
    t->runs = names;
    t->n_runs = t->cap_runs = n;
    t->row_of = row_of;
    names = NULL;
    row_of = NULL;
end:
    free(e);
    free(names);
    free(row_of);
    return st;
}

static jl_status open_common(jl_trace *t, hid_t fapl, const char *h5name, jl_error **err)
{
    rctx c = {t->path, NULL, &t->lim, err, t->vstr, RUN_LINKS_UNKNOWN};
    jl_status st = JL_OK;
    hid_t root = -1, runs = -1;
    char *format = NULL;
    attr_val v;
    attr_val_init(&v);
    t->file = H5Fopen(h5name, H5F_ACC_RDONLY, fapl);
    if (t->file < 0) {
        st = jl__h5_fail(err, JL_EFORMAT, t->path, NULL, NULL, -1,
                         "cannot open as an HDF5 file (not HDF5, truncated or corrupt)");
        goto end;
    }
    root = H5Gopen2(t->file, "/", H5P_DEFAULT);
    if (root < 0) {
        st = jl__h5_fail(err, JL_EFORMAT, t->path, NULL, "/", -1, "cannot open the root group");
        goto end;
    }
    if ((st = root_string(&c, root, "format", 1, &format)) != JL_OK)
        goto end;
    if (strcmp(format, "joules-trace")) {
        st = jl_fail(err, JL_EFORMAT, t->path, NULL, "/", -1,
                     "not a joules trace: @format is \"%s\", expected \"joules-trace\"", format);
        goto end;
    }
    htri_t ex = H5Aexists(root, "format_version");
    if (ex <= 0) {
        st = ex < 0 ? jl__h5_fail(err, JL_EFORMAT, t->path, NULL, "/", -1,
                                  "cannot read the root attributes")
                    : jl_fail(err, JL_EFORMAT, t->path, NULL, "/", -1,
                              "the root has no @format_version attribute");
        goto end;
    }
    if ((st = read_attr(&c, root, "/", "format_version", &v)) != JL_OK)
        goto end;
    if (!(v.kind == AV_INT || (v.kind == AV_FLOAT && v.d == floor(v.d)))) {
        st = jl_fail(err, JL_EFORMAT, t->path, NULL, "/", -1,
                     "attribute @format_version must be an integer, found %s (%s)",
                     kind_word(&v), av_tname(&v));
        goto end;
    }
    if (v.d != 1) {
        st = jl_fail(err, JL_EFORMAT, t->path, NULL, "/", -1,
                     "unsupported @format_version %s (this reader reads version 1)", av_str(&v));
        goto end;
    }
    if ((st = root_string(&c, root, "harness", 0, &t->harness)) != JL_OK ||
        (st = root_string(&c, root, "created_utc", 0, &t->created_utc)) != JL_OK)
        goto end;
    hid_t runs_id = -1;
    if ((st = open_child(&c, root, "/runs", "runs", H5I_GROUP, &runs_id)) != JL_OK)
        goto end;
    runs = runs_id;
    if (runs < 0) {
        st = jl_fail(err, JL_EFORMAT, t->path, NULL, "/runs", -1,
                     "not a joules trace: the root has no runs/ group");
        goto end;
    }
    run_list_state s = {t, 0, 0, 0, NULL};
    hsize_t idx = 0;
    herr_t r = H5Literate(runs, H5_INDEX_NAME, H5_ITER_INC, &idx, run_name_cb, &s);
    if (s.nomem) {
        st = jl_fail(err, JL_ENOMEM, t->path, NULL, "/runs", -1, NULL);
    } else if (s.bad_link) {
        st = jl_fail(err, JL_EFORMAT, t->path, s.bad, "/runs", -1,
                     "run %s is a soft or external link; runs must be groups",
                     s.bad ? s.bad : "?");
        free(s.bad);
    } else if (s.limit) {
        st = jl_fail(err, JL_ELIMIT, t->path, NULL, "/runs", -1,
                     "more than the limit of %llu runs", (unsigned long long)t->lim.max_runs);
    } else if (r < 0) {
        st = jl__h5_fail(err, JL_EFORMAT, t->path, NULL, "/runs", -1, "cannot list the runs");
    } else if ((st = jl__table_open(t->file, t->path, &t->lim, &t->table, err)) == JL_OK &&
               t->n_runs == 0 && jl__table_rows(t->table) == 0) {
        st = jl_fail(err, JL_EFORMAT, t->path, NULL, "/runs", -1,
                     "holds no runs (at least one is required)");
    }
    if (st != JL_OK)
        goto end;
    if (t->n_runs) /* none: the summary table holds them all */
        qsort(t->runs, t->n_runs, sizeof *t->runs, cmp_str);
    if (t->table && (st = merge_table_runs(t, err)) != JL_OK)
        goto end;
    t->runs_grp = runs; /* kept for jl_trace_read_run */
    runs = -1;
end:
    attr_val_clear(&v);
    free(format);
    CLOSE(runs, H5Gclose);
    CLOSE(root, H5Gclose);
    return st;
}

/* The metadata cache of a file being read or written: small and fixed.
 * Each run's object headers are visited once, so a cache that grows to
 * hold them all (HDF5's default grows to 32 MiB) serves nothing and costs
 * memory touched for the first time: on the ML.ENERGY file (1,858 runs,
 * ~47,000 attributes) 22,000 page faults against 4,900 and a third of the
 * CPU time of `joules pick`; 11,600 against 3,400 for the import. A
 * dataset's chunk index needs far less (summarising the long generated
 * traces, writing a run of 10^7 ITL samples: unchanged). */
#define SMALL_CACHE_BYTES ((size_t)256 << 10)

herr_t jl__h5_small_cache(hid_t fapl)
{
    H5AC_cache_config_t cc;
    memset(&cc, 0, sizeof cc);
    cc.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    if (H5Pget_mdc_config(fapl, &cc) < 0)
        return -1;
    cc.set_initial_size = 1;
    cc.initial_size = SMALL_CACHE_BYTES;
    cc.max_size = SMALL_CACHE_BYTES;
    if (cc.min_size > SMALL_CACHE_BYTES)
        cc.min_size = SMALL_CACHE_BYTES;
    cc.incr_mode = H5C_incr__off;
    cc.flash_incr_mode = H5C_flash_incr__off;
    cc.decr_mode = H5C_decr__off;
    return H5Pset_mdc_config(fapl, &cc);
}

static jl_status trace_new(const char *path, const jl_trace_options *opt, jl_trace **out,
                           jl_error **err)
{
    *out = NULL;
    jl_trace *t = calloc(1, sizeof *t);
    if (!t || !(t->path = jl_strdup(path ? path : "(memory)"))) {
        free(t);
        return jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, NULL);
    }
    t->file = -1;
    t->runs_grp = -1;
    t->vstr[0] = t->vstr[1] = -1;
    if (opt)
        t->lim = opt->limits;
    else
        jl_trace_limits_default(&t->lim);
    t->summary_fields_only = opt ? opt->summary_fields_only : 0;
    t->stream_itl = opt ? opt->stream_itl : 0;
    *out = t;
    return JL_OK;
}

jl_status jl_trace_open(const char *path, const jl_trace_options *opt, jl_trace **out,
                        jl_error **err)
{
    jl_trace *t = NULL;
    hid_t fapl = -1;
    *out = NULL;
    if (!path)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "no trace path given");
    if (jl__h5_init() != JL_OK)
        return jl__h5_fail(err, JL_EINTERNAL, path, NULL, NULL, -1,
                           "cannot register the Zstandard filter with HDF5");
    struct stat sb;
    if (stat(path, &sb) != 0)
        return jl_fail(err, JL_EIO, path, NULL, NULL, -1, "cannot open: %s", strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return jl_fail(err, JL_EIO, path, NULL, NULL, -1, "not a regular file");
    if (sb.st_size == 0)
        return jl_fail(err, JL_EFORMAT, path, NULL, NULL, -1, "empty file (0 bytes)");
    jl_status st = trace_new(path, opt, &t, err);
    if (st != JL_OK)
        return st;
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 ||
        jl__h5_small_cache(fapl) < 0) {
        st = jl__h5_fail(err, JL_EINTERNAL, path, NULL, NULL, -1, "cannot set up file access");
        goto end;
    }
    if ((st = open_common(t, fapl, path, err)) != JL_OK)
        goto end;
    *out = t;
    t = NULL;
end:
    CLOSE(fapl, H5Pclose);
    jl_trace_close(t);
    return st;
}

jl_status jl_trace_open_image(const void *buf, size_t len, const char *name,
                              const jl_trace_options *opt, jl_trace **out, jl_error **err)
{
    static unsigned long long counter;
    jl_trace *t = NULL;
    hid_t fapl = -1;
    char h5name[64];
    *out = NULL;
    if (!name)
        name = "(memory)";
    if (jl__h5_init() != JL_OK)
        return jl__h5_fail(err, JL_EINTERNAL, name, NULL, NULL, -1,
                           "cannot register the Zstandard filter with HDF5");
    if (!buf || len == 0)
        return jl_fail(err, JL_EFORMAT, name, NULL, NULL, -1, "empty file (0 bytes)");
    jl_status st = trace_new(name, opt, &t, err);
    if (st != JL_OK)
        return st;
    /* HDF5 tells core-driver files apart by name: give each image its own. */
    snprintf(h5name, sizeof h5name, "joules-image-%llu.h5", ++counter);
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 ||
        jl__h5_small_cache(fapl) < 0 || H5Pset_fapl_core(fapl, 1 << 16, 0) < 0 || H5Pset_file_image(fapl, (void *)buf, len) < 0) {
        st = jl__h5_fail(err, JL_EINTERNAL, name, NULL, NULL, -1,
                         "cannot set up the in-memory file image");
        goto end;
    }
    if ((st = open_common(t, fapl, h5name, err)) != JL_OK)
        goto end;
    *out = t;
    t = NULL;
end:
    CLOSE(fapl, H5Pclose);
    jl_trace_close(t);
    return st;
}

void jl_trace_close(jl_trace *t)
{
    if (!t)
        return;
    CLOSE(t->vstr[0], H5Tclose);
    CLOSE(t->vstr[1], H5Tclose);
    CLOSE(t->runs_grp, H5Gclose);
    if (t->file >= 0)
        H5Fclose(t->file);
    for (size_t i = 0; i < t->n_runs; i++)
        free(t->runs[i]);
    free(t->runs);
    free(t->row_of);
    jl__table_free(t->table);
    free(t->path);
    free(t->harness);
    free(t->created_utc);
    free(t);
}

const char *jl_trace_path(const jl_trace *t)
{
    return t->path;
}

size_t jl_trace_run_count(const jl_trace *t)
{
    return t->n_runs;
}

const char *jl_trace_run_name(const jl_trace *t, size_t i)
{
    return i < t->n_runs ? t->runs[i] : NULL;
}

const char *jl_trace_harness(const jl_trace *t)
{
    return t->harness;
}

const char *jl_trace_created_utc(const jl_trace *t)
{
    return t->created_utc;
}

/* ------------------------------------------------------------------ */
/* Describe                                                            */

typedef struct {
    rctx *c;
    jl_run_info *info;
    size_t cap;
    int depth;
    jl_status st;
    char *prefix;
} describe_state;

static char *filters_text(hid_t dcpl)
{
    jl_strbuf b;
    jl_strbuf_init(&b);
    jl_strbuf_puts(&b, "");
    int nf = H5Pget_nfilters(dcpl);
    for (int i = 0; i < nf; i++) {
        unsigned flags = 0, cd[8] = {0};
        size_t ncd = 8;
        char fname[64] = "";
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof fname,
                                         fname, NULL);
        if (i)
            jl_strbuf_puts(&b, "+");
        switch (id) {
        case H5Z_FILTER_SHUFFLE: jl_strbuf_puts(&b, "shuffle"); break;
        case H5Z_FILTER_DEFLATE: jl_strbuf_printf(&b, "deflate(%u)", ncd ? cd[0] : 0); break;
        case H5Z_FILTER_FLETCHER32: jl_strbuf_puts(&b, "fletcher32"); break;
        case H5Z_FILTER_SZIP: jl_strbuf_puts(&b, "szip"); break;
        case H5Z_FILTER_NBIT: jl_strbuf_puts(&b, "nbit"); break;
        case H5Z_FILTER_SCALEOFFSET: jl_strbuf_puts(&b, "scaleoffset"); break;
        case JL_ZSTD_FILTER_ID: jl_strbuf_printf(&b, "zstd(%u)", ncd ? cd[0] : 3); break;
        default: jl_strbuf_printf(&b, "filter%d", (int)id);
        }
    }
    H5Eclear2(H5E_DEFAULT);
    return jl_strbuf_take(&b);
}

static jl_status describe_dataset(describe_state *s, hid_t dset, const char *path)
{
    jl_status st = JL_OK;
    hid_t ftype = H5Dget_type(dset), space = H5Dget_space(dset), dcpl = H5Dget_create_plist(dset);
    jl_dataset_info d;
    memset(&d, 0, sizeof d);
    char tname[32];
    if (ftype < 0 || space < 0 || dcpl < 0) {
        st = jl__h5_fail(s->c->err, JL_EIO, s->c->file, s->c->run, path, -1,
                         "cannot read the type, shape or layout");
        goto end;
    }
    type_name(ftype, tname, sizeof tname);
    d.rank = H5Sget_simple_extent_ndims(space);
    if (d.rank < 0)
        d.rank = 0;
    hsize_t dims[H5S_MAX_RANK];
    if (d.rank > 0 && H5Sget_simple_extent_dims(space, dims, NULL) >= 0)
        for (int k = 0; k < d.rank && k < 2; k++)
            d.dims[k] = dims[k];
    if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
        d.chunked = 1;
        int r = H5Pget_chunk(dcpl, H5S_MAX_RANK, dims);
        for (int k = 0; k < r && k < 2; k++)
            d.chunk[k] = dims[k];
    }
    d.storage_bytes = H5Dget_storage_size(dset);
    d.path = jl_strdup(path);
    d.type = jl_strdup(tname);
    d.filters = filters_text(dcpl);
    if (!d.path || !d.type || !d.filters) {
        st = jl_fail(s->c->err, JL_ENOMEM, s->c->file, s->c->run, path, -1, NULL);
        goto end;
    }
    if (s->info->n_datasets == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 32;
        jl_dataset_info *n = realloc(s->info->datasets, cap * sizeof *n);
        if (!n) {
            st = jl_fail(s->c->err, JL_ENOMEM, s->c->file, s->c->run, path, -1, NULL);
            goto end;
        }
        s->info->datasets = n;
        s->cap = cap;
    }
    s->info->datasets[s->info->n_datasets++] = d;
    memset(&d, 0, sizeof d);
end:
    free(d.path);
    free(d.type);
    free(d.filters);
    CLOSE(dcpl, H5Pclose);
    CLOSE(space, H5Sclose);
    CLOSE(ftype, H5Tclose);
    return st;
}

static jl_status describe_group(describe_state *s, hid_t grp, const char *path);

static herr_t describe_cb(hid_t grp, const char *name, const H5L_info_t *info, void *data)
{
    describe_state *s = data;
    if (info->type != H5L_TYPE_HARD)
        return 0; /* soft and external links are not followed */
    char *path = jl_asprintf("%s/%s", s->prefix, name);
    if (!path) {
        s->st = jl_fail(s->c->err, JL_ENOMEM, s->c->file, s->c->run, NULL, -1, NULL);
        return -1;
    }
    hid_t o = H5Oopen(grp, name, H5P_DEFAULT);
    if (o < 0) {
        s->st = jl__h5_fail(s->c->err, JL_EIO, s->c->file, s->c->run, path, -1, "cannot open");
        free(path);
        return -1;
    }
    H5I_type_t t = H5Iget_type(o);
    if (t == H5I_DATASET)
        s->st = describe_dataset(s, o, path);
    else if (t == H5I_GROUP && s->depth < MAX_DESCRIBE_DEPTH)
        s->st = describe_group(s, o, path);
    H5Oclose(o);
    free(path);
    return s->st == JL_OK ? 0 : -1;
}

static jl_status describe_group(describe_state *s, hid_t grp, const char *path)
{
    char *saved = s->prefix;
    s->prefix = (char *)path;
    s->depth++;
    hsize_t idx = 0;
    herr_t r = H5Literate(grp, H5_INDEX_NAME, H5_ITER_INC, &idx, describe_cb, s);
    s->depth--;
    s->prefix = saved;
    if (s->st != JL_OK)
        return s->st;
    if (r < 0)
        return s->st = jl__h5_fail(s->c->err, JL_EIO, s->c->file, s->c->run, path, -1,
                                   "cannot list the group");
    return JL_OK;
}

jl_status jl_trace_describe_run(jl_trace *t, size_t i, jl_run_info *out, jl_error **err)
{
    memset(out, 0, sizeof *out);
    if (!t || i >= t->n_runs)
        return jl_fail(err, JL_EUSAGE, t ? t->path : NULL, NULL, NULL, -1,
                       "run index %zu out of range", i);
    rctx c = {t->path, t->runs[i], &t->lim, err, t->vstr, RUN_LINKS_UNKNOWN};
    jl_error *local = NULL;
    if (!err)
        c.err = &local;
    jl_status st = JL_OK;
    hid_t grp = -1;
    char *path = jl_asprintf("/runs/%s", t->runs[i]);
    if (!path || !(out->name = jl_strdup(t->runs[i]))) {
        st = jl_fail(c.err, JL_ENOMEM, c.file, c.run, NULL, -1, NULL);
        goto end;
    }
    if (t->row_of && t->row_of[i] != SIZE_MAX)
        goto end; /* a row of the summary table: no datasets */
    grp = H5Gopen2(t->file, path, H5P_DEFAULT);
    if (grp < 0) {
        st = jl__h5_fail(c.err, JL_EIO, c.file, c.run, path, -1, "cannot open");
        goto end;
    }
    describe_state s = {&c, out, 0, 0, JL_OK, NULL};
    st = describe_group(&s, grp, path);
end:
    if (st != JL_OK)
        jl_run_info_clear(out);
    jl_error_free(local);
    free(path);
    CLOSE(grp, H5Gclose);
    return st;
}

void jl_run_info_clear(jl_run_info *info)
{
    if (!info)
        return;
    for (size_t i = 0; i < info->n_datasets; i++) {
        free(info->datasets[i].path);
        free(info->datasets[i].type);
        free(info->datasets[i].filters);
    }
    free(info->datasets);
    free(info->name);
    memset(info, 0, sizeof *info);
}
