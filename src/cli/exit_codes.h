/* Exit codes, decided in one place (docs/cli.md documents them): a failure
 * that stops a command maps to its code by cli_exit_for_error alone, a run
 * over several inputs by cli_exit_for. */
#ifndef JOULES_CLI_EXIT_CODES_H
#define JOULES_CLI_EXIT_CODES_H

#include <stddef.h>

#include "joules/error.h"

enum {
    CLI_EXIT_OK = 0,      /* everything given was processed */
    CLI_EXIT_PARTIAL = 1, /* some inputs failed; results for the others written */
    CLI_EXIT_USAGE = 2,   /* bad command line */
    CLI_EXIT_NOINPUT = 3, /* no input could be processed at all */
    CLI_EXIT_OUTPUT = 4,  /* an output could not be written (nothing partial left) */
    CLI_EXIT_INTERNAL = 5 /* out of memory or an internal error */
};

/* The exit code for a run over n_ok good results and n_failed failures. */
int cli_exit_for(size_t n_ok, size_t n_failed);

/* The one mapping from a failure that stopped the whole command to its exit
 * code: its status and where it happened (include/joules/error.h).
 * JL_EUSAGE 2; JL_ENOMEM and JL_EINTERNAL 5; an error on the output side
 * (an output that could not be written) 4; on the request side (the data
 * was read, what was asked goes beyond it: a batch beyond a group's
 * ceiling) 1; every other failure 3: an input that could not be read
 * (JL_EIO on the input side) or used. e may be NULL (no error object: st
 * alone, on the input side). */
int cli_exit_for_error(const jl_error *e, jl_status st);

/* The same for a status without an error object (input side). */
int cli_exit_for_status(jl_status st);

#endif
