/* The reader's describe room: every dataset of a run described without
 * reading its data (jl_trace_describe_run), and the joules.inspect/1
 * document built from it and from jl_trace_read_run (jl_inspect_document;
 * docs/cli.md, "joules inspect"). */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/output.h"
#include "joules/trace.h"
#include "trace/trace_internal.h"

#define MAX_DESCRIBE_DEPTH 8

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
    jl__strbuf b;
    jl__strbuf_init(&b);
    jl__strbuf_puts(&b, "");
    /* data outside the file is said where the filters are (the reader
     * refuses it unless allowed: jl__check_storage) */
    H5D_layout_t layout = H5Pget_layout(dcpl);
    int ext = layout == H5D_CONTIGUOUS ? H5Pget_external_count(dcpl) : 0;
    size_t nv = 0;
    if (layout == H5D_VIRTUAL && H5Pget_virtual_count(dcpl, &nv) >= 0)
        jl__strbuf_printf(&b, "virtual dataset (%zu source%s in other files)", nv,
                          nv == 1 ? "" : "s");
    else if (ext > 0)
        jl__strbuf_printf(&b, "external storage (%d file%s)", ext, ext == 1 ? "" : "s");
    int nf = H5Pget_nfilters(dcpl);
    for (int i = 0; i < nf; i++) {
        unsigned flags = 0, cd[8] = {0};
        size_t ncd = 8;
        char fname[64] = "";
        H5Z_filter_t id =
            H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof fname, fname, NULL);
        if (i)
            jl__strbuf_puts(&b, "+");
        switch (id) {
        case H5Z_FILTER_SHUFFLE: jl__strbuf_puts(&b, "shuffle"); break;
        case H5Z_FILTER_DEFLATE: jl__strbuf_printf(&b, "deflate(%u)", ncd ? cd[0] : 0); break;
        case H5Z_FILTER_FLETCHER32: jl__strbuf_puts(&b, "fletcher32"); break;
        case H5Z_FILTER_SZIP: jl__strbuf_puts(&b, "szip"); break;
        case H5Z_FILTER_NBIT: jl__strbuf_puts(&b, "nbit"); break;
        case H5Z_FILTER_SCALEOFFSET: jl__strbuf_puts(&b, "scaleoffset"); break;
        case JL__ZSTD_FILTER_ID: jl__strbuf_printf(&b, "zstd(%u)", ncd ? cd[0] : 3); break;
        default: jl__strbuf_printf(&b, "filter%d", (int)id);
        }
    }
    H5Eclear2(H5E_DEFAULT);
    return jl__strbuf_take(&b);
}

static jl_status describe_dataset(describe_state *s, hid_t dset, const char *path)
{
    rctx at = rctx_at(s->c, path);
    jl_status st = JL_OK;
    hid_t ftype = H5Dget_type(dset), space = H5Dget_space(dset), dcpl = H5Dget_create_plist(dset);
    jl_dataset_info d;
    memset(&d, 0, sizeof d);
    char tname[32];
    if (ftype < 0 || space < 0 || dcpl < 0) {
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot read the type, shape or layout");
        goto end;
    }
    jl__type_name(ftype, tname, sizeof tname);
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
    d.path = jl__strdup(path);
    d.type = jl__strdup(tname);
    d.filters = filters_text(dcpl);
    if (!d.path || !d.type || !d.filters) {
        st = jl__rctx_fail(&at, JL_ENOMEM, NULL);
        goto end;
    }
    if (s->info->n_datasets == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 32;
        jl_dataset_info *n = realloc(s->info->datasets, cap * sizeof *n);
        if (!n) {
            st = jl__rctx_fail(&at, JL_ENOMEM, NULL);
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
    char *path = jl__asprintf("%s/%s", s->prefix, name);
    rctx at = rctx_at(s->c, path);
    if (!path) {
        s->st = jl__rctx_fail(&at, JL_ENOMEM, NULL);
        return -1;
    }
    hid_t o = H5Oopen(grp, name, H5P_DEFAULT);
    if (o < 0) {
        s->st = jl__rctx_h5_fail(&at, JL_EIO, "cannot open");
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
    rctx at = rctx_at(s->c, path);
    if (r < 0)
        return s->st = jl__rctx_h5_fail(&at, JL_EIO, "cannot list the group");
    return JL_OK;
}

jl_status jl_trace_describe_run(jl_trace *t, size_t i, jl_run_info *out, jl_error **err)
{
    memset(out, 0, sizeof *out);
    rctx c;
    jl_error *local = NULL;
    jl_status st = jl__run_ctx(t, i, err, &local, &c);
    if (st != JL_OK)
        return st;
    hid_t grp = -1;
    char *path = jl__asprintf("/runs/%s", t->runs[i]);
    if (!path || !(out->name = jl__strdup(t->runs[i]))) {
        st = jl__rctx_fail(&c, JL_ENOMEM, NULL);
        goto end;
    }
    if (t->row_of && t->row_of[i] != SIZE_MAX)
        goto end; /* a row of the summary table: no datasets */
    grp = H5Gopen2(t->file, path, H5P_DEFAULT);
    if (grp < 0) {
        rctx at = rctx_at(&c, path);
        st = jl__rctx_h5_fail(&at, JL_EIO, "cannot open");
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

/* ------------------------------------------------------------------ */
/* The joules.inspect/1 document                                       */

typedef struct series_info {
    const char *name;
    size_t n;
    const double *t;
} series_info;

static json_t *series_json(const series_info *si)
{
    json_t *o = json_object();
    json_object_set_new(o, "samples", json_integer((json_int_t)si->n));
    double span = si->n ? si->t[si->n - 1] - si->t[0] : NAN;
    json_object_set_new(o, "start_s", jl_json_number(si->n ? si->t[0] : NAN));
    json_object_set_new(o, "end_s", jl_json_number(si->n ? si->t[si->n - 1] : NAN));
    json_object_set_new(o, "rate_hz",
                        jl_json_number(si->n > 1 && span > 0 ? (double)(si->n - 1) / span : NAN));
    return o;
}

static json_t *range_json(const double *W, size_t S)
{
    json_t *a = json_array();
    for (size_t k = 0; k < S; k++)
        json_array_append_new(a, jl_json_number(W[k]));
    return a;
}

/* host/ (format 1.2): its sampling and what it records. */
static json_t *host_json(const jl_run *run)
{
    series_info si = {"host", run->host_n, run->host_time};
    json_t *o = series_json(&si), *ctr = json_array(), *rng = json_object();
    if (run->cpu_energy_j.v)
        json_array_append_new(ctr, json_string("cpu_energy_j"));
    if (run->dram_energy_j.v)
        json_array_append_new(ctr, json_string("dram_energy_j"));
    if (run->cpu_max_energy_range_j)
        json_object_set_new(rng, "cpu_energy_j",
                            range_json(run->cpu_max_energy_range_j, run->host_sockets));
    if (run->dram_max_energy_range_j)
        json_object_set_new(rng, "dram_energy_j",
                            range_json(run->dram_max_energy_range_j, run->host_sockets));
    json_object_set_new(o, "sockets", json_integer((json_int_t)run->host_sockets));
    json_object_set_new(o, "counters", ctr);
    json_object_set_new(o, "node_watts", json_boolean(run->node_watts != NULL));
    json_object_set_new(o, "max_energy_range_j", rng);
    json_object_set_new(o, "source",
                        run->host_source ? json_string(run->host_source) : json_null());
    return o;
}

static json_t *inspect_run(jl_trace *t, size_t i, jl_error_list *errors, int *bad)
{
    json_t *ro = json_object();
    const char *path = jl_trace_path(t);
    json_object_set_new(ro, "run", json_string(jl_trace_run_name(t, i)));
    jl_run_info info = {0};
    jl_error *err = NULL;
    if (jl_trace_describe_run(t, i, &info, &err) == JL_OK) {
        json_t *ds = json_array();
        for (size_t k = 0; k < info.n_datasets; k++) {
            const jl_dataset_info *d = &info.datasets[k];
            json_t *o = json_object();
            json_object_set_new(o, "path", json_string(d->path));
            json_object_set_new(o, "type", json_string(d->type ? d->type : "?"));
            json_t *dims = json_array();
            for (int r = 0; r < d->rank && r < 2; r++)
                json_array_append_new(dims, json_integer((json_int_t)d->dims[r]));
            json_object_set_new(o, "shape", dims);
            if (d->chunked) {
                json_t *ch = json_array();
                for (int r = 0; r < d->rank && r < 2; r++)
                    json_array_append_new(ch, json_integer((json_int_t)d->chunk[r]));
                json_object_set_new(o, "chunk", ch);
            } else {
                json_object_set_new(o, "chunk", json_null());
            }
            json_object_set_new(o, "filters", json_string(d->filters ? d->filters : ""));
            json_object_set_new(o, "storage_bytes", json_integer((json_int_t)d->storage_bytes));
            json_array_append_new(ds, o);
        }
        json_object_set_new(ro, "datasets", ds);
        jl_run_info_clear(&info);
    } else {
        jl_error_set_context(err, path, jl_trace_run_name(t, i));
        jl_error_list_push(errors, err);
        err = NULL;
        *bad = 1;
    }
    jl_run *run = NULL;
    if (jl_trace_read_run(t, i, &run, &err) == JL_OK) {
        const jl_attrs *a = &run->attrs;
        json_t *ao = json_object();
        json_object_set_new(ao, "workload", json_string(a->workload));
        json_object_set_new(ao, "model", json_string(a->model));
        json_object_set_new(ao, "task", json_string(a->task));
        json_object_set_new(ao, "gpu_model", json_string(a->gpu_model));
        json_object_set_new(ao, "num_gpus", json_integer(a->num_gpus));
        json_object_set_new(ao, "precision", json_string(a->precision));
        json_object_set_new(ao, "max_batch_size",
                            jl_attrs_known(a, "max_batch_size") ? json_integer(a->max_batch_size)
                                                                : json_null());
        json_object_set_new(ro, "attributes", ao);
        json_t *so = json_object();
        series_info si[] = {
            {"power", run->power_n, run->power_time},
            {"gpu", run->gpu_n, run->gpu_time},
            {"engine", run->engine_n, run->engine_time},
        };
        for (size_t k = 0; k < sizeof si / sizeof si[0]; k++)
            if (si[k].n)
                json_object_set_new(so, si[k].name, series_json(&si[k]));
        if (run->req_n)
            json_object_set_new(so, "requests", json_pack("{s:I}", "rows", (json_int_t)run->req_n));
        if (run->itl_n)
            json_object_set_new(so, "itl", json_pack("{s:I}", "samples", (json_int_t)run->itl_n));
        if (run->batch_n)
            json_object_set_new(so, "batches",
                                json_pack("{s:I}", "rows", (json_int_t)run->batch_n));
        if (run->host_n)
            json_object_set_new(so, "host", host_json(run));
        json_object_set_new(so, "summary_only",
                            json_boolean(run->summary.present && !run->power_n));
        json_object_set_new(ro, "series", so);
        json_object_set_new(ro, "valid", json_true());
    } else {
        jl_error_set_context(err, path, jl_trace_run_name(t, i));
        char *msg = jl_error_format(err);
        json_object_set_new(ro, "valid", json_false());
        json_object_set_new(ro, "problem", json_string(msg ? msg : "?"));
        free(msg);
        jl_error_list_push(errors, err);
        *bad = 1;
    }
    jl_run_free(run);
    return ro;
}

json_t *jl_inspect_document(const char *const *files, size_t n_files, jl_error_list *errors,
                            size_t *n_ok, size_t *n_bad)
{
    json_t *doc = json_object(), *farr = json_array();
    json_object_set_new(doc, "schema", json_string("joules.inspect/1"));
    *n_ok = *n_bad = 0;
    for (size_t f = 0; f < n_files; f++) {
        jl_trace *t = NULL;
        jl_error *err = NULL;
        if (jl_trace_open(files[f], NULL, &t, &err) != JL_OK) {
            jl_error_set_context(err, files[f], NULL);
            jl_error_list_push(errors, err);
            (*n_bad)++;
            continue;
        }
        json_t *fo = json_object(), *runs = json_array();
        json_object_set_new(fo, "file", json_string(files[f]));
        if (jl_trace_harness(t))
            json_object_set_new(fo, "harness", json_string(jl_trace_harness(t)));
        if (jl_trace_created_utc(t))
            json_object_set_new(fo, "created_utc", json_string(jl_trace_created_utc(t)));
        if (jl_trace_provenance(t)) { /* JSON as JSON; anything else as the text it is */
            json_t *pv = json_loads(jl_trace_provenance(t), JSON_DECODE_ANY, NULL);
            json_object_set_new(fo, "provenance", pv ? pv : json_string(jl_trace_provenance(t)));
        }
        int bad = 0;
        for (size_t i = 0; i < jl_trace_run_count(t); i++)
            json_array_append_new(runs, inspect_run(t, i, errors, &bad));
        json_object_set_new(fo, "runs", runs);
        json_array_append_new(farr, fo);
        if (bad)
            (*n_bad)++;
        else
            (*n_ok)++;
        jl_trace_close(t);
    }
    json_object_set_new(doc, "files", farr);
    json_object_set_new(doc, "errors", jl_errors_to_json(errors));
    return doc;
}
