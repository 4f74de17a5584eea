/* A program built against an installed joules, as a user would write it:
 * summarise every run under the paths given and print one figure per run,
 * energy per token (J/token; empty where a run has none, e.g. diffusion),
 * beside the library's version.
 *   consumer traces/            -> "file,run,energy_per_token_j" lines */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <joules/joules.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: consumer PATH...\n");
        return 2;
    }
    jl_study_options opt;
    jl_study_options_default(&opt);
    jl_summary_list runs = {0};
    jl_error_list errors = {0};
    jl_status st =
        jl_study_load((const char *const *)argv + 1, (size_t)argc - 1, &opt, &runs, &errors);
    for (size_t i = 0; i < errors.count; i++) {
        char *m = jl_error_format(errors.items[i]);
        fprintf(stderr, "consumer: %s\n", m ? m : "error");
        free(m);
    }
    fprintf(stderr, "consumer: joules %s (headers %s), %zu runs\n", jl_version(), JL_VERSION_STRING,
            runs.count);
    printf("file,run,%s\n", jl_figure_name(JL_FIG_ENERGY_PER_TOKEN_J));
    for (size_t i = 0; i < runs.count; i++) {
        double e = runs.items[i]->fig[JL_FIG_ENERGY_PER_TOKEN_J];
        printf("%s,%s,", runs.items[i]->file, runs.items[i]->run);
        if (!isnan(e))
            printf("%.17g", e);
        printf("\n");
    }
    int rc = st != JL_OK || errors.count || runs.count == 0;
    jl_summary_list_clear(&runs);
    jl_error_list_clear(&errors);
    return rc;
}
