/* Exit codes, decided in one place (docs/cli.md documents them). */
#ifndef JOULES_CLI_EXIT_CODES_H
#define JOULES_CLI_EXIT_CODES_H

#include "joules/error.h"

enum {
    JL_EXIT_OK = 0,        /* everything given was processed */
    JL_EXIT_PARTIAL = 1,   /* some inputs failed; results for the others written */
    JL_EXIT_USAGE = 2,     /* bad command line */
    JL_EXIT_NOINPUT = 3,   /* no input could be processed at all */
    JL_EXIT_OUTPUT = 4,    /* an output could not be written (nothing partial left) */
    JL_EXIT_INTERNAL = 5   /* out of memory or an internal error */
};

/* The exit code for a run over n_ok good results and n_failed failures. */
int jl_exit_for(size_t n_ok, size_t n_failed);

/* The exit code for a library status that stopped the whole command. */
int jl_exit_for_status(jl_status st);

#endif
