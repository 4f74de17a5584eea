/* Write one run in the joules trace format v1 with the C library's writer
 * (include/joules/trace_write.h). The numbers are MADE UP (a stand-in
 * server: 2 GPUs at 150 W + 3 W per running sequence, 40 requests of a
 * continuous-batching loop): replace them with what your harness measured.
 *
 *   cc write_trace.c -o write_trace $(pkg-config --cflags --libs joules)   (or link libjoules.a)
 *   ./write_trace OUT.h5 && joules check OUT.h5
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "joules/trace.h"
#include "joules/trace_write.h"

#define G 2           /* GPUs */
#define R 40          /* requests */
#define MAX_BATCH 8   /* the server's max_num_seqs */
#define STEP 0.025    /* seconds per decode step */

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: write_trace OUT.h5\n");
        return 2;
    }
    jl_run *r = jl_run_new(); /* every array must come from malloc: jl_run_free frees them */
    r->name = strdup("example");
    jl_attrs *a = &r->attrs;
    a->workload = strdup("llm");
    a->model = strdup("example/stand-in");
    a->task = strdup("chat");
    a->gpu_model = strdup("H100");
    a->num_gpus = G;
    a->precision = strdup("bfloat16");
    a->max_batch_size = MAX_BATCH;
    a->tensor_parallel = G;
    a->start_time_unix = (double)time(NULL);
    a->gpu_tdp_w = 700;
    a->notes = strdup("MADE-UP numbers from docs/examples/write_trace.c (a stand-in server)");

    /* The stand-in server: requests arrive 0.1 s apart; each wants 60 + 7*(i%9)
     * tokens; one token per running request per step. */
    int want[R], done[R] = {0}, running[MAX_BATCH], n_run = 0, next = 0, left = R;
    r->req_n = R;
    r->arrival = malloc(R * sizeof(double));
    r->first_token = malloc(R * sizeof(double));
    r->finish = malloc(R * sizeof(double));
    r->input_tokens = malloc(R * sizeof(int32_t));
    r->output_tokens = malloc(R * sizeof(int32_t));
    size_t cap = 100000, S = 0, K = 0;
    r->engine_time = malloc(cap * sizeof(double));
    r->running = malloc(cap * sizeof(int32_t));
    r->tokens_generated = malloc(cap * sizeof(int64_t));
    r->itl_seconds = malloc(cap * sizeof(float));
    r->itl_request = malloc(cap * sizeof(int32_t));
    for (int i = 0; i < R; i++) {
        r->arrival[i] = 0.1 * i;
        r->first_token[i] = r->finish[i] = NAN;
        want[i] = 60 + 7 * (i % 9);
        r->input_tokens[i] = 100 + 10 * i;
    }
    double t = 0, last[R];
    int64_t total = 0;
    while (left > 0 && S < cap) {
        while (n_run < MAX_BATCH && next < R && r->arrival[next] <= t)
            running[n_run++] = next++;
        t += STEP;
        for (int k = 0; k < n_run; k++) {
            int i = running[k];
            if (++done[i] == 1)
                r->first_token[i] = t;
            else {
                r->itl_seconds[K] = (float)(t - last[i]);
                r->itl_request[K++] = i;
            }
            last[i] = t;
            total++;
            if (done[i] == want[i]) {
                r->finish[i] = t;
                r->output_tokens[i] = done[i];
                running[k--] = running[--n_run];
                left--;
            }
        }
        r->engine_time[S] = t;
        r->running[S] = n_run;
        r->tokens_generated[S++] = total;
    }
    r->engine_n = S;
    r->itl_n = K;

    /* Power: 100 Hz samples of both GPUs; energy_j is the counter's integral. */
    size_t N = (size_t)(t / 0.01) + 2;
    r->power_n = N;
    r->power_time = malloc(N * sizeof(double));
    r->watts = (jl_series){N, G, malloc(N * G * sizeof(double))};
    r->energy_j = (jl_series){N, G, malloc(N * G * sizeof(double))};
    for (size_t i = 0; i < N; i++) {
        double ti = 0.01 * (double)i;
        size_t s = 0;
        while (s + 1 < S && r->engine_time[s] < ti)
            s++;
        r->power_time[i] = ti;
        for (int g = 0; g < G; g++) {
            double w = 150.0 + 3.0 * r->running[s] + 5.0 * g;
            r->watts.v[i * G + g] = w;
            r->energy_j.v[i * G + g] =
                i ? r->energy_j.v[(i - 1) * G + g] + 0.5 * (w + r->watts.v[(i - 1) * G + g]) * 0.01
                  : 1000.0; /* any offset */
        }
    }

    jl_trace_write_options o;
    jl_trace_write_options_default(&o); /* chunked, deflate */
    o.harness = "docs/examples/write_trace.c (MADE-UP numbers)";
    jl_error *err = NULL;
    const jl_run *runs[] = {r};
    int rc = 0;
    if (jl_trace_write(argv[1], runs, 1, &o, &err) != JL_OK) {
        char *m = jl_error_format(err);
        fprintf(stderr, "write_trace: %s\n", m);
        free(m);
        jl_error_free(err);
        rc = 1;
    } else {
        printf("wrote %s: %zu power samples of %d GPUs, %d requests (made-up numbers)\n", argv[1],
               N, G, R);
    }
    jl_run_free(r);
    return rc;
}
