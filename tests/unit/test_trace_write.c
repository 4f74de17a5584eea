/* The trace writer: write -> read -> identical, in every layout and
 * compression mode; options; no partial files. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <hdf5.h>
#include <sys/stat.h>

#include "test_trace_fixtures.h"

static int count_files(void)
{
    DIR *d = opendir(tf_dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    if (d)
        closedir(d);
    return n;
}

/* Write the three fixture runs with opt, read them back, compare. */
static void roundtrip(const char *label, const jl_trace_write_options *opt)
{
    jl_run *runs[4] = {tf_make_run("b0008", 50, 1), tf_make_run("b0002_g3", 37, 3),
                       tf_make_diffusion_run("d0004", 20), tf_make_summary_run("s0128")};
    char *path = tf_path(label);
    jl_error *e = NULL;
    jl_status st = jl_trace_write(path, (const jl_run *const *)runs, 4, opt, &e);
    CHECK_EQ_INT(st, JL_OK);
    if (e) {
        char *m = jl_error_format(e);
        fprintf(stderr, "%s: %s\n", label, m);
        free(m);
        jl_error_free(e);
        e = NULL;
    }
    jl_trace *t = NULL;
    st = jl_trace_open(path, NULL, &t, &e);
    CHECK_EQ_INT(st, JL_OK);
    if (st == JL_OK) {
        CHECK_EQ_INT(jl_trace_run_count(t), 4);
        /* sorted by name */
        CHECK_STR(jl_trace_run_name(t, 0), "b0002_g3");
        CHECK_STR(jl_trace_run_name(t, 1), "b0008");
        CHECK_STR(jl_trace_run_name(t, 2), "d0004");
        CHECK_STR(jl_trace_run_name(t, 3), "s0128");
        CHECK_STR(jl_trace_harness(t), "joules 0.1.0");
        CHECK(jl_trace_created_utc(t) && strlen(jl_trace_created_utc(t)) == 20);
        const int order[4] = {1, 0, 2, 3};
        for (size_t i = 0; i < 4; i++) {
            jl_run *back = NULL;
            st = jl_trace_read_run(t, i, &back, &e);
            CHECK_EQ_INT(st, JL_OK);
            if (e) {
                char *m = jl_error_format(e);
                fprintf(stderr, "%s: %s\n", label, m);
                free(m);
                jl_error_free(e);
                e = NULL;
            }
            if (back) {
                /* The reader sets file; the fixture does not. */
                int same = tf_runs_equal(runs[order[i]], back);
                if (!same)
                    fprintf(stderr, "%s: run %s differs after the round trip\n", label, back->name);
                CHECK(same);
                CHECK_STR(back->file, path);
            }
            jl_run_free(back);
        }
        /* describe: filters as configured */
        jl_run_info info;
        st = jl_trace_describe_run(t, 1, &info, &e);
        CHECK_EQ_INT(st, JL_OK);
        const char *want = "";
        if (opt->layout == JL_LAYOUT_CHUNKED) {
            if (opt->compression == JL_COMPRESS_ZSTD)
                want = opt->shuffle ? "shuffle+zstd(" : "zstd(";
            else if (opt->compression == JL_COMPRESS_DEFLATE)
                want = opt->shuffle ? "shuffle+deflate(" : "deflate(";
            else
                want = opt->shuffle ? "shuffle" : "";
        }
        int found = 0;
        for (size_t k = 0; k < info.n_datasets; k++) {
            if (!strcmp(info.datasets[k].path, "/runs/b0008/power/watts")) {
                found = 1;
                CHECK_STR(info.datasets[k].type, opt->watts_float32 ? "float32" : "float64");
                CHECK_EQ_INT(info.datasets[k].rank, 2);
                CHECK_EQ_INT(info.datasets[k].dims[0], 50);
                CHECK_EQ_INT(info.datasets[k].dims[1], 1);
                CHECK_EQ_INT(info.datasets[k].chunked, opt->layout == JL_LAYOUT_CHUNKED);
                if (*want)
                    CHECK_CONTAINS(info.datasets[k].filters, want);
                else
                    CHECK_STR(info.datasets[k].filters, "");
            }
        }
        CHECK(found);
        jl_run_info_clear(&info);
    }
    jl_error_free(e);
    jl_trace_close(t);
    for (int i = 0; i < 4; i++)
        jl_run_free(runs[i]);
    free(path);
}

TEST(roundtrip_all_modes)
{
    jl_trace_write_options o;
    jl_trace_write_options_default(&o);
    roundtrip("default.h5", &o);

    jl_trace_write_options_default(&o);
    o.layout = JL_LAYOUT_CONTIGUOUS;
    o.compression = JL_COMPRESS_NONE;
    o.shuffle = 0;
    roundtrip("contiguous.h5", &o);
    o.watts_float32 = 0;
    roundtrip("contiguous-f64.h5", &o);

    jl_trace_write_options_default(&o);
    o.compression = JL_COMPRESS_NONE;
    o.shuffle = 0;
    o.chunk_rows = 7;
    roundtrip("chunked-none.h5", &o);
    o.shuffle = 1;
    roundtrip("chunked-shuffle.h5", &o);

    jl_trace_write_options_default(&o);
    o.compression = JL_COMPRESS_DEFLATE;
    o.level = 9;
    o.chunk_rows = 16;
    o.shuffle = 0;
    roundtrip("deflate9.h5", &o);

    jl_trace_write_options_default(&o);
    o.compression = JL_COMPRESS_ZSTD;
    o.chunk_rows = 16;
    roundtrip("zstd-default.h5", &o);
    o.level = 19;
    o.shuffle = 0;
    o.watts_float32 = 0;
    roundtrip("zstd19-f64.h5", &o);
}

TEST(bad_options_leave_nothing)
{
    int before = count_files();
    jl_trace_write_options o;
    jl_trace_write_options_default(&o);
    o.layout = JL_LAYOUT_CONTIGUOUS; /* with deflate + shuffle: refused */
    char *path = tf_path("never.h5");
    jl_trace_writer *w = NULL;
    jl_error *e = NULL;
    CHECK_EQ_INT(jl_trace_writer_open(path, &o, &w, &e), JL_EUSAGE);
    CHECK(e && strstr(e->message, "chunked layout"));
    jl_error_free(e);
    e = NULL;
    jl_trace_write_options_default(&o);
    o.compression = JL_COMPRESS_ZSTD;
    o.level = 30;
    CHECK_EQ_INT(jl_trace_writer_open(path, &o, &w, &e), JL_EUSAGE);
    jl_error_free(e);
    e = NULL;
    CHECK_EQ_INT(count_files(), before);

    /* A failure half-way (duplicate run name) leaves no file either. */
    jl_run *r = tf_make_run("b0001", 5, 1);
    const jl_run *two[2] = {r, r};
    CHECK_EQ_INT(jl_trace_write(path, two, 2, NULL, &e), JL_EUSAGE);
    CHECK(e && strstr(e->message, "already written"));
    jl_error_free(e);
    e = NULL;
    CHECK_EQ_INT(count_files(), before);
    struct stat sb;
    CHECK(stat(path, &sb) != 0);

    /* Abort removes the temporary file. */
    CHECK_EQ_INT(jl_trace_writer_open(path, NULL, &w, &e), JL_OK);
    CHECK_EQ_INT(count_files(), before + 1);
    CHECK_EQ_INT(jl_trace_writer_add_run(w, r, &e), JL_OK);
    jl_trace_writer_abort(w);
    CHECK_EQ_INT(count_files(), before);

    /* A folder that does not exist: a clean error. */
    char *bad = tf_path("no/such/dir/x.h5");
    CHECK_EQ_INT(jl_trace_write(bad, two, 1, NULL, &e), JL_EIO);
    CHECK(e && e->file && !strcmp(e->file, bad));
    jl_error_free(e);
    free(bad);
    jl_run_free(r);
    free(path);
}

TEST(replaces_existing_file_only_on_success)
{
    char *path = tf_path("replace.h5");
    jl_run *a = tf_make_run("a", 4, 1), *b = tf_make_run("b", 4, 1);
    const jl_run *one[1] = {a};
    jl_error *e = NULL;
    CHECK_EQ_INT(jl_trace_write(path, one, 1, NULL, &e), JL_OK);
    const jl_run *dup[2] = {b, b};
    CHECK_EQ_INT(jl_trace_write(path, dup, 2, NULL, &e), JL_EUSAGE);
    jl_error_free(e);
    e = NULL;
    jl_trace *t = NULL;
    CHECK_EQ_INT(jl_trace_open(path, NULL, &t, &e), JL_OK);
    if (t) {
        CHECK_EQ_INT(jl_trace_run_count(t), 1);
        CHECK_STR(jl_trace_run_name(t, 0), "a");
    }
    jl_trace_close(t);
    jl_run_free(a);
    jl_run_free(b);
    free(path);
}

TEST(empty_datasets_and_summary_only)
{
    /* 0-row datasets are written contiguous even when chunking is asked. */
    jl_run *r = tf_make_run("empty", 0, 2);
    char *path = tf_path("empty.h5");
    jl_error *e = NULL;
    const jl_run *one[1] = {r};
    CHECK_EQ_INT(jl_trace_write(path, one, 1, NULL, &e), JL_OK);
    jl_run *back = NULL;
    char *msg = NULL;
    CHECK_EQ_INT(tf_read(path, 0, NULL, &back, &msg, NULL), JL_OK);
    if (msg)
        fprintf(stderr, "%s\n", msg);
    free(msg);
    if (back) {
        CHECK(back->power_time != NULL);
        CHECK_EQ_INT(back->power_n, 0);
        CHECK(tf_runs_equal(r, back));
    }
    jl_run_free(back);
    jl_run_free(r);
    free(path);
}

int main(void)
{
    tf_init("test_trace_write");
    RUN(roundtrip_all_modes);
    RUN(bad_options_leave_nothing);
    RUN(replaces_existing_file_only_on_success);
    RUN(empty_datasets_and_summary_only);
    if (!jt_failures)
        tf_cleanup();
    TEST_MAIN_END();
}
