/* Folder walks that end (docs/security.md, "Folder walks"): the one way the
 * library lists a folder it was given — the study's path listing, every
 * importer that walks a folder, the import guesser, the provenance's
 * inputs. Links are followed, but each folder and each file is met once
 * per (device, inode) in one walk: a `self -> .` link, two links that
 * point at each other's folders, a hard link or the same file named three
 * ways are each read once, and a walk is linear in what it lists.
 * Internal to the library. */
#ifndef JOULES_CORE_WALK_H
#define JOULES_CORE_WALK_H

#include <stddef.h>
#include <sys/stat.h>

#include "core/hash.h"

/* The (device, inode) pairs met in one walk (one command's inputs), as
 * keys "DEV:INO" of core's string map. */
typedef struct jl__walk {
    jl__strmap seen;
} jl__walk;

void jl__walk_init(jl__walk *w);
void jl__walk_free(jl__walk *w);

/* 1 when sb's (st_dev, st_ino) is met for the first time in this walk
 * (now claimed), 0 when met before, -1 out of memory. */
int jl__walk_claim(jl__walk *w, const struct stat *sb);
/* 1 when sb's (st_dev, st_ino) was met before in this walk, else 0. */
int jl__walk_seen(const jl__walk *w, const struct stat *sb);
/* The same for a path (stat(2), links followed): -2 when it cannot be
 * stat'ed (errno set). */
int jl__walk_claim_path(jl__walk *w, const char *path);

/* One folder's entries, each a name (no folder part), sorted by strcmp. */
typedef struct jl__walk_list {
    char **dirs; /* subfolders (links followed) not yet walked */
    size_t n_dirs;
    char **files; /* regular files met for the first time (now claimed) */
    size_t n_files;
    size_t n_repeats; /* entries left out: met before through another name */
} jl__walk_list;

/* The folder `dir` listed once: it is claimed, and its entries not
 * starting with '.' are stat'ed (links followed); a regular file is listed
 * when first met (then claimed), a folder when not walked yet (it is
 * claimed when it is listed in turn); anything else (a FIFO, a device, a
 * socket, a dangling link) is not listed. Returns 0; 1 when `dir` was
 * walked before in this walk (nothing listed: the caller goes on); -1 when
 * it cannot be opened (errno set); -2 out of memory. *out is empty unless
 * 0 is returned. */
int jl__walk_dir(jl__walk *w, const char *dir, jl__walk_list *out);
void jl__walk_list_free(jl__walk_list *l);

#endif
