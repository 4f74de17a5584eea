/* Reading the real traces the repository ships (traces/, and the Zstandard
 * copy of the 1.7B sweep in tests/traces/, the same files as the project's
 * shared/traces): every run of every file, row counts checked against h5ls
 * (an independent reader), attributes against the recording notes
 * (traces/README.md; the per-run tables are in shared/traces/README.md). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include "test_trace_fixtures.h"

#define TRACES JOULES_SOURCE_DIR "/traces"

/* h5ls -r: "/runs/b0001/power/time Dataset {1884}" -> rows of that path, or
 * -1 when h5ls does not list it. */
typedef struct {
    char path[256];
    long long rows, cols;
} h5ls_entry;

static h5ls_entry *h5ls_entries;
static size_t h5ls_n;

static void h5ls_load(const char *file)
{
    free(h5ls_entries);
    h5ls_entries = NULL;
    h5ls_n = 0;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "h5ls -r '%s'", file);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    if (!p)
        return;
    char line[1024];
    size_t cap = 0;
    while (fgets(line, sizeof line, p)) {
        char path[256];
        long long a = -1, b = 1;
        char *brace = strstr(line, "Dataset {");
        if (!brace || sscanf(line, "%255s", path) != 1)
            continue;
        if (sscanf(brace, "Dataset {%lld, %lld}", &a, &b) < 1)
            continue;
        if (h5ls_n == cap) {
            cap = cap ? cap * 2 : 256;
            h5ls_entries = realloc(h5ls_entries, cap * sizeof *h5ls_entries);
        }
        snprintf(h5ls_entries[h5ls_n].path, sizeof h5ls_entries[h5ls_n].path, "%s", path);
        h5ls_entries[h5ls_n].rows = a;
        h5ls_entries[h5ls_n].cols = b;
        h5ls_n++;
    }
    CHECK_EQ_INT(pclose(p), 0);
}

static long long h5ls_rows(const char *run, const char *ds, long long *cols)
{
    char path[256];
    snprintf(path, sizeof path, "/runs/%s/%s", run, ds);
    for (size_t i = 0; i < h5ls_n; i++)
        if (!strcmp(h5ls_entries[i].path, path)) {
            if (cols)
                *cols = h5ls_entries[i].cols;
            return h5ls_entries[i].rows;
        }
    return -1;
}

#define CHECK_ROWS(run, ds, ptr, n)                        \
    do {                                                   \
        long long want = h5ls_rows((run)->name, ds, NULL); \
        CHECK_EQ_INT((ptr) ? (long long)(n) : -1, want);   \
    } while (0)

#define CHECK_SERIES(run, ds, s)                            \
    do {                                                    \
        long long cols = 0;                                 \
        long long want = h5ls_rows((run)->name, ds, &cols); \
        CHECK_EQ_INT((s).v ? (long long)(s).n : -1, want);  \
        if ((s).v)                                          \
            CHECK_EQ_INT((s).g, cols);                      \
    } while (0)

static void check_counts(const jl_run *r)
{
    CHECK_ROWS(r, "power/time", r->power_time, r->power_n);
    CHECK_SERIES(r, "power/watts", r->watts);
    CHECK_SERIES(r, "power/energy_j", r->energy_j);
    CHECK_SERIES(r, "power/watts_avg", r->watts_avg);
    CHECK_ROWS(r, "gpu/time", r->gpu_time, r->gpu_n);
    CHECK_SERIES(r, "gpu/sm_util", r->sm_util);
    CHECK_SERIES(r, "gpu/mem_util", r->mem_util);
    CHECK_SERIES(r, "gpu/mem_used_bytes", r->mem_used_bytes);
    CHECK_SERIES(r, "gpu/sm_clock_mhz", r->sm_clock_mhz);
    CHECK_SERIES(r, "gpu/temp_c", r->temp_c);
    CHECK_ROWS(r, "engine/time", r->engine_time, r->engine_n);
    CHECK_ROWS(r, "engine/running", r->running, r->engine_n);
    CHECK_ROWS(r, "engine/waiting", r->waiting, r->engine_n);
    CHECK_ROWS(r, "engine/tokens_generated", r->tokens_generated, r->engine_n);
    CHECK_ROWS(r, "engine/prefill_tokens", r->prefill_tokens, r->engine_n);
    CHECK_ROWS(r, "engine/kv_cache_usage", r->kv_cache_usage, r->engine_n);
    CHECK_ROWS(r, "requests/arrival", r->arrival, r->req_n);
    CHECK_ROWS(r, "requests/first_token", r->first_token, r->req_n);
    CHECK_ROWS(r, "requests/finish", r->finish, r->req_n);
    CHECK_ROWS(r, "requests/input_tokens", r->input_tokens, r->req_n);
    CHECK_ROWS(r, "requests/output_tokens", r->output_tokens, r->req_n);
    CHECK_ROWS(r, "itl/seconds", r->itl_seconds, r->itl_n);
    CHECK_ROWS(r, "itl/request", r->itl_request, r->itl_n);
    CHECK_ROWS(r, "batches/start", r->batch_start, r->batch_n);
    CHECK_ROWS(r, "batches/end", r->batch_end, r->batch_n);
    CHECK_ROWS(r, "batches/size", r->batch_size, r->batch_n);
}

static const char *extra(const jl_run *r, const char *key)
{
    for (size_t i = 0; i < r->attrs.n_extra; i++)
        if (!strcmp(r->attrs.extra[i].key, key))
            return r->attrs.extra[i].value;
    return NULL;
}

typedef struct {
    const char *file;
    const char *gpu;
    const char *model;
    const char *workload;
    size_t n_runs;
    const char *runs[10];
    long requests[10]; /* -1: not checked */
} trace_case;

static const trace_case cases[] = {
    {"traces/h100/h100-qwen3-8b-shape-chat.h5",
     "H100",
     "synthetic/Qwen3-8B-shape",
     "llm",
     9,
     {"b0001", "b0002", "b0004", "b0008", "b0016", "b0032", "b0064", "b0128", "b0256"},
     {17, 24, 24, 32, 64, 128, 256, 464, 611}},
    {"traces/h100/h100-qwen3-1.7b-shape-chat.h5",
     "H100",
     "synthetic/Qwen3-1.7B-shape",
     "llm",
     5,
     {"b0001", "b0004", "b0016", "b0064", "b0256"},
     {24, 24, 64, 256, 960}},
    {"tests/traces/h100-zstd/h100-qwen3-1.7b-shape-chat.h5",
     "H100",
     "synthetic/Qwen3-1.7B-shape",
     "llm",
     5,
     {"b0001", "b0004", "b0016", "b0064", "b0256"},
     {24, 24, 64, 256, 960}},
    {"traces/h200/h200-qwen3-8b-shape-chat.h5",
     "H200",
     "synthetic/Qwen3-8B-shape",
     "llm",
     9,
     {"b0001", "b0002", "b0004", "b0008", "b0016", "b0032", "b0064", "b0128", "b0256"},
     {17, 24, 24, 32, 64, 128, 256, 464, 611}},
    {"traces/h100/h100-dit-shape-text-to-image.h5",
     "H100",
     "synthetic/DiT-XL-1152-shape",
     "diffusion",
     6,
     {"b0001", "b0002", "b0004", "b0004_s50", "b0008", "b0016"},
     /* batches per run */ {17, 9, 4, 3, 3, 3}},
};

TEST(read_every_real_run)
{
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const trace_case *tc = &cases[c];
        char *path = jl__asprintf("%s/%s", JOULES_SOURCE_DIR, tc->file);
        h5ls_load(path);
        CHECK(h5ls_n > 0);
        jl_trace *t = NULL;
        jl_error *e = NULL;
        CHECK_EQ_INT(jl_trace_open(path, NULL, &t, &e), JL_OK);
        if (!t) {
            char *m = jl_error_format(e);
            fprintf(stderr, "%s\n", m);
            free(m);
            jl_error_free(e);
            free(path);
            continue;
        }
        CHECK(jl_trace_harness(t) != NULL);
        CHECK(jl_trace_created_utc(t) != NULL);
        CHECK_EQ_INT(jl_trace_run_count(t), tc->n_runs);
        for (size_t i = 0; i < jl_trace_run_count(t) && i < tc->n_runs; i++) {
            CHECK_STR(jl_trace_run_name(t, i), tc->runs[i]);
            jl_run *r = NULL;
            CHECK_EQ_INT(jl_trace_read_run(t, i, &r, &e), JL_OK);
            if (!r) {
                char *m = jl_error_format(e);
                fprintf(stderr, "%s\n", m);
                free(m);
                jl_error_free(e);
                e = NULL;
                continue;
            }
            check_counts(r);
            CHECK_STR(r->attrs.workload, tc->workload);
            CHECK_STR(r->attrs.model, tc->model);
            CHECK_STR(r->attrs.gpu_model, tc->gpu);
            CHECK_STR(r->attrs.precision, "bfloat16");
            CHECK_EQ_INT(r->attrs.num_gpus, 1);
            CHECK_EQ_INT(r->attrs.tensor_parallel, 1);
            CHECK_EQ_INT(r->attrs.max_batch_size, atol(r->name + 1));
            CHECK_NEAR(r->attrs.gpu_tdp_w, 700, 0, 0);
            CHECK(r->attrs.gpu_idle_power_w > 100 && r->attrs.gpu_idle_power_w < 150);
            CHECK(r->attrs.start_time_unix > 1.7e9);
            CHECK(r->attrs.total_params > 1e9);
            CHECK(r->attrs.notes && strlen(r->attrs.notes) > 100);
            CHECK(extra(r, "gpu_name") && strstr(extra(r, "gpu_name"), "NVIDIA"));
            CHECK(r->watts.v && r->energy_j.v && r->watts_avg.v);
            CHECK(!r->summary.present);
            if (!strcmp(tc->workload, "llm")) {
                CHECK_EQ_INT(r->req_n, tc->requests[i]);
                char want[32];
                snprintf(want, sizeof want, "%ld", tc->requests[i]);
                CHECK_STR(extra(r, "num_requests"), want);
                CHECK(r->attrs.kv_bytes_per_token == 114688 ||
                      r->attrs.kv_bytes_per_token == 147456);
                /* every run's running batch reached max_batch_size */
                int32_t peak = 0;
                for (size_t k = 0; k < r->engine_n; k++)
                    if (r->running[k] > peak)
                        peak = r->running[k];
                CHECK_EQ_INT(peak, r->attrs.max_batch_size);
                CHECK_EQ_INT(r->arrival[0], 0);
            } else {
                CHECK_EQ_INT(r->batch_n, tc->requests[i]);
                CHECK_EQ_INT(r->attrs.denoising_steps, strstr(r->name, "s50") ? 50 : 28);
                CHECK_EQ_INT(r->attrs.height, 1024);
                CHECK_EQ_INT(r->attrs.num_frames, 1);
                for (size_t k = 0; k < r->batch_n; k++)
                    CHECK_EQ_INT(r->batch_size[k], r->attrs.max_batch_size);
                CHECK(r->engine_time == NULL && r->arrival == NULL && r->itl_seconds == NULL);
            }
            jl_run_free(r);
        }
        jl_trace_close(t);
        free(path);
    }
}

TEST(describe_real_run)
{
    jl_trace *t = NULL;
    jl_error *e = NULL;
    CHECK_EQ_INT(jl_trace_open(TRACES "/h100/h100-qwen3-1.7b-shape-chat.h5", NULL, &t, &e), JL_OK);
    if (!t)
        return;
    jl_run_info info;
    CHECK_EQ_INT(jl_trace_describe_run(t, 0, &info, &e), JL_OK);
    CHECK_STR(info.name, "b0001");
    CHECK_EQ_INT(info.n_datasets, 23);
    int seen = 0;
    for (size_t i = 0; i < info.n_datasets; i++) {
        const jl_dataset_info *d = &info.datasets[i];
        CHECK_STR(d->filters, "shuffle+deflate(4)");
        CHECK(d->chunked);
        CHECK(d->storage_bytes > 0);
        if (!strcmp(d->path, "/runs/b0001/power/watts")) {
            seen++;
            CHECK_STR(d->type, "float32");
            CHECK_EQ_INT(d->rank, 2);
            CHECK_EQ_INT(d->dims[0], 1884);
            CHECK_EQ_INT(d->dims[1], 1);
        }
        if (!strcmp(d->path, "/runs/b0001/engine/running")) {
            seen++;
            CHECK_STR(d->type, "int32");
        }
    }
    CHECK_EQ_INT(seen, 2);
    jl_run_info_clear(&info);
    CHECK_EQ_INT(jl_trace_describe_run(t, 99, &info, &e), JL_EUSAGE);
    jl_error_free(e);
    jl_trace_close(t);
}

TEST(open_image_reads_like_a_file)
{
    const char *path = TRACES "/h100/h100-dit-shape-text-to-image.h5";
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len);
    CHECK(fread(buf, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    jl_trace *a = NULL, *b = NULL;
    jl_error *e = NULL;
    CHECK_EQ_INT(jl_trace_open_image(buf, (size_t)len, "dit.h5", NULL, &a, &e), JL_OK);
    /* the buffer is copied: clobber it */
    memset(buf, 0, (size_t)len);
    free(buf);
    CHECK_EQ_INT(jl_trace_open(path, NULL, &b, &e), JL_OK);
    if (a && b) {
        CHECK_STR(jl_trace_path(a), "dit.h5");
        CHECK_EQ_INT(jl_trace_run_count(a), jl_trace_run_count(b));
        for (size_t i = 0; i < jl_trace_run_count(a); i++) {
            jl_run *x = NULL, *y = NULL;
            CHECK_EQ_INT(jl_trace_read_run(a, i, &x, &e), JL_OK);
            CHECK_EQ_INT(jl_trace_read_run(b, i, &y, &e), JL_OK);
            CHECK(x && y && tf_runs_equal(x, y));
            jl_run_free(x);
            jl_run_free(y);
        }
    }
    jl_error_free(e);
    jl_trace_close(a);
    jl_trace_close(b);
}

int main(void)
{
    RUN(read_every_real_run);
    RUN(describe_real_run);
    RUN(open_image_reads_like_a_file);
    free(h5ls_entries);
    TEST_MAIN_END();
}
