#include <stddef.h>

#include "cli/exit_codes.h"

int jl_exit_for(size_t n_ok, size_t n_failed)
{
    if (n_failed == 0)
        return JL_EXIT_OK;
    return n_ok ? JL_EXIT_PARTIAL : JL_EXIT_NOINPUT;
}

int jl_exit_for_status(jl_status st)
{
    switch (st) {
    case JL_OK: return JL_EXIT_OK;
    case JL_EUSAGE: return JL_EXIT_USAGE;
    case JL_EIO: return JL_EXIT_OUTPUT;
    case JL_ENOMEM:
    case JL_EINTERNAL: return JL_EXIT_INTERNAL;
    default: return JL_EXIT_NOINPUT;
    }
}
