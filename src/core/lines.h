/* Reading a text file one line at a time with a bound on the line's
 * length, so a reader's memory never follows a line a file makes as long as
 * it likes (docs/security.md, "Bounded work and limits"): getline(3) with a
 * limit. Internal to the library. */
#ifndef JOULES_CORE_LINES_H
#define JOULES_CORE_LINES_H

#include <stddef.h>
#include <stdio.h>

/* One line of f into *buf (grown, NUL-terminated, the newline kept): its
 * length; -1 at the end of the file or on a read error (ferror); -2 when
 * the line is longer than max bytes (the rest of it is skipped); -3 out
 * of memory. Bytes are taken as they are (a NUL too: the length says
 * where the line ends). */
long long jl__getline_max(FILE *f, char **buf, size_t *cap, size_t max);

#endif
