/* Read one trace file and print each run's energy per token and its
 * steady-state power: the smallest use of libjoules (docs/library.md).
 *   cc energy_per_token.c $(pkg-config --cflags --libs joules) -o energy_per_token
 *   ./energy_per_token traces/h100/h100-qwen3-8b-shape-chat.h5 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <joules/joules.h>

static int fail(jl_error *err)
{
    char *m = jl_error_format(err);
    fprintf(stderr, "energy_per_token: %s\n", m ? m : "out of memory");
    free(m);
    jl_error_free(err);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: energy_per_token TRACE.h5\n");
        return 2;
    }
    jl_trace *t = NULL;
    jl_error *err = NULL;
    if (jl_trace_open(argv[1], NULL, &t, &err) != JL_OK)
        return fail(err);
    int rc = 0;
    printf("run,energy_per_token_j,avg_power_w\n");
    for (size_t i = 0; i < jl_trace_run_count(t); i++) {
        jl_run *run = NULL;
        jl_summary *s = NULL;
        if (jl_trace_read_run(t, i, &run, &err) != JL_OK ||
            jl_summarize(run, NULL, &s, &err) != JL_OK) {
            rc = fail(err); /* one bad run does not stop the others */
            err = NULL;
        } else {
            printf("%s,%.6g,%.1f\n", jl_trace_run_name(t, i), s->fig[JL_FIG_ENERGY_PER_TOKEN_J],
                   s->fig[JL_FIG_AVG_POWER_W]);
        }
        jl_summary_free(s);
        jl_run_free(run);
    }
    jl_trace_close(t);
    return rc;
}
