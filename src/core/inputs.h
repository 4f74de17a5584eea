/* The files read as inputs, the read log of the current context
 * (joules/context.h; docs/accounting.md, "Provenance"):
 * every reader of a user's file — traces, logs, RUNS.csv, request files,
 * budgets, grid series, calibrations, rules, profiles — notes the path it
 * opened here, and the provenance block lists exactly these (not every
 * argument that happens to name a file). Paths as opened; each once, in the
 * order first read. Thread-safe. */
#ifndef JOULES_CORE_INPUTS_H
#define JOULES_CORE_INPUTS_H

#include <stddef.h>

/* Note that path was read as an input (NULL or "": nothing). A path that
 * is not a regular file when noted is left out (a FIFO refused, a folder
 * listed). */
void jl__input_read(const char *path);
/* How many paths are noted, and the i-th (valid until the next note). */
size_t jl__inputs_count(void);
const char *jl__inputs_get(size_t i);

#endif
