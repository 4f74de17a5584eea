/* Contexts (joules/context.h): two in one process never see each other's
 * read log, digests, provenance hook or external-storage default; the
 * default context keeps the process-wide behaviour of a program that makes
 * none; a reset forgets what a context read. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>

#include "core/inputs.h"
#include "core/sha256.h"
#include "joules/context.h"
#include "joules/output.h"
#include "joules/provenance.h"
#include "joules/study.h"
#include "joules/trace.h"
#include "test.h"

#define TRACE JOULES_SOURCE_DIR "/tests/traces/h100-zstd/h100-qwen3-1.7b-shape-chat.h5"

static char *temp_file(const char *text)
{
    char *path = strdup("/tmp/jl_context_XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* 1 when c's read log lists path */
static int logged(jl_context *c, const char *path)
{
    for (size_t i = 0; i < jl_context_inputs_count(c); i++)
        if (!strcmp(jl_context_input(c, i), path))
            return 1;
    return 0;
}

TEST(current_is_default_until_used)
{
    jl_context *d = jl_context_default();
    CHECK(d != NULL);
    CHECK(jl_context_current() == d);
    jl_context *a = jl_context_new(), *b = jl_context_new();
    CHECK(a && b && a != b && a != d);
    CHECK(jl_context_use(a) == d);
    CHECK(jl_context_current() == a);
    CHECK(jl_context_use(b) == a); /* nested: the one before comes back */
    CHECK(jl_context_use(a) == b);
    CHECK(jl_context_use(NULL) == a); /* NULL: the default */
    CHECK(jl_context_current() == d);
    jl_context_use(a);
    jl_context_free(a); /* freeing the current one: back to the default */
    CHECK(jl_context_current() == d);
    jl_context_free(b);
    jl_context_free(NULL);
    jl_context_free(d); /* the default is never freed */
    CHECK(jl_context_current() == d);
}

TEST(read_logs_are_apart)
{
    char *x = temp_file("x"), *y = temp_file("y");
    jl_context *a = jl_context_new(), *b = jl_context_new();
    size_t in_default = jl_context_inputs_count(jl_context_default());
    jl_context *was = jl_context_use(a);
    jl__input_read(x);
    jl__input_read(x); /* each once */
    jl_context_use(b);
    jl__input_read(y);
    jl_context_use(was);
    CHECK_EQ_INT(jl_context_inputs_count(a), 1);
    CHECK_EQ_INT(jl_context_inputs_count(b), 1);
    CHECK(logged(a, x) && !logged(a, y));
    CHECK(logged(b, y) && !logged(b, x));
    CHECK(jl_context_input(a, 1) == NULL);
    CHECK_EQ_INT(jl_context_inputs_count(jl_context_default()), in_default);
    /* a provenance block lists the current context's files only */
    jl_provenance *p = jl_provenance_new();
    size_t added = 9;
    jl_context_use(b);
    CHECK_EQ_INT(jl_provenance_add_inputs_read(p, &added), JL_OK);
    jl_context_use(was);
    CHECK_EQ_INT(added, 1);
    json_t *block = jl_provenance_to_json(p);
    json_t *inputs = json_object_get(block, "inputs");
    CHECK_EQ_INT(json_array_size(inputs), 1);
    CHECK_STR(json_string_value(json_object_get(json_array_get(inputs, 0), "path")), y);
    json_decref(block);
    jl_provenance_free(p);
    /* a reset forgets the files of that context only */
    jl_context_reset(a);
    CHECK_EQ_INT(jl_context_inputs_count(a), 0);
    CHECK_EQ_INT(jl_context_inputs_count(b), 1);
    jl_context_free(a);
    jl_context_free(b);
    unlink(x);
    unlink(y);
    free(x);
    free(y);
}

TEST(digests_are_apart)
{
    char *x = temp_file("abc");
    jl_context *a = jl_context_new(), *b = jl_context_new();
    /* a digest noted in a (as a worker's would be) with the file's size and
     * time but a made-up hash: a's provenance takes it, b's hashes the file */
    struct stat sb;
    CHECK(stat(x, &sb) == 0);
    jl__digest d = {(unsigned long long)sb.st_size, (long long)sb.st_mtim.tv_sec,
                    (long long)sb.st_mtim.tv_nsec, ""};
    memset(d.hex, 'e', 64);
    d.hex[64] = 0;
    jl_context *was = jl_context_use(a);
    CHECK_EQ_INT(jl__digest_note(x, &d), JL_OK);
    jl__digest got;
    CHECK(jl__digest_lookup(x, &got) == 1);
    const char *hash[2] = {NULL, NULL};
    json_t *blocks[2];
    jl_context *cs[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        jl_context_use(cs[k]);
        jl_provenance *p = jl_provenance_new();
        CHECK_EQ_INT(jl_provenance_add_input(p, x), JL_OK);
        blocks[k] = jl_provenance_to_json(p);
        jl_provenance_free(p);
        hash[k] = json_string_value(
            json_object_get(json_array_get(json_object_get(blocks[k], "inputs"), 0), "sha256"));
    }
    CHECK(jl__digest_lookup(x, &got) == 0); /* b: none */
    jl_context_use(NULL);
    CHECK(jl__digest_lookup(x, &got) == 0); /* the default: none */
    jl_context_use(was);
    CHECK_STR(hash[0], d.hex);
    CHECK_STR(hash[1], "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    json_decref(blocks[0]);
    json_decref(blocks[1]);
    jl_context_reset(a);
    jl_context_use(a);
    CHECK(jl__digest_lookup(x, &got) == 0); /* forgotten */
    jl_context_use(was);
    jl_context_free(a);
    jl_context_free(b);
    unlink(x);
    free(x);
}

/* doc as jl_write_json writes it (NULL on failure) */
static char *written(const json_t *doc)
{
    char *path = temp_file("");
    jl_error *err = NULL;
    char *text = NULL;
    if (jl_write_json(path, doc, &err) == JL_OK) {
        FILE *f = fopen(path, "rb");
        text = calloc(1, 4096);
        if (f && text)
            CHECK(fread(text, 1, 4095, f) > 0);
        if (f)
            fclose(f);
    }
    jl_error_free(err);
    unlink(path);
    free(path);
    return text;
}

static const json_t *give(void *ctx)
{
    return ctx;
}

TEST(hooks_and_defaults_are_apart)
{
    jl_context *a = jl_context_new(), *b = jl_context_new();
    json_t *block = json_pack("{s:s}", "schema", "joules.provenance/1");
    jl_context *was = jl_context_use(a);
    jl_output_set_provenance(give, block);
    jl_trace_default_allow_external_storage(1);
    jl_trace_options oa, ob, od;
    jl_trace_options_default(&oa);
    CHECK(jl_output_provenance() == block);
    jl_context_use(b);
    CHECK(jl_output_provenance() == NULL);
    jl_trace_options_default(&ob);
    jl_context_use(NULL);
    CHECK(jl_output_provenance() == NULL);
    jl_trace_options_default(&od);
    jl_context_use(was);
    CHECK(jl_context_provenance(a) == block);
    CHECK(jl_context_provenance(b) == NULL);
    CHECK_EQ_INT(oa.allow_external_storage, 1);
    CHECK_EQ_INT(ob.allow_external_storage, 0);
    CHECK_EQ_INT(od.allow_external_storage, 0);
    CHECK(oa.context == NULL); /* the options name no context unless told */
    /* a document written in a carries a's block, in b none */
    json_t *doc = json_pack("{s:s}", "schema", "joules.summary/1");
    jl_context_use(a);
    char *ta = written(doc);
    jl_context_use(b);
    char *tb = written(doc);
    jl_context_use(was);
    CHECK(ta && strstr(ta, "\"provenance\"") != NULL);
    CHECK(tb && strstr(tb, "\"provenance\"") == NULL);
    free(ta);
    free(tb);
    json_decref(doc);
    jl_context_free(a);
    jl_context_free(b);
    json_decref(block);
}

/* a trace opened, and a study loaded (in worker processes, hashing each
 * file), with options that name a context note the file and its digest
 * there, whatever the thread's current context is */
TEST(options_name_the_context)
{
    SKIP_UNLESS_READABLE(TRACE);
    jl_context *a = jl_context_new(), *b = jl_context_new();
    size_t in_default = jl_context_inputs_count(jl_context_default());
    jl_trace_options opt;
    jl_trace_options_default(&opt);
    opt.context = a;
    jl_trace *t = NULL;
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_trace_open(TRACE, &opt, &t, &err), JL_OK);
    jl_trace_close(t);
    jl_error_free(err);
    CHECK(logged(a, TRACE));
    CHECK(jl_context_current() == jl_context_default());
    CHECK_EQ_INT(jl_context_inputs_count(jl_context_default()), in_default);

    jl_study_options so;
    jl_study_options_default(&so);
    so.trace.context = b;
    so.hash_inputs = 1;
    so.isolate = 1;
    const char *paths[] = {TRACE};
    jl_summary_list runs = {0};
    jl_error_list errors = {0};
    CHECK_EQ_INT(jl_study_load(paths, 1, &so, &runs, &errors), JL_OK);
    CHECK(runs.count > 0);
    CHECK(logged(b, TRACE));
    CHECK_EQ_INT(jl_context_inputs_count(jl_context_default()), in_default);
    jl__digest got;
    jl_context *was = jl_context_use(b);
    CHECK(jl__digest_lookup(TRACE, &got) == 1); /* from the worker */
    jl_context_use(a);
    CHECK(jl__digest_lookup(TRACE, &got) == 0);
    jl_context_use(was);
    CHECK(jl__digest_lookup(TRACE, &got) == 0);
    jl_summary_list_clear(&runs);
    jl_error_list_clear(&errors);
    jl_context_free(a);
    jl_context_free(b);
}

/* the process's list of outputs not to replace has a reset */
TEST(keep_existing_has_a_reset)
{
    char *x = temp_file("theirs");
    json_t *doc = json_pack("{s:i}", "n", 1);
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_atomic_keep_existing(x), 0);
    CHECK(jl_write_json(x, doc, &err) != JL_OK); /* kept: the file made meanwhile stays */
    jl_error_free(err);
    err = NULL;
    jl_atomic_keep_existing_clear();
    CHECK_EQ_INT(jl_write_json(x, doc, &err), JL_OK); /* forgotten: replaced */
    jl_error_free(err);
    FILE *f = fopen(x, "rb");
    char buf[16] = {0};
    CHECK(f && fread(buf, 1, sizeof buf - 1, f) > 0);
    if (f)
        fclose(f);
    CHECK(strstr(buf, "theirs") == NULL);
    json_decref(doc);
    unlink(x);
    free(x);
}

/* threads, each in its own context, note files at once */
typedef struct worker {
    jl_context *c;
    char *paths[50];
} worker;

static void *note_all(void *arg)
{
    worker *w = arg;
    jl_context_use(w->c);
    for (int i = 0; i < 50; i++)
        jl__input_read(w->paths[i]);
    jl_context_use(NULL);
    return NULL;
}

TEST(threads_each_in_their_context)
{
    worker w[2];
    for (int k = 0; k < 2; k++) {
        w[k].c = jl_context_new();
        for (int i = 0; i < 50; i++)
            w[k].paths[i] = temp_file(k ? "b" : "a");
    }
    pthread_t th[2];
    for (int k = 0; k < 2; k++)
        CHECK(pthread_create(&th[k], NULL, note_all, &w[k]) == 0);
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    for (int k = 0; k < 2; k++) {
        CHECK_EQ_INT(jl_context_inputs_count(w[k].c), 50);
        for (int i = 0; i < 50; i++) {
            CHECK(logged(w[k].c, w[k].paths[i]));
            CHECK(!logged(w[!k].c, w[k].paths[i]));
        }
    }
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 50; i++) {
            unlink(w[k].paths[i]);
            free(w[k].paths[i]);
        }
        jl_context_free(w[k].c);
    }
}

int main(void)
{
    RUN(current_is_default_until_used);
    RUN(read_logs_are_apart);
    RUN(digests_are_apart);
    RUN(hooks_and_defaults_are_apart);
    RUN(options_name_the_context);
    RUN(threads_each_in_their_context);
    RUN(keep_existing_has_a_reset);
    TEST_MAIN_END();
}
