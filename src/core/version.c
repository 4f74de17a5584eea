/* jl_version(): the version compiled into the library (joules/version.h). */
#include "joules/version.h"

const char *jl_version(void)
{
    return JL_VERSION_STRING;
}
