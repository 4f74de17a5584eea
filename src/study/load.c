/* Loading a study: every run of every file, summarised; failures collected,
 * never fatal to the others.
 *
 * The files are summarised by worker processes (fork) — one by default,
 * more with opt->workers > 1 — not threads: Debian's HDF5 1.10 is built
 * thread-safe, but that means one global lock around every HDF5 call,
 * decompression included, so threads would take turns rather than run side
 * by side. Processes share
 * nothing and scale with cores (docs/performance.md has the figures).
 *
 * Units of work: a file, or a part of a file. With W > 1 workers, a file
 * larger than 1/W of the study's bytes (stat(); the parent never opens a
 * trace with libhdf5) is split into W parts; part p of P takes the
 * contiguous runs [n*p/P, n*(p+1)/P) of the file's n runs, worked out by
 * the worker when it opens the file. One rule covers the two cases where
 * whole files cannot keep W workers busy — fewer files than workers (one
 * big file per sweep, the ML.ENERGY import) and one file dwarfing the rest
 * — and leaves a set of similar files whole, where a split would only cost
 * extra opens (each part opens the file and lists all its runs: a few per
 * cent of summarising the ML.ENERGY file). Contiguous ranges rather than every P-th run so that
 * the parts, appended in order, are the file in run order with no
 * reordering: runs of similar cost (a sweep's summary-only runs) balance
 * well enough, and the cost of one more open per part would buy little
 * finer balance.
 *
 * The pool: the parent hands out one unit index at a time over a Unix
 * socket per worker (so a dead worker is EPIPE, not SIGPIPE, for the
 * parent) — first one unit to every worker, then a second one queued ahead;
 * the worker summarises the unit and sends back its summaries and errors in
 * the compact encoding of wire.c, then a "done" frame. The parent keeps
 * each unit's results in its own slot and appends the slots to `out` and
 * `errors` in unit order (files in order, a file's parts in run order) as
 * soon as every earlier unit is complete, so the result is the one a single
 * process gives, byte for byte. A file that cannot be opened is reported by
 * every part with the same text and appended once. A worker that dies (a
 * signal, an exit) while summarising a unit becomes an error naming the
 * file (and, for a part, the runs it took with it; the other parts' runs
 * are kept; a part that dies before it listed the runs is a file-level
 * error, appended once); the parent starts a new worker and carries on.
 *
 * Call it only while no other thread uses HDF5 (fork copies one thread). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/sha256.h"
#include "core/util.h"
#include "joules/study.h"
#include "study/study_internal.h"
#include "trace/trace_internal.h"

void jl_study_options_default(jl_study_options *opt)
{
    memset(opt, 0, sizeof *opt);
    jl_trace_options_default(&opt->trace);
    jl_summary_options_default(&opt->summary);
    opt->workers = 1;
    opt->isolate = 1;
}

static char *crash_on; /* test hook, see jl__study_test_crash_on */

void jl__study_test_crash_on(const char *name)
{
    free(crash_on);
    crash_on = name ? jl__strdup(name) : NULL;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The test hook "FILE#RUN": kill this (worker) process just before it
 * summarises run RUN of the file whose base name is FILE. */
static void maybe_crash_on_run(const char *path, const char *run)
{
    const char *hash = crash_on ? strchr(crash_on, '#') : NULL;
    if (!hash || !run || strcmp(hash + 1, run) != 0)
        return;
    const char *base = base_name(path);
    if (strlen(base) == (size_t)(hash - crash_on) &&
        !strncmp(base, crash_on, (size_t)(hash - crash_on)))
        raise(SIGKILL);
}

/* What a part learnt about its file: whether it opened, and its runs. */
typedef struct part_info {
    int opened;
    size_t n_runs, lo, hi; /* this part: runs [lo, hi) of n_runs */
} part_info;

/* Summarise part `part` of `parts` of a file: the contiguous runs
 * [n*part/parts, n*(part+1)/parts), so parts 0..parts-1 appended one after
 * the other give exactly what one pass over the file gives. `on_open`, when
 * not NULL, is told the range before the first run is read (workers send it
 * to the parent, for the message if they die); `in_worker` arms the test
 * hook. `on_summary`, when not NULL, takes each summary as it is made (it
 * owns it; a status other than JL_OK stops the part) instead of `out`: the
 * worker encodes and frees it at once, so a file's summaries are never all
 * in memory at the same time there. */
static jl_status load_part(const char *path, const jl_study_options *opt, size_t part, size_t parts,
                           int in_worker,
                           void (*on_open)(void *ctx, const jl_trace *t, const part_info *pi),
                           jl_status (*on_summary)(void *ctx, jl_summary *s), void *ctx,
                           part_info *pi, jl_summary_list *out, jl_error_list *errors)
{
    jl_trace *t = NULL;
    jl_error *err = NULL;
    memset(pi, 0, sizeof *pi);
    /* runs are read here only to be summarised: itl/ streams through the
     * summary instead of being read whole (memory bounded by its chunks) */
    jl_trace_options topt = opt->trace;
    topt.stream_itl = JL_STREAM_ITL_MIN_SAMPLES;
    jl_status st = jl_trace_open(path, &topt, &t, &err);
    if (st != JL_OK) {
        if (!err)
            err = jl_error_new(st, path, NULL, NULL, -1, "%s", jl_strerror(st));
        jl_error_set_context(err, path, NULL);
        return st == JL_ENOMEM ? st : jl_error_list_push(errors, err);
    }
    size_t n = jl_trace_run_count(t);
    pi->opened = 1;
    pi->n_runs = n;
    pi->lo = n / parts * part + n % parts * part / parts;
    pi->hi = n / parts * (part + 1) + n % parts * (part + 1) / parts;
    if (on_open)
        on_open(ctx, t, pi);
    for (size_t i = pi->lo; i < pi->hi; i++) {
        jl_run *run = NULL;
        jl_summary *s = NULL;
        err = NULL;
        if (in_worker && crash_on)
            maybe_crash_on_run(path, jl_trace_run_name(t, i));
        st = jl_trace_read_run(t, i, &run, &err);
        if (st == JL_OK)
            st = jl_summarize(run, &opt->summary, &s, &err);
        if (st == JL_OK && on_summary) {
            st = on_summary(ctx, s);
        } else if (st == JL_OK) {
            st = jl_summary_list_push(out, s);
            if (st != JL_OK)
                jl_summary_free(s);
        } else if (st != JL_ENOMEM) {
            if (!err)
                err = jl_error_new(st, path, jl_trace_run_name(t, i), NULL, -1, "%s",
                                   jl_strerror(st));
            jl_error_set_context(err, path, jl_trace_run_name(t, i));
            st = jl_error_list_push(errors, err);
            err = NULL;
        }
        jl_error_free(err);
        jl_run_free(run);
        if (st == JL_ENOMEM)
            break;
    }
    jl_trace_close(t);
    return st == JL_ENOMEM ? st : JL_OK;
}

jl_status jl_study_load_file(const char *path, const jl_study_options *opt, jl_summary_list *out,
                             jl_error_list *errors)
{
    part_info pi;
    return load_part(path, opt, 0, 1, 0, NULL, NULL, NULL, &pi, out, errors);
}

/* opt->hash_inputs: the file of a unit just summarised is hashed by the
 * unit of its part 0, while its pages are still in memory, and only when it
 * opened (a file that did not has no digest to give). A failure here is no
 * failure of the study: the provenance hashes the file itself later. */
static int want_digest(const jl_study_options *opt, size_t part, const part_info *pi)
{
    return opt->hash_inputs && part == 0 && pi->opened;
}

static void digest_here(const char *path, const jl_study_options *opt, size_t part,
                        const part_info *pi)
{
    jl_error *err = NULL;
    if (want_digest(opt, part, pi))
        (void)jl__digest_file(path, NULL, &err);
    jl_error_free(err);
}

/* ------------------------------------------------------------ workers */

/* Frames from a worker: a file-level error ('F': the file could not be
 * opened) is kept apart from run errors ('E') so that the parts of one file
 * report it once; 'R' tells the runs a part covers before it reads them;
 * 'H' is the file's SHA-256 (opt->hash_inputs, part 0 of a file that
 * opened), noted by the parent for the provenance. */
enum {
    FRAME_SUMMARY = 'S',
    FRAME_ERROR = 'E',
    FRAME_FILE_ERROR = 'F',
    FRAME_RANGE = 'R',
    FRAME_DIGEST = 'H',
    FRAME_DONE = 'D'
};
#define QUIT_INDEX 0xffffffffu
/* Units handed to a worker ahead: with 2 the next index already waits in
 * its socket when it finishes a unit, so it never sits idle until the
 * parent gets scheduled (which on a loaded machine can take milliseconds
 * per file). */
#define QUEUE_DEPTH 2

/* A unit of work: part `part` of `parts` of file `file`. */
typedef struct unit {
    size_t file;
    uint32_t part, parts;
} unit;

static int write_full(int fd, const void *p, size_t n)
{
    const unsigned char *c = p;
    while (n > 0) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_full(int fd, void *p, size_t n)
{
    unsigned char *c = p;
    while (n > 0) {
        ssize_t r = recv(fd, c, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

/* Frame: u32 payload length, u8 kind, payload. */
static size_t frame_begin(jl__wbuf *b, unsigned char kind)
{
    size_t at = b->len;
    jl__wbuf_u32(b, 0);
    jl__wbuf_put(b, &kind, 1);
    return at;
}

static void frame_end(jl__wbuf *b, size_t at)
{
    if (b->failed)
        return;
    uint32_t n = (uint32_t)(b->len - at - 5);
    memcpy(b->data + at, &n, sizeof n);
}

typedef struct range_ctx {
    int fd;
    jl__wbuf out; /* frames not yet sent */
} range_ctx;

/* Frames are sent once this many bytes wait: the worker's buffer stays
 * small (a whole file's frames were megabytes, grown by realloc), and the
 * parent decodes while the worker reads on. */
#define SEND_AT 65536
/* The most the parent takes from a worker's socket at a time. */
#define RECV_AT_MOST 65536

static void send_frames(range_ctx *rc)
{
    if (rc->out.len > 0 && write_full(rc->fd, rc->out.data, rc->out.len) != 0)
        _exit(1);
    rc->out.len = 0;
}

/* load_part's on_summary in a worker: one 'S' frame, the summary freed. */
static jl_status send_summary(void *ctx, jl_summary *s)
{
    range_ctx *rc = ctx;
    size_t at = frame_begin(&rc->out, FRAME_SUMMARY);
    jl__wire_put_summary(&rc->out, s);
    frame_end(&rc->out, at);
    jl_summary_free(s);
    if (rc->out.failed)
        return JL_ENOMEM;
    if (rc->out.len >= SEND_AT)
        send_frames(rc);
    return JL_OK;
}

/* A split part tells the parent its runs (u64 lo, hi, n, then the first and
 * last run's names) before reading them, so that if this process dies the
 * parent's error can say which runs were lost. */
static void send_range(void *ctx, const jl_trace *t, const part_info *pi)
{
    range_ctx *rc = ctx;
    send_frames(rc);
    jl__wbuf b = {0};
    size_t at = frame_begin(&b, FRAME_RANGE);
    uint64_t v[3] = {pi->lo, pi->hi, pi->n_runs};
    jl__wbuf_put(&b, v, sizeof v);
    for (int k = 0; k < 2; k++) {
        const char *name = pi->hi > pi->lo ? jl_trace_run_name(t, k ? pi->hi - 1 : pi->lo) : "";
        size_t len = name ? strlen(name) : 0;
        if (len > 4096)
            len = 4096;
        jl__wbuf_u32(&b, (uint32_t)len);
        jl__wbuf_put(&b, name, len);
    }
    frame_end(&b, at);
    if (b.failed || write_full(rc->fd, b.data, b.len) != 0)
        _exit(1);
    jl__wbuf_free(&b);
}

/* The worker: summarise the units it is given until told to stop. */
static void worker_main(int fd, char **files, const unit *units, size_t n_units,
                        const jl_study_options *opt)
{
#if defined(__GLIBC__)
    /* glibc gives freed heap back to the kernel (and serves big blocks by
     * mmap) as soon as a run's buffers are freed, and the next run faults
     * the same pages in again: 23,000 page faults for the 200-run study
     * set against 4,300 with these (-10 % CPU, docs/performance.md "The
     * study load"). Moderate, so memory stays bounded by the live data: at
     * most 32 MiB of free heap kept, blocks from 8 MiB mmap'ed. */
    mallopt(M_MMAP_THRESHOLD, 8 << 20);
    mallopt(M_TRIM_THRESHOLD, 32 << 20);
#endif
    /* files read whole are mapped here: a crash (SIGBUS, a file cut short
     * while mapped) costs this process, an error for that file */
    jl__trace_map_files();
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    jl_study_options wopt = *opt;
    wopt.workers = 1;
    wopt.progress = NULL;
    range_ctx rc = {fd, {0}};
    for (;;) {
        uint32_t idx;
        if (read_full(fd, &idx, sizeof idx) != 0 || idx == QUIT_INDEX || idx >= n_units)
            _exit(0);
        const unit *u = &units[idx];
        const char *path = files[u->file];
        if (crash_on && !strcmp(base_name(path), crash_on))
            raise(SIGKILL);
        jl_summary_list l = {0};
        jl_error_list e = {0};
        part_info pi;
        int32_t st =
            (int32_t)load_part(path, &wopt, u->part, u->parts, 1, u->parts > 1 ? send_range : NULL,
                               send_summary, &rc, &pi, &l, &e);
        jl__wbuf b = rc.out;
        rc.out = (jl__wbuf){0};
        if (b.failed) { /* the frames sent so far stand; the unit says ENOMEM */
            b.len = 0;
            b.failed = 0;
            st = JL_ENOMEM;
        }
        for (size_t i = 0; i < e.count; i++) {
            size_t at = frame_begin(&b, pi.opened ? FRAME_ERROR : FRAME_FILE_ERROR);
            jl__wire_put_error(&b, e.items[i]);
            frame_end(&b, at);
        }
        jl_summary_list_clear(&l);
        jl_error_list_clear(&e);
        /* made here, noted by the parent (this process's cache would die with it) */
        jl__digest d;
        jl_error *herr = NULL;
        int stable = 0;
        if (want_digest(opt, u->part, &pi) && jl__digest_make(path, &d, &stable, &herr) == JL_OK &&
            stable) {
            size_t at = frame_begin(&b, FRAME_DIGEST);
            int64_t v[3] = {(int64_t)d.size, d.mtime_s, d.mtime_ns};
            jl__wbuf_put(&b, v, sizeof v);
            jl__wbuf_put(&b, d.hex, 64);
            frame_end(&b, at);
        }
        jl_error_free(herr);
        if (b.failed) { /* report the unit as out of memory, nothing else */
            b.len = 0;
            b.failed = 0;
            st = JL_ENOMEM;
        }
        size_t at = frame_begin(&b, FRAME_DONE);
        jl__wbuf_u32(&b, idx);
        jl__wbuf_put(&b, &st, sizeof st);
        frame_end(&b, at);
        if (b.failed || write_full(fd, b.data, b.len) != 0)
            _exit(1);
        b.len = 0;
        rc.out = b; /* its memory serves the next unit */
    }
}

typedef struct worker {
    pid_t pid;           /* 0: no process */
    int fd;              /* parent's end; -1 when closed */
    long q[QUEUE_DEPTH]; /* units handed to it, in order; q[0] is the one */
    int nq;              /* being summarised (nq == 0: idle)            */
    jl__wbuf in;         /* received, not yet parsed */
    size_t in_pos;
} worker;

/* The results of one unit, kept until every earlier unit is complete. */
typedef struct slot {
    jl_summary_list sums;
    jl_error_list errs;
    jl_error *file_err; /* the file could not be opened (at most one) */
    int has_range;      /* a FRAME_RANGE arrived: */
    uint64_t lo, hi, n_runs;
    char *first_run, *last_run;
    int done;
} slot;

typedef struct pool {
    char **files;
    size_t n_files;
    unit *units;
    size_t n_units;
    size_t *parts_left; /* per file: units not yet complete */
    const jl_study_options *opt;
    worker *w;
    int n_w;
    slot *slots;
    size_t next;      /* next unit to hand out */
    size_t *requeued; /* units handed to a worker that died before taking them */
    size_t n_requeued;
    size_t n_done, n_files_done, flushed;
    char *flushed_file_err; /* formatted file-level error of the file being flushed */
    size_t flushed_file_err_of;
    jl_summary_list *out;
    jl_error_list *errors;
    /* a study shared by processes: a file-level error is reported by the
     * unit of part 0 alone, wherever that unit is loaded */
    int file_err_part0_only;
    /* units handed out on demand (shard.claim; NULL: units[next++]) */
    struct dyn *dyn;
    /* opt->hash_inputs: the parent hashes each file (part 0's) while a
     * worker reads it, instead of the worker after it: the parent only
     * waits meanwhile, so on a free core the hash costs no wall time. A
     * digest is noted once the file is known to have opened (a file that
     * did not has none, as before). The workers get wopt, without it. */
    int parent_hashes;
    jl_study_options wopt;
    struct file_hash *fh; /* [n_files] */
    size_t *hq, hq_n, hq_at;
} pool;

typedef struct file_hash {
    jl__digest d;
    signed char state;  /* 0: not queued; 1: queued; 2: hashed, stable; 3: no digest */
    signed char opened; /* -1: not known yet; 0: did not open; 1: opened */
} file_hash;

/* Units handed out on demand among the processes of a shared study
 * (jl_study_options.shard.claim): every process plans the same units, and
 * position k of the one sequence they share is unit order[k], the largest
 * first (so the last units handed out are the smallest and the processes
 * end together). Results stay in the slots until the exchange. */
typedef struct dyn {
    const size_t *order; /* [n_units] */
    long long limit;     /* the positions this process may take: below it */
    int over;            /* claim said none is left */
    int failed;          /* claim failed (the exchange broke) */
    size_t taken;        /* units claimed here */
    size_t files_done;   /* units of part 0 done here (progress: each file once) */
} dyn;

/* The next unit for this process: a requeued one, the next of the plan,
 * or one claimed from the shared sequence. 0 when none is left. */
static int next_unit(pool *p, size_t *idx)
{
    if (p->n_requeued > 0) {
        *idx = p->requeued[--p->n_requeued];
        return 1;
    }
    if (!p->dyn) {
        if (p->next >= p->n_units)
            return 0;
        *idx = p->next++;
        return 1;
    }
    if (p->dyn->over)
        return 0;
    long long k = p->opt->shard.claim(p->opt->shard.ctx, p->dyn->limit);
    if (k < 0 || k >= (long long)p->n_units) {
        p->dyn->over = 1;
        p->dyn->failed |= k < -1 || k >= (long long)p->n_units;
        return 0;
    }
    *idx = p->dyn->order[k];
    p->dyn->taken++;
    return 1;
}

/* Every unit this process took is complete. */
static int pool_finished(const pool *p)
{
    if (!p->dyn)
        return p->n_done >= p->n_units;
    return p->dyn->over && p->n_requeued == 0 && p->n_done >= p->dyn->taken;
}

static int spawn(pool *p, int k)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pid == 0) {
#ifdef __linux__
        /* a worker never outlives the process that asked for its work (a
         * parent killed while a worker waits on a slow file would leave it
         * behind): killed with its parent, and gone at once if the parent
         * died before this line */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(1);
#else
        (void)parent;
#endif
        close(sv[0]);
        for (int i = 0; i < p->n_w; i++) /* other workers' parent ends */
            if (p->w[i].fd >= 0)
                close(p->w[i].fd);
        worker_main(sv[1], p->files, p->units, p->n_units, p->parent_hashes ? &p->wopt : p->opt);
        _exit(0);
    }
    close(sv[1]);
    p->w[k].pid = pid;
    p->w[k].fd = sv[0];
    p->w[k].nq = 0;
    p->w[k].in.len = 0;
    p->w[k].in_pos = 0;
    return 0;
}

static int have_work(const pool *p)
{
    return p->n_requeued > 0 || (p->dyn ? !p->dyn->over : p->next < p->n_units);
}

/* Top up worker k's queue to `depth` units; when nothing is left and it is
 * idle, tell it to stop. */
static void assign(pool *p, int k, int depth)
{
    worker *w = &p->w[k];
    size_t idx;
    while (w->nq < depth && next_unit(p, &idx)) {
        uint32_t i32 = (uint32_t)idx;
        if (write_full(w->fd, &i32, sizeof i32) != 0) {
            /* it died: the unit goes back in the queue and the death is
             * noticed when its socket reads EOF */
            p->requeued[p->n_requeued++] = idx;
            return;
        }
        w->q[w->nq++] = (long)idx;
        size_t f = p->units[idx].file;
        if (p->parent_hashes && p->units[idx].part == 0 && p->fh[f].state == 0) {
            p->fh[f].state = 1;
            p->hq[p->hq_n++] = f;
        }
    }
    if (w->nq == 0) {
        uint32_t quit = QUIT_INDEX;
        (void)write_full(w->fd, &quit, sizeof quit);
    }
}

static size_t queue_pop(worker *w)
{
    size_t idx = (size_t)w->q[0];
    for (int i = 1; i < w->nq; i++)
        w->q[i - 1] = w->q[i];
    w->nq--;
    return idx;
}

static void slot_clear(slot *s)
{
    jl_summary_list_clear(&s->sums);
    jl_error_list_clear(&s->errs);
    jl_error_free(s->file_err);
    s->file_err = NULL;
    free(s->first_run);
    free(s->last_run);
    s->first_run = s->last_run = NULL;
}

/* A part's file-level error is dropped when an earlier part of the same
 * file already reported the same one: a file that cannot be opened is one
 * error however many parts it was split into. Returns 1 to keep it. */
static int keep_file_error(pool *p, size_t u, const jl_error *e, jl_status *st)
{
    char *text = jl_error_format(e);
    if (!text) {
        *st = JL_ENOMEM;
        return 0;
    }
    size_t file = p->units[u].file;
    if (p->flushed_file_err && p->flushed_file_err_of == file &&
        !strcmp(p->flushed_file_err, text)) {
        free(text);
        return 0;
    }
    free(p->flushed_file_err);
    p->flushed_file_err = text;
    p->flushed_file_err_of = file;
    return 1;
}

/* Append every complete unit whose predecessors are all appended: units
 * are in file order and a file's parts in run order, so this is the order
 * of one process. */
static jl_status flush_done(pool *p)
{
    if (p->dyn) /* kept for the exchange (load_shard_dynamic) */
        return JL_OK;
    while (p->flushed < p->n_units && p->slots[p->flushed].done) {
        slot *s = &p->slots[p->flushed];
        jl_status st = JL_OK;
        for (size_t i = 0; i < s->sums.count; i++) {
            if (st == JL_OK && (st = jl_summary_list_push(p->out, s->sums.items[i])) == JL_OK)
                continue;
            jl_summary_free(s->sums.items[i]);
        }
        s->sums.count = 0;
        if (s->file_err) {
            jl_error *e = s->file_err;
            s->file_err = NULL;
            if (st == JL_OK && !(p->file_err_part0_only && p->units[p->flushed].part != 0) &&
                keep_file_error(p, p->flushed, e, &st))
                st = jl_error_list_push(p->errors, e);
            else
                jl_error_free(e);
        }
        for (size_t i = 0; i < s->errs.count; i++) {
            if (st == JL_OK) {
                st = jl_error_list_push(p->errors, s->errs.items[i]);
                continue;
            }
            jl_error_free(s->errs.items[i]);
        }
        s->errs.count = 0;
        slot_clear(s);
        p->flushed++;
        if (st != JL_OK)
            return st;
    }
    return JL_OK;
}

/* The parent's digest of file f, noted once it is hashed and known to
 * have opened. */
static jl_status note_parent_digest(pool *p, size_t f)
{
    file_hash *h = &p->fh[f];
    if (h->state != 2 || h->opened != 1)
        return JL_OK;
    h->state = 3; /* noted */
    return jl__digest_note(p->files[f], &h->d) == JL_ENOMEM ? JL_ENOMEM : JL_OK;
}

/* Hash the next file queued; JL_OK whether or not it could be read. */
static jl_status hash_next(pool *p)
{
    size_t f = p->hq[p->hq_at++];
    file_hash *h = &p->fh[f];
    int stable = 0;
    jl_error *err = NULL;
    h->state = jl__digest_make(p->files[f], &h->d, &stable, &err) == JL_OK && stable ? 2 : 3;
    jl_error_free(err);
    return note_parent_digest(p, f);
}

static jl_status unit_done(pool *p, size_t u)
{
    p->slots[u].done = 1;
    p->n_done++;
    size_t f = p->units[u].file;
    if (p->parent_hashes && p->units[u].part == 0) {
        p->fh[f].opened = p->slots[u].file_err == NULL;
        jl_status hs = note_parent_digest(p, f);
        if (hs != JL_OK)
            return hs;
    }
    if (p->dyn) { /* a file cut between processes counts once: with its part 0 */
        p->dyn->files_done += p->units[u].part == 0;
        if (p->opt->progress)
            p->opt->progress(p->opt->progress_ctx, p->dyn->files_done, p->n_files, p->files[f]);
        return JL_OK;
    }
    if (--p->parts_left[f] == 0) {
        p->n_files_done++;
        if (p->opt->progress)
            p->opt->progress(p->opt->progress_ctx, p->n_files_done, p->n_files, p->files[f]);
    }
    return flush_done(p);
}

/* Which runs a dead worker took with it, for its error message; NULL for
 * a part that died before it had listed the file's runs (see below). */
static char *lost_what(const pool *p, size_t u, int *ok)
{
    const unit *un = &p->units[u];
    const slot *s = &p->slots[u];
    char *r;
    if (un->parts <= 1)
        r = jl__strdup("this file");
    else if (!s->has_range)
        return *ok = 1, NULL;
    else if (s->hi <= s->lo)
        r = jl__asprintf("part %u of %u of this file (no runs)", un->part + 1, un->parts);
    else
        r = jl__asprintf("runs %llu-%llu of %llu of this file (\"%s\" to \"%s\", part %u of %u)",
                         (unsigned long long)s->lo + 1, (unsigned long long)s->hi,
                         (unsigned long long)s->n_runs, s->first_run ? s->first_run : "",
                         s->last_run ? s->last_run : "", un->part + 1, un->parts);
    *ok = r != NULL;
    return r;
}

/* Worker k's socket closed: reap it, blame the unit it was summarising,
 * put the units queued behind it back, start another worker.
 *
 * The error names the file and, for a part of a split file, the runs lost
 * (the other parts' runs are kept). A part that died before it had listed
 * the file's runs (in libhdf5's open, typically: a corrupt file crashes
 * every part there) is a file-level error with the same text from every
 * part, so it is reported once, like a file that cannot be opened. */
static jl_status worker_died(pool *p, int k)
{
    worker *w = &p->w[k];
    int status = 0;
    pid_t pid = w->pid;
    close(w->fd);
    w->fd = -1;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    w->pid = 0;
    jl_status st = JL_OK;
    if (w->nq > 0) {
        size_t u = queue_pop(w);
        while (w->nq > 0) /* not started: someone else does them */
            p->requeued[p->n_requeued++] = queue_pop(w);
        const char *file = p->files[p->units[u].file];
        int ok = 0;
        char *what = lost_what(p, u, &ok);
        jl_error *e = NULL;
        if (!ok)
            e = NULL;
        else if (!what && WIFSIGNALED(status))
            e = jl_error_new(JL_EINTERNAL, file, NULL, NULL, -1,
                             "a worker process opening this file was killed by "
                             "signal %d (%s); results of the runs it was to "
                             "summarise are lost",
                             WTERMSIG(status), strsignal(WTERMSIG(status)));
        else if (!what)
            e = jl_error_new(JL_EINTERNAL, file, NULL, NULL, -1,
                             "a worker process opening this file exited "
                             "(status %d); results of the runs it was to "
                             "summarise are lost",
                             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        else if (WIFSIGNALED(status))
            e = jl_error_new(JL_EINTERNAL, file, NULL, NULL, -1,
                             "the worker process summarising %s was killed by "
                             "signal %d (%s); results of %s are lost",
                             what, WTERMSIG(status), strsignal(WTERMSIG(status)),
                             p->units[u].parts > 1 ? "those runs" : "its runs");
        else
            e = jl_error_new(JL_EINTERNAL, file, NULL, NULL, -1,
                             "the worker process summarising %s exited "
                             "(status %d) before it finished",
                             what, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        int file_level = what == NULL;
        free(what);
        /* what it sent before dying is dropped: the unit is one error */
        slot_clear(&p->slots[u]);
        if (!e)
            return JL_ENOMEM;
        if (file_level)
            p->slots[u].file_err = e;
        else if (jl_error_list_push(&p->slots[u].errs, e) != JL_OK)
            return JL_ENOMEM;
        st = unit_done(p, u);
    }
    if (st == JL_OK && have_work(p) && spawn(p, k) == 0)
        assign(p, k, QUEUE_DEPTH);
    return st;
}

static char *range_name(const unsigned char **pl, size_t *left)
{
    uint32_t len;
    if (*left < 4)
        return NULL;
    memcpy(&len, *pl, 4);
    if (len > *left - 4)
        return NULL;
    char *s = malloc((size_t)len + 1);
    if (s) {
        memcpy(s, *pl + 4, len);
        s[len] = '\0';
    }
    *pl += 4 + (size_t)len;
    *left -= 4 + (size_t)len;
    return s;
}

/* Parse the complete frames received from worker k. */
static jl_status parse_frames(pool *p, int k)
{
    worker *w = &p->w[k];
    for (;;) {
        size_t avail = w->in.len - w->in_pos;
        uint32_t n;
        if (avail < 5)
            break;
        memcpy(&n, w->in.data + w->in_pos, sizeof n);
        if (avail - 5 < n)
            break;
        unsigned char kind = w->in.data[w->in_pos + 4];
        const unsigned char *pl = w->in.data + w->in_pos + 5;
        w->in_pos += 5 + (size_t)n;
        if (w->nq == 0)
            return JL_EINTERNAL;
        slot *s = &p->slots[w->q[0]];
        size_t used = 0;
        jl_status st = JL_OK;
        if (kind == FRAME_SUMMARY) {
            jl_summary *sum = NULL;
            st = jl__wire_get_summary(pl, n, &used, &sum);
            if (st == JL_OK && (st = jl_summary_list_push(&s->sums, sum)) != JL_OK)
                jl_summary_free(sum);
        } else if (kind == FRAME_ERROR) {
            jl_error *e = NULL;
            st = jl__wire_get_error(pl, n, &used, &e);
            if (st == JL_OK)
                st = jl_error_list_push(&s->errs, e);
        } else if (kind == FRAME_FILE_ERROR) {
            jl_error *e = NULL;
            st = jl__wire_get_error(pl, n, &used, &e);
            if (st == JL_OK && s->file_err) { /* a part opens its file once */
                jl_error_free(e);
                st = JL_EINTERNAL;
            } else if (st == JL_OK) {
                s->file_err = e;
            }
        } else if (kind == FRAME_RANGE && n >= 24) {
            uint64_t v[3];
            memcpy(v, pl, sizeof v);
            const unsigned char *q = pl + 24;
            size_t left = n - 24;
            s->lo = v[0];
            s->hi = v[1];
            s->n_runs = v[2];
            s->has_range = 1;
            free(s->first_run);
            free(s->last_run);
            s->first_run = range_name(&q, &left);
            s->last_run = range_name(&q, &left);
        } else if (kind == FRAME_DIGEST && n == 24 + 64) {
            int64_t v[3];
            jl__digest d;
            memcpy(v, pl, sizeof v);
            memcpy(d.hex, pl + 24, 64);
            d.hex[64] = '\0';
            d.size = (unsigned long long)v[0];
            d.mtime_s = v[1];
            d.mtime_ns = v[2];
            st = jl__digest_note(p->files[p->units[w->q[0]].file], &d);
        } else if (kind == FRAME_DONE && n == 8) {
            uint32_t idx;
            int32_t fst;
            memcpy(&idx, pl, 4);
            memcpy(&fst, pl + 4, 4);
            if ((long)idx != w->q[0])
                return JL_EINTERNAL;
            if (fst == JL_ENOMEM) {
                int ok = 0;
                char *what = lost_what(p, idx, &ok);
                jl_error *e =
                    ok ? jl_error_new(JL_ENOMEM, p->files[p->units[idx].file], NULL, NULL, -1,
                                      "out of memory in the worker process "
                                      "summarising %s",
                                      what ? what : "this file")
                       : NULL;
                free(what);
                if (!e || jl_error_list_push(&s->errs, e) != JL_OK)
                    return JL_ENOMEM;
            }
            queue_pop(w);
            st = unit_done(p, idx);
            if (st == JL_OK)
                assign(p, k, QUEUE_DEPTH);
        } else {
            return JL_EINTERNAL;
        }
        if (st != JL_OK)
            return st == JL_EINVALID ? JL_EINTERNAL : st;
    }
    /* drop what was parsed */
    if (w->in_pos > 0) {
        memmove(w->in.data, w->in.data + w->in_pos, w->in.len - w->in_pos);
        w->in.len -= w->in_pos;
        w->in_pos = 0;
    }
    return JL_OK;
}

#if defined(__SANITIZE_ADDRESS__)
#define JL__ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JL__ASAN 1
#endif
#endif

/* Whether a worker may be forked now. fork() copies the calling thread
 * alone: a lock another thread holds at that moment stays held in the
 * child for ever. glibc's malloc takes its own locks around fork(), so a
 * worker can allocate whatever the other threads of its parent did;
 * AddressSanitizer's allocator (GCC 12's, the ASan tree's) does
 * not. Under it a worker forked from a Python process with other threads
 * waited for ever in that allocator, on a lock of a thread that was
 * allocating (a Python thread) or giving its caches back as it ended (a
 * thread just joined; the ASan tree's python_threads, docs/python.md,
 * "Threads"). So a sanitizer build forks only from a process of one thread
 * (/proc/self/status; no other thread can start one before the fork) and
 * otherwise reads in this process, with the same results. */
static int may_fork(void)
{
#ifdef JL__ASAN
    FILE *f = fopen("/proc/self/status", "r");
    int threads = 0;
    char line[128];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &threads) == 1)
            break;
    if (f)
        fclose(f);
    return threads == 1;
#else
    return 1;
#endif
}

static jl_status run_pool(pool *p)
{
    jl_status st = JL_OK;
    struct pollfd *pfd = calloc((size_t)p->n_w, sizeof *pfd);
    int *who = calloc((size_t)p->n_w, sizeof *who);
    if (!pfd || !who)
        st = JL_ENOMEM;
    int started = 0;
    if (st == JL_OK && !may_fork())
        st = JL_EINTERNAL; /* caller falls back to in-process */
    for (int k = 0; k < p->n_w; k++)
        p->w[k].fd = -1;
    for (int k = 0; st == JL_OK && k < p->n_w; k++)
        if (spawn(p, k) == 0)
            started++;
    /* one unit each first, then the queues topped up: with as many units
     * as workers (one file in parts) every worker gets one */
    for (int depth = 1; depth <= QUEUE_DEPTH; depth++)
        for (int k = 0; st == JL_OK && k < p->n_w; k++)
            if (p->w[k].fd >= 0 && (depth == QUEUE_DEPTH || have_work(p)))
                assign(p, k, depth);
    if (st == JL_OK && started == 0)
        st = JL_EINTERNAL; /* caller falls back to in-process */
    /* index 0 of a study whose units are claimed answers the others' claims
     * while its workers work (every millisecond at most) */
    void (*serve)(void *) = p->dyn ? p->opt->shard.serve : NULL;
    while (st == JL_OK && !pool_finished(p)) {
        int n = 0;
        for (int k = 0; k < p->n_w; k++)
            if (p->w[k].fd >= 0) {
                pfd[n].fd = p->w[k].fd;
                pfd[n].events = POLLIN;
                who[n++] = k;
            }
        if (n == 0) { /* no worker could be restarted */
            st = JL_EINTERNAL;
            break;
        }
        int hashing = p->hq_at < p->hq_n;
        int r = poll(pfd, (nfds_t)n, hashing ? 0 : serve ? 1 : -1);
        if (serve)
            serve(p->opt->shard.ctx);
        if (r == 0 && hashing) { /* nothing to read: a file to hash meanwhile */
            st = hash_next(p);
            continue;
        }
        if (r < 0) {
            if (errno == EINTR)
                continue;
            st = JL_EIO;
            break;
        }
        for (int i = 0; i < n && st == JL_OK; i++) {
            if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            int k = who[i];
            jl__wbuf *in = &p->w[k].in;
            /* received straight behind what is not parsed yet */
            if (in->cap - in->len < RECV_AT_MOST && !jl__wbuf_grow(in, RECV_AT_MOST)) {
                st = JL_ENOMEM;
                continue;
            }
            ssize_t got = recv(p->w[k].fd, in->data + in->len, RECV_AT_MOST, 0);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                st = worker_died(p, k);
                continue;
            }
            in->len += (size_t)got;
            st = parse_frames(p, k);
        }
    }
    while (st == JL_OK && p->hq_at < p->hq_n)
        st = hash_next(p);
    /* stop and reap every worker */
    for (int k = 0; k < p->n_w; k++) {
        if (p->w[k].fd >= 0)
            close(p->w[k].fd);
        if (p->w[k].pid > 0) {
            if (st != JL_OK)
                kill(p->w[k].pid, SIGTERM);
            while (waitpid(p->w[k].pid, NULL, 0) < 0 && errno == EINTR)
                ;
        }
        jl__wbuf_free(&p->w[k].in);
    }
    free(pfd);
    free(who);
    return st;
}

/* The units: each file whole, except that with W > 1 workers a file larger
 * than 1/W of all the bytes is split into W parts of contiguous runs. That
 * covers both cases where whole files cannot keep W workers busy (fewer
 * files than workers; one file dwarfing the rest) and leaves a set of
 * similar files alone, where a split would only cost extra opens. Sizes come
 * from stat(): the parent never opens a file with libhdf5, so it does not
 * know the run counts; each part works out its range when it opens the
 * file. A file that cannot be stat'ed is one unit. Returns the count. */
static size_t plan_units(char **files, size_t n_files, int workers, unit **out)
{
    *out = NULL;
    uint64_t *size = calloc(n_files ? n_files : 1, sizeof *size);
    if (!size)
        return 0;
    uint64_t total = 0;
    for (size_t i = 0; i < n_files; i++) {
        struct stat sb;
        if (workers > 1 && stat(files[i], &sb) == 0 && sb.st_size > 0)
            size[i] = (uint64_t)sb.st_size;
        total += size[i];
    }
    /* parts of file i: W when its size is above total / W, else 1 */
#define PARTS(i) (workers > 1 && size[i] > total / (uint64_t)workers ? (uint32_t)workers : 1u)
    size_t n_units = 0;
    for (size_t i = 0; i < n_files; i++)
        n_units += PARTS(i);
    unit *u = calloc(n_units, sizeof *u);
    if (u) {
        size_t k = 0;
        for (size_t i = 0; i < n_files; i++)
            for (uint32_t j = 0, np = PARTS(i); j < np; j++)
                u[k++] = (unit){i, j, np};
    }
#undef PARTS
    free(size);
    *out = u;
    return u ? n_units : 0;
}

/* The pool's workers (as many as units, at most want), slots and requeue
 * list for its p->n_units units; 0 when out of memory. */
static int pool_alloc(pool *p, int want)
{
    p->n_w = (size_t)want < p->n_units ? want : (int)p->n_units;
    p->w = calloc((size_t)(p->n_w > 0 ? p->n_w : 1), sizeof *p->w);
    p->slots = calloc(p->n_units ? p->n_units : 1, sizeof *p->slots);
    p->requeued = calloc(p->n_units ? p->n_units : 1, sizeof *p->requeued);
    p->parent_hashes = p->opt->hash_inputs;
    if (p->parent_hashes) {
        p->wopt = *p->opt;
        p->wopt.hash_inputs = 0;
        p->fh = calloc(p->n_files ? p->n_files : 1, sizeof *p->fh);
        p->hq = calloc(p->n_files ? p->n_files : 1, sizeof *p->hq);
        for (size_t f = 0; p->fh && f < p->n_files; f++)
            p->fh[f].opened = -1;
    }
    return p->w && p->slots && p->requeued && (!p->parent_hashes || (p->fh && p->hq));
}

static void pool_free(pool *p)
{
    for (size_t i = 0; p->slots && i < p->n_units; i++)
        slot_clear(&p->slots[i]);
    free(p->flushed_file_err);
    free(p->slots);
    free(p->w);
    free(p->requeued);
    free(p->parts_left);
    free(p->units);
    free(p->fh);
    free(p->hq);
}

/* The files' units summarised by worker processes. `given` (n_given
 * units, kept by the caller) is a study share's units (load_shard); NULL:
 * the units are planned here for the workers. */
static jl_status load_parallel(char **files, size_t n_files, const unit *given, size_t n_given,
                               const jl_study_options *opt, jl_summary_list *out,
                               jl_error_list *errors, int *fallback)
{
    pool p = {0};
    p.files = files;
    p.n_files = n_files;
    p.opt = opt;
    p.out = out;
    p.errors = errors;
    int want = opt->workers > 1 ? opt->workers : 1;
    if (given) {
        p.units = malloc((n_given ? n_given : 1) * sizeof *p.units);
        if (p.units)
            memcpy(p.units, given, n_given * sizeof *p.units);
        p.n_units = p.units ? n_given : 0;
        p.file_err_part0_only = 1;
    } else {
        p.n_units = plan_units(files, n_files, want, &p.units);
    }
    int ok = pool_alloc(&p, want);
    p.parts_left = calloc(n_files, sizeof *p.parts_left);
    jl_status st = JL_ENOMEM;
    if (p.units && ok && p.parts_left) {
        for (size_t u = 0; u < p.n_units; u++)
            p.parts_left[p.units[u].file]++;
        st = run_pool(&p);
        /* nothing was handed out: the caller can do it all in process */
        if (st == JL_EINTERNAL && p.n_done == 0)
            *fallback = 1;
    }
    pool_free(&p);
    return st;
}

/* ------------------------------------------------------------ shares */

/* Process 0 decodes the others' summaries and writes every output after
 * the exchange, alone: about this share of one process's whole time with
 * `summarize --json` on the study set of tests/perf/mpi_scaling.sh (0.16 s
 * of 6.4 s, the inputs hashed where they are read and the document written
 * without a tree; docs/scaling.md). So it takes that much less of the
 * bytes, and all ranks end together: with S the serial share and N
 * processes, process 0 takes (1 + S) / N - S of the bytes (none when that
 * is below zero: from N = 35 on, its serial part outweighs a share) and the
 * others split the rest. Only the balance depends on it, never a result. */
#define SHARE0_SERIAL 0.03

/* The units of process `index` of `count`: the files planned as for
 * count x W workers (a file larger than 1/(count W) of the bytes cut into
 * that many parts), then cut into `count` contiguous ranges of bytes —
 * process 0's smaller by SHARE0_SERIAL, the others' equal; a unit goes to
 * the process whose range holds its middle byte.
 * Contiguous, so the shares one after the other are the order of one
 * process. Every process computes the same plan from stat(). Returns the
 * units (all of them, *lo..*hi this process's) or NULL (out of memory). */
static unit *plan_share(char **files, size_t n_files, int index, int count, int workers,
                        size_t *n_units, size_t *lo, size_t *hi)
{
    int split = count * (workers > 1 ? workers : 1);
    unit *u = NULL;
    *n_units = plan_units(files, n_files, split, &u);
    *lo = *hi = 0;
    if (!u)
        return NULL;
    double *w = calloc(*n_units ? *n_units : 1, sizeof *w);
    if (!w) {
        free(u);
        return NULL;
    }
    double total = 0;
    for (size_t k = 0; k < *n_units; k++) {
        struct stat sb;
        double bytes = stat(files[u[k].file], &sb) == 0 && sb.st_size > 0 ? (double)sb.st_size : 0;
        w[k] = bytes / u[k].parts;
        total += w[k];
    }
    size_t first = *n_units, end = *n_units;
    double before = 0;
    double x0 = (1 + SHARE0_SERIAL) / count - SHARE0_SERIAL; /* process 0's part of the bytes */
    if (x0 < 0)
        x0 = 0;
    for (size_t k = 0; k < *n_units; k++) {
        /* by bytes; by count when no size is known */
        double mid = total > 0 ? (before + w[k] / 2) / total : (k + 0.5) / (double)*n_units;
        before += w[k];
        int owner = mid < x0 ? 0 : 1 + (int)((mid - x0) / (1 - x0) * (count - 1));
        if (owner >= count)
            owner = count - 1;
        if (owner == index && first == *n_units)
            first = k;
        if (owner > index && end == *n_units)
            end = k;
    }
    free(w);
    *lo = first < end ? first : end;
    *hi = end;
    return u;
}

/* This process's share, summarised here or by its workers, into out and
 * errors (a file-level error from part 0 of its file only). */
static jl_status load_share_units(char **files, size_t n_files, const unit *u, size_t n,
                                  const jl_study_options *opt, jl_summary_list *out,
                                  jl_error_list *errors)
{
    if (n == 0)
        return JL_OK;
    if (opt->workers > 1 || opt->isolate) {
        int fallback = 0;
        size_t before_runs = out->count, before_errs = errors->count;
        jl_status st = load_parallel(files, n_files, u, n, opt, out, errors, &fallback);
        if (st == JL_OK || !fallback || out->count != before_runs || errors->count != before_errs)
            return st;
    }
    jl_status st = JL_OK;
    for (size_t k = 0; k < n && st == JL_OK; k++) {
        jl_error_list e = {0};
        part_info pi;
        st = load_part(files[u[k].file], opt, u[k].part, u[k].parts, 0, NULL, NULL, NULL, &pi, out,
                       &e);
        digest_here(files[u[k].file], opt, u[k].part, &pi);
        for (size_t i = 0; i < e.count; i++) {
            if (st == JL_OK && (pi.opened || u[k].part == 0))
                st = jl_error_list_push(errors, e.items[i]);
            else
                jl_error_free(e.items[i]);
        }
        free(e.items);
    }
    return st;
}

/* Encoded share: u32 summaries, u32 errors, u32 digests, then each
 * summary and error in the worker wire format (wire.c), then each digest
 * of a file whose part 0 is in the share (opt->hash_inputs): u32 file
 * index (every process lists the same files), i64 size, i64 mtime seconds,
 * i64 nanoseconds, 64 hex digits. */
#define DIGEST_BYTES (4 + 24 + 64)

static jl_status encode_share(char **files, const unit *u, size_t n_u, const jl_summary_list *l,
                              const jl_error_list *e, jl__wbuf *b)
{
    jl_status st = JL_OK;
    uint32_t nd = 0;
    jl__digest *d = malloc((n_u ? n_u : 1) * sizeof *d);
    uint32_t *of = malloc((n_u ? n_u : 1) * sizeof *of);
    if (!d || !of) {
        free(d);
        free(of);
        return JL_ENOMEM;
    }
    for (size_t k = 0; k < n_u; k++)
        if (u[k].part == 0 && jl__digest_lookup(files[u[k].file], &d[nd]))
            of[nd++] = (uint32_t)u[k].file;
    jl__wbuf_u32(b, (uint32_t)l->count);
    jl__wbuf_u32(b, (uint32_t)e->count);
    jl__wbuf_u32(b, nd);
    for (size_t i = 0; i < l->count && st == JL_OK; i++)
        st = jl__wire_put_summary(b, l->items[i]);
    for (size_t i = 0; i < e->count && st == JL_OK; i++)
        st = jl__wire_put_error(b, e->items[i]);
    for (uint32_t k = 0; k < nd && st == JL_OK; k++) {
        int64_t v[3] = {(int64_t)d[k].size, d[k].mtime_s, d[k].mtime_ns};
        jl__wbuf_u32(b, of[k]);
        jl__wbuf_put(b, v, sizeof v);
        jl__wbuf_put(b, d[k].hex, 64);
    }
    free(d);
    free(of);
    return st == JL_OK && b->failed ? JL_ENOMEM : st;
}

static jl_status share_malformed(jl_error **err)
{
    if (!*err)
        *err = jl_error_new(JL_EINTERNAL, NULL, NULL, NULL, -1,
                            "a study share received from another process is malformed");
    return JL_EINTERNAL;
}

/* nd digests of a share (DIGEST_BYTES each: u32 file index, i64 size,
 * i64 mtime seconds, i64 nanoseconds, 64 hex digits) noted for the
 * provenance; *q and *n move past them. */
static jl_status take_digests(const unsigned char **q, size_t *n, uint32_t nd, char **files,
                              size_t n_files, jl_error **err)
{
    for (uint32_t i = 0; i < nd; i++) {
        uint32_t f;
        int64_t v[3];
        jl__digest d;
        if (*n < DIGEST_BYTES)
            return share_malformed(err);
        memcpy(&f, *q, 4);
        memcpy(v, *q + 4, sizeof v);
        memcpy(d.hex, *q + 28, 64);
        d.hex[64] = '\0';
        d.size = (unsigned long long)v[0];
        d.mtime_s = v[1];
        d.mtime_ns = v[2];
        *q += DIGEST_BYTES;
        *n -= DIGEST_BYTES;
        if (f >= n_files)
            return share_malformed(err);
        jl_status st = jl__digest_note(files[f], &d);
        if (st != JL_OK)
            return st;
    }
    return JL_OK;
}

static jl_status decode_shares(const unsigned char *p, size_t n, char **files, size_t n_files,
                               jl_summary_list *out, jl_error_list *errors, jl_error **err)
{
    while (n > 0) {
        uint32_t ns, ne, nd;
        if (n < 12) {
            *err = jl_error_new(JL_EINTERNAL, NULL, NULL, NULL, -1,
                                "a study share received from another process is cut short");
            return JL_EINTERNAL;
        }
        memcpy(&ns, p, 4);
        memcpy(&ne, p + 4, 4);
        memcpy(&nd, p + 8, 4);
        p += 12;
        n -= 12;
        for (uint64_t i = 0; i < (uint64_t)ns + ne; i++) {
            size_t used = 0;
            jl_summary *s = NULL;
            jl_error *e = NULL;
            jl_status st = i < ns ? jl__wire_get_summary(p, n, &used, &s)
                                  : jl__wire_get_error(p, n, &used, &e);
            if (st == JL_OK)
                st = s ? jl_summary_list_push(out, s) : jl_error_list_push(errors, e);
            else if (st != JL_ENOMEM)
                return share_malformed(err);
            if (st != JL_OK) {
                if (s && st == JL_ENOMEM)
                    jl_summary_free(s);
                return st;
            }
            p += used;
            n -= used;
        }
        jl_status dst = take_digests(&p, &n, nd, files, n_files, err);
        if (dst != JL_OK)
            return dst;
    }
    return JL_OK;
}

/* jl_study_options.shard: this process's share, then the gather. */
static jl_status load_shard(char **files, size_t n_files, const jl_study_options *opt,
                            jl_summary_list *out, jl_error_list *errors)
{
    int index = opt->shard.index, count = opt->shard.count;
    if (index < 0 || index >= count || !opt->shard.gather)
        return JL_EUSAGE;
    size_t n_units = 0, lo = 0, hi = 0;
    unit *u = plan_share(files, n_files, index, count, opt->workers, &n_units, &lo, &hi);
    if (!u && n_files > 0)
        return JL_ENOMEM;
    jl_summary_list mine = {0};
    jl_error_list mine_err = {0};
    /* index 0 keeps its share where it is; the others' come after it */
    jl_summary_list *l = index == 0 ? out : &mine;
    jl_error_list *e = index == 0 ? errors : &mine_err;
    jl_status st = load_share_units(files, n_files, u ? u + lo : NULL, hi - lo, opt, l, e);
    jl__wbuf b = {0};
    if (st == JL_OK && index > 0)
        st = encode_share(files, u ? u + lo : NULL, hi - lo, l, e, &b);
    free(u);
    jl_summary_list_clear(&mine);
    jl_error_list_clear(&mine_err);
    if (st != JL_OK) {
        jl__wbuf_free(&b);
        return st;
    }
    void *all = NULL;
    size_t all_len = 0;
    jl_error *err = NULL;
    st = opt->shard.gather(opt->shard.ctx, b.data, b.len, &all, &all_len, &err);
    jl__wbuf_free(&b);
    if (st == JL_OK && index == 0 && all)
        st = decode_shares(all, all_len, files, n_files, out, errors, &err);
    free(all);
    if (err)
        (void)jl_error_list_push(errors, err);
    return st;
}

/* ------------------------------------------------- units on demand */

/* The sequence the processes share: units by bytes, the largest first
 * (ties in plan order), the same in every process. */
static size_t *claim_order(char **files, const unit *u, size_t n_units)
{
    size_t *order = malloc((n_units ? n_units : 1) * sizeof *order);
    double *w = malloc((n_units ? n_units : 1) * sizeof *w);
    if (!order || !w) {
        free(order);
        free(w);
        return NULL;
    }
    for (size_t k = 0; k < n_units; k++) {
        struct stat sb;
        w[k] = stat(files[u[k].file], &sb) == 0 && sb.st_size > 0 ? (double)sb.st_size / u[k].parts
                                                                  : 0;
        order[k] = k;
    }
    /* insertion sort would be quadratic on 10^5 units: a merge sort */
    size_t *tmp = malloc((n_units ? n_units : 1) * sizeof *tmp);
    if (!tmp) {
        free(order);
        free(w);
        return NULL;
    }
    for (size_t width = 1; width < n_units; width *= 2) {
        for (size_t lo = 0; lo < n_units; lo += 2 * width) {
            size_t mid = lo + width < n_units ? lo + width : n_units;
            size_t hi = lo + 2 * width < n_units ? lo + 2 * width : n_units;
            size_t a = lo, b = mid, k = lo;
            while (a < mid || b < hi) {
                int take_a = b >= hi || (a < mid && w[order[a]] >= w[order[b]]);
                tmp[k++] = take_a ? order[a++] : order[b++];
            }
        }
        memcpy(order, tmp, n_units * sizeof *order);
    }
    free(tmp);
    free(w);
    return order;
}

/* Units this process claimed, summarised here (isolate = 0, one worker):
 * the others' claims are answered between units. */
static jl_status claim_in_process(pool *p)
{
    jl_status st = JL_OK;
    size_t idx;
    while (st == JL_OK && next_unit(p, &idx)) {
        const unit *u = &p->units[idx];
        slot *sl = &p->slots[idx];
        jl_error_list e = {0};
        part_info pi;
        st = load_part(p->files[u->file], p->opt, u->part, u->parts, 0, NULL, NULL, NULL, &pi,
                       &sl->sums, &e);
        digest_here(p->files[u->file], p->opt, u->part, &pi);
        for (size_t i = 0; i < e.count; i++) {
            if (st == JL_OK && !pi.opened && !sl->file_err)
                sl->file_err = e.items[i];
            else if (st == JL_OK && pi.opened)
                st = jl_error_list_push(&sl->errs, e.items[i]);
            else
                jl_error_free(e.items[i]);
        }
        free(e.items);
        if (st == JL_OK)
            st = unit_done(p, idx);
        if (p->opt->shard.serve)
            p->opt->shard.serve(p->opt->shard.ctx);
    }
    return st;
}

/* A share of units on demand: u32 records, then per unit done here u32
 * its index, u32 summaries, u32 errors, u8 a file-level error follows,
 * then that error, the summaries and the errors in the wire format; then
 * u32 digests and the digests as encode_share writes them. */
static jl_status encode_units(char **files, const pool *p, jl__wbuf *b)
{
    jl_status st = JL_OK;
    uint32_t nrec = 0, nd = 0;
    for (size_t k = 0; k < p->n_units; k++)
        nrec += p->slots[k].done != 0;
    jl__wbuf_u32(b, nrec);
    for (size_t k = 0; k < p->n_units && st == JL_OK; k++) {
        const slot *sl = &p->slots[k];
        if (!sl->done)
            continue;
        unsigned char fe = sl->file_err != NULL;
        jl__wbuf_u32(b, (uint32_t)k);
        jl__wbuf_u32(b, (uint32_t)sl->sums.count);
        jl__wbuf_u32(b, (uint32_t)sl->errs.count);
        jl__wbuf_put(b, &fe, 1);
        if (fe)
            st = jl__wire_put_error(b, sl->file_err);
        for (size_t i = 0; i < sl->sums.count && st == JL_OK; i++)
            st = jl__wire_put_summary(b, sl->sums.items[i]);
        for (size_t i = 0; i < sl->errs.count && st == JL_OK; i++)
            st = jl__wire_put_error(b, sl->errs.items[i]);
    }
    size_t at = b->len;
    jl__wbuf_u32(b, 0);
    for (size_t k = 0; k < p->n_units && st == JL_OK; k++) {
        jl__digest d;
        if (!p->slots[k].done || p->units[k].part != 0 ||
            !jl__digest_lookup(files[p->units[k].file], &d))
            continue;
        int64_t v[3] = {(int64_t)d.size, d.mtime_s, d.mtime_ns};
        jl__wbuf_u32(b, (uint32_t)p->units[k].file);
        jl__wbuf_put(b, v, sizeof v);
        jl__wbuf_put(b, d.hex, 64);
        nd++;
    }
    if (!b->failed)
        memcpy(b->data + at, &nd, sizeof nd);
    return st == JL_OK && b->failed ? JL_ENOMEM : st;
}

/* The others' shares of units into p's slots (index 0). */
static jl_status decode_units(const unsigned char *q, size_t n, pool *p, jl_error **err)
{
    while (n > 0) {
        uint32_t nrec, nd;
        if (n < 4)
            return share_malformed(err);
        memcpy(&nrec, q, 4);
        q += 4;
        n -= 4;
        for (uint32_t r = 0; r < nrec; r++) {
            uint32_t k, ns, ne;
            if (n < 13)
                return share_malformed(err);
            memcpy(&k, q, 4);
            memcpy(&ns, q + 4, 4);
            memcpy(&ne, q + 8, 4);
            unsigned char fe = q[12];
            q += 13;
            n -= 13;
            if (k >= p->n_units || p->slots[k].done || fe > 1)
                return share_malformed(err);
            slot *sl = &p->slots[k];
            for (uint64_t i = 0; i < (uint64_t)fe + ns + ne; i++) {
                size_t used = 0;
                jl_summary *sm = NULL;
                jl_error *e = NULL;
                int is_sum = i >= fe && i < (uint64_t)fe + ns;
                jl_status st = is_sum ? jl__wire_get_summary(q, n, &used, &sm)
                                      : jl__wire_get_error(q, n, &used, &e);
                if (st != JL_OK)
                    return st == JL_ENOMEM ? st : share_malformed(err);
                if (is_sum)
                    st = jl_summary_list_push(&sl->sums, sm);
                else if (i < fe)
                    sl->file_err = e;
                else
                    st = jl_error_list_push(&sl->errs, e);
                if (st != JL_OK) {
                    jl_summary_free(sm);
                    return st;
                }
                q += used;
                n -= used;
            }
            sl->done = 1;
        }
        if (n < 4)
            return share_malformed(err);
        memcpy(&nd, q, 4);
        q += 4;
        n -= 4;
        jl_status dst = take_digests(&q, &n, nd, p->files, p->n_files, err);
        if (dst != JL_OK)
            return dst;
    }
    return JL_OK;
}

/* jl_study_options.shard with claim: units handed out on demand. Every
 * process plans the units as one process with count x W workers would
 * (plan_units), takes them from the shared sequence (claim_order) as its
 * workers finish, and keeps their results by unit; the shares are
 * gathered, and index 0 appends every unit in plan order: one process's
 * output, whoever summarised what. */
static jl_status load_shard_dynamic(char **files, size_t n_files, const jl_study_options *opt,
                                    jl_summary_list *out, jl_error_list *errors)
{
    int index = opt->shard.index, count = opt->shard.count;
    if (index < 0 || index >= count || !opt->shard.gather)
        return JL_EUSAGE;
    pool p = {0};
    dyn d = {0};
    p.files = files;
    p.n_files = n_files;
    p.opt = opt;
    p.out = out;
    p.errors = errors;
    p.file_err_part0_only = 1;
    p.dyn = &d;
    int want = opt->workers > 1 ? opt->workers : 1;
    p.n_units = plan_units(files, n_files, count * want, &p.units);
    size_t *order = n_files ? claim_order(files, p.units, p.n_units) : NULL;
    d.order = order;
    d.limit = (long long)p.n_units;
    int ok = pool_alloc(&p, want);
    jl_status st = JL_ENOMEM;
    if ((p.units || !n_files) && (order || !n_files) && ok) {
        st = JL_OK;
        if (p.n_units > 0 && (opt->workers > 1 || opt->isolate)) {
            st = run_pool(&p);
            /* no worker could be started and nothing was claimed: here */
            if (st == JL_EINTERNAL && d.taken == 0 && !d.over)
                st = JL_OK;
        }
        if (st == JL_OK)
            st = claim_in_process(&p);
        if (st == JL_OK && d.failed)
            st = JL_EIO;
    }
    jl__wbuf b = {0};
    if (st == JL_OK && index > 0)
        st = encode_units(files, &p, &b);
    void *all = NULL;
    size_t all_len = 0;
    jl_error *err = NULL;
    if (st == JL_OK)
        st = opt->shard.gather(opt->shard.ctx, b.data, b.len, &all, &all_len, &err);
    jl__wbuf_free(&b);
    if (st == JL_OK && index == 0) {
        if (all)
            st = decode_units(all, all_len, &p, &err);
        for (size_t k = 0; st == JL_OK && k < p.n_units; k++)
            if (!p.slots[k].done) {
                err = jl_error_new(JL_EINTERNAL, files[p.units[k].file], NULL, NULL, -1,
                                   "part %u of %u of this file was summarised by no process "
                                   "of the study",
                                   p.units[k].part + 1, p.units[k].parts);
                st = JL_EINTERNAL;
            }
        p.dyn = NULL; /* now in plan order */
        if (st == JL_OK)
            st = flush_done(&p);
    }
    free(all);
    if (err)
        (void)jl_error_list_push(errors, err);
    pool_free(&p);
    free(order);
    return st;
}

static jl_status study_load(const char *const *paths, size_t n, const jl_study_options *opt,
                            jl_summary_list *out, jl_error_list *errors);

/* In opt->trace.context (joules/context.h) when given: the files the study
 * reads and their digests are noted there. */
jl_status jl_study_load(const char *const *paths, size_t n, const jl_study_options *opt,
                        jl_summary_list *out, jl_error_list *errors)
{
    jl_study_options defaults;
    if (!opt) {
        jl_study_options_default(&defaults);
        opt = &defaults;
    }
    jl_context *was = opt->trace.context ? jl_context_use(opt->trace.context) : NULL;
    jl_status st = study_load(paths, n, opt, out, errors);
    if (was)
        jl_context_use(was);
    return st;
}

static jl_status study_load(const char *const *paths, size_t n, const jl_study_options *opt,
                            jl_summary_list *out, jl_error_list *errors)
{
    char **files = NULL;
    size_t n_files = 0;
    size_t errors_before = errors->count;
    jl_status st = jl_collect_paths(paths, n, &files, &n_files, errors);
    if (st != JL_OK)
        return st;
    if (opt->shard.count > 1) {
        /* a path that lists no file is said once, by share 0 */
        if (opt->shard.index > 0) {
            for (size_t i = errors_before; i < errors->count; i++)
                jl_error_free(errors->items[i]);
            errors->count = errors_before;
        }
        st = opt->shard.claim ? load_shard_dynamic(files, n_files, opt, out, errors)
                              : load_shard(files, n_files, opt, out, errors);
        jl_paths_free(files, n_files);
        return st;
    }
    size_t first = 0;
    /* Worker processes whenever asked for, and by default even for one:
     * libhdf5 can crash on a corrupt file, and only a process boundary
     * keeps that from taking the other files' results with it. */
    if (n_files > 0 && (opt->workers > 1 || opt->isolate)) {
        int fallback = 0;
        size_t before_runs = out->count, before_errs = errors->count;
        st = load_parallel(files, n_files, NULL, 0, opt, out, errors, &fallback);
        if (st != JL_OK && fallback && out->count == before_runs && errors->count == before_errs) {
            st = JL_OK; /* no process could be started: do it here */
        } else {
            first = n_files;
        }
    }
    for (size_t i = first; i < n_files && st == JL_OK; i++) {
        part_info pi;
        st = load_part(files[i], opt, 0, 1, 0, NULL, NULL, NULL, &pi, out, errors);
        digest_here(files[i], opt, 0, &pi);
        if (opt->progress)
            opt->progress(opt->progress_ctx, i + 1, n_files, files[i]);
    }
    jl_paths_free(files, n_files);
    return st;
}
