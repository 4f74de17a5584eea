/* The CLI contract in the library: where an error happened (input, output,
 * request) and the exit code the CLI gives it (docs/cli.md "Exit status");
 * the one selection grammar (jl_selector_add_spec, jl_study_load_run); the
 * study pipeline (jl_study_open); the joules.predict/1 document. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "joules/model.h"
#include "joules/output.h"
#include "joules/study.h"
#include "test.h"

#define JOULES JOULES_BINARY_DIR "/joules"
#define TRACE JOULES_SOURCE_DIR "/traces/h100/h100-qwen3-8b-shape-chat.h5"

TEST(sides)
{
    jl_error *err = NULL;
    /* an output that cannot be created: the output side */
    CHECK_EQ_INT(jl_write_file_atomic("/nonexistent-dir/x.json", "{}", 2, &err), JL_EIO);
    CHECK(err && err->side == JL_SIDE_OUTPUT);
    jl_error_free(err);
    /* an input that cannot be read: JL_EIO as well, on the input side */
    const char *missing = "/nonexistent-dir/x.h5";
    jl_study_options opt;
    jl_study_options_default(&opt);
    jl_summary_list runs = {0};
    jl_error_list errors = {0};
    CHECK_EQ_INT(jl_study_load(&missing, 1, &opt, &runs, &errors), JL_OK);
    CHECK_EQ_INT((int)errors.count, 1);
    if (errors.count) {
        CHECK_EQ_INT(errors.items[0]->code, JL_EIO);
        CHECK(errors.items[0]->side == JL_SIDE_INPUT);
    }
    jl_error_list_clear(&errors);
    /* jl_error_mark_output marks JL_EIO only */
    err = jl_error_new(JL_EINVALID, NULL, NULL, NULL, -1, "x");
    CHECK_EQ_INT(jl_error_mark_output(JL_EINVALID, &err), JL_EINVALID);
    CHECK(err->side == JL_SIDE_INPUT);
    err->code = JL_EIO;
    jl_error_mark_output(JL_EIO, &err);
    CHECK(err->side == JL_SIDE_OUTPUT);
    jl_error_free(err);
}

TEST(spec_grammar)
{
    jl_selector *sel = jl_selector_new();
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_selector_add_spec(sel, "max_batch_size=4,64,num_gpus>=1", &err), JL_OK);
    jl_study_options opt;
    jl_study_options_default(&opt);
    jl_summary_list runs = {0};
    jl_error_list errors = {0};
    const char *p = TRACE;
    CHECK_EQ_INT(jl_study_load(&p, 1, &opt, &runs, &errors), JL_OK);
    size_t n = 0;
    for (size_t i = 0; i < runs.count; i++)
        n += (size_t)jl_selector_match(sel, runs.items[i]);
    CHECK_EQ_INT((int)n, 2); /* b0004 and b0064 */
    jl_selector_free(sel);
    sel = jl_selector_new();
    CHECK_EQ_INT(jl_selector_add_spec(sel, "foo,model=x", &err), JL_EUSAGE);
    CHECK(err && !strcmp(err->message, "'foo' is not KEY=VALUE"));
    jl_error_free(err);
    err = NULL;
    CHECK_EQ_INT(jl_selector_add_spec(sel, "=x", &err), JL_EUSAGE);
    CHECK(err && !strcmp(err->message, "empty key in '=x'"));
    jl_error_free(err);
    err = NULL;
    jl_selector_free(sel);
    jl_summary_list_clear(&runs);
    jl_error_list_clear(&errors);
}

TEST(load_run)
{
    jl_study_options opt;
    jl_study_options_default(&opt);
    jl_error_list errors = {0};
    jl_summary *s = NULL;
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_study_load_run(TRACE ":b0004", &opt, &s, &errors, &err), JL_OK);
    CHECK(s && s->run && !strcmp(s->run, "b0004"));
    jl_summary_free(s);
    CHECK_EQ_INT(jl_study_load_run(TRACE ":max_batch_size=64", &opt, &s, &errors, &err), JL_OK);
    CHECK(s && s->attrs.max_batch_size == 64);
    jl_summary_free(s);
    CHECK_EQ_INT(jl_study_load_run(TRACE ":max_batch_size>=64", &opt, &s, &errors, &err),
                 JL_ENODATA);
    CHECK(!s && err);
    if (err) {
        CHECK_CONTAINS(err->message, "the selection matches more than one run; add clauses\n  ");
        CHECK(!strncmp(err->message, TRACE ":", strlen(TRACE) + 1));
    }
    jl_error_free(err);
    err = NULL;
    CHECK_EQ_INT(jl_study_load_run(TRACE ":b9999", &opt, &s, &errors, &err), JL_ENODATA);
    CHECK(err && strstr(err->message, "no such run in the file"));
    jl_error_free(err);
    err = NULL;
    CHECK_EQ_INT(jl_study_load_run("/nonexistent:b0001", &opt, &s, &errors, &err), JL_EUSAGE);
    jl_error_free(err);
    CHECK_EQ_INT((int)errors.count, 0);
    jl_error_list_clear(&errors);
}

TEST(pipeline)
{
    jl_study_options opt;
    jl_study_options_default(&opt);
    jl_selector *sel = jl_selector_new();
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_selector_add(sel, 0, "max_batch_size=4,100000", &err), JL_OK);
    jl_ruleset rules;
    jl_ruleset_default(&rules);
    jl_summary_list runs = {0};
    jl_error_list errors = {0};
    jl_descriptors *desc = NULL;
    size_t n_read = 0;
    char *unmatched = NULL;
    const char *p = TRACE;
    CHECK_EQ_INT(jl_study_open(&p, 1, &opt, sel, &rules, &runs, &errors, &desc, &n_read,
                               &unmatched),
                 JL_OK);
    CHECK_EQ_INT((int)runs.count, 1);
    CHECK(n_read > runs.count);
    CHECK(unmatched && strstr(unmatched, "no run has max_batch_size 100000"));
    CHECK(desc != NULL); /* the repository's models/ */
    free(unmatched);
    jl_descriptors_free(desc);
    jl_selector_free(sel);
    jl_summary_list_clear(&runs);
    jl_error_list_clear(&errors);
}

/* The exit status of `joules ARGS` (printf-formatted), output discarded. */
static int joules_exit(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static int joules_exit(const char *fmt, ...)
{
    char args[1024], cmd[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s >/dev/null 2>&1", JOULES, args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(cli_exit_codes)
{
    CHECK(access(JOULES, X_OK) == 0);
    char path[256], dir[64];
    /* an output that cannot be written: 4 */
    CHECK_EQ_INT(joules_exit("summarize --csv /nonexistent-dir/x.csv %s", TRACE), 4);
    CHECK_EQ_INT(joules_exit("pick --csv /nonexistent-dir/x.csv %s", TRACE), 4);
    /* an input that cannot be read stops an import: 3, never 4 (it was
     * 4: JL_EIO read as "output could not be written") */
    snprintf(dir, sizeof dir, "/tmp/joules-contract-%ld", (long)getpid());
    CHECK(mkdir(dir, 0700) == 0);
    static const char *const sub[] = {"index.json", "models", "tasks"}; /* index.json unreadable */
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, sub[i]);
        CHECK(mkdir(path, 0700) == 0);
    }
    CHECK_EQ_INT(joules_exit("import mlenergy %s -o %s/out.h5", dir, dir), 3);
    snprintf(path, sizeof path, "%s/out.h5", dir);
    CHECK(access(path, F_OK) != 0);
    snprintf(path, sizeof path, "rm -rf %s", dir);
    CHECK_EQ_INT(system(path), 0);
    /* explain: no such run 3, a malformed spec 2 */
    CHECK_EQ_INT(joules_exit("explain %s:b9999 %s:b0004", TRACE, TRACE), 3);
    CHECK_EQ_INT(joules_exit("explain %s:foo,model=x %s:b0004", TRACE, TRACE), 2);
    /* the selection left nothing: 3 (a request beyond the data, 1, is
     * predict's: test_model_data) */
    CHECK_EQ_INT(joules_exit("summarize --where max_batch_size=100000 %s", TRACE), 3);
}

TEST(predict_document)
{
    jl_study_options opt;
    jl_study_options_default(&opt);
    jl_summary_list runs = {0};
    jl_error_list errors = {0};
    const char *p = TRACE;
    CHECK_EQ_INT(jl_study_load(&p, 1, &opt, &runs, &errors), JL_OK);
    jl_model_options mo;
    jl_model_options_default(&mo);
    jl_group_fit *fit = NULL;
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_model_fit_group((const jl_summary *const *)runs.items, runs.count, &mo, NULL,
                                    &fit, &err),
                 JL_OK);
    jl_prediction pred;
    if (fit) {
        CHECK_EQ_INT(jl_model_predict(fit, 32, &pred), JL_OK);
        json_t *doc = jl_predict_document(fit, &pred, 1);
        CHECK(doc != NULL);
        CHECK_STR(json_string_value(json_object_get(doc, "schema")), "joules.predict/1");
        CHECK_EQ_INT((int)json_array_size(json_object_get(doc, "predictions")), 1);
        CHECK(json_is_object(json_object_get(doc, "group")));
        json_decref(doc);
    }
    jl_group_fit_free(fit);
    jl_error_free(err);
    jl_summary_list_clear(&runs);
    jl_error_list_clear(&errors);
}

int main(int argc, char **argv)
{
    TEST_ARGS(argc, argv);
    RUN(sides);
    RUN(spec_grammar);
    RUN(load_run);
    RUN(pipeline);
    RUN(cli_exit_codes);
    RUN(predict_document);
    TEST_MAIN_END();
}
