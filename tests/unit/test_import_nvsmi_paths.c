/* nvidia-smi import: the in-memory reader (jl_import_nvidia_smi, then each
 * run written) and the streamed one (jl_import_nvidia_smi_write) give the
 * same trace on every nvidia-smi fixture of the repository and on the
 * nvidia-smi logs of ../shared/realworld (the _data entry; skipped with
 * one line without them). "The same": every group, dataset (type, shape,
 * values) and attribute, read back through HDF5 and dumped as text; only
 * the creation time and the provenance are left out, and the storage
 * layout (a streamed dataset is chunked and extendable). */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joules/import.h"
#include "joules/trace_write.h"
#include "test.h"

static const jl_kv REQUIRED_SET[] = {{"workload", "llm", 0},     {"model", "org/m", 0},
                                     {"task", "chat", 0},        {"precision", "bfloat16", 0},
                                     {"max_batch_size", "8", 1}, {"gpu_model", "H100", 0}};

typedef struct dump {
    char *s;
    size_t n, cap;
} dump;

static void put(dump *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(dump *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (w < 0)
        return;
    if (d->n + (size_t)w + 1 > d->cap) {
        size_t nc = (d->n + (size_t)w + 1) * 2;
        char *x = realloc(d->s, nc);
        if (!x)
            return;
        d->s = x;
        d->cap = nc;
    }
    va_start(ap, fmt);
    vsnprintf(d->s + d->n, d->cap - d->n, fmt, ap);
    va_end(ap);
    d->n += (size_t)w;
}

/* n values of an attribute or dataset with file type ft: strings as
 * text, numbers exactly (%a). */
static void put_values(dump *d, hid_t ft, hsize_t n, int is_attr, hid_t obj)
{
    if (H5Tget_class(ft) == H5T_STRING) {
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        char **v = calloc(n ? n : 1, sizeof *v);
        herr_t e;
        if (H5Tis_variable_str(ft) > 0) {
            e = is_attr ? H5Aread(obj, mt, v) : H5Dread(obj, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
            for (hsize_t i = 0; e >= 0 && i < n; i++)
                put(d, " \"%s\"", v[i] ? v[i] : "");
            if (e >= 0) {
                hid_t sp = is_attr ? H5Aget_space(obj) : H5Dget_space(obj);
                H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, v);
                H5Sclose(sp);
            }
        } else {
            size_t sz = H5Tget_size(ft);
            char *buf = calloc(n * sz + 1, 1);
            hid_t ft2 = H5Tcopy(ft);
            e = is_attr ? H5Aread(obj, ft2, buf)
                        : H5Dread(obj, ft2, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
            for (hsize_t i = 0; e >= 0 && i < n; i++)
                put(d, " \"%.*s\"", (int)strnlen(buf + i * sz, sz), buf + i * sz);
            H5Tclose(ft2);
            free(buf);
        }
        if (e < 0)
            put(d, " (unreadable)");
        free(v);
        H5Tclose(mt);
        return;
    }
    double *v = calloc(n ? n : 1, sizeof *v);
    herr_t e = is_attr ? H5Aread(obj, H5T_NATIVE_DOUBLE, v)
                       : H5Dread(obj, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    for (hsize_t i = 0; e >= 0 && i < n; i++)
        put(d, " %a", v[i]);
    if (e < 0)
        put(d, " (unreadable)");
    free(v);
}

static void put_type(dump *d, hid_t ft)
{
    put(d, " class %d size %zu", (int)H5Tget_class(ft),
        H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) > 0 ? (size_t)0 : H5Tget_size(ft));
}

static herr_t on_attr(hid_t loc, const char *name, const H5A_info_t *info, void *vd)
{
    (void)info;
    dump *d = vd;
    if (!strcmp(name, "created_utc") || !strcmp(name, "provenance"))
        return 0; /* when and by which command: differ by design */
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT), ft = H5Aget_type(a), sp = H5Aget_space(a);
    hssize_t n = H5Sget_simple_extent_npoints(sp);
    put(d, "  @%s", name);
    put_type(d, ft);
    put(d, " n %lld:", (long long)n);
    put_values(d, ft, (hsize_t)(n > 0 ? n : 0), 1, a);
    put(d, "\n");
    H5Sclose(sp);
    H5Tclose(ft);
    H5Aclose(a);
    return 0;
}

static herr_t on_object(hid_t root, const char *name, const H5O_info_t *info, void *vd)
{
    dump *d = vd;
    hid_t o = H5Oopen(root, name, H5P_DEFAULT);
    if (info->type == H5O_TYPE_DATASET) {
        hid_t ft = H5Dget_type(o), sp = H5Dget_space(o);
        hsize_t dims[8] = {0};
        int rank = H5Sget_simple_extent_dims(sp, dims, NULL);
        put(d, "%s dataset", name);
        put_type(d, ft);
        put(d, " dims");
        for (int i = 0; i < rank; i++)
            put(d, " %llu", (unsigned long long)dims[i]);
        put(d, ":");
        hssize_t n = H5Sget_simple_extent_npoints(sp);
        put_values(d, ft, (hsize_t)(n > 0 ? n : 0), 0, o);
        put(d, "\n");
        H5Sclose(sp);
        H5Tclose(ft);
    } else {
        put(d, "%s %s\n", name, info->type == H5O_TYPE_GROUP ? "group" : "other");
    }
    hsize_t idx = 0;
    H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_INC, &idx, on_attr, d);
    H5Oclose(o);
    return 0;
}

/* The trace at path as text (NULL when it does not open). */
static char *trace_text(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return NULL;
    dump d = {0};
    H5Ovisit(f, H5_INDEX_NAME, H5_ITER_INC, on_object, &d);
    H5Fclose(f);
    return d.s ? d.s : calloc(1, 1);
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

static int n_compared;

/* One log both ways: the same status, runs and trace text. */
static void same_both_ways(const char *what, const char *log, const char *runs, int runs_auto,
                           const char *zone)
{
    char dir[] = "/tmp/joules-nvsmi-paths-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char p_mem[300], p_str[300], p_auto[300];
    snprintf(p_mem, sizeof p_mem, "%s/mem.h5", dir);
    snprintf(p_str, sizeof p_str, "%s/stream.h5", dir);
    snprintf(p_auto, sizeof p_auto, "%s/auto.runs.csv", dir);
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.set = REQUIRED_SET;
    o.n_set = sizeof REQUIRED_SET / sizeof REQUIRED_SET[0];
    o.timezone = zone;
    o.runs_csv = runs;
    o.runs_auto = runs_auto;
    o.runs_out = runs_auto ? p_auto : NULL;
    o.auto_min_run_s = 0.5; /* the short loads of the test's logs are runs */
    o.force = 1;
    jl_trace_write_options wo;
    jl_trace_write_options_default(&wo);
    wo.created_utc = "2026-01-01T00:00:00Z";
    wo.chunk_rows = 7; /* streamed runs over several chunks */
    const char *logs[] = {log};

    /* in memory, then written */
    jl_import_result *rm = NULL;
    jl_error_list em = {0};
    jl_error *err = NULL;
    jl_status sm = jl_import_nvidia_smi(logs, 1, &o, &rm, &em);
    jl_trace_writer *w = NULL;
    CHECK(jl_trace_writer_open(p_mem, &wo, &w, &err) == JL_OK);
    for (size_t i = 0; w && rm && i < rm->n_runs; i++)
        CHECK(jl_trace_writer_add_run(w, rm->runs[i], &err) == JL_OK);
    if (w && sm == JL_OK)
        CHECK(jl_trace_writer_commit(w, &err) == JL_OK);
    else
        jl_trace_writer_abort(w);

    /* streamed */
    jl_import_result *rs = NULL;
    jl_error_list es = {0};
    w = NULL;
    CHECK(jl_trace_writer_open(p_str, &wo, &w, &err) == JL_OK);
    jl_status ss = w ? jl_import_nvidia_smi_write(logs, 1, &o, w, &rs, &es) : JL_EIO;
    if (w && ss == JL_OK)
        CHECK(jl_trace_writer_commit(w, &err) == JL_OK);
    else
        jl_trace_writer_abort(w);

    jt_current = what;
    if (getenv("NVSMI_PATHS_VERBOSE")) {
        char *m = em.count ? jl_error_format(em.items[0]) : NULL;
        fprintf(stderr, "[%s] status %d, %zu runs, %s\n", what, (int)sm, rm ? rm->n_runs : 0,
                m ? m : "no error");
        free(m);
    }
    CHECK_EQ_INT(ss, sm);
    CHECK_EQ_INT(es.count, em.count);
    CHECK_EQ_INT(rs ? rs->n_runs : 0, rm ? rm->n_runs : 0);
    if (sm == JL_OK && ss == JL_OK) {
        char *a = trace_text(p_mem), *b = trace_text(p_str);
        CHECK(a && b && strlen(a) > 100);
        CHECK(a && b && !strcmp(a, b));
        if (a && b && strcmp(a, b)) { /* the first line that differs */
            size_t i = 0;
            while (a[i] && a[i] == b[i])
                i++;
            while (i > 0 && a[i - 1] != '\n')
                i--;
            fprintf(stderr, "[%s] in memory: %.300s\n[%s] streamed:  %.300s\n", what, a + i, what,
                    b + i);
        }
        free(a);
        free(b);
        n_compared++;
    }
    jl_error_free(err);
    jl_import_result_free(rm);
    jl_import_result_free(rs);
    jl_error_list_clear(&em);
    jl_error_list_clear(&es);
    unlink(p_mem);
    unlink(p_str);
    unlink(p_auto);
    rmdir(dir);
}

/* A log written to a file of the test's own, then both ways. */
static void same_for_text(const char *what, const char *text, int runs_auto)
{
    char dir[] = "/tmp/joules-nvsmi-log-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char p[300];
    snprintf(p, sizeof p, "%s/log.csv", dir);
    CHECK(write_file(p, text));
    same_both_ways(what, p, NULL, runs_auto, "UTC");
    unlink(p);
    rmdir(dir);
}

/* Two logging sessions (a repeated header past the gap limit), throttle
 * reasons, power.draw.average and an enforced limit, a missing value, and
 * a last line cut mid-value. */
static const char *SESSIONS =
    "timestamp, index, name, power.draw [W], power.draw.average [W], enforced.power.limit [W], "
    "clocks_event_reasons.sw_power_cap, utilization.gpu [%], temperature.gpu\n"
    "2026/11/23 10:00:00.000, 0, NVIDIA H100 80GB HBM3, 100.0 W, 99.0 W, 700.00 W, Not Active, 10 %, 40\n"
    "2026/11/23 10:00:00.500, 0, NVIDIA H100 80GB HBM3, 300.0 W, 250.0 W, 700.00 W, Not Active, 90 %, 41\n"
    "2026/11/23 10:00:01.000, 0, NVIDIA H100 80GB HBM3, 690.0 W, 680.0 W, 700.00 W, Active, [N/A], 42\n"
    "2026/11/23 10:00:01.500, 0, NVIDIA H100 80GB HBM3, 695.0 W, 690.0 W, 700.00 W, Active, 95 %, 43\n"
    "2026/11/23 10:00:02.000, 0, NVIDIA H100 80GB HBM3, 120.0 W, 200.0 W, 700.00 W, Not Active, 20 %, 42\n"
    "timestamp, index, name, power.draw [W], power.draw.average [W], enforced.power.limit [W], "
    "clocks_event_reasons.sw_power_cap, utilization.gpu [%], temperature.gpu\n"
    "2026/11/23 11:00:00.000, 0, NVIDIA H100 80GB HBM3, 110.0 W, 100.0 W, 600.00 W, Not Active, 10 %, 38\n"
    "2026/11/23 11:00:00.500, 0, NVIDIA H100 80GB HBM3, 400.0 W, 300.0 W, 600.00 W, Not Active, 70 %, 39\n"
    "2026/11/23 11:00:01.000, 0, NVIDIA H100 80GB HBM3, 410.0 W, 400.0 W, 600.00 W, Not Active, 75 %, 40\n"
    "2026/11/23 11:00:01.500, 0, NVIDIA H100 80GB HBM3, 105.0 W, 200.0 W, 600.00 W, Not Active, 5 %, 39\n"
    "2026/11/23 11:00:02.000, 0, NVIDIA H100 80GB HBM3, 10";

/* A spreadsheet's ';' export with decimal commas, two GPUs. */
static const char *SEMI = "timestamp;index;power.draw [W];memory.used [MiB]\n"
                          "2026/11/23 10:00:00.000;0;100,50 W;1024 MiB\n"
                          "2026/11/23 10:00:00.010;1;200,25 W;2048 MiB\n"
                          "2026/11/23 10:00:01.000;0;110,50 W;1024 MiB\n"
                          "2026/11/23 10:00:01.010;1;210,25 W;2048 MiB\n"
                          "2026/11/23 10:00:02.000;0;120,50 W;1024 MiB\n"
                          "2026/11/23 10:00:02.010;1;220,25 W;2048 MiB\n";

/* `nvidia-smi dmon -o DT` output. */
static const char *DMON = "#Date       Time        gpu    pwr  gtemp     sm    mem    fb\n"
                          "#YYYYMMDD   HH:MM:SS    Idx      W      C      %      %    MB\n"
                          " 20261123   10:00:00      0    101     40     10      5  1024\n"
                          " 20261123   10:00:01      0    350     45     80     40  2048\n"
                          " 20261123   10:00:02      0    360     46      -     41  2048\n"
                          " 20261123   10:00:03      0    120     44     12      6  1024\n";

/* Every nvidia-smi fixture of the repository: the golden log alone, with
 * its RUNS.csv, with --runs auto; and the logs above. */
TEST(test_fixtures_agree)
{
    char log[512], runs[512];
    snprintf(log, sizeof log, "%s/tests/golden/data/nvsmi-2gpu.csv", JOULES_SOURCE_DIR);
    snprintf(runs, sizeof runs, "%s/tests/golden/data/nvsmi-runs.csv", JOULES_SOURCE_DIR);
    same_both_ways("nvsmi-2gpu.csv", log, NULL, 0, "UTC");
    same_both_ways("nvsmi-2gpu.csv --runs nvsmi-runs.csv", log, runs, 0, "UTC");
    same_both_ways("nvsmi-2gpu.csv --runs auto", log, NULL, 1, "UTC");
    snprintf(log, sizeof log, "%s/tests/golden/data/nvsmi-bad-unit.csv", JOULES_SOURCE_DIR);
    same_both_ways("nvsmi-bad-unit.csv (an error both ways)", log, NULL, 0, "UTC");
    same_for_text("sessions, throttling, a cut last line", SESSIONS, 0);
    same_for_text("sessions --runs auto", SESSIONS, 1);
    same_for_text("';' and decimal commas", SEMI, 0);
    same_for_text("dmon -o DT", DMON, 0);
    CHECK_EQ_INT(n_compared, 7); /* all but the bad unit wrote traces */
}

/* The nvidia-smi logs of ../shared/realworld, each whole and with --runs
 * auto. */
TEST(test_realworld_agree)
{
    static const char *const logs[] = {
        "realworld/nvidia-smi-h100/nvidia-smi-100ms.csv",
        "realworld/public-corpus/nvidia-smi/flame-fluidsgl/fluidsGL-smi.csv",
        "realworld/public-corpus/nvidia-smi/xypp3-8gpu-wrapper/nvidia_smi.csv",
    };
    n_compared = 0;
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", JOULES_SHARED_DIR, logs[i]);
        SKIP_UNLESS_READABLE(p);
        same_both_ways(logs[i], p, NULL, 0, "UTC");
        same_both_ways(logs[i], p, NULL, 1, "UTC");
    }
    CHECK(n_compared >= 3);
    fprintf(stderr, "realworld: %d traces compared\n", n_compared);
}

int main(int argc, char **argv)
{
    TEST_ARGS(argc, argv);
    RUN(test_fixtures_agree);
    RUN_DATA(test_realworld_agree);
    TEST_MAIN_END();
}
