/* The CLI under MPI (cli/mpi.h, docs/scaling.md): ranks share the study's
 * units — files, and runs of large files (the library's
 * jl_study_options.shard) — handed out on demand: rank 0 holds the counter
 * of the one sequence every rank plans, and answers the others' claims
 * between its own work (its workers' loop polls every millisecond). Each
 * rank summarises what it takes with the usual per-run pipeline (and its
 * own --workers), the summaries reach rank 0 in the worker wire format,
 * and rank 0 alone does the rest and writes. JOULES_MPI_STATIC=1 keeps the
 * static byte-balanced shares of session 10 (for comparison). */
#define _POSIX_C_SOURCE 200809L
#include "cli/mpi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef JOULES_MPI
#include <mpi.h>

static int started, rank, size = 1, sharing;
/* JOULES_MPI_TIMES=1: each rank says on stderr where its time went (the
 * scaling benchmark, docs/scaling.md): its share, the exchange, the rest */
static double t_init, t_gather0, t_gather1;
static size_t bytes_sent, bytes_received;

/* Launched by an MPI launcher? (A plain `joules` in an MPI build stays one
 * process and never starts MPI: no singleton start-up cost.) */
static int under_launcher(void)
{
    const char *off = getenv("JOULES_NO_MPI"); /* a child joules of a rank (verify) */
    if (off && *off && strcmp(off, "0"))
        return 0;
    static const char *const vars[] = {
        "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",           "PMI_SIZE", "PMI_RANK",
        "MPI_LOCALNRANKS",      "SLURM_STEP_NUM_TASKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return 1;
    return 0;
}

int cli_mpi_init(int *argc, char ***argv)
{
    if (!under_launcher())
        return 1;
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return 1;
    started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    t_init = MPI_Wtime();
    return size;
}

int cli_mpi_rank(void)
{
    return rank;
}

int cli_mpi_size(void)
{
    return size;
}

/* Messages of at most 1 GiB (MPI counts are int). */
#define CHUNK (1 << 30)
#define TAG_LEN 71
#define TAG_DATA 72
#define TAG_PROGRESS 73
#define TAG_CLAIM 74
#define TAG_GRANT 75

/* The counter of the shared sequence of units, on rank 0. */
static long long next_position;
static long long units_claimed_here; /* JOULES_MPI_TIMES */

/* Rank 0: answer every claim waiting (a 16-byte message each way). */
static void serve(void *ctx)
{
    (void)ctx;
    if (rank != 0)
        return;
    for (;;) {
        int flag = 0;
        MPI_Status stt;
        if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_CLAIM, MPI_COMM_WORLD, &flag, &stt) != MPI_SUCCESS ||
            !flag)
            return;
        long long limit = 0, grant;
        if (MPI_Recv(&limit, 1, MPI_LONG_LONG, stt.MPI_SOURCE, TAG_CLAIM, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return;
        grant = next_position < limit ? next_position++ : -1;
        (void)MPI_Send(&grant, 1, MPI_LONG_LONG, stt.MPI_SOURCE, TAG_GRANT, MPI_COMM_WORLD);
    }
}

/* The next position of the sequence below limit, or -1; -2 when the
 * exchange broke. Rank 0 takes from its own counter; the others ask it. */
static long long claim(void *ctx, long long limit)
{
    (void)ctx;
    long long k;
    if (rank == 0) {
        serve(NULL);
        k = next_position < limit ? next_position++ : -1;
    } else if (MPI_Send(&limit, 1, MPI_LONG_LONG, 0, TAG_CLAIM, MPI_COMM_WORLD) != MPI_SUCCESS ||
               MPI_Recv(&k, 1, MPI_LONG_LONG, 0, TAG_GRANT, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
                   MPI_SUCCESS) {
        return -2;
    }
    units_claimed_here += k >= 0;
    return k;
}

/* Progress of the whole study, on rank 0. Open MPI hands every rank a pipe
 * for stderr, so no rank can tell whether a person watches: rank 0 prints
 * a line now and then — first after FIRST_S seconds, then every EVERY_S —
 * counting every rank's files; a short job prints none. The other ranks
 * send rank 0 their count at most once a second. */
#define PROGRESS_FIRST_S 5.0
#define PROGRESS_EVERY_S 10.0
static const char *progress_cmd = "";
static uint64_t (*progress_of)[2]; /* per rank: files done, files in the study */
static double progress_last_sent, progress_next_print, progress_every = PROGRESS_EVERY_S;
static int progress_printed;
static uint64_t progress_last_done;
static uint64_t progress_unsent[2]; /* a rank's count not sent yet (rate limit) */
static int progress_pending;

static void progress_drain(void)
{
    int flag = 1;
    while (flag) {
        MPI_Status stt;
        if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_PROGRESS, MPI_COMM_WORLD, &flag, &stt) != MPI_SUCCESS)
            return;
        if (!flag)
            break;
        uint64_t v[2];
        if (MPI_Recv(v, 2, MPI_UINT64_T, stt.MPI_SOURCE, TAG_PROGRESS, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return;
        if (progress_of && stt.MPI_SOURCE > 0 && stt.MPI_SOURCE < size) {
            progress_of[stt.MPI_SOURCE][0] = v[0];
            progress_of[stt.MPI_SOURCE][1] = v[1];
        }
    }
}

/* Rank 0: take in the others' counts, print a line when one is due (or,
 * final, when a line was printed before: the log ends with the count). */
static void progress_show(int final)
{
    progress_drain();
    double now = MPI_Wtime();
    if (!progress_of || (final ? !progress_printed : now < progress_next_print))
        return;
    uint64_t done = 0, total = 0;
    for (int r = 0; r < size; r++) {
        done += progress_of[r][0];
        if (progress_of[r][1] > total)
            total = progress_of[r][1];
    }
    if (done > total) /* a file cut between ranks counts once for each */
        done = total;
    if (progress_printed && done == progress_last_done) /* nothing new to say */
        return;
    progress_next_print = now + progress_every;
    progress_printed = 1;
    progress_last_done = done;
    fprintf(stderr, "joules %s: [%.1f s] %llu/%llu files summarised on %d ranks\n", progress_cmd,
            now - t_init, (unsigned long long)done, (unsigned long long)total, size);
}

static void progress_rank(void *ctx, size_t done, size_t total, const char *current)
{
    (void)ctx;
    (void)current;
    double now = MPI_Wtime();
    if (rank == 0) {
        progress_of[0][0] = done;
        progress_of[0][1] = total;
        progress_show(0);
        return;
    }
    progress_unsent[0] = done;
    progress_unsent[1] = total;
    progress_pending = 1;
    if (now - progress_last_sent >= 1.0) {
        progress_last_sent = now;
        progress_pending = 0;
        (void)MPI_Send(progress_unsent, 2, MPI_UINT64_T, 0, TAG_PROGRESS,
                       MPI_COMM_WORLD); /* 16 B: eager */
    }
}

/* Rank 0 waits for rank r's share without spinning in MPI_Recv (Open MPI
 * polls at 100 % of a core there, which a rank still loading on the same
 * cores would lose) and shows the progress meanwhile. */
static int wait_for(int r)
{
    for (;;) {
        int flag = 0;
        if (MPI_Iprobe(r, TAG_LEN, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        if (flag)
            return 0;
        serve(NULL); /* a rank still working may claim another unit */
        progress_show(0);
        struct timespec ts = {0, 2000000}; /* 2 ms */
        nanosleep(&ts, NULL);
    }
}

static jl_status exchange(const void *mine, size_t len, void **all, size_t *all_len,
                          jl_error **err);
static void say_times(void);

static jl_status gather(void *ctx, const void *mine, size_t len, void **all, size_t *all_len,
                        jl_error **err)
{
    (void)ctx;
    *all = NULL;
    *all_len = 0;
    t_gather0 = MPI_Wtime();
    jl_status st = exchange(mine, len, all, all_len, err);
    t_gather1 = MPI_Wtime();
    return st;
}

static jl_status exchange(const void *mine, size_t len, void **all, size_t *all_len, jl_error **err)
{
    if (rank != 0) {
        bytes_sent = len;
        if (progress_pending) /* the last count, before the share */
            (void)MPI_Send(progress_unsent, 2, MPI_UINT64_T, 0, TAG_PROGRESS, MPI_COMM_WORLD);
        progress_pending = 0;
        uint64_t n = len;
        if (MPI_Send(&n, 1, MPI_UINT64_T, 0, TAG_LEN, MPI_COMM_WORLD) != MPI_SUCCESS)
            goto fail;
        for (size_t at = 0; at < len; at += CHUNK) {
            int c = (int)(len - at < CHUNK ? len - at : CHUNK);
            if (MPI_Send((const char *)mine + at, c, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD) !=
                MPI_SUCCESS)
                goto fail;
        }
        return JL_OK;
    }
    unsigned char *buf = NULL;
    size_t used = 0;
    for (int r = 1; r < size; r++) {
        uint64_t n = 0;
        if (wait_for(r) != 0 || MPI_Recv(&n, 1, MPI_UINT64_T, r, TAG_LEN, MPI_COMM_WORLD,
                                         MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            free(buf);
            goto fail;
        }
        if (n > SIZE_MAX - used) {
            free(buf);
            return JL_ENOMEM;
        }
        unsigned char *grown = realloc(buf, used + (size_t)n + 1);
        if (!grown) {
            free(buf);
            return JL_ENOMEM;
        }
        buf = grown;
        for (uint64_t at = 0; at < n; at += CHUNK) {
            int c = (int)(n - at < CHUNK ? n - at : CHUNK);
            if (MPI_Recv(buf + used + at, c, MPI_BYTE, r, TAG_DATA, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE) != MPI_SUCCESS) {
                free(buf);
                goto fail;
            }
        }
        used += (size_t)n;
    }
    progress_show(1); /* every rank's last count was sent before its share */
    *all = buf;
    *all_len = used;
    bytes_received = used;
    return JL_OK;
fail:
    *err = jl_error_new(JL_EIO, NULL, NULL, NULL, -1,
                        "rank %d: the study's summaries could not be exchanged over MPI", rank);
    return JL_EIO;
}

void cli_mpi_share(void)
{
    sharing = 1;
}

void cli_mpi_study(jl_study_options *opt, const char *cmd)
{
    if (size <= 1 || !sharing)
        return;
    opt->shard.index = rank;
    opt->shard.count = size;
    opt->shard.gather = gather;
    opt->shard.ctx = NULL;
    const char *stat_shares = getenv("JOULES_MPI_STATIC");
    int dynamic = !(stat_shares && *stat_shares && strcmp(stat_shares, "0"));
    opt->shard.claim = dynamic ? claim : NULL;
    opt->shard.serve = dynamic && rank == 0 ? serve : NULL; /* rank 0 holds the counter */
    next_position = 0;
    progress_cmd = cmd;
    free(progress_of);
    progress_of = rank == 0 ? calloc((size_t)size, sizeof *progress_of) : NULL;
    /* JOULES_MPI_PROGRESS=S: the first line after S seconds and then every
     * S (the tests: 0, a line at every count) */
    const char *every = getenv("JOULES_MPI_PROGRESS");
    double first = PROGRESS_FIRST_S;
    if (every && *every) {
        char *end = NULL;
        double v = strtod(every, &end);
        if (end && !*end && v >= 0 && v < 1e6)
            first = progress_every = v;
    }
    progress_next_print = MPI_Wtime() + first;
    opt->progress = rank == 0 && !progress_of ? NULL : progress_rank;
    opt->progress_ctx = NULL;
}

void cli_mpi_secondary_done(void)
{
    if (size <= 1 || rank == 0 || !sharing)
        return;
    say_times();
    fflush(NULL);
    MPI_Finalize();
    exit(0);
}

void cli_mpi_abort(int rc)
{
    if (size <= 1)
        return;
    fprintf(stderr, "joules: rank %d of %d ends the job (exit %d): nothing was written\n", rank,
            size, rc);
    fflush(NULL);
    MPI_Abort(MPI_COMM_WORLD, rc ? rc : 1);
}

static void say_times(void)
{
    const char *v = getenv("JOULES_MPI_TIMES");
    if (!v || !*v || !strcmp(v, "0") || t_gather0 == 0)
        return;
    double end = MPI_Wtime();
    fprintf(stderr,
            "joules-mpi-times: rank %d of %d: share %.6f s, exchange %.6f s, after %.6f s, "
            "sent %zu B, received %zu B, units %lld\n",
            rank, size, t_gather0 - t_init, t_gather1 - t_gather0, end - t_gather1, bytes_sent,
            bytes_received, units_claimed_here);
}

int cli_mpi_finish(int rc)
{
    if (started) {
        say_times();
        fflush(NULL);
        MPI_Finalize();
        started = 0;
    }
    return rc;
}

#else /* one process */

int cli_mpi_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 1;
}

int cli_mpi_rank(void)
{
    return 0;
}

int cli_mpi_size(void)
{
    return 1;
}

void cli_mpi_share(void)
{
}

void cli_mpi_study(jl_study_options *opt, const char *cmd)
{
    (void)opt;
    (void)cmd;
}

void cli_mpi_secondary_done(void)
{
}

void cli_mpi_abort(int rc)
{
    (void)rc;
}

int cli_mpi_finish(int rc)
{
    return rc;
}

#endif
