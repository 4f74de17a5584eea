/* CSV of run summaries: fixed column order (attributes, method, figures with
 * units in their names), full precision, empty cells for missing values. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "joules/output.h"

void jl_csv_field(FILE *f, const char *s)
{
    if (!s)
        return;
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

static const char *const key_columns[] = {
    "workload", "model", "task", "gpu_model", "num_gpus", "precision",
    "max_batch_size", "tensor_parallel", "expert_parallel", "data_parallel",
    "denoising_steps", NULL,
};

jl_status jl_fprint_summaries_csv(FILE *f, const jl_summary_list *l)
{
    fputs("file,run", f);
    for (int i = 0; key_columns[i]; i++)
        fprintf(f, ",%s", key_columns[i]);
    fputs(",steady_method,energy_source", f);
    for (int i = 0; i < JL_FIG_COUNT; i++)
        fprintf(f, ",%s", jl_figure_name((jl_figure)i));
    fputs(",warnings\n", f);
    for (size_t r = 0; r < l->count; r++) {
        const jl_summary *s = l->items[r];
        char buf[512];
        jl_csv_field(f, s->file);
        fputc(',', f);
        jl_csv_field(f, s->run);
        for (int i = 0; key_columns[i]; i++) {
            fputc(',', f);
            if (jl_attrs_get(&s->attrs, key_columns[i], buf, sizeof buf) == 0)
                jl_csv_field(f, buf);
        }
        fprintf(f, ",%s,%s", jl_steady_method_name(s->steady_method),
                jl_energy_source_name(s->energy_source));
        for (int i = 0; i < JL_FIG_COUNT; i++) {
            fputc(',', f);
            if (isfinite(s->fig[i]))
                fprintf(f, "%.17g", s->fig[i]);
        }
        fputc(',', f);
        /* warnings: rule names joined by ';' */
        buf[0] = '\0';
        size_t used = 0;
        for (size_t w = 0; w < s->n_warnings && used < sizeof buf - 1; w++) {
            int n = snprintf(buf + used, sizeof buf - used, "%s%s", w ? ";" : "",
                             s->warnings[w].rule);
            if (n < 0)
                break;
            used += (size_t)n;
            if (used >= sizeof buf)
                used = sizeof buf - 1;
        }
        jl_csv_field(f, buf);
        fputc('\n', f);
    }
    return ferror(f) ? JL_EIO : JL_OK;
}

jl_status jl_write_summaries_csv(const char *path, const jl_summary_list *l,
                                 jl_error **err)
{
    if (!strcmp(path, "-")) {
        errno = 0;
        if (jl_fprint_summaries_csv(stdout, l) != JL_OK || fflush(stdout))
            return jl_fail(err, JL_EIO, "<stdout>", NULL, NULL, -1,
                           "cannot write to standard output: %s",
                           errno ? strerror(errno) : "write error");
        return JL_OK;
    }
    jl_atomic_file af;
    jl_status st = jl_atomic_open(&af, path, err);
    if (st != JL_OK)
        return st;
    errno = 0;
    if (jl_fprint_summaries_csv(af.fp, l) != JL_OK) {
        int e = errno;
        jl_atomic_abort(&af);
        return jl_fail(err, JL_EIO, path, NULL, NULL, -1, "write failed: %s",
                       e ? strerror(e) : "write error");
    }
    return jl_atomic_commit(&af, err);
}
