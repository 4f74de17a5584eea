/* CSV of run summaries: fixed column order (attributes, method, figures with
 * units in their names), full precision, empty cells for missing values. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
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
    fputs(",warnings,disagreements\n", f);
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
        /* warnings: rule names joined by ';', however many there are */
        jl_strbuf w;
        jl_strbuf_init(&w);
        for (size_t k = 0; k < s->n_warnings; k++) {
            if (k)
                jl_strbuf_puts(&w, ";");
            jl_strbuf_puts(&w, s->warnings[k].rule);
        }
        char *joined = jl_strbuf_take(&w);
        if (!joined)
            return JL_ENOMEM;
        jl_csv_field(f, joined);
        free(joined);
        /* marked disagreements of published and recomputed figures:
         * figure:relative_difference joined by ';' (docs/summary.md) */
        fputc(',', f);
        jl_disagreement d[JL_FIG_COUNT];
        size_t nd = jl_summary_disagreements(s, d);
        for (size_t k = 0, m = 0; k < nd; k++)
            if (d[k].marked) {
                fprintf(f, "%s%s", m++ ? ";" : "", jl_figure_name(d[k].figure));
                if (isfinite(d[k].relative_difference))
                    fprintf(f, ":%+.4g", d[k].relative_difference);
            }
        fputc('\n', f);
    }
    return ferror(f) ? JL_EIO : JL_OK;
}

static int print_summaries(FILE *f, const void *ctx)
{
    return jl_fprint_summaries_csv(f, ctx) != JL_OK;
}

jl_status jl_write_summaries_csv(const char *path, const jl_summary_list *l,
                                 jl_error **err)
{
    return jl_write_text(path, print_summaries, l, err);
}
