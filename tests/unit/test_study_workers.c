/* jl_study_load with worker processes: the same summaries and errors, in the
 * same order, as one process; a worker that dies becomes an error naming the
 * file while the other files are still summarised. A file that dominates
 * the study is split into parts summarised by different workers: still the
 * same result, a file-level error once, and a crash in one part loses only
 * that part's runs. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "core/sha256.h"
#include "core/util.h"
#include "joules/study.h"
#include "joules/trace_write.h"
#include "study/study_internal.h"
#include "test.h"

static const char *traces_dir = JOULES_SOURCE_DIR "/traces";
/* jl_study_options.hash_inputs for load() and load_shared() */
static int want_hash;

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
    opt.hash_inputs = want_hash;
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
        jl__wbuf x = {0}, y = {0};
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
    load(&many, paths, 1, 7); /* more workers than files: every file split */
    loaded three;
    load(&three, paths, 1, 3); /* the largest file is above 1/3: split */
    CHECK_EQ_INT(one.st, JL_OK);
    CHECK(one.runs.count >= 29); /* 9 + 5 + 6 + 9 bundled runs */
    check_identical(&one, &two);
    check_identical(&one, &many);
    check_identical(&one, &three);
    CHECK_EQ_INT(many.progress_calls, many.total);
    CHECK_EQ_INT(many.last_done, many.total);
    unload(&three);
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

/* ---- one file split between workers ---------------------------------- */

/* 9 runs: b0001 b0002 b0004 b0008 | b0016 b0032 b0064 b0128 b0256 with two
 * parts, b0001 b0002 b0004 | b0008 b0016 b0032 | b0064 b0128 b0256 with
 * three. */
static const char *big_file = JOULES_SOURCE_DIR "/traces/h100/h100-qwen3-8b-shape-chat.h5";
#define BIG_BASE "h100-qwen3-8b-shape-chat.h5"

/* Loading the one file `path` with 2 and 3 workers (so in 2 and 3 parts)
 * gives exactly `ref`, with one progress call for the file. */
static void check_split_matches(const char *path, const loaded *ref)
{
    const char *paths[] = {path};
    for (int w = 2; w <= 3; w++) {
        loaded l;
        load(&l, paths, 1, w);
        check_identical(ref, &l);
        CHECK_EQ_INT(l.progress_calls, 1);
        CHECK_EQ_INT(l.last_done, 1);
        unload(&l);
    }
}

TEST(one_file_split_matches_one_process)
{
    const char *paths[] = {big_file};
    loaded inproc, one;
    load(&inproc, paths, 1, 0);
    load(&one, paths, 1, 1);
    CHECK_EQ_INT(inproc.runs.count, 9);
    CHECK_EQ_INT(inproc.errors.count, 0);
    check_identical(&inproc, &one);
    check_split_matches(big_file, &inproc);
    unload(&inproc);
    unload(&one);
}

static int copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    int ok = a && b;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, a)) > 0)
        ok = fwrite(buf, 1, n, b) == n;
    if (a)
        fclose(a);
    if (b && fclose(b) != 0)
        ok = 0;
    return ok;
}

/* @num_gpus of /runs/RUN becomes a string: that run cannot be read. */
static void break_run(const char *path, const char *run)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0);
    char where[64];
    snprintf(where, sizeof where, "/runs/%s", run);
    hid_t g = H5Gopen2(f, where, H5P_DEFAULT);
    CHECK(g >= 0);
    CHECK(H5Adelete(g, "num_gpus") >= 0);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(g, "num_gpus", t, sp, H5P_DEFAULT, H5P_DEFAULT);
    const char *v = "two";
    CHECK(a >= 0 && H5Awrite(a, t, &v) >= 0);
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
    H5Gclose(g);
    H5Fclose(f);
}

/* path = a new temporary folder (dir) / name; remove both when done. */
static void temp_path(char dir[32], const char *name, char path[512])
{
    strcpy(dir, "/tmp/joules-test-split-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, 512, "%s/%s", dir, name);
}

TEST(bad_runs_in_different_parts_keep_their_order)
{
    char dir[32], path[512];
    temp_path(dir, BIG_BASE, path);
    CHECK(copy_file(big_file, path));
    break_run(path, "b0002"); /* part 1 of 2, part 1 of 3 */
    break_run(path, "b0064"); /* part 2 of 2, part 3 of 3 */
    const char *paths[] = {path};
    loaded inproc;
    load(&inproc, paths, 1, 0);
    CHECK_EQ_INT(inproc.runs.count, 7);
    CHECK_EQ_INT(inproc.errors.count, 2);
    if (inproc.errors.count == 2) {
        CHECK_STR(inproc.errors.items[0]->run, "b0002");
        CHECK_STR(inproc.errors.items[1]->run, "b0064");
    }
    check_split_matches(path, &inproc);
    unload(&inproc);
    unlink(path);
    rmdir(dir);
}

/* A file that cannot be opened is one error, not one per part. */
TEST(unreadable_split_file_is_one_error)
{
    char dir[32], path[512];
    temp_path(dir, "not-hdf5.h5", path);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    for (int i = 0; f && i < 1000; i++)
        fputs("this is not an HDF5 file\n", f);
    if (f)
        fclose(f);
    const char *paths[] = {path};
    loaded one;
    load(&one, paths, 1, 1);
    CHECK_EQ_INT(one.errors.count, 1);
    check_split_matches(path, &one);
    unload(&one);
    unlink(path);
    rmdir(dir);
}

/* Load with the test hook armed: a worker kills itself at `crash_on`. */
static void load_crashing(loaded *l, const char *const *paths, size_t n, int workers,
                          const char *crash_on)
{
    jl__study_test_crash_on(crash_on);
    load(l, paths, n, workers);
    jl__study_test_crash_on(NULL);
}

/* A worker killed inside part 2 of 2 (before run b0064): that part's runs
 * are lost and become one error naming the file and the runs; part 1's
 * runs are kept, in order. */
TEST(crash_inside_one_part_keeps_the_other_part)
{
    const char *paths[] = {big_file};
    loaded inproc, two;
    load(&inproc, paths, 1, 0);
    load_crashing(&two, paths, 1, 2, BIG_BASE "#b0064");
    CHECK_EQ_INT(two.st, JL_OK);
    CHECK_EQ_INT(two.runs.count, 4); /* b0001 b0002 b0004 b0008 */
    for (size_t i = 0; i < two.runs.count && i < inproc.runs.count; i++)
        CHECK_STR(two.runs.items[i]->run, inproc.runs.items[i]->run);
    CHECK_EQ_INT(two.errors.count, 1);
    if (two.errors.count == 1) {
        char *msg = jl_error_format(two.errors.items[0]);
        CHECK(msg && strstr(msg, BIG_BASE) && strstr(msg, "signal 9"));
        CHECK(msg && strstr(msg, "runs 5-9 of 9") && strstr(msg, "\"b0016\" to \"b0256\""));
        free(msg);
    }
    CHECK_EQ_INT(two.progress_calls, 1);
    unload(&inproc);
    unload(&two);
}

/* The same crash with one worker: the file is not split, so the whole file
 * is one error and the other files are untouched. */
TEST(crash_inside_a_run_without_split)
{
    const char *paths[] = {traces_dir};
    loaded inproc, one;
    load(&inproc, paths, 1, 0);
    load_crashing(&one, paths, 1, 1, BIG_BASE "#b0064");
    CHECK_EQ_INT(one.runs.count + 9, inproc.runs.count);
    CHECK_EQ_INT(one.errors.count, inproc.errors.count + 1);
    int found = 0;
    for (size_t i = 0; i < one.errors.count; i++) {
        char *msg = jl_error_format(one.errors.items[i]);
        if (msg && strstr(msg, BIG_BASE) &&
            strstr(msg, "summarising this file was killed by signal 9"))
            found = 1;
        free(msg);
    }
    CHECK(found);
    unload(&inproc);
    unload(&one);
}

/* Every part dying before it lists the runs (a crash in libhdf5's open):
 * one error for the file, not one per part. */
TEST(crash_opening_a_split_file_is_one_error)
{
    const char *paths[] = {big_file};
    loaded three;
    load_crashing(&three, paths, 1, 3, BIG_BASE);
    CHECK_EQ_INT(three.st, JL_OK);
    CHECK_EQ_INT(three.runs.count, 0);
    CHECK_EQ_INT(three.errors.count, 1);
    if (three.errors.count == 1) {
        char *msg = jl_error_format(three.errors.items[0]);
        CHECK(msg && strstr(msg, BIG_BASE) && strstr(msg, "signal 9"));
        free(msg);
    }
    CHECK_EQ_INT(three.progress_calls, 1);
    unload(&three);
}

/* A worker sends its frames as it goes, 64 KiB at a time: a study of 400
 * summary-only runs (~1 KB of frame each, as one table) crosses that many
 * times. One worker gives what one process gives; a worker killed after
 * most of the file was sent loses the whole file (what it had sent is
 * dropped: one error, no partial file). */
#define STREAM_RUNS 400
static int write_many_runs(const char *path)
{
    jl_run *runs[STREAM_RUNS];
    char note[700];
    memset(note, 'n', sizeof note - 1);
    note[sizeof note - 1] = '\0';
    int ok = 1;
    for (int i = 0; i < STREAM_RUNS; i++) {
        jl_run *r = runs[i] = jl_run_new();
        char name[32], v[32];
        snprintf(name, sizeof name, "s%04d", i);
        snprintf(v, sizeof v, "%d", i * 7);
        r->name = jl__strdup(name);
        r->attrs.workload = jl__strdup("llm");
        r->attrs.model = jl__strdup(i % 2 ? "Qwen/Qwen3-8B" : "Qwen/Qwen3-14B");
        r->attrs.task = jl__strdup("gpqa");
        r->attrs.gpu_model = jl__strdup("H100");
        r->attrs.precision = jl__strdup("bfloat16");
        r->attrs.num_gpus = 1 + i % 4;
        r->attrs.max_batch_size = 8 << (i % 5);
        r->attrs.notes = jl__strdup(note);
        ok &= jl_attrs_add_extra(&r->attrs, "seq", v, 1) == JL_OK;
        r->summary.present = 1;
        r->summary.energy_per_token_j = 0.01 + i * 1e-4;
        r->summary.avg_power_w = 300 + i;
        r->summary.median_itl_s = 0.01 + i * 1e-5;
    }
    jl_trace_write_options opt;
    jl_trace_write_options_default(&opt);
    jl_error *err = NULL;
    ok &= jl_trace_write(path, (const jl_run *const *)runs, STREAM_RUNS, &opt, &err) == JL_OK;
    jl_error_free(err);
    for (int i = 0; i < STREAM_RUNS; i++)
        jl_run_free(runs[i]);
    return ok;
}

TEST(worker_streams_frames_and_drops_them_when_it_dies)
{
    char dir[32], path[512];
    temp_path(dir, "many.h5", path);
    CHECK(write_many_runs(path));
    const char *paths[] = {path, big_file};
    loaded inproc, one, crashed;
    load(&inproc, paths, 2, 0);
    load(&one, paths, 2, 1);
    CHECK_EQ_INT(inproc.runs.count, STREAM_RUNS + 9);
    check_identical(&inproc, &one);
    /* the frames of runs s0000..s0349 were sent before the worker died */
    jl__wbuf b = {0};
    for (size_t i = 0; i < 350 && i < inproc.runs.count; i++)
        jl__wire_put_summary(&b, inproc.runs.items[i]);
    CHECK(b.len > 4 * 65536);
    jl__wbuf_free(&b);
    load_crashing(&crashed, paths, 2, 1, "many.h5#s0350");
    CHECK_EQ_INT(crashed.st, JL_OK);
    CHECK_EQ_INT(crashed.runs.count, 9); /* the other file's runs only */
    size_t from_many = 0;
    for (size_t i = 0; i < crashed.runs.count; i++)
        from_many += strncmp(crashed.runs.items[i]->run, "b0", 2) != 0;
    CHECK_EQ_INT(from_many, 0);
    CHECK_EQ_INT(crashed.errors.count, inproc.errors.count + 1);
    int found = 0;
    for (size_t i = 0; i < crashed.errors.count; i++) {
        char *msg = jl_error_format(crashed.errors.items[i]);
        if (msg && strstr(msg, "many.h5") && strstr(msg, "killed by signal 9"))
            found = 1;
        free(msg);
    }
    CHECK(found);
    unload(&inproc);
    unload(&one);
    unload(&crashed);
    unlink(path);
    rmdir(dir);
}

/* jl_study_options.shard without MPI: shares 1..count-1 are loaded first,
 * each handing its encoded share to a gather that keeps it; share 0's
 * gather returns them in order. The result must be one process's, with
 * static shares and with units on demand (shard.claim). */
typedef struct shares {
    unsigned char *buf;
    size_t len;
} shares;

static jl_status keep_share(void *ctx, const void *mine, size_t len, void **all, size_t *all_len,
                            jl_error **err)
{
    shares *sh = ctx;
    (void)err;
    *all = NULL;
    *all_len = 0;
    if (mine) { /* a share other than 0 (loaded from the last down): kept before the later ones */
        unsigned char *grown = malloc(sh->len + len + 1);
        if (!grown)
            return JL_ENOMEM;
        memcpy(grown, mine, len);
        if (sh->len)
            memcpy(grown + len, sh->buf, sh->len);
        free(sh->buf);
        sh->buf = grown;
        sh->len += len;
        return JL_OK;
    }
    *all = sh->buf; /* share 0: everything kept, handed over */
    *all_len = sh->len;
    sh->buf = NULL;
    sh->len = 0;
    return JL_OK;
}

/* Units on demand (shard.claim) without MPI: the processes run one after
 * the other, so each takes a fixed pattern of the shared positions — every
 * count-th from its index (how), all of them on the last index (1), or the
 * first half on index 0 and the rest on the last index (2) — each position
 * given to one process only, as a counter would. */
typedef struct fake_claims {
    int index, count, how;
    long long next;
} fake_claims;

static fake_claims claims;

static long long fake_claim(void *ctx, long long limit)
{
    (void)ctx;
    fake_claims *c = &claims;
    long long k = -1;
    if (c->how == 0) {
        k = c->index + c->next * c->count;
    } else if (c->how == 1) {
        k = c->index == c->count - 1 ? c->next : -1;
    } else {
        long long half = limit / 2;
        k = c->index == 0 ? c->next : c->index == c->count - 1 ? half + c->next : -1;
        if (c->index == 0 && k >= half)
            k = -1;
    }
    if (k < 0 || k >= limit)
        return -1;
    c->next++;
    return k;
}

static int claim_how = -1; /* >= 0: load_shared hands units out on demand */

static void load_shared(loaded *l, const char *const *paths, size_t n, int count, int workers)
{
    shares sh = {0};
    for (int index = count - 1; index >= 0; index--) {
        loaded part;
        memset(&part, 0, sizeof part);
        jl_study_options opt;
        jl_study_options_default(&opt);
        opt.workers = workers > 0 ? workers : 1;
        opt.isolate = workers > 0;
        opt.shard.index = index;
        opt.shard.count = count;
        opt.shard.gather = keep_share;
        opt.shard.ctx = &sh;
        opt.hash_inputs = want_hash;
        if (claim_how >= 0) {
            claims = (fake_claims){index, count, claim_how, 0};
            opt.shard.claim = fake_claim;
        }
        /* share 0 knows the others' digests only from their shares */
        if (want_hash && index == 0)
            jl__digest_forget_all();
        part.st = jl_study_load(paths, n, &opt, &part.runs, &part.errors);
        if (index > 0) { /* its share went to the gather */
            CHECK_EQ_INT(part.st, JL_OK);
            CHECK_EQ_INT(part.runs.count, 0);
            CHECK_EQ_INT(part.errors.count, 0);
            unload(&part);
        } else {
            *l = part;
        }
    }
    free(sh.buf);
}

TEST(shares_match_one_process)
{
    char *dir = make_dir_with_bad_files();
    const char *paths[] = {dir, traces_dir, "/nonexistent/joules"};
    loaded one;
    load(&one, paths, 3, 0);
    CHECK(one.runs.count >= 29);
    CHECK(one.errors.count >= 3);
    /* shares x (in process, 1 worker, 2 workers); 40 shares (every file
     * cut into parts across shares) in process only: it is 40 loads */
    static const struct {
        int count, workers;
    } cases[] = {{2, 0}, {2, 2}, {3, 1}, {5, 0}, {5, 2}, {40, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        loaded sh;
        load_shared(&sh, paths, 3, cases[c].count, cases[c].workers);
        check_identical(&one, &sh);
        unload(&sh);
    }
    /* units on demand: every pattern of claims gives the same output */
    static const struct {
        int count, workers, how;
    } dyn_cases[] = {{2, 0, 0}, {2, 2, 0}, {3, 1, 0}, {5, 2, 0}, {40, 0, 0},
                     {2, 0, 1}, {3, 2, 1}, {2, 1, 2}, {4, 0, 2}};
    for (size_t c = 0; c < sizeof dyn_cases / sizeof dyn_cases[0]; c++) {
        loaded sh;
        claim_how = dyn_cases[c].how;
        load_shared(&sh, paths, 3, dyn_cases[c].count, dyn_cases[c].workers);
        claim_how = -1;
        check_identical(&one, &sh);
        unload(&sh);
    }
    /* a bad index, or no gather, is refused */
    jl_study_options opt;
    jl_study_options_default(&opt);
    opt.shard.index = 2;
    opt.shard.count = 2;
    opt.shard.gather = keep_share;
    loaded bad;
    memset(&bad, 0, sizeof bad);
    CHECK_EQ_INT(jl_study_load(paths, 3, &opt, &bad.runs, &bad.errors), JL_EUSAGE);
    unload(&bad);
    unload(&one);
    remove_dir(dir);
    free(dir);
}

/* hash_inputs: every file that opened has its SHA-256 noted in this
 * process — by the process itself, from a worker's frame, or from another
 * share's encoding — equal to hashing it here; a file that did not open
 * has none; and the summaries are the same as without hashing. */
static void check_digests(const char *const *paths, size_t n, const char *bad_file)
{
    char **files = NULL;
    size_t n_files = 0;
    jl_error_list errs = {0};
    CHECK_EQ_INT(jl_collect_paths(paths, n, &files, &n_files, &errs), JL_OK);
    size_t have = 0;
    for (size_t i = 0; i < n_files; i++) {
        jl__digest d;
        if (!jl__digest_lookup(files[i], &d)) {
            CHECK(bad_file && strstr(files[i], bad_file));
            continue;
        }
        char hex[65];
        unsigned long long size = 0;
        CHECK_EQ_INT(jl__sha256_file(files[i], hex, &size, NULL), JL_OK);
        CHECK(!strcmp(d.hex, hex));
        CHECK(d.size == size);
        have++;
    }
    CHECK(have >= 4 && have + 2 == n_files); /* the two bad files: none */
    jl_paths_free(files, n_files);
    jl_error_list_clear(&errs);
}

TEST(inputs_hashed_where_read)
{
    char *dir = make_dir_with_bad_files();
    const char *paths[] = {dir, traces_dir};
    loaded plain;
    load(&plain, paths, 2, 0);
    want_hash = 1;
    for (int workers = 0; workers <= 2; workers++) {
        jl__digest_forget_all();
        loaded l;
        load(&l, paths, 2, workers);
        check_identical(&plain, &l);
        check_digests(paths, 2, "joules-test-workers");
        unload(&l);
    }
    static const struct {
        int count, workers, how; /* how >= 0: units on demand */
    } cases[] = {{2, 0, -1}, {3, 2, -1}, {40, 0, -1}, {2, 0, 0}, {3, 2, 0}, {3, 0, 2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        jl__digest_forget_all();
        loaded sh;
        claim_how = cases[c].how;
        load_shared(&sh, paths, 2, cases[c].count, cases[c].workers);
        claim_how = -1;
        check_identical(&plain, &sh);
        check_digests(paths, 2, "joules-test-workers");
        unload(&sh);
    }
    /* a file changed since it was hashed has no digest any more */
    jl__digest_forget_all();
    char *copy = jl__asprintf("%s/copy.h5", dir);
    char *src = jl__asprintf("%s/h100/h100-qwen3-1.7b-shape-chat.h5", traces_dir);
    FILE *in = fopen(src, "rb"), *out = fopen(copy, "wb");
    CHECK(in && out);
    char buf[65536];
    size_t got;
    while (in && out && (got = fread(buf, 1, sizeof buf, in)) > 0)
        CHECK(fwrite(buf, 1, got, out) == got);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    const char *one[] = {copy};
    loaded c;
    load(&c, one, 1, 1);
    jl__digest d;
    CHECK(jl__digest_lookup(copy, &d));
    out = fopen(copy, "ab");
    CHECK(out && fputc(0, out) == 0);
    if (out)
        fclose(out);
    CHECK(!jl__digest_lookup(copy, &d));
    unload(&c);
    unlink(copy);
    free(copy);
    free(src);
    want_hash = 0;
    jl__digest_forget_all();
    unload(&plain);
    remove_dir(dir);
    free(dir);
}

int main(void)
{
    RUN(workers_match_one_process);
    RUN(shares_match_one_process);
    RUN(inputs_hashed_where_read);
    RUN(default_single_worker_isolates_a_crash);
    RUN(in_process_matches_isolated);
    RUN(errors_in_file_order);
    RUN(crashed_worker_is_an_error_naming_the_file);
    RUN(one_file_split_matches_one_process);
    RUN(bad_runs_in_different_parts_keep_their_order);
    RUN(unreadable_split_file_is_one_error);
    RUN(crash_inside_one_part_keeps_the_other_part);
    RUN(crash_inside_a_run_without_split);
    RUN(crash_opening_a_split_file_is_one_error);
    RUN(worker_streams_frames_and_drops_them_when_it_dies);
    TEST_MAIN_END();
}
