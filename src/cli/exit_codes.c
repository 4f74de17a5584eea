#include <stddef.h>

#include "cli/exit_codes.h"

int cli_exit_for(size_t n_ok, size_t n_failed)
{
    if (n_failed == 0)
        return JL_EXIT_OK;
    return n_ok ? JL_EXIT_PARTIAL : JL_EXIT_NOINPUT;
}

int cli_exit_for_error(const jl_error *e, jl_status st)
{
    if (e)
        st = e->code;
    switch (st) {
    case JL_OK: return JL_EXIT_OK;
    case JL_EUSAGE: return JL_EXIT_USAGE;
    case JL_ENOMEM:
    case JL_EINTERNAL: return JL_EXIT_INTERNAL;
    default:
        if (e && e->side == JL_SIDE_OUTPUT)
            return JL_EXIT_OUTPUT;
        /* the data was read, part of what was asked goes beyond it */
        return e && e->side == JL_SIDE_REQUEST ? JL_EXIT_PARTIAL : JL_EXIT_NOINPUT;
    }
}

int cli_exit_for_status(jl_status st)
{
    return cli_exit_for_error(NULL, st);
}
