/* spans/ and the sensor attributes of power/ (trace format 1.2,
 * docs/trace-format.md): reading them from a run, writing them into an
 * existing trace (copied, changed, renamed into place). */
#define _DEFAULT_SOURCE /* flock */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "joules/output.h"
#include "joules/spans.h"
#include "trace/trace_internal.h"

jl_spans *jl_spans_new(void)
{
    jl_spans *s = calloc(1, sizeof *s);
    if (s) {
        s->window[0] = s->window[1] = NAN;
        s->clock_uncertainty_s = NAN;
    }
    return s;
}

void jl_spans_free(jl_spans *s)
{
    if (!s)
        return;
    free(s->source);
    free(s->side);
    free(s->clock);
    for (size_t i = 0; i < s->n_names; i++)
        free(s->names[i]);
    free(s->names);
    free(s->name);
    free(s->start);
    free(s->end);
    free(s->parent);
    free(s->gpu);
    free(s->busy_s);
    free(s->tokens);
    free(s->step);
    free(s);
}

void jl_sensor_init(jl_sensor *s)
{
    memset(s, 0, sizeof *s);
    s->update_period_s = s->watts_window_s = s->watts_delay_s = s->energy_delay_s = NAN;
}

void jl_sensor_clear(jl_sensor *s)
{
    if (!s)
        return;
    free(s->watts_kind);
    free(s->calibration);
    jl_sensor_init(s);
}

/* ---- reading ---------------------------------------------------------------- */

/* A string attribute (fixed or variable length) of obj, or NULL when absent. */
static jl_status attr_string(rctx *c, hid_t obj, const char *name, char **out)
{
    *out = NULL;
    if (H5Aexists(obj, name) <= 0)
        return JL_OK;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), ft = -1, mt = -1;
    jl_status st = JL_OK;
    if (a < 0 || (ft = H5Aget_type(a)) < 0) {
        st = jl__rctx_h5_fail(c, JL_EIO, "cannot open attribute @%s", name);
        goto end;
    }
    if (H5Tget_class(ft) != H5T_STRING) {
        st = jl__rctx_fail(c, JL_ETYPE, "@%s is not a string", name);
        goto end;
    }
    mt = H5Tcopy(H5T_C_S1);
    if (H5Tis_variable_str(ft) > 0) {
        char *v = NULL;
        H5Tset_size(mt, H5T_VARIABLE);
        H5Tset_cset(mt, H5Tget_cset(ft));
        if (H5Aread(a, mt, &v) < 0) {
            st = jl__rctx_h5_fail(c, JL_EIO, "cannot read @%s", name);
            goto end;
        }
        *out = jl__strdup(v ? v : "");
        H5free_memory(v);
    } else {
        size_t n = H5Tget_size(ft);
        char *v = calloc(n + 1, 1);
        H5Tset_size(mt, n + 1);
        if (!v || H5Aread(a, mt, v) < 0) {
            free(v);
            st = jl__rctx_h5_fail(c, JL_EIO, "cannot read @%s", name);
            goto end;
        }
        *out = v;
    }
    if (!*out)
        st = JL_ENOMEM;
end:
    CLOSE(mt, H5Tclose);
    CLOSE(ft, H5Tclose);
    CLOSE(a, H5Aclose);
    return st;
}

/* Up to cap numbers of a numeric attribute, as doubles; *n = how many (0:
 * absent). */
static jl_status attr_doubles(rctx *c, hid_t obj, const char *name, double *v, size_t cap,
                              size_t *n)
{
    *n = 0;
    if (H5Aexists(obj, name) <= 0)
        return JL_OK;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), sp = -1, ft = -1;
    jl_status st = JL_OK;
    if (a < 0 || (sp = H5Aget_space(a)) < 0 || (ft = H5Aget_type(a)) < 0) {
        st = jl__rctx_h5_fail(c, JL_EIO, "cannot open attribute @%s", name);
        goto end;
    }
    H5T_class_t k = H5Tget_class(ft);
    hssize_t m = H5Sget_simple_extent_npoints(sp);
    if ((k != H5T_FLOAT && k != H5T_INTEGER) || m < 1 || (size_t)m > cap) {
        st = jl__rctx_fail(c, JL_ETYPE, "@%s: expected %s number%s", name,
                           cap == 1 ? "a" : "at most 2", cap == 1 ? "" : "s");
        goto end;
    }
    if (H5Aread(a, H5T_NATIVE_DOUBLE, v) < 0) {
        st = jl__rctx_h5_fail(c, JL_EIO, "cannot read @%s", name);
        goto end;
    }
    *n = (size_t)m;
end:
    CLOSE(ft, H5Tclose);
    CLOSE(sp, H5Sclose);
    CLOSE(a, H5Aclose);
    return st;
}

/* The dataset's storage checked before it is read (jl__check_storage). */
static jl_status storage(const rctx *at, hid_t d, const hsize_t *dims, size_t fsize)
{
    hid_t dcpl = H5Dget_create_plist(d);
    jl_status st = dcpl < 0 ? jl__rctx_h5_fail(at, JL_EIO, "cannot read the storage layout")
                            : jl__check_storage(at, d, dcpl, dims, 1, fsize, NULL);
    CLOSE(dcpl, H5Pclose);
    return st;
}

/* A rank-1 dataset of grp read whole as mtype (elem bytes each): *out NULL
 * and *n 0 when absent (an error when required). */
static jl_status read_col(rctx *c, hid_t grp, const char *gpath, const char *name, hid_t mtype,
                          size_t elem, int required, void **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    char obj[1100];
    snprintf(obj, sizeof obj, "%s/%s", gpath, name);
    rctx at = rctx_at(c, obj);
    if (H5Lexists(grp, name, H5P_DEFAULT) <= 0)
        return required ? jl__rctx_fail(&at, JL_EMISSING, "required dataset missing") : JL_OK;
    hid_t d = H5Dopen2(grp, name, H5P_DEFAULT), sp = -1, ft = -1;
    jl_status st = JL_OK;
    if (d < 0 || (sp = H5Dget_space(d)) < 0 || (ft = H5Dget_type(d)) < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot open the dataset");
        goto end;
    }
    hsize_t dims[2] = {0, 0};
    int rank = H5Sget_simple_extent_ndims(sp);
    H5T_class_t k = H5Tget_class(ft);
    if (rank != 1 || (k != H5T_FLOAT && k != H5T_INTEGER)) {
        st = jl__rctx_fail(&at, JL_ETYPE, "expected a 1-D numeric dataset");
        goto end;
    }
    H5Sget_simple_extent_dims(sp, dims, NULL);
    if (dims[0] > c->lim->max_rows) {
        st = jl__rctx_fail(&at, JL_ELIMIT, "%llu rows, more than the limit %llu",
                           (unsigned long long)dims[0], (unsigned long long)c->lim->max_rows);
        goto end;
    }
    if ((st = storage(&at, d, dims, H5Tget_size(ft))) != JL_OK)
        goto end;
    void *v = malloc(dims[0] ? dims[0] * elem : 1);
    if (!v) {
        st = JL_ENOMEM;
        goto end;
    }
    if (dims[0] && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        free(v);
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot read the dataset");
        goto end;
    }
    *out = v;
    *n = (size_t)dims[0];
end:
    CLOSE(ft, H5Tclose);
    CLOSE(sp, H5Sclose);
    CLOSE(d, H5Dclose);
    return st;
}

/* names: a 1-D string dataset (variable or fixed length). */
static jl_status read_names(rctx *c, hid_t grp, const char *gpath, jl_spans *s)
{
    char obj[1100];
    snprintf(obj, sizeof obj, "%s/names", gpath);
    rctx at = rctx_at(c, obj);
    if (H5Lexists(grp, "names", H5P_DEFAULT) <= 0)
        return jl__rctx_fail(&at, JL_EMISSING, "required dataset missing");
    hid_t d = H5Dopen2(grp, "names", H5P_DEFAULT), sp = -1, ft = -1, mt = -1;
    jl_status st = JL_OK;
    char *buf = NULL;
    if (d < 0 || (sp = H5Dget_space(d)) < 0 || (ft = H5Dget_type(d)) < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot open the dataset");
        goto end;
    }
    hsize_t n = 0;
    if (H5Tget_class(ft) != H5T_STRING || H5Sget_simple_extent_ndims(sp) != 1) {
        st = jl__rctx_fail(&at, JL_ETYPE, "expected a 1-D string dataset");
        goto end;
    }
    H5Sget_simple_extent_dims(sp, &n, NULL);
    if (n > c->lim->max_rows) {
        st =
            jl__rctx_fail(&at, JL_ELIMIT, "%llu names, more than the limit", (unsigned long long)n);
        goto end;
    }
    if ((st = storage(&at, d, &n, H5Tget_size(ft))) != JL_OK)
        goto end;
    s->names = calloc(n ? n : 1, sizeof *s->names);
    if (!s->names) {
        st = JL_ENOMEM;
        goto end;
    }
    mt = H5Tcopy(H5T_C_S1);
    if (H5Tis_variable_str(ft) > 0) {
        H5Tset_size(mt, H5T_VARIABLE);
        H5Tset_cset(mt, H5Tget_cset(ft));
        char **v = calloc(n ? n : 1, sizeof *v);
        if (!v || (n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)) {
            st = v ? jl__rctx_h5_fail(&at, JL_EIO, "cannot read the dataset") : JL_ENOMEM;
            free(v);
            goto end;
        }
        for (hsize_t i = 0; i < n; i++) {
            s->names[i] = jl__strdup(v[i] ? v[i] : "");
            if (!s->names[i])
                st = JL_ENOMEM;
        }
        H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, v);
        free(v);
    } else {
        size_t w = H5Tget_size(ft);
        H5Tset_size(mt, w + 1);
        buf = calloc(n ? n : 1, w + 1);
        if (!buf || (n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)) {
            st = buf ? jl__rctx_h5_fail(&at, JL_EIO, "cannot read the dataset") : JL_ENOMEM;
            goto end;
        }
        for (hsize_t i = 0; i < n; i++)
            if (!(s->names[i] = jl__strdup(buf + i * (w + 1))))
                st = JL_ENOMEM;
    }
    s->n_names = (size_t)n;
    for (size_t i = 0; st == JL_OK && i < s->n_names; i++)
        if (!s->names[i][0])
            st = jl__rctx_fail_row(&at, JL_EINVALID, (long long)i, "row %zu: empty name", i);
end:
    free(buf);
    CLOSE(mt, H5Tclose);
    CLOSE(ft, H5Tclose);
    CLOSE(sp, H5Sclose);
    CLOSE(d, H5Dclose);
    return st;
}

static jl_status check_spans(rctx *c, const char *gpath, jl_spans *s)
{
    char obj[1100];
    /* a span may end this much past its parent or the window: the clocks'
     * rounding (a microsecond profile on a float64 second clock) */
    const double tol = 1e-6;
    for (size_t i = 0; i < s->n; i++) {
        if (s->name[i] < 0 || (size_t)s->name[i] >= s->n_names) {
            snprintf(obj, sizeof obj, "%s/name", gpath);
            rctx at = rctx_at(c, obj);
            return jl__rctx_fail_row(&at, JL_EINVALID, (long long)i,
                                     "row %zu: name index %d outside names (%zu)", i, s->name[i],
                                     s->n_names);
        }
        if (!isfinite(s->start[i]) || !isfinite(s->end[i]) || s->start[i] > s->end[i]) {
            snprintf(obj, sizeof obj, "%s/end", gpath);
            rctx at = rctx_at(c, obj);
            return jl__rctx_fail_row(&at, JL_EINVALID, (long long)i,
                                     "row %zu: span [%.9g, %.9g] is not finite or ends before "
                                     "it starts",
                                     i, s->start[i], s->end[i]);
        }
        if (isfinite(s->window[0]) &&
            (s->start[i] < s->window[0] - tol || s->end[i] > s->window[1] + tol)) {
            snprintf(obj, sizeof obj, "%s/start", gpath);
            rctx at = rctx_at(c, obj);
            return jl__rctx_fail_row(&at, JL_EINVALID, (long long)i,
                                     "row %zu: span [%.9g, %.9g] outside @window [%.9g, %.9g]", i,
                                     s->start[i], s->end[i], s->window[0], s->window[1]);
        }
        if (s->parent) {
            int32_t p = s->parent[i];
            snprintf(obj, sizeof obj, "%s/parent", gpath);
            rctx at = rctx_at(c, obj);
            if (p < -1 || p >= (int64_t)s->n || p == (int32_t)i)
                return jl__rctx_fail_row(&at, JL_EINVALID, (long long)i,
                                         "row %zu: parent %d is not a row", i, p);
            if (p >= 0 && (s->start[i] < s->start[p] - tol || s->end[i] > s->end[p] + tol))
                return jl__rctx_fail_row(&at, JL_EINVALID, (long long)i,
                                         "row %zu: not inside its parent, row %d", i, p);
        }
        if (s->busy_s && (!isfinite(s->busy_s[i]) || s->busy_s[i] < 0)) {
            snprintf(obj, sizeof obj, "%s/busy_s", gpath);
            rctx at = rctx_at(c, obj);
            return jl__rctx_fail_row(&at, JL_EINVALID, (long long)i,
                                     "row %zu: busy_s %g is not a duration", i,
                                     (double)s->busy_s[i]);
        }
    }
    return JL_OK;
}

jl_status jl_trace_read_spans(jl_trace *t, size_t i, jl_spans **out, jl_error **err)
{
    *out = NULL;
    jl_error *local = NULL;
    rctx c;
    jl_status st = jl__run_ctx(t, i, err, &local, &c);
    if (st != JL_OK) {
        jl_error_free(local);
        return st;
    }
    if (t->row_of && t->row_of[i] != SIZE_MAX)
        return JL_OK; /* a summary-table row has no groups */
    char gpath[512];
    if (snprintf(gpath, sizeof gpath, "/runs/%s/spans", t->runs[i]) >= (int)sizeof gpath)
        return jl__rctx_fail(&c, JL_ELIMIT, "run name too long");
    if (H5Lexists(t->file, gpath, H5P_DEFAULT) <= 0)
        return JL_OK;
    hid_t g = H5Gopen2(t->file, gpath, H5P_DEFAULT);
    jl_spans *s = jl_spans_new();
    rctx at = rctx_at(&c, gpath);
    if (g < 0 || !s) {
        st = s ? jl__rctx_h5_fail(&at, JL_EIO, "cannot open the group") : JL_ENOMEM;
        goto end;
    }
    size_t n = 0, m = 0;
    double w[2];
    if ((st = attr_string(&at, g, "source", &s->source)) != JL_OK ||
        (st = attr_string(&at, g, "side", &s->side)) != JL_OK ||
        (st = attr_string(&at, g, "clock", &s->clock)) != JL_OK ||
        (st = attr_doubles(&at, g, "window", w, 2, &m)) != JL_OK)
        goto end;
    if (m == 2) {
        if (!isfinite(w[0]) || !isfinite(w[1]) || w[0] > w[1]) {
            st = jl__rctx_fail(&at, JL_EINVALID, "@window [%g, %g] is not an interval", w[0], w[1]);
            goto end;
        }
        s->window[0] = w[0];
        s->window[1] = w[1];
    } else if (m == 1) {
        st = jl__rctx_fail(&at, JL_ETYPE, "@window: expected two numbers");
        goto end;
    }
    if ((st = attr_doubles(&at, g, "clock_uncertainty_s", &s->clock_uncertainty_s, 1, &m)) != JL_OK)
        goto end;
    if ((st = read_names(&c, g, gpath, s)) != JL_OK)
        goto end;
    struct {
        const char *name;
        hid_t mt;
        size_t elem;
        int required;
        void **dst;
    } cols[] = {
        {"name", H5T_NATIVE_INT32, 4, 1, (void **)&s->name},
        {"start", H5T_NATIVE_DOUBLE, 8, 1, (void **)&s->start},
        {"end", H5T_NATIVE_DOUBLE, 8, 1, (void **)&s->end},
        {"parent", H5T_NATIVE_INT32, 4, 0, (void **)&s->parent},
        {"gpu", H5T_NATIVE_INT16, 2, 0, (void **)&s->gpu},
        {"busy_s", H5T_NATIVE_FLOAT, 4, 0, (void **)&s->busy_s},
        {"tokens", H5T_NATIVE_INT32, 4, 0, (void **)&s->tokens},
        {"step", H5T_NATIVE_INT32, 4, 0, (void **)&s->step},
    };
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
        if ((st = read_col(&c, g, gpath, cols[k].name, cols[k].mt, cols[k].elem, cols[k].required,
                           cols[k].dst, &m)) != JL_OK)
            goto end;
        if (k == 0)
            n = m;
        else if (*cols[k].dst && m != n) {
            char obj[1100];
            snprintf(obj, sizeof obj, "%s/%s", gpath, cols[k].name);
            rctx a2 = rctx_at(&c, obj);
            st = jl__rctx_fail(&a2, JL_ETYPE, "%zu rows, but name has %zu", m, n);
            goto end;
        }
    }
    s->n = n;
    if ((st = check_spans(&c, gpath, s)) != JL_OK)
        goto end;
    *out = s;
    s = NULL;
end:
    jl_spans_free(s);
    CLOSE(g, H5Gclose);
    if (local) {
        jl_error_free(local);
    }
    return st;
}

jl_status jl_trace_read_sensor(jl_trace *t, size_t i, jl_sensor *out, jl_error **err)
{
    jl_sensor_init(out);
    jl_error *local = NULL;
    rctx c;
    jl_status st = jl__run_ctx(t, i, err, &local, &c);
    if (st != JL_OK) {
        jl_error_free(local);
        return st;
    }
    if (t->row_of && t->row_of[i] != SIZE_MAX)
        return JL_OK;
    char gpath[512];
    if (snprintf(gpath, sizeof gpath, "/runs/%s/power", t->runs[i]) >= (int)sizeof gpath)
        return jl__rctx_fail(&c, JL_ELIMIT, "run name too long");
    if (H5Lexists(t->file, gpath, H5P_DEFAULT) <= 0)
        return JL_OK;
    hid_t g = H5Gopen2(t->file, gpath, H5P_DEFAULT);
    rctx at = rctx_at(&c, gpath);
    if (g < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot open the group");
        goto end;
    }
    size_t m;
    const struct {
        const char *name;
        double *dst;
    } nums[] = {{"update_period_s", &out->update_period_s},
                {"watts_window_s", &out->watts_window_s},
                {"watts_delay_s", &out->watts_delay_s},
                {"energy_delay_s", &out->energy_delay_s}};
    for (size_t k = 0; k < 4; k++) {
        if ((st = attr_doubles(&at, g, nums[k].name, nums[k].dst, 1, &m)) != JL_OK)
            goto end;
        if (m && (!isfinite(*nums[k].dst) || *nums[k].dst < 0)) {
            st = jl__rctx_fail(&at, JL_EINVALID, "@%s = %g is not a duration", nums[k].name,
                               *nums[k].dst);
            goto end;
        }
    }
    if ((st = attr_string(&at, g, "watts_kind", &out->watts_kind)) != JL_OK ||
        (st = attr_string(&at, g, "calibration", &out->calibration)) != JL_OK)
        goto end;
    if (out->watts_kind && strcmp(out->watts_kind, "instant") &&
        strcmp(out->watts_kind, "average_1s"))
        st = jl__rctx_fail(&at, JL_EINVALID, "@watts_kind '%s': expected instant or average_1s",
                           out->watts_kind);
end:
    CLOSE(g, H5Gclose);
    jl_error_free(local);
    if (st != JL_OK)
        jl_sensor_clear(out);
    return st;
}

/* ---- writing ---------------------------------------------------------------- */

static int write_col(hid_t g, const char *name, hid_t ftype, hid_t mtype, const void *v, size_t n)
{
    hsize_t dims[1] = {n};
    hid_t sp = H5Screate_simple(1, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (n >= 4096) { /* long columns: chunked and deflated, as the writer's */
        hsize_t ch[1] = {n < 65536 ? n : 65536};
        H5Pset_chunk(dcpl, 1, ch);
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 4);
    }
    hid_t d = sp < 0 ? -1 : H5Dcreate2(g, name, ftype, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int ok = d >= 0 && (n == 0 || H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    CLOSE(d, H5Dclose);
    CLOSE(dcpl, H5Pclose);
    CLOSE(sp, H5Sclose);
    return ok;
}

static int write_attr_str(hid_t obj, const char *name, const char *v)
{
    if (!v)
        return 1;
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR), a = -1;
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    int ok = a >= 0 && H5Awrite(a, t, &v) >= 0;
    CLOSE(a, H5Aclose);
    CLOSE(sp, H5Sclose);
    CLOSE(t, H5Tclose);
    return ok;
}

static int write_attr_doubles(hid_t obj, const char *name, const double *v, size_t n)
{
    if (!isfinite(v[0]))
        return 1;
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    hsize_t dims[1] = {n};
    hid_t sp = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, dims, NULL);
    hid_t a = H5Acreate2(obj, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    int ok = a >= 0 && H5Awrite(a, H5T_NATIVE_DOUBLE, v) >= 0;
    CLOSE(a, H5Aclose);
    CLOSE(sp, H5Sclose);
    return ok;
}

static int write_group(hid_t run, const jl_spans *s)
{
    if (H5Lexists(run, "spans", H5P_DEFAULT) > 0 && H5Ldelete(run, "spans", H5P_DEFAULT) < 0)
        return 0;
    hid_t g = H5Gcreate2(run, "spans", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return 0;
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    H5Tset_cset(st, H5T_CSET_UTF8);
    int ok =
        write_attr_str(g, "source", s->source) && write_attr_str(g, "side", s->side) &&
        write_attr_str(g, "clock", s->clock) && write_attr_doubles(g, "window", s->window, 2) &&
        write_attr_doubles(g, "clock_uncertainty_s", &s->clock_uncertainty_s, 1) &&
        write_col(g, "names", st, st, s->names, s->n_names) &&
        write_col(g, "name", H5T_STD_I32LE, H5T_NATIVE_INT32, s->name, s->n) &&
        write_col(g, "start", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s->start, s->n) &&
        write_col(g, "end", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s->end, s->n) &&
        (!s->parent || write_col(g, "parent", H5T_STD_I32LE, H5T_NATIVE_INT32, s->parent, s->n)) &&
        (!s->gpu || write_col(g, "gpu", H5T_STD_I16LE, H5T_NATIVE_INT16, s->gpu, s->n)) &&
        (!s->busy_s || write_col(g, "busy_s", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, s->busy_s, s->n)) &&
        (!s->tokens || write_col(g, "tokens", H5T_STD_I32LE, H5T_NATIVE_INT32, s->tokens, s->n)) &&
        (!s->step || write_col(g, "step", H5T_STD_I32LE, H5T_NATIVE_INT32, s->step, s->n));
    CLOSE(st, H5Tclose);
    CLOSE(g, H5Gclose);
    return ok;
}

static int write_sensor(hid_t run, const jl_sensor *z)
{
    if (H5Lexists(run, "power", H5P_DEFAULT) <= 0)
        return 1;
    hid_t g = H5Gopen2(run, "power", H5P_DEFAULT);
    if (g < 0)
        return 0;
    int ok = write_attr_doubles(g, "update_period_s", &z->update_period_s, 1) &&
             write_attr_doubles(g, "watts_window_s", &z->watts_window_s, 1) &&
             write_attr_doubles(g, "watts_delay_s", &z->watts_delay_s, 1) &&
             write_attr_doubles(g, "energy_delay_s", &z->energy_delay_s, 1) &&
             write_attr_str(g, "watts_kind", z->watts_kind) &&
             write_attr_str(g, "calibration", z->calibration);
    CLOSE(g, H5Gclose);
    return ok;
}

/* The trace copied into the open temporary `to` (its mode kept). */
static int copy_file(const char *from, int to)
{
    char why[128];
    int in = jl__open_input(from, why, sizeof why);
    char buf[1 << 16];
    ssize_t k = 0;
    int ok = in >= 0;
    struct stat sb;
    if (ok && fstat(in, &sb) == 0)
        (void)fchmod(to, sb.st_mode & 07777);
    while (ok && (k = read(in, buf, sizeof buf)) != 0) {
        if (k < 0) {
            ok = errno == EINTR;
            continue;
        }
        for (ssize_t w = 0, n; ok && w < k; w += n)
            if ((n = write(to, buf + w, (size_t)(k - w))) < 0)
                ok = 0;
    }
    int e = errno;
    if (in >= 0)
        close(in);
    if (close(to) != 0 && ok) {
        e = errno;
        ok = 0;
    }
    errno = e;
    return ok;
}

/* One writer of a folder's traces at a time (two `import --into` of one
 * trace would each copy the original and the second rename would drop the
 * first one's spans): an exclusive lock on the folder, held from the copy
 * to the rename, waited for. The folder, not the trace: the trace is
 * replaced by the rename, and HDF5 locks the trace itself for its readers.
 * The descriptor to close (which releases it), or -1 when the folder cannot
 * be opened (then written without it). */
static int lock_folder(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? jl__asprintf("%.*s", (int)(slash == path ? 1 : slash - path), path)
                      : jl__strdup(".");
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    free(dir);
    if (fd >= 0)
        while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
            ;
    return fd;
}

jl_status jl_trace_write_spans(const char *path, const char *run, const jl_spans *spans,
                               const jl_sensor *sensor, jl_error **err)
{
    return jl_trace_write_spans_reasons(path, run, spans, sensor, NULL, err);
}

jl_status jl_trace_write_spans_reasons(const char *path, const char *run, const jl_spans *spans,
                                       const jl_sensor *sensor, const char *validity_reasons,
                                       jl_error **err)
{
    if (jl__h5_init() != JL_OK)
        return jl_fail(err, JL_EINTERNAL, path, run, NULL, -1, "cannot initialise HDF5");
    char rpath[512];
    if (snprintf(rpath, sizeof rpath, "/runs/%s", run) >= (int)sizeof rpath)
        return jl_fail(err, JL_EUSAGE, path, run, NULL, -1, "run name too long");
    char *tmp = jl__asprintf("%s.spans-XXXXXX", path);
    if (!tmp)
        return JL_ENOMEM;
    int lock = lock_folder(path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        if (lock >= 0)
            close(lock);
        return jl_fail_output(err, JL_EIO, path, run, NULL, -1,
                              "cannot create a temporary file beside it: %s", strerror(e));
    }
    /* removed if the command is interrupted (jl_atomic_cleanup_signal) */
    (void)jl_atomic_register_file(tmp);
    jl_status st = JL_OK;
    hid_t f = -1, r = -1;
    if (!copy_file(path, fd)) {
        st = jl_fail_output(err, JL_EIO, path, run, NULL, -1, "cannot copy the trace: %s",
                            strerror(errno));
        goto end;
    }
    f = H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) {
        st = jl__h5_fail(err, JL_EIO, path, run, NULL, -1, "cannot open the trace for writing");
        goto end;
    }
    if (H5Lexists(f, "/runs", H5P_DEFAULT) <= 0 || H5Lexists(f, rpath, H5P_DEFAULT) <= 0) {
        st = jl_fail(err, JL_EUSAGE, path, run, NULL, -1, "no run '%s' in the trace", run);
        goto end;
    }
    r = H5Gopen2(f, rpath, H5P_DEFAULT);
    if (r < 0 || (spans && !write_group(r, spans)) || (sensor && !write_sensor(r, sensor)) ||
        (validity_reasons && !write_attr_str(r, "validity_reasons", validity_reasons))) {
        st = jl__h5_fail(err, JL_EIO, path, run, spans ? "spans" : "power", -1,
                         spans ? "cannot write spans/" : "cannot write power/'s attributes");
        goto end;
    }
end:
    CLOSE(r, H5Gclose);
    int e = 0;
    if (jl__h5_close_written(f, st == JL_OK, &e) < 0 && st == JL_OK)
        st = jl__h5_fail(err, JL_EIO, path, run, NULL, -1, "cannot finish writing the trace%s%s",
                         e ? ": " : "", e ? strerror(e) : "");
    if (st == JL_OK && rename(tmp, path) != 0)
        st = jl_fail_output(err, JL_EIO, path, run, NULL, -1, "cannot rename %s into place: %s",
                            tmp, strerror(errno));
    if (st != JL_OK)
        unlink(tmp);
    jl_atomic_unregister_file(tmp);
    if (lock >= 0)
        close(lock);
    free(tmp);
    return jl_error_mark_output(st, err);
}
