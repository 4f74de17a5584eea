/* LD_PRELOAD shim for outputs.sh: holds a process inside fsync() — the
 * moment jl_atomic_commit() has written the whole temporary file and not
 * yet renamed it — so a test can interrupt it exactly there. When
 * $JOULES_TEST_HOLD_FSYNC names a path, the first fsync() creates that file
 * and waits for a signal; otherwise fsync() is the real one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int fsync(int fd)
{
    const char *marker = getenv("JOULES_TEST_HOLD_FSYNC");
    if (marker && *marker) {
        int m = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (m >= 0)
            close(m);
        for (;;)
            pause();
    }
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return real ? real(fd) : 0;
}
