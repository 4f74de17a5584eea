/* Shared between atomic.c (files) and atomic_dir.c (directories). */
#ifndef JOULES_OUTPUT_ATOMIC_INTERNAL_H
#define JOULES_OUTPUT_ATOMIC_INTERNAL_H

/* Stop registered child processes and remove registered temporary
 * directories; async-signal-safe. Called by jl_atomic_cleanup_signal(). */
void jl__atomic_cleanup_dirs_signal(void);

#endif
