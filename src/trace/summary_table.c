/* The summary table: summary-only runs of one file as columns
 * (docs/trace-format.md "summary_table/", docs/trace-reading.md).
 *
 *   /summary_table            @version = 1
 *     run                     [N] string: the run names
 *     attrs/<name>            [N] int64 | float64 | string: run attribute <name>
 *     attrs_absent/<name>     [N] uint8, 1 where the run has no <name>
 *                             (only for columns some run lacks)
 *     summary/<name>          [N]: attribute <name> of the run's summary/
 *     summary_absent/<name>   [N] uint8
 *
 * One HDF5 object per column instead of one per attribute per run: reading
 * the 1,858 runs of the ML.ENERGY import costs ~50 dataset reads instead of
 * ~47,000 attribute reads (docs/performance.md). The reader hands each cell
 * to the same attribute rules as a run group's attribute (trace_read.c), so
 * a run reads the same from a row as from a group. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/util.h"
#include "trace/trace_internal.h"

static const char *const set_name[JL__TSET_N] = {"attrs", "summary"};
static const char *const set_path[JL__TSET_N] = {"/" JL__TABLE_NAME "/attrs",
                                                 "/" JL__TABLE_NAME "/summary"};

const char *jl__table_set_path(int set)
{
    return set_path[set];
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */

typedef struct {
    char *name;
    jl__cell_kind kind;
    void *data;   /* long long[n], unsigned long long[n], double[n] or char[n * width] */
    size_t width; /* strings: bytes per row */
    size_t rows;
    unsigned char *absent; /* NULL: present in every row */
    int borrowed;          /* data lies in the mapped file: not freed */
    size_t field;          /* jl__table_col_field */
} tcol;

struct jl__table {
    size_t n;
    char *runs_buf; /* n * runs_width bytes, each name NUL-terminated */
    size_t runs_width;
    tcol *cols[JL__TSET_N];
    size_t n_cols[JL__TSET_N];
};

typedef struct {
    const char *file;
    const jl_trace_limits *lim;
    jl_error **err;
    size_t n;   /* rows, once known */
    hid_t dxpl; /* lends HDF5 a conversion buffer of n x 8 bytes: its own
                 * is 1 MiB, calloc'd for every read that converts */
    void *tconv;
    const unsigned char *map; /* the file mapped, or NULL (jl__table_open) */
    size_t map_len;
    uint64_t file_bytes; /* for jl__check_storage */
    int allow_external;
} tctx;

/* The reader's context (trace_internal.h) at object obj of the table. */
static rctx table_at(const tctx *c, const char *obj)
{
    rctx a = {c->file,           NULL, c->lim, c->err,        NULL,
              RUN_LINKS_UNKNOWN, obj,  NULL,   c->file_bytes, c->allow_external};
    return a;
}

static void col_clear(tcol *c)
{
    free(c->name);
    if (!c->borrowed)
        free(c->data);
    free(c->absent);
}

void jl__table_free(jl__table *t)
{
    if (!t)
        return;
    for (int s = 0; s < JL__TSET_N; s++) {
        for (size_t k = 0; k < t->n_cols[s]; k++)
            col_clear(&t->cols[s][k]);
        free(t->cols[s]);
    }
    free(t->runs_buf);
    free(t);
}

size_t jl__table_rows(const jl__table *t)
{
    return t ? t->n : 0;
}

const char *jl__table_run(const jl__table *t, size_t row)
{
    return t->runs_buf + row * t->runs_width;
}

size_t jl__table_cols(const jl__table *t, int set)
{
    return t->n_cols[set];
}

const char *jl__table_col_name(const jl__table *t, int set, size_t k)
{
    return t->cols[set][k].name;
}

size_t jl__table_col_field(const jl__table *t, int set, size_t k)
{
    return t->cols[set][k].field;
}

void jl__table_cell(const jl__table *t, int set, size_t k, size_t row, jl__cell *out)
{
    const tcol *c = &t->cols[set][k];
    memset(out, 0, sizeof *out);
    if (c->absent && c->absent[row])
        return; /* JL__CELL_ABSENT */
    out->kind = c->kind;
    switch (c->kind) {
    case JL__CELL_INT:
        memcpy(&out->i, (const char *)c->data + row * 8, 8); /* in place: maybe unaligned */
        out->d = (double)out->i;
        break;
    case JL__CELL_UINT:
        memcpy(&out->u, (const char *)c->data + row * 8, 8);
        out->d = (double)out->u;
        break;
    case JL__CELL_FLOAT: memcpy(&out->d, (const char *)c->data + row * 8, 8); break;
    case JL__CELL_STR: {
        const char *s = (const char *)c->data + row * c->width;
        const char *end = memchr(s, '\0', c->width);
        out->s = s;
        out->len = end ? (size_t)(end - s) : c->width;
        break;
    }
    default: break;
    }
}

/* A rank-1 dataset of exactly c->n rows (any n when c->n is SIZE_MAX). */
static jl_status open_column(tctx *c, hid_t grp, const char *name, const char *obj, hid_t *dset,
                             hid_t *ftype, size_t *rows)
{
    rctx at = table_at(c, obj);
    *dset = H5Dopen2(grp, name, H5P_DEFAULT);
    if (*dset < 0)
        return jl__rctx_h5_fail(&at, JL_EIO, "cannot open");
    *ftype = H5Dget_type(*dset);
    hid_t space = H5Dget_space(*dset);
    hsize_t dims[2] = {0, 0};
    int rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    if (rank == 1)
        H5Sget_simple_extent_dims(space, dims, NULL);
    CLOSE(space, H5Sclose);
    if (*ftype < 0 || rank < 0)
        return jl__rctx_h5_fail(&at, JL_EIO, "cannot read the type or shape");
    if (rank != 1)
        return jl__rctx_fail(&at, JL_ETYPE, "has rank %d, expected 1 (one value per run)", rank);
    if (c->n == SIZE_MAX) {
        if (dims[0] > c->lim->max_runs)
            return jl__rctx_fail(&at, JL_ELIMIT, "more than the limit of %llu runs",
                                 (unsigned long long)c->lim->max_runs);
    } else if (dims[0] != c->n) {
        return jl__rctx_fail(&at, JL_EINVALID, "has %llu rows, expected %zu (the length of %s/run)",
                             (unsigned long long)dims[0], c->n, JL__TABLE_NAME);
    }
    *rows = (size_t)dims[0];
    return JL_OK;
}

/* A column whose bytes in the file are those a read would give (stored
 * contiguously, in the memory type, no conversion) is used where it lies
 * when the file is mapped, instead of copied out: HDF5 would read exactly
 * bytes [offset, offset + bytes) of the file. 1 when *data points there;
 * 0 to read it as usual (not mapped, another layout, out of the file).
 * Its numbers may be unaligned: jl__table_cell reads them with memcpy. */
static int borrow(tctx *c, hid_t dset, size_t bytes, void **data)
{
    if (!c->map || bytes == 0)
        return 0;
    int ok = 0;
    hid_t dcpl = H5Dget_create_plist(dset);
    if (dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CONTIGUOUS && H5Pget_external_count(dcpl) == 0 &&
        H5Dget_storage_size(dset) == (hsize_t)bytes) {
        haddr_t off = H5Dget_offset(dset);
        if (off != HADDR_UNDEF && off <= c->map_len && bytes <= c->map_len - (size_t)off) {
            *data = (void *)(c->map + off);
            ok = 1;
        }
    }
    CLOSE(dcpl, H5Pclose);
    H5Eclear2(H5E_DEFAULT);
    return ok;
}

/* The column's storage checked before it is read (jl__check_storage). */
static jl_status storage(const tctx *c, hid_t dset, hid_t ftype, const char *obj, size_t rows)
{
    rctx at = table_at(c, obj);
    hsize_t dims[1] = {rows};
    hid_t dcpl = H5Dget_create_plist(dset);
    jl_status st = dcpl < 0 ? jl__rctx_h5_fail(&at, JL_EIO, "cannot read the storage layout")
                            : jl__check_storage(&at, dset, dcpl, dims, 1, H5Tget_size(ftype), NULL);
    CLOSE(dcpl, H5Pclose);
    return st;
}

/* Strings of a column into n rows of *width bytes (fixed-length strings as
 * stored; variable-length ones copied into rows as wide as the longest). */
static jl_status read_strings(tctx *c, hid_t dset, hid_t ftype, const char *obj, size_t n,
                              char **out, size_t *width, int *borrowed)
{
    rctx at = table_at(c, obj);
    *out = NULL;
    *width = 0;
    htri_t isvar = H5Tis_variable_str(ftype);
    if (isvar < 0)
        return jl__rctx_h5_fail(&at, JL_EIO, "cannot read the string type");
    size_t total;
    if (!isvar) {
        size_t w = H5Tget_size(ftype);
        if (w == 0 || !jl__mul_size(w, n ? n : 1, &total) || total > c->lim->max_dataset_bytes)
            return jl__rctx_fail(
                &at, JL_ELIMIT,
                "strings of %zu bytes x %zu rows, more than the limit of %llu bytes", w, n,
                (unsigned long long)c->lim->max_dataset_bytes);
        H5T_str_t pad = H5Tget_strpad(ftype);
        if (pad != H5T_STR_SPACEPAD && borrow(c, dset, n * w, (void **)out)) {
            *width = w;
            *borrowed = 1;
            return JL_OK;
        }
        char *buf = malloc(total);
        if (!buf)
            return jl__rctx_fail(&at, JL_ENOMEM, NULL);
        if (n && H5Dread(dset, ftype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
            free(buf);
            return jl__rctx_h5_fail(&at, JL_EIO, "cannot read the data");
        }
        if (pad == H5T_STR_SPACEPAD) /* as attributes: trailing blanks go */
            for (size_t r = 0; r < n; r++)
                for (size_t k = w; k > 0 && (buf[r * w + k - 1] == ' ' || !buf[r * w + k - 1]); k--)
                    buf[r * w + k - 1] = '\0';
        *out = buf;
        *width = w;
        return JL_OK;
    }
    jl_status st = JL_OK;
    hid_t mem = H5Tcopy(H5T_C_S1);
    char **v = jl__calloc_array(n ? n : 1, sizeof *v);
    if (mem < 0 || H5Tset_size(mem, H5T_VARIABLE) < 0 || H5Tset_cset(mem, H5Tget_cset(ftype)) < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot build a string type");
        goto end;
    }
    if (!v) {
        st = jl__rctx_fail(&at, JL_ENOMEM, NULL);
        goto end;
    }
    if (n && H5Dread(dset, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot read the data");
        memset(v, 0, n * sizeof *v);
        goto end;
    }
    size_t w = 1;
    for (size_t r = 0; r < n; r++)
        if (v[r] && strlen(v[r]) + 1 > w)
            w = strlen(v[r]) + 1;
    if (!jl__mul_size(w, n ? n : 1, &total) || total > c->lim->max_dataset_bytes) {
        st = jl__rctx_fail(&at, JL_ELIMIT,
                           "strings of %zu bytes x %zu rows, more than the limit of %llu bytes", w,
                           n, (unsigned long long)c->lim->max_dataset_bytes);
        goto end;
    }
    if (!(*out = calloc(total, 1))) {
        st = jl__rctx_fail(&at, JL_ENOMEM, NULL);
        goto end;
    }
    for (size_t r = 0; r < n; r++)
        if (v[r])
            memcpy(*out + r * w, v[r], strlen(v[r]));
    *width = w;
end:
    if (v && n) {
        hid_t space = H5Dget_space(dset);
        if (space >= 0 && mem >= 0)
            H5Dvlen_reclaim(mem, space, H5P_DEFAULT, v);
        CLOSE(space, H5Sclose);
    }
    free(v);
    CLOSE(mem, H5Tclose);
    return st;
}

/* Read one column (a dataset of grp) whole. */
static jl_status read_column(tctx *c, hid_t grp, const char *gpath, const char *name, tcol *col)
{
    jl_status st = JL_OK;
    hid_t dset = -1, ftype = -1;
    size_t rows = 0;
    char *obj = jl__asprintf("%s/%s", gpath, name);
    rctx at = table_at(c, obj), at_g = table_at(c, gpath);
    memset(col, 0, sizeof *col);
    if (!obj || !(col->name = jl__strdup(name))) {
        st = jl__rctx_fail(&at_g, JL_ENOMEM, NULL);
        goto end;
    }
    if ((st = open_column(c, grp, name, obj, &dset, &ftype, &rows)) != JL_OK)
        goto end;
    col->rows = rows;
    H5T_class_t cls = H5Tget_class(ftype);
    if ((cls == H5T_STRING || cls == H5T_INTEGER || cls == H5T_FLOAT) &&
        (st = storage(c, dset, ftype, obj, rows)) != JL_OK)
        goto end;
    if (cls == H5T_STRING) {
        col->kind = JL__CELL_STR;
        st = read_strings(c, dset, ftype, obj, rows, (char **)&col->data, &col->width,
                          &col->borrowed);
        goto end;
    }
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
        st = jl__rctx_fail(&at, JL_ETYPE, "has a type of class %d, expected numbers or strings",
                           (int)cls);
        goto end;
    }
    int is_uint = cls == H5T_INTEGER && H5Tget_sign(ftype) == H5T_SGN_NONE;
    col->kind = cls == H5T_FLOAT ? JL__CELL_FLOAT : is_uint ? JL__CELL_UINT : JL__CELL_INT;
    hid_t mt = cls == H5T_FLOAT ? H5T_NATIVE_DOUBLE
               : is_uint        ? H5T_NATIVE_ULLONG
                                : H5T_NATIVE_LLONG;
    if (H5Tequal(ftype, mt) > 0 && borrow(c, dset, rows * 8, &col->data)) {
        col->borrowed = 1;
        goto end;
    }
    if (!(col->data = jl__malloc_array(rows ? rows : 1, 8))) {
        st = jl__rctx_fail(&at, JL_ENOMEM, NULL);
        goto end;
    }
    if (rows && H5Dread(dset, mt, H5S_ALL, H5S_ALL, c->dxpl, col->data) < 0)
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot read the data");
end:
    free(obj);
    CLOSE(ftype, H5Tclose);
    CLOSE(dset, H5Dclose);
    return st;
}

/* The names of the datasets in a group, sorted (strcmp), hard links only. */
typedef struct {
    char **names;
    size_t n, cap;
    int nomem, bad;
    char *bad_name;
} name_list;

static herr_t name_cb(hid_t grp, const char *name, const H5L_info_t *info, void *data)
{
    (void)grp;
    name_list *l = data;
    if (info->type != H5L_TYPE_HARD) {
        l->bad = 1;
        l->bad_name = jl__strdup(name);
        return 1;
    }
    if (jl__names_push(&l->names, &l->n, &l->cap, name) < 0) {
        l->nomem = 1;
        return -1;
    }
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    free(l->bad_name);
}

/* Open group `name` of parent (path gpath); *g = -1 when absent. */
static jl_status open_subgroup(tctx *c, hid_t parent, const char *name, const char *gpath, hid_t *g)
{
    rctx at_g = table_at(c, gpath);
    *g = -1;
    htri_t ex = H5Lexists(parent, name, H5P_DEFAULT);
    if (ex < 0)
        return jl__rctx_h5_fail(&at_g, JL_EIO, "cannot look up the link");
    if (!ex)
        return JL_OK;
    H5O_info_t oi;
    if (H5Oget_info_by_name(parent, name, &oi, H5P_DEFAULT) < 0)
        return jl__rctx_h5_fail(&at_g, JL_EIO, "cannot open");
    if (oi.type != H5O_TYPE_GROUP)
        return jl__rctx_fail(&at_g, JL_ETYPE, "is not a group");
    if ((*g = H5Gopen2(parent, name, H5P_DEFAULT)) < 0)
        return jl__rctx_h5_fail(&at_g, JL_EIO, "cannot open");
    return JL_OK;
}

/* The absent-row masks of a set: <set>_absent/<column>, integers. */
static jl_status read_masks(tctx *c, hid_t table, int set, jl__table *t)
{
    char gname[32], *gpath = NULL;
    snprintf(gname, sizeof gname, "%s_absent", set_name[set]);
    hid_t g = -1;
    jl_status st = JL_OK;
    rctx at0 = table_at(c, NULL), at_g = at0;
    if (!(gpath = jl__asprintf("/%s/%s", JL__TABLE_NAME, gname)))
        return jl__rctx_fail(&at0, JL_ENOMEM, NULL);
    at_g.obj = gpath;
    if ((st = open_subgroup(c, table, gname, gpath, &g)) != JL_OK || g < 0)
        goto end;
    for (size_t k = 0; k < t->n_cols[set]; k++) {
        tcol *col = &t->cols[set][k];
        htri_t ex = H5Lexists(g, col->name, H5P_DEFAULT);
        if (ex <= 0) {
            if (ex < 0)
                st = jl__rctx_h5_fail(&at_g, JL_EIO, "cannot look up the link");
            if (ex < 0)
                goto end;
            continue;
        }
        tcol m;
        if ((st = read_column(c, g, gpath, col->name, &m)) != JL_OK) {
            col_clear(&m);
            goto end;
        }
        if (m.kind != JL__CELL_INT && m.kind != JL__CELL_UINT) {
            st =
                jl__rctx_fail(&at_g, JL_ETYPE,
                              "column %s is not of integers (1 = the run has no value)", col->name);
            col_clear(&m);
            goto end;
        }
        if (!(col->absent = malloc(t->n ? t->n : 1))) {
            col_clear(&m);
            st = jl__rctx_fail(&at_g, JL_ENOMEM, NULL);
            goto end;
        }
        for (size_t r = 0; r < t->n; r++) {
            long long x;
            memcpy(&x, (const char *)m.data + r * 8, 8);
            col->absent[r] = x != 0;
        }
        col_clear(&m);
    }
end:
    free(gpath);
    CLOSE(g, H5Gclose);
    return st;
}

static jl_status read_set(tctx *c, hid_t table, int set, jl__table *t)
{
    hid_t g = -1;
    name_list l = {0};
    rctx at = table_at(c, set_path[set]);
    jl_status st = open_subgroup(c, table, set_name[set], set_path[set], &g);
    if (st != JL_OK || g < 0)
        goto end;
    hsize_t idx = 0;
    herr_t r = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, name_cb, &l);
    if (l.nomem) {
        st = jl__rctx_fail(&at, JL_ENOMEM, NULL);
        goto end;
    }
    if (l.bad) {
        st = jl__rctx_fail(&at, JL_ETYPE,
                           "column %s is a soft or external link; joules follows only hard links",
                           l.bad_name ? l.bad_name : "?");
        goto end;
    }
    if (r < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot list the columns");
        goto end;
    }
    qsort(l.names, l.n, sizeof *l.names, cmp_name);
    if (l.n && !(t->cols[set] = calloc(l.n, sizeof(tcol)))) {
        st = jl__rctx_fail(&at, JL_ENOMEM, NULL);
        goto end;
    }
    for (size_t k = 0; k < l.n; k++) {
        st = read_column(c, g, set_path[set], l.names[k], &t->cols[set][k]);
        t->n_cols[set]++;
        if (st != JL_OK)
            goto end;
        t->cols[set][k].field = set == JL__TSET_ATTRS ? jl__attr_field_index(l.names[k])
                                                      : jl__summary_field_index(l.names[k]);
    }
    st = read_masks(c, table, set, t);
end:
    names_free(&l);
    CLOSE(g, H5Gclose);
    return st;
}

jl_status jl__table_open(hid_t file, const char *path, const jl_trace_limits *lim, const void *map,
                         size_t map_len, uint64_t file_bytes, int allow_external, jl__table **out,
                         jl_error **err)
{
    static const char *const tpath = "/" JL__TABLE_NAME;
    tctx c = {path, lim, err,     SIZE_MAX,   H5P_DEFAULT,
              NULL, map, map_len, file_bytes, allow_external};
    rctx at_t = table_at(&c, tpath), at_run = table_at(&c, "/" JL__TABLE_NAME "/run");
    jl__table *t = NULL;
    hid_t g = -1, a = -1;
    *out = NULL;
    jl_status st = open_subgroup(&c, file, JL__TABLE_NAME, tpath, &g);
    if (st != JL_OK || g < 0)
        return st;
    long long version = -1;
    htri_t ex = H5Aexists(g, "version");
    if (ex > 0 && (a = H5Aopen(g, "version", H5P_DEFAULT)) >= 0) {
        hid_t at = H5Aget_type(a);
        if (at < 0 || H5Tget_class(at) != H5T_INTEGER || H5Aread(a, H5T_NATIVE_LLONG, &version) < 0)
            version = -2;
        CLOSE(at, H5Tclose);
    }
    H5Eclear2(H5E_DEFAULT);
    if (version != JL__TABLE_VERSION) {
        st =
            jl__rctx_fail(&at_t, JL_EFORMAT,
                          version == -1 ? "has no @version attribute (this reader reads version %d)"
                          : version == -2
                              ? "@version is not an integer (this reader reads version %d)"
                              : "unsupported @version (this reader reads version %d)",
                          JL__TABLE_VERSION);
        goto end;
    }
    if (!(t = calloc(1, sizeof *t))) {
        st = jl__rctx_fail(&at_t, JL_ENOMEM, NULL);
        goto end;
    }
    htri_t hr = H5Lexists(g, "run", H5P_DEFAULT);
    if (hr <= 0) {
        st = hr < 0 ? jl__rctx_h5_fail(&at_t, JL_EIO, "cannot look up the link")
                    : jl__rctx_fail(&at_run, JL_EMISSING,
                                    "required dataset is missing (the run names)");
        goto end;
    }
    tcol runs;
    st = read_column(&c, g, tpath, "run", &runs);
    if (st == JL_OK && runs.kind != JL__CELL_STR)
        st = jl__rctx_fail(&at_run, JL_ETYPE, "has numbers, expected strings (the run names)");
    if (st != JL_OK) {
        col_clear(&runs);
        goto end;
    }
    /* rows as NUL-terminated names: one byte wider than stored */
    t->n = c.n = runs.rows;
    t->runs_width = runs.width + 1;
    if (!(t->runs_buf = jl__calloc_array(t->n ? t->n : 1, t->runs_width))) {
        col_clear(&runs);
        st = jl__rctx_fail(&at_t, JL_ENOMEM, NULL);
        goto end;
    }
    for (size_t r = 0; r < t->n; r++)
        memcpy(t->runs_buf + r * t->runs_width, (char *)runs.data + r * runs.width, runs.width);
    col_clear(&runs);
    for (size_t r = 0; r < t->n; r++)
        if (!*jl__table_run(t, r)) {
            st = jl__rctx_fail_row(&at_run, JL_EINVALID, r, "empty run name at row %zu", r);
            goto end;
        }
    if ((c.dxpl = H5Pcreate(H5P_DATASET_XFER)) < 0 ||
        !(c.tconv = jl__malloc_array(t->n ? t->n : 1, 16)) ||
        H5Pset_buffer(c.dxpl, (t->n ? t->n : 1) * 16, c.tconv, NULL) < 0) {
        st = jl__rctx_h5_fail(&at_t, JL_EINTERNAL, "cannot set up the data transfer");
        goto end;
    }
    for (int s = 0; s < JL__TSET_N; s++)
        if ((st = read_set(&c, g, s, t)) != JL_OK)
            goto end;
    *out = t;
    t = NULL;
end:
    jl__table_free(t);
    if (c.dxpl != H5P_DEFAULT)
        CLOSE(c.dxpl, H5Pclose);
    free(c.tconv);
    CLOSE(a, H5Aclose);
    CLOSE(g, H5Gclose);
    return st;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */

/* One cell of a run as the group writer would store it (16 bytes: the
 * cells of every run are kept while the table is written). */
typedef struct {
    jl__cell_kind kind; /* INT, FLOAT or STR */
    uint32_t col;       /* index of its column in its set */
    union {
        long long i;   /* INT */
        double d;      /* FLOAT */
        const char *s; /* STR */
    };
} wcell;

typedef struct {
    const char *name;
    jl__cell_kind kind;
    int conflict; /* strings and numbers, or integers a float64 would round */
    int big_int;  /* an integer beyond 2^53 */
    int listed;   /* in the set's order (some row of the table has it) */
    size_t width; /* strings: longest + 1 */
    size_t rows;  /* rows holding a value (of the runs written) */
    void *data;
    unsigned char *absent;
} wcol;

/* A set's columns: every name met (the typed fields first, column k =
 * field k, so an extra named like a typed field is found by its index),
 * and in `order` those the table writes, in the order rows first fill
 * them. */
typedef struct {
    wcol *cols;
    size_t n, cap;
    jl__strmap index; /* name -> column index */
    size_t n_typed;
    size_t *order;
    size_t n_order;
} wset;

/* The cells of the runs in one set, collected once: run i's are
 * v[first[i] .. first[i + 1]). */
typedef struct {
    wcell *v;
    size_t n, cap;
    size_t *first;
} wcells;

/* The column named `name`, created when new; SIZE_MAX when out of memory. */
static size_t set_col(wset *ws, const char *name)
{
    if (ws->n == ws->cap) {
        size_t cap = ws->cap ? ws->cap * 2 : 32;
        wcol *nc = realloc(ws->cols, cap * sizeof *nc);
        if (!nc)
            return SIZE_MAX;
        ws->cols = nc;
        ws->cap = cap;
    }
    int added = 0;
    jl__strmap_entry *e = jl__strmap_add(&ws->index, name, ws->n, &added);
    if (!e)
        return SIZE_MAX;
    if (!added)
        return e->value;
    memset(&ws->cols[ws->n], 0, sizeof ws->cols[ws->n]);
    ws->cols[ws->n].name = name;
    return ws->n++;
}

/* An extra (text) as the group writer stores it: int64 when the text is a
 * whole number, float64 when a number, else a string. */
static void extra_cell(const jl_kv *kv, wcell *c)
{
    const char *s = kv->value ? kv->value : "";
    c->s = s;
    c->kind = JL__CELL_STR;
    if (kv->is_number && *s) {
        char *end;
        errno = 0;
        long long i = strtoll(s, &end, 10);
        if (!*end && !errno) {
            c->kind = JL__CELL_INT;
            c->i = i;
            return;
        }
        double d = strtod(s, &end);
        if (!*end) {
            c->kind = JL__CELL_FLOAT;
            c->d = d;
        }
    }
}

/* A name usable as a column: non-empty, no '/', not "." or "..". */
static int good_name(const char *s)
{
    return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* The columns of set s's typed fields, column k for field k; -1 when out
 * of memory or (never with jl__attr_fields' distinct names) a name twice. */
static int seed_typed(wset *ws, int s)
{
    size_t nf = s == JL__TSET_ATTRS ? jl__n_attr_fields : jl__n_summary_fields;
    for (size_t k = 0; k < nf; k++) {
        const char *name =
            s == JL__TSET_ATTRS ? jl__attr_fields[k].name : jl__summary_fields[k].name;
        if (set_col(ws, name) != k)
            return -1;
    }
    ws->n_typed = nf;
    return 0;
}

static int push_cell(wcells *cv, const wcell *c)
{
    if (cv->n == cv->cap) {
        size_t cap = cv->cap ? cv->cap * 2 : 4096;
        wcell *nv = realloc(cv->v, cap * sizeof *nv);
        if (!nv)
            return -1;
        cv->v = nv;
        cv->cap = cap;
    }
    cv->v[cv->n++] = *c;
    return 0;
}

/* Append the cells of a run in set s to cv, each with its column of ws.
 * 0; 1 when the run cannot be a row (an extra named like no column can be:
 * empty, '/', "." or "..", or a typed field's name); -1 out of memory. */
static int run_cells(const jl_run *r, int s, wset *ws, wcells *cv)
{
    const jl_kv *extra;
    size_t n_extra;
    if (s == JL__TSET_ATTRS) {
        const jl_attrs *a = &r->attrs;
        for (size_t k = 0; k < jl__n_attr_fields; k++) {
            const jl__attr_field *f = &jl__attr_fields[k];
            const char *base = (const char *)a + f->off;
            wcell c = {.kind = JL__CELL_STR, .col = (uint32_t)k};
            if (f->kind == JL__F_STR) {
                if (!(c.s = *(char *const *)base))
                    continue;
            } else if (f->kind == JL__F_LONG) {
                long v = *(const long *)base;
                if (v < 0)
                    continue;
                c.kind = JL__CELL_INT;
                c.i = v;
            } else {
                c.d = *(const double *)base;
                if (isnan(c.d))
                    continue;
                c.kind = JL__CELL_FLOAT;
            }
            if (push_cell(cv, &c))
                return -1;
        }
        extra = a->extra;
        n_extra = a->n_extra;
    } else {
        const jl_run_summary_attrs *sm = &r->summary;
        for (size_t k = 0; k < jl__n_summary_fields; k++) {
            double v = *(const double *)((const char *)sm + jl__summary_fields[k].off);
            if (isnan(v))
                continue;
            wcell c = {.kind = JL__CELL_FLOAT, .col = (uint32_t)k, .d = v};
            if (push_cell(cv, &c))
                return -1;
        }
        extra = sm->extra;
        n_extra = sm->n_extra;
    }
    for (size_t k = 0; k < n_extra; k++) {
        if (!good_name(extra[k].key))
            return 1;
        size_t ci = set_col(ws, extra[k].key);
        if (ci == SIZE_MAX || ci > UINT32_MAX)
            return -1;
        if (ci < ws->n_typed)
            return 1;
        wcell c = {.col = (uint32_t)ci};
        extra_cell(&extra[k], &c);
        if (push_cell(cv, &c))
            return -1;
    }
    return 0;
}

static int summary_only(const jl_run *r)
{
    return r->summary.present && good_name(r->name) && !r->power_time && !r->watts.v &&
           !r->energy_j.v && !r->watts_avg.v && !r->gpu_time && !r->sm_util.v && !r->mem_util.v &&
           !r->mem_used_bytes.v && !r->sm_clock_mhz.v && !r->temp_c.v && !r->engine_time &&
           !r->running && !r->waiting && !r->tokens_generated && !r->prefill_tokens &&
           !r->kv_cache_usage && !r->arrival && !r->first_token && !r->finish && !r->input_tokens &&
           !r->output_tokens && !r->itl_seconds && !r->itl_request && !r->batch_start &&
           !r->batch_end && !r->batch_size && !r->host_time && !r->cpu_energy_j.v &&
           !r->dram_energy_j.v && !r->node_watts && !r->host_source;
}

#define EXACT_INT_LIMIT 9007199254740992.0 /* 2^53 */

/* Merge a cell's kind into its column's. */
static void merge_kind(wcol *col, const wcell *c)
{
    if (c->kind == JL__CELL_INT && fabs((double)c->i) > EXACT_INT_LIMIT)
        col->big_int = 1;
    if (c->kind == JL__CELL_STR) {
        size_t w = strlen(c->s) + 1;
        if (w > col->width)
            col->width = w;
    }
    if (!col->rows++) {
        col->kind = c->kind;
    } else if (col->kind != c->kind) {
        int num_a = col->kind != JL__CELL_STR, num_b = c->kind != JL__CELL_STR;
        if (num_a && num_b)
            col->kind = JL__CELL_FLOAT;
        else
            col->conflict = 1;
    }
    if (col->kind == JL__CELL_FLOAT && col->big_int)
        col->conflict = 1; /* a float64 column would round it */
}

typedef struct {
    const char *path;
    jl_error **err;
    hid_t file, table;
} wtx;

static jl_status write_dataset(wtx *w, hid_t grp, const char *gpath, const char *name, hid_t ftype,
                               hid_t mtype, size_t n, const void *data)
{
    jl_status st = JL_OK;
    hsize_t dims[1] = {n};
    hid_t space = H5Screate_simple(1, dims, NULL), d = -1;
    if (space < 0 ||
        (d = H5Dcreate2(grp, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
        (n && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)) {
        char *obj = jl__asprintf("%s/%s", gpath, name);
        st = jl__h5_fail(w->err, JL_EIO, w->path, NULL, obj ? obj : gpath, -1,
                         "cannot write the column");
        free(obj);
    }
    CLOSE(d, H5Dclose);
    CLOSE(space, H5Sclose);
    return st;
}

/* A fixed-length UTF-8 string type `width` bytes wide (NUL-padded). */
static hid_t str_type(size_t width)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, width) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0 ||
                   H5Tset_strpad(t, H5T_STR_NULLPAD) < 0))
        CLOSE(t, H5Tclose);
    return t;
}

static hid_t make_group(wtx *w, hid_t parent, const char *name, const char *path)
{
    hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        jl__h5_fail(w->err, JL_EIO, w->path, NULL, path, -1, "cannot create the group");
    return g;
}

static jl_status write_set(wtx *w, int s, const wset *ws, size_t rows)
{
    jl_status st = JL_OK;
    char apath[64], aname[32];
    snprintf(aname, sizeof aname, "%s_absent", set_name[s]);
    snprintf(apath, sizeof apath, "/%s/%s", JL__TABLE_NAME, aname);
    hid_t g = make_group(w, w->table, set_name[s], set_path[s]), ga = -1;
    if (g < 0)
        return JL_EIO;
    for (size_t k = 0; k < ws->n_order && st == JL_OK; k++) {
        const wcol *col = &ws->cols[ws->order[k]];
        if (col->kind == JL__CELL_STR) {
            hid_t t = str_type(col->width);
            st = t < 0 ? jl__h5_fail(w->err, JL_EINTERNAL, w->path, NULL, set_path[s], -1,
                                     "cannot build a string type")
                       : write_dataset(w, g, set_path[s], col->name, t, t, rows, col->data);
            CLOSE(t, H5Tclose);
        } else if (col->kind == JL__CELL_INT) {
            st = write_dataset(w, g, set_path[s], col->name, H5T_STD_I64LE, H5T_NATIVE_LLONG, rows,
                               col->data);
        } else {
            st = write_dataset(w, g, set_path[s], col->name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                               rows, col->data);
        }
        if (st != JL_OK || col->rows == rows)
            continue;
        if (ga < 0 && (ga = make_group(w, w->table, aname, apath)) < 0)
            st = JL_EIO;
        else
            st = write_dataset(w, ga, apath, col->name, H5T_STD_U8LE, H5T_NATIVE_UCHAR, rows,
                               col->absent);
    }
    CLOSE(ga, H5Gclose);
    CLOSE(g, H5Gclose);
    return st;
}

static void wset_free(wset *ws)
{
    for (size_t k = 0; k < ws->n; k++) {
        free(ws->cols[k].data);
        free(ws->cols[k].absent);
    }
    free(ws->cols);
    jl__strmap_free(&ws->index);
    free(ws->order);
}

/* The kinds of set s's columns from the cells of the runs marked in `use`;
 * the columns listed in the order rows first fill them. */
static void merge_set(const wcells *cv, size_t n, const unsigned char *use, wset *ws)
{
    for (size_t i = 0; i < n; i++) {
        if (!use[i])
            continue;
        for (size_t k = cv->first[i]; k < cv->first[i + 1]; k++) {
            const wcell *c = &cv->v[k];
            wcol *col = &ws->cols[c->col];
            if (!col->listed) {
                col->listed = 1;
                ws->order[ws->n_order++] = c->col;
            }
            merge_kind(col, c);
        }
    }
}

/* The values of the runs marked in `use` into their columns' storage. */
static void fill_set(const wcells *cv, size_t n, const unsigned char *use, wset *ws)
{
    size_t row = 0;
    for (size_t i = 0; i < n; i++) {
        if (!use[i])
            continue;
        for (size_t k = cv->first[i]; k < cv->first[i + 1]; k++) {
            const wcell *c = &cv->v[k];
            wcol *col = &ws->cols[c->col];
            col->absent[row] = 0;
            if (col->kind == JL__CELL_STR) {
                char *dst = (char *)col->data + row * col->width;
                size_t len = strlen(c->s);
                memcpy(dst, c->s, len);
                memset(dst + len, 0, col->width - len);
            } else if (col->kind == JL__CELL_INT) {
                ((long long *)col->data)[row] = c->i;
            } else {
                ((double *)col->data)[row] = c->kind == JL__CELL_INT ? (double)c->i : c->d;
            }
        }
        row++;
    }
}

/* 1 when some cell of run i lies in a conflicting column. */
static int run_conflicts(const wcells *cv, const wset *ws, size_t i)
{
    for (int s = 0; s < JL__TSET_N; s++)
        for (size_t k = cv[s].first[i]; k < cv[s].first[i + 1]; k++)
            if (ws[s].cols[cv[s].v[k].col].conflict)
                return 1;
    return 0;
}

/* The cells of every summary-only run, in both sets, collected once (each
 * extra's text read as a number once, each name hashed once); in_table[i]
 * says which runs can be rows. -1 when out of memory. */
static int collect(const jl_run *const *runs, size_t n, unsigned char *in_table, wset *ws,
                   wcells *cv)
{
    for (int s = 0; s < JL__TSET_N; s++) {
        if (seed_typed(&ws[s], s) || !(cv[s].first = jl__malloc_array(n + 1, sizeof(size_t))))
            return -1;
        cv[s].first[0] = 0;
    }
    for (size_t i = 0; i < n; i++) {
        in_table[i] = summary_only(runs[i]);
        for (int s = 0; s < JL__TSET_N; s++) {
            int rc = in_table[i] ? run_cells(runs[i], s, &ws[s], &cv[s]) : 0;
            if (rc < 0)
                return -1;
            if (rc)
                in_table[i] = 0;
        }
        for (int s = 0; s < JL__TSET_N; s++) {
            if (!in_table[i])
                cv[s].n = cv[s].first[i]; /* no cells: runs[i] stays a group */
            cv[s].first[i + 1] = cv[s].n;
        }
    }
    for (int s = 0; s < JL__TSET_N; s++)
        if (!(ws[s].order = jl__malloc_array(ws[s].n ? ws[s].n : 1, sizeof(size_t))))
            return -1;
    return 0;
}

jl_status jl__table_write(hid_t file, const char *path, const jl_run *const *runs, size_t n,
                          unsigned char *in_table, jl_error **err)
{
    wtx w = {path, err, file, -1};
    wset ws[JL__TSET_N];
    wcells cv[JL__TSET_N];
    memset(ws, 0, sizeof ws);
    memset(cv, 0, sizeof cv);
    char *names = NULL;
    jl_status st = JL_OK;
    /* which runs can be rows, and their cells */
    if (collect(runs, n, in_table, ws, cv)) {
        st = jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, NULL);
        goto end;
    }
    for (int s = 0; s < JL__TSET_N; s++)
        merge_set(&cv[s], n, in_table, &ws[s]);
    /* a column of strings and numbers: its runs stay groups */
    int any_conflict = 0;
    for (int s = 0; s < JL__TSET_N; s++)
        for (size_t k = 0; k < ws[s].n_order; k++)
            any_conflict |= ws[s].cols[ws[s].order[k]].conflict;
    if (any_conflict) {
        for (size_t i = 0; i < n; i++)
            if (in_table[i] && run_conflicts(cv, ws, i))
                in_table[i] = 0;
        for (int s = 0; s < JL__TSET_N; s++) {
            for (size_t k = 0; k < ws[s].n; k++) {
                wcol *col = &ws[s].cols[k];
                const char *name = col->name;
                memset(col, 0, sizeof *col);
                col->name = name;
            }
            ws[s].n_order = 0;
            merge_set(&cv[s], n, in_table, &ws[s]);
        }
    }
    size_t rows = 0, width = 1;
    for (size_t i = 0; i < n; i++)
        if (in_table[i]) {
            rows++;
            if (strlen(runs[i]->name) + 1 > width)
                width = strlen(runs[i]->name) + 1;
        }
    if (!rows)
        goto end;
    /* storage, every cell absent until filled */
    for (int s = 0; s < JL__TSET_N; s++)
        for (size_t k = 0; k < ws[s].n_order; k++) {
            wcol *col = &ws[s].cols[ws[s].order[k]];
            size_t esz = col->kind == JL__CELL_STR ? col->width : 8;
            if (!(col->data = jl__calloc_array(rows, esz)) || !(col->absent = malloc(rows))) {
                st = jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, NULL);
                goto end;
            }
            memset(col->absent, 1, rows);
            if (col->kind == JL__CELL_FLOAT)
                for (size_t r = 0; r < rows; r++)
                    ((double *)col->data)[r] = jl__nan();
        }
    for (int s = 0; s < JL__TSET_N; s++)
        fill_set(&cv[s], n, in_table, &ws[s]);
    if (!(names = jl__calloc_array(rows, width))) {
        st = jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, NULL);
        goto end;
    }
    for (size_t i = 0, r = 0; i < n; i++)
        if (in_table[i])
            memcpy(names + width * r++, runs[i]->name, strlen(runs[i]->name));
    static const char *const tpath = "/" JL__TABLE_NAME;
    if ((w.table = make_group(&w, file, JL__TABLE_NAME, tpath)) < 0) {
        st = JL_EIO;
        goto end;
    }
    long long version = JL__TABLE_VERSION;
    hid_t sc = H5Screate(H5S_SCALAR), a = -1, t = str_type(width);
    if (sc < 0 || t < 0 ||
        (a = H5Acreate2(w.table, "version", H5T_STD_I64LE, sc, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
        H5Awrite(a, H5T_NATIVE_LLONG, &version) < 0)
        st = jl__h5_fail(err, JL_EIO, path, NULL, tpath, -1, "cannot write attribute @version");
    CLOSE(a, H5Aclose);
    CLOSE(sc, H5Sclose);
    if (st == JL_OK)
        st = write_dataset(&w, w.table, tpath, "run", t, t, rows, names);
    CLOSE(t, H5Tclose);
    for (int s = 0; s < JL__TSET_N && st == JL_OK; s++)
        st = write_set(&w, s, &ws[s], rows);
end:
    free(names);
    for (int s = 0; s < JL__TSET_N; s++) {
        wset_free(&ws[s]);
        free(cv[s].v);
        free(cv[s].first);
    }
    CLOSE(w.table, H5Gclose);
    return st;
}
