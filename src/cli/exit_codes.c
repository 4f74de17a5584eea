#include <stddef.h>

#include "cli/exit_codes.h"

int cli_exit_for(size_t n_ok, size_t n_failed)
{
    if (n_failed == 0)
        return CLI_EXIT_OK;
    return n_ok ? CLI_EXIT_PARTIAL : CLI_EXIT_NOINPUT;
}

int cli_exit_for_error(const jl_error *e, jl_status st)
{
    if (e)
        st = e->code;
    switch (st) {
    case JL_OK: return CLI_EXIT_OK;
    case JL_EUSAGE: return CLI_EXIT_USAGE;
    case JL_ENOMEM:
    case JL_EINTERNAL: return CLI_EXIT_INTERNAL;
    default:
        if (e && e->side == JL_SIDE_OUTPUT)
            return CLI_EXIT_OUTPUT;
        /* the data was read, part of what was asked goes beyond it */
        return e && e->side == JL_SIDE_REQUEST ? CLI_EXIT_PARTIAL : CLI_EXIT_NOINPUT;
    }
}

int cli_exit_for_status(jl_status st)
{
    return cli_exit_for_error(NULL, st);
}
