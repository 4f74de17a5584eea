/* The summary table (/summary_table, docs/trace-format.md): summary-only runs
 * written as columns read back exactly as the same runs written as groups;
 * runs that do not fit stay groups; a malformed table is refused with a
 * message naming the column, a bad row with one naming the run. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>

#include "study/study_internal.h"
#include "test_trace_fixtures.h"
#include "trace/trace_internal.h"

static void add_extra(jl_attrs *a, const char *k, const char *v, int num)
{
    CHECK_EQ_INT(jl_attrs_add_extra(a, k, v, num), JL_OK);
}

/* Four summary-only runs that differ in which attributes they carry, and
 * two runs with time series. */
static size_t make_runs(jl_run **runs)
{
    size_t n = 0;
    runs[n++] = tf_make_summary_run("s0128");
    jl_run *r = tf_make_summary_run("s0001");
    free(r->attrs.precision);
    r->attrs.precision = jl__strdup("bfloat16");
    r->attrs.tensor_parallel = 2;
    r->attrs.num_gpus = 2;
    r->attrs.total_params = 8.2e9;
    r->attrs.notes = jl__strdup("a note, with \"quotes\" and UTF-8: \xc3\xa9");
    add_extra(&r->attrs, "nickname", "Qwen 3 8B", 0);
    add_extra(&r->attrs, "ring_degree", "1", 1);
    add_extra(&r->attrs, "fps", "16.5", 1);
    add_extra(&r->attrs, "big", "9007199254740993", 1); /* beyond 2^53: stays int64 */
    r->summary.p99_itl_s = 0.5;
    runs[n++] = r;
    r = tf_make_summary_run("s0064");
    free(r->attrs.workload);
    r->attrs.workload = jl__strdup("diffusion");
    r->attrs.height = r->attrs.width = 1024;
    r->summary.energy_per_token_j = jl__nan();
    r->summary.energy_per_item_j = 341.98;
    add_extra(&r->attrs, "ring_degree", "4", 1);
    add_extra(&r->attrs, "fps", "24", 1); /* int beside 16.5: a float64 column */
    runs[n++] = r;
    r = tf_make_summary_run("s0002");
    for (size_t i = 0; i < r->summary.n_extra; i++) {
        free(r->summary.extra[i].key);
        free(r->summary.extra[i].value);
    }
    r->summary.n_extra = 0;
    runs[n++] = r;
    runs[n++] = tf_make_run("b0008", 30, 1);
    runs[n++] = tf_make_diffusion_run("d0004", 10);
    return n;
}

static int has_link(const char *path, const char *link)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    int r = f >= 0 && H5Lexists(f, link, H5P_DEFAULT) > 0;
    if (f >= 0)
        H5Fclose(f);
    return r;
}

static jl_trace *open_ok(const char *path)
{
    jl_trace *t = NULL;
    jl_error *e = NULL;
    CHECK_EQ_INT(jl_trace_open(path, NULL, &t, &e), JL_OK);
    if (e) {
        char *m = jl_error_format(e);
        fprintf(stderr, "%s\n", m);
        free(m);
        jl_error_free(e);
    }
    return t;
}

TEST(table_reads_as_groups)
{
    jl_run *runs[8];
    size_t n = make_runs(runs);
    char *pt = tf_path("table.h5"), *pg = tf_path("groups.h5");
    jl_trace_write_options o;
    jl_trace_write_options_default(&o);
    CHECK_EQ_INT(jl_trace_write(pt, (const jl_run *const *)runs, n, &o, NULL), JL_OK);
    o.summary_table = 0;
    CHECK_EQ_INT(jl_trace_write(pg, (const jl_run *const *)runs, n, &o, NULL), JL_OK);
    CHECK(has_link(pt, "summary_table"));
    CHECK(!has_link(pt, "runs/s0001") && has_link(pt, "runs/b0008") && has_link(pt, "runs/d0004"));
    CHECK(!has_link(pg, "summary_table") && has_link(pg, "runs/s0001"));
    CHECK(has_link(pt, "summary_table/attrs_absent/notes"));
    CHECK(!has_link(pt, "summary_table/attrs_absent/model")); /* in every row: no mask */
    jl_trace *tt = open_ok(pt), *tg = open_ok(pg);
    if (tt && tg) {
        CHECK_EQ_INT(jl_trace_run_count(tt), n);
        CHECK_EQ_INT(jl_trace_run_count(tg), n);
        for (size_t i = 0; i < n && i < jl_trace_run_count(tt); i++) {
            CHECK_STR(jl_trace_run_name(tt, i), jl_trace_run_name(tg, i));
            jl_run *a = NULL, *b = NULL;
            CHECK_EQ_INT(jl_trace_read_run(tt, i, &a, NULL), JL_OK);
            CHECK_EQ_INT(jl_trace_read_run(tg, i, &b, NULL), JL_OK);
            if (a && b) {
                CHECK(tf_runs_equal(a, b));
                /* and as written */
                for (size_t k = 0; k < n; k++)
                    if (!strcmp(runs[k]->name, a->name))
                        CHECK(tf_runs_equal(runs[k], a));
                /* extras in name order, as the attribute walk gives them */
                for (size_t k = 1; k < a->attrs.n_extra; k++)
                    CHECK(strcmp(a->attrs.extra[k - 1].key, a->attrs.extra[k].key) < 0);
            }
            jl_run_free(a);
            jl_run_free(b);
        }
        jl_run *s = NULL;
        CHECK_EQ_INT(jl_trace_read_run(tt, 2, &s, NULL), JL_OK); /* s0001 */
        if (s) {
            char v[64];
            CHECK_EQ_INT(jl_attrs_get(&s->attrs, "big", v, sizeof v), 0);
            CHECK_STR(v, "9007199254740993");
            CHECK_EQ_INT(jl_attrs_get(&s->attrs, "fps", v, sizeof v), 0);
            CHECK_STR(v, "16.5");
        }
        jl_run_free(s);
        jl_run_info info;
        CHECK_EQ_INT(jl_trace_describe_run(tt, 2, &info, NULL), JL_OK);
        CHECK_EQ_INT(info.n_datasets, 0);
        jl_run_info_clear(&info);
    }
    jl_trace_close(tt);
    jl_trace_close(tg);
    for (size_t i = 0; i < n; i++)
        jl_run_free(runs[i]);
    free(pt);
    free(pg);
}

TEST(runs_that_do_not_fit_stay_groups)
{
    jl_run *a = tf_make_summary_run("a"), *b = tf_make_summary_run("b"),
           *c = tf_make_summary_run("c");
    add_extra(&a->attrs, "x", "abc", 0);
    add_extra(&b->attrs, "x", "5", 1);   /* strings and numbers in one column */
    add_extra(&c->attrs, "y/z", "1", 1); /* no dataset can be named so */
    const jl_run *runs[3] = {a, b, c};
    char *p = tf_path("mixed.h5");
    CHECK_EQ_INT(jl_trace_write(p, runs, 3, NULL, NULL), JL_OK);
    CHECK(has_link(p, "runs/a") && has_link(p, "runs/b") && has_link(p, "runs/c"));
    CHECK(!has_link(p, "summary_table"));
    /* one that fits beside them goes into the table */
    jl_run *d = tf_make_summary_run("d");
    const jl_run *runs4[4] = {a, b, c, d};
    CHECK_EQ_INT(jl_trace_write(p, runs4, 4, NULL, NULL), JL_OK);
    CHECK(has_link(p, "summary_table") && !has_link(p, "runs/d") && has_link(p, "runs/a"));
    jl_trace *t = open_ok(p);
    if (t) {
        CHECK_EQ_INT(jl_trace_run_count(t), 4);
        for (size_t i = 0; i < 4; i++) {
            jl_run *r = NULL;
            CHECK_EQ_INT(jl_trace_read_run(t, i, &r, NULL), JL_OK);
            if (r)
                CHECK(tf_runs_equal(runs4[i], r));
            jl_run_free(r);
        }
    }
    jl_trace_close(t);
    /* duplicate names: the group writer's message */
    jl_error *e = NULL;
    const jl_run *dup[2] = {d, d};
    CHECK_EQ_INT(jl_trace_write(p, dup, 2, NULL, &e), JL_EUSAGE);
    CHECK(e && strstr(e->message, "already written"));
    jl_error_free(e);
    jl_run_free(a);
    jl_run_free(b);
    jl_run_free(c);
    jl_run_free(d);
    free(p);
}

/* Extras named like no dataset can be (".", "..", "a/b"): their run stays
 * a group, and a column only such runs have is not in
 * the table; many distinct extras (the writer's name table grows past its
 * first size) read back as written, their columns in the rows' order. */
TEST(odd_and_many_extra_names)
{
    static const char *const bad[] = {".", "..", "a/b"};
    enum { NBAD = sizeof bad / sizeof bad[0], NMANY = 150 };
    jl_run *runs[NBAD + 2];
    size_t n = 0;
    for (size_t k = 0; k < NBAD; k++) {
        char name[16];
        snprintf(name, sizeof name, "bad%zu", k);
        runs[n] = tf_make_summary_run(name);
        add_extra(&runs[n]->attrs, "only_in_a_group", "1", 1);
        add_extra(&runs[n]->attrs, bad[k], "x", 0);
        n++;
    }
    jl_run *m0 = tf_make_summary_run("many0"), *m1 = tf_make_summary_run("many1");
    for (int k = 0; k < NMANY; k++) {
        char key[32], val[32];
        snprintf(key, sizeof key, "k%03d", NMANY - 1 - k); /* not in name order */
        snprintf(val, sizeof val, "%d", k);
        add_extra(&m0->attrs, key, val, 1);
        if (k % 3 == 0)
            add_extra(&m1->attrs, key, "2.5", 1); /* beside an integer: float64 */
    }
    runs[n++] = m0;
    runs[n++] = m1;
    char *p = tf_path("odd.h5");
    CHECK_EQ_INT(jl_trace_write(p, (const jl_run *const *)runs, n, NULL, NULL), JL_OK);
    for (size_t k = 0; k < NBAD; k++) {
        char link[32];
        snprintf(link, sizeof link, "runs/%s", runs[k]->name);
        CHECK(has_link(p, link));
    }
    CHECK(!has_link(p, "runs/many0") && !has_link(p, "runs/many1"));
    CHECK(!has_link(p, "summary_table/attrs/only_in_a_group"));
    CHECK(has_link(p, "summary_table/attrs/k000") && has_link(p, "summary_table/attrs/k149"));
    CHECK(has_link(p, "summary_table/attrs_absent/k001"));
    jl_trace *t = open_ok(p);
    if (t) {
        CHECK_EQ_INT(jl_trace_run_count(t), n);
        for (size_t i = 0; i < jl_trace_run_count(t); i++) {
            const char *nm = jl_trace_run_name(t, i);
            if (strncmp(nm, "many", 4))
                continue;
            jl_run *r = NULL;
            CHECK_EQ_INT(jl_trace_read_run(t, i, &r, NULL), JL_OK);
            if (r)
                CHECK(tf_runs_equal(!strcmp(nm, "many0") ? m0 : m1, r));
            jl_run_free(r);
        }
    }
    jl_trace_close(t);
    /* an extra named like a typed field: not a row, and the group writer
     * refuses it (attrs and summary alike) */
    jl_run *tx = tf_make_summary_run("typed_attr"), *sx = tf_make_summary_run("typed_summary");
    add_extra(&tx->attrs, "num_gpus", "3", 1);
    jl_kv *kv = realloc(sx->summary.extra, (sx->summary.n_extra + 1) * sizeof *kv);
    CHECK(kv != NULL);
    if (kv) {
        sx->summary.extra = kv;
        kv[sx->summary.n_extra].key = jl__strdup("avg_power_w");
        kv[sx->summary.n_extra].value = jl__strdup("5");
        kv[sx->summary.n_extra].is_number = 1;
        sx->summary.n_extra++;
    }
    const jl_run *one[2] = {m0, tx};
    jl_error *e = NULL;
    CHECK(jl_trace_write(p, one, 2, NULL, &e) != JL_OK);
    CHECK(e && strstr(e->message, "@num_gpus"));
    jl_error_free(e);
    e = NULL;
    one[1] = sx;
    CHECK(jl_trace_write(p, one, 2, NULL, &e) != JL_OK);
    CHECK(e && strstr(e->message, "@avg_power_w"));
    jl_error_free(e);
    jl_run_free(tx);
    jl_run_free(sx);
    for (size_t i = 0; i < n; i++)
        jl_run_free(runs[i]);
    free(p);
}

/* ---- malformed tables, made by editing a good one with the HDF5 API ---- */

static char *good_table(const char *name)
{
    jl_run *runs[3] = {tf_make_summary_run("r0"), tf_make_summary_run("r1"),
                       tf_make_summary_run("r2")};
    char *p = tf_path(name);
    CHECK_EQ_INT(jl_trace_write(p, (const jl_run *const *)runs, 3, NULL, NULL), JL_OK);
    for (int i = 0; i < 3; i++)
        jl_run_free(runs[i]);
    return p;
}

static void write_strings(hid_t f, const char *path, const char *const *v, size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 16);
    hsize_t dims[1] = {n};
    hid_t s = H5Screate_simple(1, dims, NULL);
    char buf[8][16];
    memset(buf, 0, sizeof buf);
    for (size_t i = 0; i < n; i++)
        strncpy(buf[i], v[i], 15);
    H5Ldelete(f, path, H5P_DEFAULT);
    hid_t d = H5Dcreate2(f, path, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d >= 0 && H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    H5Dclose(d);
    H5Sclose(s);
    H5Tclose(t);
}

static void write_dataset(hid_t f, const char *path, hid_t type, hid_t dcpl, hid_t mem,
                          const void *v, size_t n)
{
    hsize_t dims[1] = {n};
    hid_t s = H5Screate_simple(1, dims, NULL);
    H5Ldelete(f, path, H5P_DEFAULT);
    hid_t d = H5Dcreate2(f, path, type, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d >= 0 && H5Dwrite(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Dclose(d);
    H5Sclose(s);
}

static void write_u8(hid_t f, const char *path, const unsigned char *v, size_t n)
{
    write_dataset(f, path, H5T_STD_U8LE, H5P_DEFAULT, H5T_NATIVE_UCHAR, v, n);
}

static hid_t edit(const char *p)
{
    hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0);
    return f;
}

/* Open must fail with `code` and a message containing `want`. */
static void open_fails(const char *p, jl_status code, const char *want)
{
    jl_trace *t = NULL;
    jl_error *e = NULL;
    CHECK_EQ_INT(jl_trace_open(p, NULL, &t, &e), code);
    char *m = e ? jl_error_format(e) : NULL;
    CHECK(m != NULL);
    if (m)
        CHECK_CONTAINS(m, want);
    free(m);
    jl_error_free(e);
    jl_trace_close(t);
}

TEST(malformed_tables_are_refused)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    char *p = good_table("version.h5");
    hid_t f = edit(p);
    hid_t g = H5Gopen2(f, "summary_table", H5P_DEFAULT);
    long long two = 2;
    hid_t a = H5Aopen(g, "version", H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_LLONG, &two);
    H5Aclose(a);
    H5Gclose(g);
    H5Fclose(f);
    open_fails(p, JL_EFORMAT, "/summary_table: unsupported @version (this reader reads version 1)");
    free(p);

    p = good_table("short.h5");
    f = edit(p);
    const char *two_models[2] = {"m", "m"};
    write_strings(f, "summary_table/attrs/model", two_models, 2);
    H5Fclose(f);
    open_fails(
        p, JL_EINVALID,
        "/summary_table/attrs/model: has 2 rows, expected 3 (the length of summary_table/run)");
    free(p);

    p = good_table("dup.h5");
    f = edit(p);
    H5Gclose(H5Gcreate2(f, "runs/r1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Fclose(f);
    open_fails(p, JL_EFORMAT, "run r1 is both a group in /runs and a row of the summary table");
    free(p);

    p = good_table("dup2.h5");
    f = edit(p);
    const char *names[3] = {"r0", "r2", "r2"};
    write_strings(f, "summary_table/run", names, 3);
    H5Fclose(f);
    open_fails(p, JL_EFORMAT, "run r2 appears twice in the summary table");
    free(p);

    p = good_table("norun.h5");
    f = edit(p);
    H5Ldelete(f, "summary_table/run", H5P_DEFAULT);
    H5Fclose(f);
    open_fails(p, JL_EMISSING, "/summary_table/run: required dataset is missing");
    free(p);

    p = good_table("compound.h5");
    f = edit(p);
    hid_t ct = H5Tcreate(H5T_COMPOUND, 8);
    H5Tinsert(ct, "x", 0, H5T_NATIVE_DOUBLE);
    hsize_t dims[1] = {3};
    hid_t sp = H5Screate_simple(1, dims, NULL);
    H5Dclose(
        H5Dcreate2(f, "summary_table/summary/odd", ct, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Sclose(sp);
    H5Tclose(ct);
    H5Fclose(f);
    open_fails(p, JL_ETYPE, "/summary_table/summary/odd: has a type of class");
    free(p);
}

TEST(bad_rows_name_their_run)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    char *p = good_table("rows.h5");
    hid_t f = edit(p);
    const char *wl[3] = {"llm", "video", "llm"};
    write_strings(f, "summary_table/attrs/workload", wl, 3);
    H5Gclose(H5Gcreate2(f, "summary_table/attrs_absent", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    const unsigned char absent[3] = {0, 0, 1};
    write_u8(f, "summary_table/attrs_absent/model", absent, 3);
    H5Fclose(f);
    jl_trace *t = open_ok(p);
    if (t) {
        jl_run *r = NULL;
        jl_error *e = NULL;
        CHECK_EQ_INT(jl_trace_read_run(t, 0, &r, NULL), JL_OK);
        jl_run_free(r);
        r = NULL;
        CHECK_EQ_INT(jl_trace_read_run(t, 1, &r, &e), JL_EINVALID);
        char *m = e ? jl_error_format(e) : NULL;
        if (m)
            CHECK_CONTAINS(m, "run r1: /summary_table/attrs: attribute @workload must be llm, "
                              "mllm, diffusion, language, vision, speech, recommendation, "
                              "graph or other, found \"video\"");
        free(m);
        jl_error_free(e);
        e = NULL;
        CHECK_EQ_INT(jl_trace_read_run(t, 2, &r, &e), JL_EMISSING);
        m = e ? jl_error_format(e) : NULL;
        if (m)
            CHECK_CONTAINS(m, "run r2: /summary_table/attrs: required attribute @model is missing");
        free(m);
        jl_error_free(e);
    }
    jl_trace_close(t);
    free(p);
}

TEST(table_only_and_empty_files)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    char *p = good_table("only.h5"); /* /runs is empty: the table holds every run */
    jl_trace *t = open_ok(p);
    if (t)
        CHECK_EQ_INT(jl_trace_run_count(t), 3);
    jl_trace_close(t);
    hid_t f = edit(p);
    H5Ldelete(f, "summary_table", H5P_DEFAULT);
    H5Fclose(f);
    open_fails(p, JL_EFORMAT, "holds no runs (at least one is required)");
    free(p);
}

/* ---- a study worker's reads: the file mapped, columns used in place ---- */

/* Every run of the file summarised and encoded for the wire, one after the
 * other (NULL when the file cannot be opened). */
static jl__wbuf read_all(const char *path)
{
    jl__wbuf b = {0};
    jl_trace *t = open_ok(path);
    for (size_t i = 0; t && i < jl_trace_run_count(t); i++) {
        jl_run *r = NULL;
        jl_summary *s = NULL;
        CHECK_EQ_INT(jl_trace_read_run(t, i, &r, NULL), JL_OK);
        CHECK_EQ_INT(jl_summarize(r, NULL, &s, NULL), JL_OK);
        if (s)
            jl__wire_put_summary(&b, s);
        jl_summary_free(s);
        jl_run_free(r);
    }
    jl_trace_close(t);
    return b;
}

/* Columns of every kind the reader meets: some used in place (contiguous,
 * stored as read: int64, uint64, float64, NUL-terminated and NUL-padded
 * strings), some read through HDF5 (space-padded strings, int32, a chunked
 * column). */
static char *odd_layouts(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    jl_run *runs[8];
    size_t n = make_runs(runs);
    char *p = tf_path("layouts.h5");
    CHECK_EQ_INT(jl_trace_write(p, (const jl_run *const *)runs, n, NULL, NULL), JL_OK);
    for (size_t i = 0; i < n; i++)
        jl_run_free(runs[i]);
    hid_t f = edit(p);
    hid_t st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, 12);
    H5Tset_strpad(st, H5T_STR_SPACEPAD);
    const char space[4][12] = {"model a    ", "model b  ", "m", "model d"};
    write_dataset(f, "summary_table/attrs/model", st, H5P_DEFAULT, st, space, 4);
    H5Tset_strpad(st, H5T_STR_NULLPAD);
    const char nulls[4][12] = {"alpha", "beta", "gamma", "delta"};
    write_dataset(f, "summary_table/attrs/nickname", st, H5P_DEFAULT, st, nulls, 4);
    H5Tclose(st);
    const int tp[4] = {1, 2, 4, 8};
    write_dataset(f, "summary_table/attrs/tensor_parallel", H5T_STD_I32LE, H5P_DEFAULT,
                  H5T_NATIVE_INT, tp, 4);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t chunk[1] = {3};
    H5Pset_chunk(dcpl, 1, chunk);
    const long long gpus[4] = {1, 2, 1, 4};
    write_dataset(f, "summary_table/attrs/num_gpus", H5T_STD_I64LE, dcpl, H5T_NATIVE_LLONG, gpus,
                  4);
    H5Pclose(dcpl);
    const unsigned long long big[4] = {1, 18446744073709551615ull, 3, 9007199254740993ull};
    write_dataset(f, "summary_table/attrs/serial", H5T_STD_U64LE, H5P_DEFAULT, H5T_NATIVE_ULLONG,
                  big, 4);
    H5Fclose(f);
    return p;
}

TEST(mapped_file_reads_as_copied)
{
    char *p = odd_layouts();
    jl__wbuf copied = read_all(p);
    CHECK(copied.len > 0);
    jl__trace_map_files(); /* from here on, as in a study's worker */
    jl__wbuf mapped = read_all(p);
    CHECK(copied.len == mapped.len && !memcmp(copied.data, mapped.data, copied.len));
    jl__wbuf_free(&copied);
    jl__wbuf_free(&mapped);
    free(p);
}

int main(void)
{
    tf_init("test_trace_table");
    RUN(table_reads_as_groups);
    RUN(runs_that_do_not_fit_stay_groups);
    RUN(odd_and_many_extra_names);
    RUN(malformed_tables_are_refused);
    RUN(bad_rows_name_their_run);
    RUN(table_only_and_empty_files);
    /* again with the files mapped (a study's worker): the same results and
     * the same messages */
    RUN(mapped_file_reads_as_copied);
    RUN(table_reads_as_groups);
    RUN(runs_that_do_not_fit_stay_groups);
    RUN(malformed_tables_are_refused);
    RUN(bad_rows_name_their_run);
    RUN(table_only_and_empty_files);
    if (!jt_failures)
        tf_cleanup();
    TEST_MAIN_END();
}
