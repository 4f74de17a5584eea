/* jl_study_load with worker processes: the same summaries and errors, in the
 * same order, as one process; a worker that dies becomes an error naming the
 * file while the other files are still summarised. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "joules/study.h"
#include "study/study_internal.h"
#include "test.h"

static const char *traces_dir = JOULES_SOURCE_DIR "/traces";

typedef struct loaded {
    jl_summary_list runs;
    jl_error_list errors;
    jl_status st;
    size_t progress_calls, last_done, total;
} loaded;

static void on_progress(void *ctx, size_t done, size_t total, const char *current)
{
    loaded *l = ctx;
    (void)current;
    if (done != l->last_done + 1)
        l->last_done = (size_t)-1000; /* not one by one: fails below */
    else
        l->last_done = done;
    l->progress_calls++;
    l->total = total;
}

/* workers = 0: in this process (no isolation), for comparison */
static void load(loaded *l, const char *const *paths, size_t n, int workers)
{
    memset(l, 0, sizeof *l);
    jl_study_options opt;
    jl_study_options_default(&opt);
    opt.workers = workers > 0 ? workers : 1;
    opt.isolate = workers > 0;
    opt.progress = on_progress;
    opt.progress_ctx = l;
    l->st = jl_study_load(paths, n, &opt, &l->runs, &l->errors);
}

static void unload(loaded *l)
{
    jl_summary_list_clear(&l->runs);
    jl_error_list_clear(&l->errors);
}

/* Identical: every summary encodes to the same bytes, every error formats
 * to the same line. */
static void check_identical(const loaded *a, const loaded *b)
{
    CHECK_EQ_INT(a->st, b->st);
    CHECK_EQ_INT(a->runs.count, b->runs.count);
    for (size_t i = 0; i < a->runs.count && i < b->runs.count; i++) {
        jl_wbuf x = {0}, y = {0};
        jl__wire_put_summary(&x, a->runs.items[i]);
        jl__wire_put_summary(&y, b->runs.items[i]);
        CHECK(x.len == y.len && !memcmp(x.data, y.data, x.len));
        jl__wbuf_free(&x);
        jl__wbuf_free(&y);
    }
    CHECK_EQ_INT(a->errors.count, b->errors.count);
    for (size_t i = 0; i < a->errors.count && i < b->errors.count; i++) {
        char *x = jl_error_format(a->errors.items[i]);
        char *y = jl_error_format(b->errors.items[i]);
        CHECK_STR(x, y);
        free(x);
        free(y);
    }
}

TEST(workers_match_one_process)
{
    const char *paths[] = {traces_dir};
    loaded one, two, many;
    load(&one, paths, 1, 1);
    load(&two, paths, 1, 2);
    load(&many, paths, 1, 7); /* more workers than files */
    CHECK_EQ_INT(one.st, JL_OK);
    CHECK(one.runs.count >= 29); /* 9 + 5 + 6 + 9 bundled runs */
    check_identical(&one, &two);
    check_identical(&one, &many);
    CHECK_EQ_INT(two.progress_calls, two.total);
    CHECK_EQ_INT(two.last_done, two.total);
    unload(&one);
    unload(&two);
    unload(&many);
}

static char *make_dir_with_bad_files(void)
{
    char *dir = strdup("/tmp/joules-test-workers-XXXXXX");
    if (!mkdtemp(dir))
        return dir;
    char path[512];
    snprintf(path, sizeof path, "%s/a-not-hdf5.h5", dir);
    FILE *f = fopen(path, "w");
    fputs("this is not an HDF5 file\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/c-empty.h5", dir);
    fclose(fopen(path, "w"));
    return dir;
}

static void remove_dir(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/a-not-hdf5.h5", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/c-empty.h5", dir);
    unlink(path);
    rmdir(dir);
}

TEST(errors_in_file_order)
{
    char *dir = make_dir_with_bad_files();
    const char *paths[] = {dir, traces_dir, "/nonexistent/joules"};
    loaded one, two;
    load(&one, paths, 3, 1);
    load(&two, paths, 3, 2);
    CHECK(one.errors.count >= 3);
    check_identical(&one, &two);
    unload(&one);
    unload(&two);
    remove_dir(dir);
    free(dir);
}

static void check_crash_isolated(int workers)
{
    const char *paths[] = {traces_dir};
    loaded one, two;
    load(&one, paths, 1, 0);
    jl__study_test_crash_on("h100-qwen3-8b-shape-chat.h5");
    load(&two, paths, 1, workers);
    jl__study_test_crash_on(NULL);
    CHECK_EQ_INT(two.st, JL_OK);
    /* every run of every other file, in order */
    size_t expect = 0;
    for (size_t i = 0; i < one.runs.count; i++)
        if (!strstr(one.runs.items[i]->file, "h100-qwen3-8b-shape-chat.h5"))
            expect++;
    CHECK(expect < one.runs.count);
    CHECK_EQ_INT(two.runs.count, expect);
    size_t j = 0;
    for (size_t i = 0; i < one.runs.count && j < two.runs.count; i++) {
        if (strstr(one.runs.items[i]->file, "h100-qwen3-8b-shape-chat.h5"))
            continue;
        CHECK_STR(one.runs.items[i]->file, two.runs.items[j]->file);
        CHECK_STR(one.runs.items[i]->run, two.runs.items[j]->run);
        j++;
    }
    CHECK_EQ_INT(two.errors.count, one.errors.count + 1);
    int found = 0;
    for (size_t i = 0; i < two.errors.count; i++) {
        char *msg = jl_error_format(two.errors.items[i]);
        if (msg && strstr(msg, "h100-qwen3-8b-shape-chat.h5") && strstr(msg, "signal 9"))
            found = 1;
        free(msg);
    }
    CHECK(found);
    CHECK_EQ_INT(two.progress_calls, two.total);
    unload(&one);
    unload(&two);
}

TEST(crashed_worker_is_an_error_naming_the_file)
{
    check_crash_isolated(2);
}

/* The default (one worker) is isolated too: a crash inside libhdf5 on one
 * file must not take the other files' results with it. */
TEST(default_single_worker_isolates_a_crash)
{
    check_crash_isolated(1);
}

TEST(in_process_matches_isolated)
{
    const char *paths[] = {traces_dir};
    loaded inproc, isolated;
    load(&inproc, paths, 1, 0);
    load(&isolated, paths, 1, 1);
    check_identical(&inproc, &isolated);
    unload(&inproc);
    unload(&isolated);
}

int main(void)
{
    RUN(workers_match_one_process);
    RUN(default_single_worker_isolates_a_crash);
    RUN(in_process_matches_isolated);
    RUN(errors_in_file_order);
    RUN(crashed_worker_is_an_error_naming_the_file);
    TEST_MAIN_END();
}
