/* host/ (trace format 1.2, docs/trace-format.md): the attributes of the
 * group and its counters, and the rule that ties the counters to their
 * wrap value. The datasets themselves are read by the column table of
 * trace_columns.c like every other group's (trace_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/trace.h"
#include "trace/trace_internal.h"

/* @max_energy_range_j of counter dataset `name` (object path obj): a
 * number, or one per socket; each finite and > 0, or NaN (not known for
 * that socket). *out = S values (NULL when the attribute is absent). */
static jl_status read_range(rctx *c, hid_t grp, const char *obj, const char *name, size_t S,
                            double **out)
{
    rctx at = rctx_at(c, obj);
    at.attr = "max_energy_range_j";
    jl_status st = JL_OK;
    hid_t d = -1, a = -1, sp = -1, ft = -1;
    double *v = NULL;
    *out = NULL;
    if ((d = H5Dopen2(grp, name, H5P_DEFAULT)) < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot open");
        goto end;
    }
    htri_t ex = H5Aexists(d, "max_energy_range_j");
    if (ex <= 0) {
        if (ex < 0)
            st = jl__rctx_h5_fail(&at, JL_EIO, "cannot read the attributes");
        goto end;
    }
    if ((a = H5Aopen(d, "max_energy_range_j", H5P_DEFAULT)) < 0 || (sp = H5Aget_space(a)) < 0 ||
        (ft = H5Aget_type(a)) < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot open the attribute");
        goto end;
    }
    H5T_class_t k = H5Tget_class(ft);
    hssize_t m = H5Sget_simple_extent_npoints(sp);
    if ((k != H5T_FLOAT && k != H5T_INTEGER) || !(m == 1 || (m > 0 && (size_t)m == S))) {
        char tname[32];
        jl__type_name(ft, tname, sizeof tname);
        st = jl__rctx_fail(&at, JL_ETYPE,
                           "must be a number or %zu numbers (one per socket), found %lld "
                           "value%s of type %s",
                           S, (long long)m, m == 1 ? "" : "s", tname);
        goto end;
    }
    if (!(v = jl__malloc_array(S, sizeof *v))) {
        st = jl__rctx_fail(&at, JL_ENOMEM, NULL);
        goto end;
    }
    if (H5Aread(a, H5T_NATIVE_DOUBLE, v) < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot read the attribute");
        goto end;
    }
    for (size_t s = 1; m == 1 && s < S; s++)
        v[s] = v[0];
    for (size_t s = 0; s < S; s++)
        if (!isnan(v[s]) && !(isfinite(v[s]) && v[s] > 0)) {
            char x[40];
            jl__fmt_double(x, sizeof x, v[s]);
            st = jl__rctx_fail(&at, JL_EINVALID,
                               "must be a positive number of joules (or NaN: unknown), found "
                               "%s for socket %zu",
                               x, s);
            goto end;
        }
    *out = v;
    v = NULL;
end:
    free(v);
    CLOSE(ft, H5Tclose);
    CLOSE(sp, H5Sclose);
    CLOSE(a, H5Aclose);
    CLOSE(d, H5Dclose);
    return st;
}

/* A counter with a known wrap value reads 0..W (RAPL's energy_uj never
 * leaves that range): anything else is not what @max_energy_range_j says. */
static jl_status check_range(rctx *c, const char *obj, const jl_series *e, const double *W)
{
    rctx at = rctx_at(c, obj);
    for (size_t i = 0; i < e->n; i++)
        for (size_t s = 0; s < e->g; s++) {
            double x = e->v[i * e->g + s], w = W[s];
            if (isnan(w) || (x >= 0 && x <= w))
                continue;
            char a[40], b[40];
            jl__fmt_double(a, sizeof a, x);
            jl__fmt_double(b, sizeof b, w);
            return jl__rctx_fail_row(&at, JL_EINVALID, (long long)i,
                                     "%s J at row %zu, socket %zu: outside 0..%s J "
                                     "(@max_energy_range_j, where the counter wraps)",
                                     a, i, s, b);
        }
    return JL_OK;
}

jl_status jl__read_host_attrs(rctx *c, hid_t grp, const char *gpath, jl_run *r)
{
    jl_status st = JL_OK;
    attr_val v;
    jl__attr_val_init(&v);
    char *obj = NULL;
    htri_t ex = H5Aexists(grp, "source");
    rctx at = rctx_at(c, gpath);
    if (ex < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot read the attributes");
        goto end;
    }
    if (ex > 0) {
        if ((st = jl__read_attr(c, grp, gpath, "source", &v)) != JL_OK)
            goto end;
        if (v.kind != AV_STRING) {
            at.attr = "source";
            st = jl__rctx_fail(&at, JL_ETYPE, "must be a string, found %s (%s)", jl__kind_word(&v),
                               jl__av_tname(&v));
            goto end;
        }
        r->host_source = v.text;
        v.text = NULL;
    }
    struct {
        const char *name;
        const jl_series *e;
        double **range;
    } ctr[] = {{"cpu_energy_j", &r->cpu_energy_j, &r->cpu_max_energy_range_j},
               {"dram_energy_j", &r->dram_energy_j, &r->dram_max_energy_range_j}};
    for (size_t k = 0; k < 2; k++) {
        if (!ctr[k].e->v)
            continue;
        free(obj);
        if (!(obj = jl__asprintf("%s/%s", gpath, ctr[k].name))) {
            st = jl__rctx_fail(&at, JL_ENOMEM, NULL);
            goto end;
        }
        if ((st = read_range(c, grp, obj, ctr[k].name, ctr[k].e->g, ctr[k].range)) != JL_OK)
            goto end;
        if (*ctr[k].range && (st = check_range(c, obj, ctr[k].e, *ctr[k].range)) != JL_OK)
            goto end;
    }
end:
    free(obj);
    jl__attr_val_clear(&v);
    return st;
}

/* power/@watts_kind (format 1.2, "Sensor attributes on power/"): how the
 * `watts` readings were taken, so that a peak says whether it is an
 * instant or a 1-s average (docs/summary.md, peak_power_kind). */
jl_status jl__read_power_attrs(rctx *c, hid_t grp, const char *gpath, jl_run *r)
{
    htri_t ex = H5Aexists(grp, "watts_kind");
    rctx at = rctx_at(c, gpath);
    if (ex <= 0)
        return ex < 0 ? jl__rctx_h5_fail(&at, JL_EIO, "cannot read the attributes") : JL_OK;
    attr_val v;
    jl__attr_val_init(&v);
    jl_status st = jl__read_attr(c, grp, gpath, "watts_kind", &v);
    at.attr = "watts_kind";
    if (st == JL_OK && v.kind != AV_STRING)
        st = jl__rctx_fail(&at, JL_ETYPE, "must be a string, found %s (%s)", jl__kind_word(&v),
                           jl__av_tname(&v));
    else if (st == JL_OK && strcmp(v.text, "instant") && strcmp(v.text, "average_1s"))
        st = jl__rctx_fail(&at, JL_EINVALID, "'%s': expected instant or average_1s", v.text);
    if (st == JL_OK) {
        free(r->power_watts_kind);
        r->power_watts_kind = v.text;
        v.text = NULL;
    }
    jl__attr_val_clear(&v);
    return st;
}
