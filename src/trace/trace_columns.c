/* The reader's columns: a run's groups and their datasets, read by one
 * loop over a table of columns (what each must be, where it goes), each
 * column's value checks and the rules across a group's columns, and
 * jl_trace_read_run (trace_internal.h; docs/trace-reading.md). */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/trace.h"
#include "trace/trace_internal.h"

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

/* The links of a group, listed once (H5Literate) before its columns are
 * opened: a look-up by name costs HDF5 a traversal of the group for each
 * column (~7,500 instructions), the listing about one. n < 0: not listed
 * (more than LINKS_MAX links, a long name, or the listing failed): each
 * column is looked up by name as before. */
#define LINKS_MAX 32
typedef struct {
    int n;
    char name[LINKS_MAX][32];
    unsigned char hard[LINKS_MAX];
} link_list;

static herr_t list_link(hid_t grp, const char *name, const H5L_info_t *info, void *data)
{
    (void)grp;
    link_list *l = data;
    size_t len = strlen(name);
    if (l->n >= LINKS_MAX || len >= sizeof l->name[0]) {
        l->n = -1;
        return 1;
    }
    memcpy(l->name[l->n], name, len + 1);
    l->hard[l->n] = info->type == H5L_TYPE_HARD;
    l->n++;
    return 0;
}

static void list_links(hid_t grp, link_list *l)
{
    l->n = 0;
    hsize_t idx = 0;
    if (H5Literate(grp, H5_INDEX_NAME, H5_ITER_INC, &idx, list_link, l) != 0) {
        H5Eclear2(H5E_DEFAULT);
        l->n = -1;
    }
}

/* jl__open_child through the list ll of grp's links (NULL or not listed:
 * looked up by name). */
static jl_status open_listed(rctx *c, const link_list *ll, hid_t grp, const char *obj,
                             const char *name, H5I_type_t want, hid_t *id)
{
    *id = -1;
    if (!ll || ll->n < 0)
        return jl__open_child(c, grp, obj, name, want, id);
    for (int k = 0; k < ll->n; k++)
        if (!strcmp(ll->name[k], name))
            return ll->hard[k] ? jl__open_present(c, grp, obj, name, want, id)
                               : jl__not_hard(c, obj);
    return JL_OK; /* absent */
}

/* One run being read: where it is, the run, its G, and what its dataset
 * reads share. */
typedef struct {
    rctx *c;
    hid_t run_grp;
    const char *run_path;
    jl_run *run;
    size_t g;
    hid_t dxpl;              /* transfer properties of every read, lending tconv */
    void *tconv;             /* type-conversion buffer lent to HDF5 */
    size_t tconv_cap;        /* its size (<= TCONV_MAX_BYTES) */
    int summary_fields_only; /* skip the columns marked summary_unused */
    int stream_itl; /* > 0: itl/ of at least this many samples goes to the run's stream (column_stream.c) */
    int kept;                   /* the last read_ds kept its dataset in the stream */
    long long links_found;      /* groups of the run found so far (open_group) */
    const link_list *links;     /* of the group being read, or NULL */
    const link_list *run_links; /* of the run group, or NULL */
    /* host/: the width of [T, S] columns is set by the first one read (g
     * 0 until then); axis_from names that column, for messages */
    const char *axis_from;
} run_reader;

typedef struct group_reader group_reader;

/* A rule on the values of one column: v holds n rows x cols values of the
 * column's target type; obj is its object path. */
typedef jl_status (*col_check)(group_reader *gr, const char *obj, const void *v, size_t n,
                               size_t cols);

/* One dataset of a group: what it must be and where it goes. */
typedef struct {
    const char *name; /* dataset name in its group */
    int rank;         /* 1: [n] into a pointer of jl_run; 2: [n, G] into a jl_series */
    target_t target;
    int required;
    size_t off;         /* offsetof(jl_run, that pointer or jl_series) */
    col_check check;    /* its own value rule, or NULL */
    int check_at_once;  /* checked as soon as read, before the next column is (times) */
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

/* Decoded bytes of one chunk of a dataset whose storage st (of creation
 * properties dcpl) jl__check_storage read, with a file type of fsize bytes
 * (0 when not chunked); refuses chunks larger than the dataset limit and
 * filters HDF5 cannot decode. */
static jl_status chunk_bytes(rctx *c, hid_t dcpl, const jl__storage *st, size_t fsize,
                             const char *obj, size_t *out)
{
    rctx at = rctx_at(c, obj);
    *out = 0;
    if (st->layout == H5D_CHUNKED) {
        if (st->crank <= 0)
            return jl__rctx_h5_fail(&at, JL_EIO, "cannot read the chunk shape");
        uint64_t bytes = fsize;
        for (int i = 0; i < st->crank; i++) {
            if (st->chunk[i] && bytes > UINT64_MAX / st->chunk[i]) {
                bytes = UINT64_MAX;
                break;
            }
            bytes *= st->chunk[i];
        }
        if (bytes > c->lim->max_dataset_bytes || !fits_size(bytes))
            return jl__rctx_fail(&at, JL_ELIMIT,
                                 "chunks of %llu bytes, more than the limit of %llu bytes",
                                 (unsigned long long)bytes,
                                 (unsigned long long)c->lim->max_dataset_bytes);
        *out = (size_t)bytes;
    }
    if (st->nf < 0)
        return jl__rctx_h5_fail(&at, JL_EIO, "cannot read the filter pipeline");
    for (int i = 0; i < st->nf; i++) {
        H5Z_filter_t id = i < 8 ? st->filter[i] : -1;
        unsigned flags = 0;
        size_t ncd = 0;
        char fname[64] = "";
        if (id < 0 && (id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, NULL, sizeof fname,
                                           fname, NULL)) < 0)
            return jl__rctx_h5_fail(&at, JL_EIO, "cannot read the filter pipeline");
        htri_t avail = H5Zfilter_avail(id);
        if (avail <= 0) {
            H5Eclear2(H5E_DEFAULT);
            if (H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, NULL, sizeof fname, fname, NULL) <
                0)
                fname[0] = '\0';
            H5Eclear2(H5E_DEFAULT);
            fname[sizeof fname - 1] = '\0';
            return jl__rctx_fail(&at, JL_EFORMAT,
                                 "compressed with HDF5 filter %d%s%s%s, which joules cannot decode",
                                 (int)id, *fname ? " (" : "", fname, *fname ? ")" : "");
        }
    }
    return JL_OK;
}

/* The memory type a dataset of integer or float file type ftype (of sz
 * bytes) is read as.
 * int32 targets are read as int32 when every value of ftype fits, else as
 * int64 and narrowed after a range check (*narrow = 1). */
static hid_t mem_type(target_t t, hid_t ftype, size_t sz, int *narrow)
{
    *narrow = 0;
    switch (t) {
    case T_F64: return H5T_NATIVE_DOUBLE;
    case T_F32: return H5T_NATIVE_FLOAT;
    case T_I64: return H5T_NATIVE_INT64;
    case T_I32: break;
    }
    if (sz < 4 || (sz == 4 && H5Tget_sign(ftype) == H5T_SGN_2))
        return H5T_NATIVE_INT32;
    *narrow = 1;
    return H5T_NATIVE_INT64;
}

/* Before a read of nv values from ftype into mtype: if HDF5 must convert,
 * lend it the run's buffer, grown to the data up to TCONV_MAX_BYTES (HDF5
 * 1.10 would calloc 1 MiB for every converting read). */
static jl_status lend_tconv(run_reader *rr, const char *obj, hid_t ftype, hid_t mtype, size_t nv)
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
    rctx at = rctx_at(rr->c, obj);
    if (!b)
        return jl__rctx_fail(&at, JL_ENOMEM, NULL);
    rr->tconv = b;
    rr->tconv_cap = want;
    if (H5Pset_buffer(rr->dxpl, want, b, NULL) < 0)
        return jl__rctx_h5_fail(&at, JL_EINTERNAL, "cannot set up the type conversion buffer");
    return JL_OK;
}

/* Read dataset cs->name of grp (object path obj). Rank 2 datasets must have
 * G columns; if expect_n != SIZE_MAX the row count must equal it (n_from
 * names where that count comes from). On success *out is the data (NULL
 * when absent and not required) and *n the row count. */
/* read_ds, phase 1: the file type can be read as the column's target. */
static jl_status check_type(const rctx *at, const col_spec *cs, hid_t ftype, size_t *fsize)
{
    H5T_class_t cls = H5Tget_class(ftype);
    int want_int = cs->target == T_I32 || cs->target == T_I64;
    if (want_int ? cls != H5T_INTEGER : (cls != H5T_INTEGER && cls != H5T_FLOAT)) {
        char tname[32];
        jl__type_name(ftype, tname, sizeof tname);
        return jl__rctx_fail(at, JL_ETYPE, "has type %s, expected %s", tname,
                             want_int ? "integers" : "numbers");
    }
    *fsize = H5Tget_size(ftype);
    if (*fsize > 16)
        return jl__rctx_fail(at, JL_ETYPE, "has a %zu-byte %s type, which joules does not read",
                             *fsize, jl__class_name(cls));
    return JL_OK;
}

/* read_ds, phase 2: the shape ([N] or [N, G]) and its sizes before any
 * allocation (rows, then rows x G x 8 bytes, then the length the column
 * must have): dims, and the number of values in *vals. */
static jl_status check_shape(run_reader *rr, const rctx *at, const col_spec *cs, hid_t space,
                             size_t expect_n, const char *n_from, hsize_t dims[2], uint64_t *vals)
{
    const rctx *c = rr->c;
    size_t g = cs->rank == 2 ? rr->g : 1;
    const char *shape = cs->rank == 1 ? "[N]" : rr->axis_from || rr->g == 0 ? "[T, S]" : "[N, G]";
    /* one call for a simple space's rank and sizes; the class and rank
     * asked apart only when it gives none (a scalar, null or bad space) */
    hsize_t d[H5S_MAX_RANK];
    int rank = H5Sget_simple_extent_dims(space, d, NULL), got = rank > 0;
    if (!got) {
        H5S_class_t sc = H5Sget_simple_extent_type(space);
        rank = H5Sget_simple_extent_ndims(space);
        if (sc != H5S_SIMPLE || rank < 0)
            return jl__rctx_fail(at, JL_ETYPE, "is %s, expected shape %s",
                                 sc == H5S_SCALAR ? "a scalar"
                                 : sc == H5S_NULL ? "empty (null dataspace)"
                                                  : "of unknown shape",
                                 shape);
    }
    if (rank != cs->rank)
        return jl__rctx_fail(at, JL_ETYPE, "has rank %d, expected %d (shape %s)", rank, cs->rank,
                             shape);
    if (!got)
        return jl__rctx_h5_fail(at, JL_EIO, "cannot read the shape");
    dims[0] = d[0];
    if (rank == 2)
        dims[1] = d[1];
    if (rank == 2 && g == 0) { /* host/: the first [T, S] column sets S */
        if (dims[1] < 1 || dims[1] > c->lim->max_gpus)
            return jl__rctx_fail(at, JL_ETYPE,
                                 "has shape [%llu, %llu], expected [T, S] with 1 <= S <= %llu "
                                 "(one column per socket)",
                                 (unsigned long long)dims[0], (unsigned long long)dims[1],
                                 (unsigned long long)c->lim->max_gpus);
        g = rr->g = (size_t)dims[1];
        rr->axis_from = cs->name;
    } else if (rank == 2 && rr->axis_from && dims[1] != g)
        return jl__rctx_fail(at, JL_ETYPE,
                             "has shape [%llu, %llu], expected [T, %zu] (the sockets of "
                             "host/%s)",
                             (unsigned long long)dims[0], (unsigned long long)dims[1], g,
                             rr->axis_from);
    if (rank == 2 && dims[1] != g)
        return jl__rctx_fail(at, JL_ETYPE, "has shape [%llu, %llu], expected [N, %zu] (%s = %zu)",
                             (unsigned long long)dims[0], (unsigned long long)dims[1], g,
                             g == (size_t)rr->run->attrs.num_gpus ? "num_gpus"
                                                                  : "@power_scope node_ac: columns",
                             g);
    if (dims[0] > c->lim->max_rows)
        return jl__rctx_fail(at, JL_ELIMIT, "declares %llu rows, more than the limit of %llu rows",
                             (unsigned long long)dims[0], (unsigned long long)c->lim->max_rows);
    int ovf = dims[1] && dims[0] > UINT64_MAX / dims[1];
    *vals = ovf ? UINT64_MAX : dims[0] * dims[1];
    ovf = ovf || *vals > UINT64_MAX / 8;
    uint64_t bytes = ovf ? UINT64_MAX : *vals * 8;
    if (ovf || bytes > c->lim->max_dataset_bytes || !fits_size(bytes))
        return jl__rctx_fail(
            at, JL_ELIMIT,
            "declares %llu x %llu values (%llu bytes decoded), more than the limit of %llu bytes",
            (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)bytes,
            (unsigned long long)c->lim->max_dataset_bytes);
    if (expect_n != SIZE_MAX && dims[0] != expect_n)
        return jl__rctx_fail(at, JL_EINVALID, "has %llu rows, expected %zu (the length of %s)",
                             (unsigned long long)dims[0], expect_n, n_from);
    return JL_OK;
}

/* read_ds, phase 3: the nv values (nv > 0) into buf as the column's
 * target, decoded by the chunk path or HDF5's; int64 read into int32 is
 * read wide and narrowed, each value checked. */
static jl_status read_values(run_reader *rr, const rctx *at, const char *obj, const col_spec *cs,
                             hid_t dset, hid_t dcpl, hid_t ftype, size_t fsize,
                             const hsize_t dims[2], size_t cbytes, size_t nv, void *buf)
{
    int narrow;
    hid_t mt = mem_type(cs->target, ftype, fsize, &narrow);
    int64_t *tmp = NULL;
    void *dst = buf;
    jl_status st = JL_OK;
    if (narrow) {
        tmp = jl__malloc_array(nv, sizeof *tmp);
        if (!tmp)
            return jl__rctx_fail(at, JL_ENOMEM, "out of memory for %zu values", nv);
        dst = tmp;
    }
    size_t missing = 0;
    int direct =
        jl__read_chunks_direct(dset, dcpl, ftype, mt, dims, cs->rank, cbytes, dst, &missing);
    if (direct < 0) {
        st = jl__rctx_fail_row(at, JL_EFORMAT, (long long)missing,
                               "its chunk from row %zu is not stored: the data was never written "
                               "there, and those rows would read as fill values",
                               missing);
        goto end;
    }
    if (!direct && (st = lend_tconv(rr, obj, ftype, mt, nv)) != JL_OK)
        goto end;
    jl__zstd_set_chunk_bytes(cbytes);
    if (!direct && H5Dread(dset, mt, H5S_ALL, H5S_ALL, rr->dxpl, dst) < 0) {
        st = jl__read_failed(at);
        goto end;
    }
    jl__zstd_set_chunk_bytes(0);
    if (narrow) {
        int32_t *o = buf;
        for (size_t i = 0; i < nv; i++) {
            if (tmp[i] < INT32_MIN || tmp[i] > INT32_MAX) {
                st = jl__rctx_fail_row(at, JL_EINVALID, (long long)(i / dims[1]),
                                       "value %lld at row %zu does not fit in int32",
                                       (long long)tmp[i], (size_t)(i / dims[1]));
                goto end;
            }
            o[i] = (int32_t)tmp[i];
        }
    }
end:
    free(tmp);
    return st;
}

/* One column: open, type, shape and sizes (phases 1 and 2), the storage's
 * chunking, then either the itl/ stream keeps the dataset or the values are
 * read (phase 3). */
static jl_status read_ds(run_reader *rr, hid_t grp, const char *obj, const col_spec *cs,
                         size_t expect_n, const char *n_from, void **out, size_t *n)
{
    rctx *c = rr->c;
    rctx at = rctx_at(c, obj);
    jl_status st = JL_OK;
    hid_t dset = -1, ftype = -1, space = -1, dcpl = -1;
    void *buf = NULL;
    *out = NULL;
    *n = 0;
    if ((st = open_listed(c, rr->links, grp, obj, cs->name, H5I_DATASET, &dset)) != JL_OK)
        goto end;
    if (dset < 0) {
        if (cs->required)
            st = jl__rctx_fail(&at, JL_EMISSING, "required dataset is missing");
        goto end;
    }
    ftype = H5Dget_type(dset);
    space = H5Dget_space(dset);
    if (ftype < 0 || space < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot read the type or shape");
        goto end;
    }
    hsize_t dims[2] = {0, 1};
    uint64_t vals = 0;
    size_t fsize = 0;
    if ((st = check_type(&at, cs, ftype, &fsize)) != JL_OK ||
        (st = check_shape(rr, &at, cs, space, expect_n, n_from, dims, &vals)) != JL_OK)
        goto end;
    size_t cbytes;
    if ((dcpl = H5Dget_create_plist(dset)) < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot read the storage layout");
        goto end;
    }
    jl__storage stor;
    if ((st = jl__check_storage(&at, dset, dcpl, dims, cs->rank, fsize, &stor)) != JL_OK ||
        (st = chunk_bytes(c, dcpl, &stor, fsize, obj, &cbytes)) != JL_OK)
        goto end;
    if (rr->stream_itl > 0 && dims[0] >= (hsize_t)rr->stream_itl &&
        (cs->off == offsetof(jl_run, itl_seconds) || cs->off == offsetof(jl_run, itl_request))) {
        int kept = jl__itl_stream_keep(rr->run, cs->off == offsetof(jl_run, itl_request), obj, dset,
                                       dcpl, ftype, (size_t)dims[0], cbytes);
        if (kept < 0)
            st = jl__rctx_fail(&at, JL_ENOMEM, NULL);
        if (kept > 0) { /* checked; itl_rule and the summary stream it */
            dset = -1;
            rr->kept = 1;
            *n = (size_t)dims[0];
        }
        if (kept)
            goto end;
    }
    size_t nv = (size_t)vals;
    buf = jl__malloc_array(nv ? nv : 1, target_size(cs->target));
    if (!buf) {
        st = jl__rctx_fail(&at, JL_ENOMEM, "out of memory for %zu values", nv);
        goto end;
    }
    if (nv > 0 && (st = read_values(rr, &at, obj, cs, dset, dcpl, ftype, fsize, dims, cbytes, nv,
                                    buf)) != JL_OK)
        goto end;
    *out = buf;
    buf = NULL;
    *n = (size_t)dims[0];
end:
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
    rctx at = rctx_at(gr->rr->c, obj);
    va_list ap;
    va_start(ap, fmt);
    jl__rctx_vfail(&at, JL_EINVALID, (long long)i, NULL, fmt, ap);
    va_end(ap);
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
static jl_status check_time(group_reader *gr, const char *obj, const void *v, size_t n, size_t cols)
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
                snprintf(w, sizeof w, "row %zu, %s %zu", i / cols,
                         strcmp(gr->gs->name, "host") ? "GPU" : "socket", i % cols);
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

static void **col_data(jl_run *r, const col_spec *cs);

static int has_requests(const jl_run *r)
{
    return r->arrival || r->first_token || r->finish || r->input_tokens || r->output_tokens;
}

/* itl/: seconds finite and >= 0, request in 0..R-1 (R = rows of requests/
 * when present), in one pass over both columns: ~10^7 samples per long
 * run, where each separate pass cost about as much as decoding them
 * (docs/performance.md). A bad latency is reported before a bad index, as
 * when the columns were checked one after the other. In memory the pass is
 * jl__itl_scan; a streamed itl/ is checked by its first whole walk, the
 * summary's first pass (jl__itl_stream_defer, column_stream.c), with the
 * same messages. */
static jl_status itl_rule(group_reader *gr)
{
    jl_run *r = gr->rr->run;
    if (!r->itl_seconds && !r->itl_stream)
        return JL_OK;
    const uint32_t R = has_requests(r) ? (r->req_n > (size_t)INT32_MAX ? (uint32_t)INT32_MAX + 1
                                                                       : (uint32_t)r->req_n)
                                       : (uint32_t)INT32_MAX + 1;
    if (r->itl_stream) {
        jl__itl_stream_defer(r, R, has_requests(r), r->req_n);
        r->itl_checked = 1; /* its blocks are handed on checked */
        return JL_OK;
    }
    size_t bad_lat, bad_q;
    float lat;
    int32_t qv;
    jl__itl_scan(r, R, &bad_lat, &lat, &bad_q, &qv);
    jl_status st =
        jl__itl_fail(gr->rr->c->err, gr->rr->c->file, gr->rr->c->run, col_obj(gr, "seconds"),
                     col_obj(gr, "request"), has_requests(r), r->req_n, bad_lat, lat, bad_q, qv);
    r->itl_checked = st == JL_OK;
    return st;
}

/* power/ is required unless summary/ is there; watts or energy_j is. */
static jl_status power_rule(group_reader *gr)
{
    const jl_run *r = gr->rr->run;
    rctx at = rctx_at(gr->rr->c, gr->path);
    if (gr->grp < 0 && !r->summary.present)
        return jl__rctx_fail(
            &at, JL_EMISSING,
            "required group is missing (power/ is required unless summary/ is present)");
    if (gr->grp >= 0 && !r->watts.v && !r->energy_j.v)
        return jl__rctx_fail(&at, JL_EMISSING,
                             "has neither watts nor energy_j (at least one is required)");
    return gr->grp >= 0 ? jl__read_power_attrs(gr->rr->c, gr->grp, gr->path, gr->rr->run) : JL_OK;
}

/* host/ (format 1.2): at least one of its series; its attributes
 * (host_read.c: @source, @max_energy_range_j and the counters' range). */
static jl_status host_rule(group_reader *gr)
{
    jl_run *r = gr->rr->run;
    if (gr->grp < 0)
        return JL_OK;
    r->host_sockets = r->cpu_energy_j.v ? r->cpu_energy_j.g : r->dram_energy_j.g;
    if (!r->cpu_energy_j.v && !r->dram_energy_j.v && !r->node_watts) {
        rctx at = rctx_at(gr->rr->c, gr->path);
        return jl__rctx_fail(&at, JL_EMISSING,
                             "has none of cpu_energy_j, dram_energy_j, node_watts (at least one "
                             "is required)");
    }
    return jl__read_host_attrs(gr->rr->c, gr->grp, gr->path, r);
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

/* clang-format off */
#define COL(name, rank, target, required, field, check) \
    {name, rank, target, required, offsetof(jl_run, field), check, 0, 0}
/* an optional column the summary does not use (summary_fields_only) */
#define UNUSED_COL(name, rank, target, field, check) \
    {name, rank, target, 0, offsetof(jl_run, field), check, 0, 1}
#define TIME_COL(field) {"time", 1, T_F64, 1, offsetof(jl_run, field), check_time, 1, 0}
/* clang-format on */

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
/* The three times required when requests/ is there (without one, which
 * requests completed and when is unknown); the token counts optional;
 * those present have one length. */
static const col_spec request_cols[] = {
    COL("arrival", 1, T_F64, 1, arrival, check_request_time),
    COL("first_token", 1, T_F64, 1, first_token, check_request_time),
    COL("finish", 1, T_F64, 1, finish, check_request_time),
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
static const col_spec host_cols[] = {
    TIME_COL(host_time),
    COL("cpu_energy_j", 2, T_F64, 0, cpu_energy_j, check_energy),
    COL("dram_energy_j", 2, T_F64, 0, dram_energy_j, check_energy),
    COL("node_watts", 1, T_F64, 0, node_watts, check_power),
};
#undef COL
#undef UNUSED_COL
#undef TIME_COL

/* clang-format off */
#define GROUP(name, rows, cols, rule) \
    {name, offsetof(jl_run, rows), cols, sizeof cols / sizeof cols[0], rule}
/* clang-format on */
/* In reading order: itl/ after requests/, whose length it checks against. */
static const group_spec groups[] = {
    GROUP("power", power_n, power_cols, power_rule),
    GROUP("gpu", gpu_n, gpu_cols, NULL),
    GROUP("engine", engine_n, engine_cols, NULL),
    GROUP("requests", req_n, request_cols, NULL),
    GROUP("itl", itl_n, itl_cols, itl_rule),
    GROUP("batches", batch_n, batch_cols, batch_rule),
    GROUP("host", host_n, host_cols, host_rule),
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

/* 1 when every link of the run group is a group found already (the link
 * count known): any other group is absent, with no look-up (a failed
 * look-up costs HDF5 an error stack and a second look-up; a study run
 * misses summary/, batches/ and host/). */
static int all_links_found(const run_reader *rr)
{
    return rr->c->run_links != RUN_LINKS_UNKNOWN && rr->links_found >= rr->c->run_links;
}

/* Open group `name` of the run; *grp = -1 when absent. *path = its path,
 * NULL for a group known absent beside summary/ (no message can name it:
 * a group may be missing only when summary/ is there). */
static jl_status open_group(run_reader *rr, const char *name, hid_t *grp, char **path)
{
    *path = NULL;
    *grp = -1;
    int known_absent =
        (strcmp(name, "summary") && no_groups_beside_summary(rr)) || all_links_found(rr);
    if (known_absent && rr->run->summary.present)
        return JL_OK;
    *path = jl__asprintf("%s/%s", rr->run_path, name);
    rctx at = rctx_at(rr->c, rr->run_path);
    if (!*path)
        return jl__rctx_fail(&at, JL_ENOMEM, NULL);
    if (known_absent)
        return JL_OK;
    jl_status st = open_listed(rr->c, rr->run_links, rr->run_grp, *path, name, H5I_GROUP, grp);
    rr->links_found += *grp >= 0;
    return st;
}

/* Read group gs of the run: every column (times checked at once), the
 * group's rule, then every column's own check, in table order. */
static jl_status read_group(run_reader *rr, const group_spec *gs)
{
    jl_run *r = rr->run;
    rctx at = rctx_at(rr->c, rr->run_path), at_group = at;
    group_reader gr = {rr, gs, -1, NULL, calloc(gs->n_cols, sizeof(char *))};
    char **objs = gr.objs;
    /* @power_scope node_ac: power/ has one column whatever num_gpus says */
    const size_t g_run = rr->g;
    if (!strcmp(gs->name, "power") && jl_attrs_is_node_ac(&r->attrs))
        rr->g = 1;
    if (!strcmp(gs->name, "host")) /* [T, S]: S from the first such column */
        rr->g = 0;
    size_t rows = SIZE_MAX; /* of the first column present */
    char *from = NULL;      /* "<group>/<that column>", for length messages */
    jl_status st =
        objs ? open_group(rr, gs->name, &gr.grp, &gr.path) : jl__rctx_fail(&at, JL_ENOMEM, NULL);
    if (st != JL_OK)
        goto end;
    at_group.obj = gr.path;
    link_list links;
    if (gr.grp >= 0) {
        list_links(gr.grp, &links);
        rr->links = &links;
    }
    for (size_t k = 0; gr.grp >= 0 && k < gs->n_cols; k++) {
        const col_spec *cs = &gs->cols[k];
        void **dst = col_data(r, cs);
        size_t n = 0;
        if (cs->summary_unused && rr->summary_fields_only)
            continue; /* stays NULL, as if absent */
        if (!(objs[k] = jl__asprintf("%s/%s", gr.path, cs->name))) {
            st = jl__rctx_fail(&at_group, JL_ENOMEM, NULL);
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
            if (!(from = jl__asprintf("%s/%s", gs->name, cs->name))) {
                st = jl__rctx_fail(&at_group, JL_ENOMEM, NULL);
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
    rr->links = NULL;
    rr->g = g_run;
    rr->axis_from = NULL;
    return st;
}

static jl_status read_summary_group(run_reader *rr)
{
    hid_t grp = -1;
    char *path = NULL;
    jl_status st = open_group(rr, "summary", &grp, &path);
    if (st == JL_OK && grp >= 0)
        st = jl__read_summary(rr->c, grp, path, &rr->run->summary);
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
    free(r->cpu_max_energy_range_j);
    free(r->dram_max_energy_range_j);
    free(r->host_source);
    free(r->power_watts_kind);
    jl__itl_stream_drop(r);
    free(r);
}

jl_run *jl_run_new(void)
{
    jl_run *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    jl_attrs_init(&r->attrs);
    jl__summary_init(&r->summary);
    return r;
}

jl_status jl_trace_read_run(jl_trace *t, size_t i, jl_run **out, jl_error **err)
{
    *out = NULL;
    rctx c;
    jl_error *local = NULL;
    jl_status st = jl__run_ctx(t, i, err, &local, &c);
    if (st != JL_OK)
        return st;
    run_reader rr = {&c, -1, NULL, NULL, 0,   -1, NULL, 0, t->summary_fields_only, t->stream_itl,
                     0,  0,  NULL, NULL, NULL};
    char *run_path = jl__asprintf("/runs/%s", t->runs[i]);
    jl_run *r = jl_run_new();
    rr.run_path = run_path;
    rr.run = r;
    if (!run_path || !r) {
        st = jl__rctx_fail(&c, JL_ENOMEM, NULL);
        goto end;
    }
    if (!(r->file = jl__strdup(t->path)) || !(r->name = jl__strdup(t->runs[i]))) {
        st = jl__rctx_fail(&c, JL_ENOMEM, NULL);
        goto end;
    }
    if (t->row_of && t->row_of[i] != SIZE_MAX) {
        if ((st = jl__read_table_run(t->table, t->row_of[i], &c, r)) != JL_OK)
            goto end;
        *out = r;
        r = NULL;
        goto end;
    }
    rctx at = rctx_at(&c, run_path);
    rr.run_grp = H5Gopen2(t->runs_grp, t->runs[i], H5P_DEFAULT);
    if (rr.run_grp < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot open");
        goto end;
    }
    if ((st = jl__read_run_attrs(&c, rr.run_grp, run_path, &r->attrs)) != JL_OK)
        goto end;
    H5G_info_t gi;
    if (H5Gget_info(rr.run_grp, &gi) < 0)
        H5Eclear2(H5E_DEFAULT); /* look every group up, as without the count */
    else
        c.run_links = (long long)gi.nlinks;
    link_list run_list;
    if (c.run_links != 0) { /* the groups found without a look-up each */
        list_links(rr.run_grp, &run_list);
        rr.run_links = &run_list;
    }
    rr.g = (size_t)r->attrs.num_gpus;
    /* summary/ first: power/ is required only without it. */
    if ((st = read_summary_group(&rr)) != JL_OK)
        goto end;
    /* a run with summary/ alone reads no dataset: no transfer list */
    if (!no_groups_beside_summary(&rr) && (rr.dxpl = H5Pcreate(H5P_DATASET_XFER)) < 0) {
        st = jl__rctx_h5_fail(&at, JL_EINTERNAL, "cannot set up the data transfer");
        goto end;
    }
    for (size_t k = 0; k < N_GROUPS; k++)
        if ((st = read_group(&rr, &groups[k])) != JL_OK) {
            /* a group after a streamed itl/ failed: a bad itl/ is reported
             * first, as when the reader checked it before going on */
            if (jl__itl_stream_pending(r)) {
                jl_error *ie = NULL;
                jl_status ist = jl_run_itl_check(r, &ie);
                if (ist != JL_OK && ist != JL_ENOMEM && c.err && ie) {
                    jl_error_free(*c.err);
                    *c.err = ie;
                    ie = NULL;
                    st = ist;
                }
                jl_error_free(ie);
            }
            goto end;
        }
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
