/* What an input that is not a trace looks like (jl_import_guess_path,
 * include/joules/import.h): an analysis command handed an nvidia-smi CSV,
 * a vLLM result, a Leaderboard folder or an MLPerf run says what it is and
 * the `joules import` command that reads it (docs/import.md, "Handed to an
 * analysis command"). Only the first bytes of a file are read, and a folder
 * is walked a few levels deep with a bound on the entries looked at. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/util.h"
#include "core/walk.h"
#include "joules/import.h"

#define HEAD_BYTES 4096
#define WALK_DEPTH 8
#define WALK_ENTRIES 20000

/* The first bytes of a file as text: a UTF-8 byte-order mark skipped, UTF-16
 * (what Windows PowerShell's `>` writes) narrowed to its ASCII bytes. */
static size_t read_head(const char *path, char *buf, size_t cap)
{
    FILE *f = jl__fopen_input(path, NULL, 0);
    if (!f)
        return 0;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    const unsigned char *u = (const unsigned char *)buf;
    if (n >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
        memmove(buf, buf + 3, n - 2);
        n -= 3;
    } else if (n >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))) {
        size_t k = 0, lo = u[0] == 0xFF ? 2 : 3; /* little endian: the ASCII byte first */
        for (size_t i = lo; i < n; i += 2)
            if (buf[i])
                buf[k++] = buf[i];
        buf[k] = '\0';
        n = k;
    }
    for (size_t i = 0; i < n; i++)
        if (!buf[i])
            buf[i] = ' '; /* binary: the string tests below see no NUL */
    return n;
}

static int has(const char *s, const char *w)
{
    return strstr(s, w) != NULL;
}

#define VLLM_WHAT                                                                                  \
    "a vLLM serving-benchmark result (`benchmark_serving.py` / `vllm bench serve`): it holds the " \
    "requests but no power; import it with the GPU log of the same run, naming it in the "         \
    "`requests` column of a RUNS.csv: `joules import nvidia-smi GPU_LOG.csv --runs RUNS.csv -o "   \
    "OUT.h5`"

/* The required attributes an nvidia-smi log does not say (docs/import.md,
 * "Runs"): the command suggests them as --set flags. */
#define NVSMI_SET                                                                            \
    " --set workload=llm --set model=MODEL --set task=TASK --set precision=PRECISION --set " \
    "max_batch_size=CAP"
#define NVSMI_GPU " --set gpu_model=GPU"

/* The first bytes of a JSON document that is a vLLM result. */
static int vllm_head(const char *head)
{
    return has(head, "\"ttfts\"") || has(head, "\"itls\"") || has(head, "\"input_lens\"") ||
           (has(head, "\"backend\"") && has(head, "\"request_rate\"") &&
            has(head, "\"completed\""));
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* A path as a shell word: single-quoted when it holds anything but
 * [A-Za-z0-9_./+:=,@%-]. */
static void shell_word(char *out, size_t cap, const char *p)
{
    int plain = *p != '\0';
    for (const char *q = p; *q; q++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+:=,@%-", *q))
            plain = 0;
    if (plain) {
        snprintf(out, cap, "%s", p);
        return;
    }
    size_t k = 0;
    if (k + 1 < cap)
        out[k++] = '\'';
    for (const char *q = p; *q && k + 5 < cap; q++) {
        if (*q == '\'') {
            memcpy(out + k, "'\\''", 4);
            k += 4;
        } else {
            out[k++] = *q;
        }
    }
    if (k + 1 < cap)
        out[k++] = '\'';
    out[k < cap ? k : cap - 1] = '\0';
}

/* The output name a command suggests: the last component of path without
 * its extension, + ".h5". */
static void out_name(char *out, size_t cap, const char *path)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", path);
    size_t n = strlen(tmp);
    while (n > 1 && tmp[n - 1] == '/')
        tmp[--n] = '\0';
    const char *base = strrchr(tmp, '/');
    base = base ? base + 1 : tmp;
    char b[256];
    /* a longer name is cut: the suggestion stays a suggestion */
    if (snprintf(b, sizeof b, "%s",
                 *base && strcmp(base, ".") && strcmp(base, "..") ? base : "imported") >=
        (int)sizeof b)
        b[sizeof b - 1] = '\0';
    char *dot = strrchr(b, '.');
    if (dot && dot != b)
        *dot = '\0';
    char w[300];
    snprintf(w, sizeof w, "%s.h5", b);
    shell_word(out, cap, w);
}

static int set(jl_import_guess *g, const char *format, const char *path, const char *what,
               const char *extra)
{
    snprintf(g->format, sizeof g->format, "%s", format ? format : "");
    snprintf(g->what, sizeof g->what, "%s", what);
    g->command[0] = '\0';
    if (format) {
        char p[600], o[320];
        shell_word(p, sizeof p, path);
        out_name(o, sizeof o, path);
        if (extra && strstr(extra, "--into")) /* a profile goes into an existing run */
            snprintf(g->command, sizeof g->command, "joules import %s %s%s", format, p, extra);
        else
            snprintf(g->command, sizeof g->command, "joules import %s %s%s -o %s", format, p,
                     extra ? extra : "", o);
    }
    return 1;
}

/* The folder of a file (path up to its last '/', "." when none). */
static void dir_of(char *out, size_t cap, const char *path)
{
    snprintf(out, cap, "%s", path);
    char *slash = strrchr(out, '/');
    if (!slash)
        snprintf(out, cap, ".");
    else if (slash == out)
        out[1] = '\0';
    else
        *slash = '\0';
}

/* The first bytes of a gzip file's data (a Kineto .json.gz), at most
 * HEAD_BYTES of it: zlib reads the members as they come, so only the head
 * is inflated. */
static size_t read_gz_head(const char *path, char *buf, size_t cap)
{
    int fd = jl__open_input(path, NULL, 0); /* a FIFO or a device: never read */
    gzFile z = fd >= 0 ? gzdopen(fd, "rb") : NULL;
    if (!z) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    int n = gzread(z, buf, (unsigned)(cap - 1));
    gzclose(z);
    if (n < 0)
        n = 0;
    buf[n] = '\0';
    for (int i = 0; i < n; i++)
        if (!buf[i])
            buf[i] = ' ';
    return (size_t)n;
}

#define SPANS_INTO " --into TRACE.h5:RUN"

/* Profiles, exporters' files and stand-ins (Kineto, Nsight, Prometheus, a
 * Git LFS pointer): what they are and the command that reads them; 0 when
 * the head is none of them. `raw` holds the first bytes unchanged (n). */
static int guess_profile(const char *path, const char *raw, size_t n, const char *head,
                         const char *base, jl_import_guess *g)
{
    if (!strncmp(head, "version https://git-lfs.github.com/spec/", 40))
        return set(g, NULL, path,
                   "a Git LFS pointer (the stand-in a repository holds for a large file: "
                   "`oid sha256:...`, `size N`), not the file itself: fetch it with `git lfs pull "
                   "--include=PATH` in the clone, then give joules the file",
                   NULL);
    if (n >= 16 && !memcmp(raw, "SQLite format 3", 16))
        return set(g, "nsys", path,
                   "an SQLite database: an Nsight Systems export (`nsys export --type sqlite`) "
                   "is read into a run's spans/ (RUN: the run of TRACE.h5 the profile was "
                   "recorded in)",
                   SPANS_INTO);
    if (ends_with(base, ".nsys-rep") || ends_with(base, ".qdrep"))
        return set(g, NULL, path,
                   "an Nsight Systems report, which joules reads once exported to SQLite: "
                   "`nsys export --type sqlite -o REPORT.sqlite REPORT.nsys-rep`, then `joules "
                   "import nsys REPORT.sqlite --into TRACE.h5:RUN`",
                   NULL);
    if (has(head, "\"traceEvents\"") ||
        (has(head, "\"schemaVersion\"") && has(head, "\"deviceProperties\"")))
        return set(g, "kineto", path,
                   "a PyTorch profiler (Kineto) Chrome trace: its spans are read into a run's "
                   "spans/ (RUN: the run of TRACE.h5 the profile was recorded in)",
                   SPANS_INTO);
    if (has(head, "\"resultType\"") && has(head, "\"result\""))
        return set(g, "prometheus", path,
                   "a Prometheus API answer (/api/v1/query_range JSON; an instant query's "
                   "`vector` holds one sample per series, a range query's `matrix` the series); "
                   "the runs are the values of a label (LABEL: pod, job, ...) or the windows of a "
                   "RUNS.csv (`--runs RUNS.csv`)",
                   " --runs-by LABEL");
    if (!strncmp(head, "# HELP ", 7) || !strncmp(head, "# TYPE ", 7) ||
        !strncmp(head, "DCGM_FI_", 8) || has(head, "\nDCGM_FI_"))
        return set(g, "prometheus", path,
                   "the Prometheus text exposition format (a DCGM exporter scrape); joules reads "
                   "it when each sample has its timestamp (a scrape archive) — a single scrape "
                   "without timestamps is refused with the query that gives the series; the runs "
                   "are the values of a label (LABEL: pod, job, ...) or a RUNS.csv's windows",
                   " --runs-by LABEL");
    return 0;
}

/* A first line of fields separated by ';' (a spreadsheet's export) that
 * names nvidia-smi's fields. */
static int semicolon_log(const char *head)
{
    const char *nl = strchr(head, '\n');
    size_t len = nl ? (size_t)(nl - head) : strlen(head);
    if (!memchr(head, ';', len))
        return 0;
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), head);
    return strstr(line, "timestamp") || strstr(line, "power.draw");
}

/* An MLPerf run folder's performance/ folder or the run folder itself, from
 * a file inside it (spl.txt in ../power/ is found from the run folder). */
static int guess_file(const char *path, jl_import_guess *g)
{
    char head[HEAD_BYTES], raw[32];
    size_t n = read_head(path, head, sizeof head);
    if (n >= 4 && !memcmp(head, "\x89HDF", 4))
        return 0; /* HDF5: the trace reader judges it */
    FILE *rf = jl__fopen_input(path, NULL, 0);
    size_t nraw = rf ? fread(raw, 1, sizeof raw, rf) : 0;
    if (rf)
        fclose(rf);
    if (nraw >= 2 && (unsigned char)raw[0] == 0x1f && (unsigned char)raw[1] == 0x8b)
        n = read_gz_head(path, head, sizeof head); /* a .json.gz: its data */
    const char *base0 = strrchr(path, '/');
    if (guess_profile(path, raw, nraw, head, base0 ? base0 + 1 : path, g))
        return 1;
    char dir[600];
    dir_of(dir, sizeof dir, path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int in_power = ends_with(dir, "/power") || !strcmp(dir, "power");
    if (has(head, ":::MLLOG") || !strcmp(base, "mlperf_log_detail.txt") ||
        (in_power && (!strcmp(base, "client.json") || !strcmp(base, "server.json") ||
                      !strcmp(base, "client.log") || !strcmp(base, "server.log"))) ||
        !strcmp(base, "mlperf_log_summary.txt") || !strcmp(base, "spl.txt")) {
        if (in_power) { /* later rounds: ../power/spl.txt */
            char up[600];
            dir_of(up, sizeof up, dir);
            snprintf(dir, sizeof dir, "%s", up);
        }
        return set(g, "mlperf-power", dir,
                   "a file of an MLPerf Inference run (LoadGen log or PTDaemon samples); the "
                   "importer reads its run folder",
                   NULL);
    }
    if (has(head, "NVIDIA-SMI") && has(head, "+----"))
        return set(g, NULL, path,
                   "the human-readable `nvidia-smi` table, which no importer reads: record a CSV "
                   "log instead, e.g. `nvidia-smi --query-gpu=timestamp,index,name,power.draw "
                   "--format=csv -lms 100 -f gpu.csv`",
                   NULL);
    if (head[0] == '#' && has(head, "pwr") && has(head, "Date") && has(head, "Time") &&
        has(head, "gpu"))
        return set(g, "nvidia-smi", path,
                   "`nvidia-smi dmon -o DT` output (read by its columns: Date and Time, gpu, pwr, "
                   "...); dmon names no GPU model, so the command asks for it (fill in the "
                   "upper-case values)",
                   NVSMI_SET NVSMI_GPU);
    if (semicolon_log(head))
        return set(g, "nvidia-smi", path,
                   "an nvidia-smi log with its fields separated by ';' (a spreadsheet's export; "
                   "read as such, decimal commas too); the command names the attributes a log "
                   "does not say (fill in the upper-case values)",
                   has(head, ";name") || has(head, "; name") ? NVSMI_SET : NVSMI_SET NVSMI_GPU);
    if (head[0] == '#' && has(head, "pwr") && (has(head, "# gpu") || has(head, "#gpu")))
        return set(g, NULL, path,
                   "`nvidia-smi dmon` output, which `joules import nvidia-smi` does not read: "
                   "record `nvidia-smi --query-gpu=timestamp,index,name,power.draw --format=csv "
                   "-lms 100 -f gpu.csv` instead",
                   NULL);
    /* CodeCarbon's emissions.csv and Zeus' logs before nvidia-smi's CSV
     * (a CodeCarbon header starts with timestamp too) */
    if (has(head, "duration") && (has(head, "energy_consumed") || has(head, "emissions")) &&
        (has(head, "project_name") || has(head, "run_id")))
        return set(g, "codecarbon", path,
                   "CodeCarbon's emissions.csv; the command names the attributes CodeCarbon "
                   "does not record (fill in the upper-case values)",
                   /* before 2.x no gpu_model column: the GPUs asked for too */
                   has(head, "gpu_model") ? NVSMI_SET : NVSMI_SET NVSMI_GPU " --set num_gpus=N");
    if (!strncmp(head, "start_time,window_name,elapsed_time", 35) ||
        has(head, "elapsed_time,gpu0_energy"))
        return set(g, "zeus", path,
                   "a ZeusMonitor log (Zeus' GPU energy per measurement window); the command "
                   "names the attributes the log does not record (fill in the upper-case values)",
                   NVSMI_SET NVSMI_GPU);
    if (!strncmp(head, "timestamp", 9) && (has(head, "power.draw") || has(head, "index") ||
                                           has(head, "name") || has(head, "utilization")))
        return set(g, "nvidia-smi", path,
                   "an nvidia-smi CSV log (`nvidia-smi --query-gpu=... --format=csv`); the "
                   "command names the attributes a log does not say (fill in the upper-case "
                   "values, or give them per run in a RUNS.csv with `--runs RUNS.csv`)",
                   has(head, ", name") || has(head, ",name") ? NVSMI_SET : NVSMI_SET NVSMI_GPU);
    const char *j = head;
    while (*j == ' ' || *j == '\n' || *j == '\r' || *j == '\t')
        j++;
    if (*j == '{' || *j == '[') {
        if (vllm_head(head))
            return set(g, NULL, path, VLLM_WHAT, NULL);
        if (has(head, "\"benchmark_start_time\"") || has(head, "\"steady_state_energy\"") ||
            !strcmp(base, "results.json"))
            return set(g, "mlenergy-benchmark", dir,
                       "an ML.ENERGY Benchmark run's results.json; the importer reads its run "
                       "folder (or a whole results tree)",
                       NULL);
        if (has(head, "\"configurations\"") || !strcmp(base, "index.json")) {
            char up[600];
            dir_of(up, sizeof up, dir);
            return set(g, "mlenergy", !strcmp(base, "index.json") ? dir : up,
                       "a file of the ML.ENERGY Leaderboard's published data; the importer "
                       "reads the data folder (index.json, models/, tasks/)",
                       NULL);
        }
    }
    return 0;
}

typedef struct walk {
    jl__walk wk; /* core/walk.h: each folder and file once, loops end */
    size_t seen;
    int mlperf, bench, leaderboard_v2, csv, vllm;
    char csv_path[1200];
    char profile_path[1200]; /* a Kineto trace or an Nsight export, by name */
} walk;

static void walk_dir(const char *dir, int depth, walk *w)
{
    if (depth > WALK_DEPTH || w->seen > WALK_ENTRIES)
        return;
    jl__walk_list l;
    if (jl__walk_dir(&w->wk, dir, &l) != 0)
        return;
    for (size_t i = 0; i < l.n_files && w->seen++ <= WALK_ENTRIES; i++) {
        const char *nm = l.files[i];
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", dir, nm);
        if (!strcmp(nm, "mlperf_log_detail.txt")) {
            w->mlperf = 1;
        } else if (!strcmp(nm, "results.json")) {
            w->bench = 1;
        } else if (!w->profile_path[0] &&
                   (ends_with(nm, ".pt.trace.json") || ends_with(nm, ".pt.trace.json.gz") ||
                    ends_with(nm, ".sqlite") || ends_with(nm, ".nsys-rep"))) {
            snprintf(w->profile_path, sizeof w->profile_path, "%s", p);
        } else if (!w->vllm && ends_with(nm, ".json")) {
            char head[HEAD_BYTES];
            read_head(p, head, sizeof head);
            w->vllm = vllm_head(head);
        } else if (!w->csv && ends_with(nm, ".csv")) {
            char head[256];
            read_head(p, head, sizeof head);
            if (!strncmp(head, "timestamp", 9) && !has(head, "energy_consumed")) {
                w->csv = 1;
                snprintf(w->csv_path, sizeof w->csv_path, "%s", p);
            }
        }
    }
    for (size_t i = 0; i < l.n_dirs && w->seen++ <= WALK_ENTRIES; i++) {
        const char *nm = l.dirs[i];
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", dir, nm);
        if (!strcmp(nm, "llm_text_generation") || !strcmp(nm, "diffusion") || !strcmp(nm, "legacy"))
            w->leaderboard_v2 = 1;
        walk_dir(p, depth + 1, w);
    }
    jl__walk_list_free(&l);
}

static int guess_dir(const char *path, jl_import_guess *g)
{
    char p[1200];
    struct stat sb;
    snprintf(p, sizeof p, "%s/index.json", path);
    int index = stat(p, &sb) == 0;
    snprintf(p, sizeof p, "%s/models", path);
    int models = stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
    snprintf(p, sizeof p, "%s/tasks", path);
    int tasks = stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
    if (index || models || tasks)
        return set(g, "mlenergy", path,
                   "the ML.ENERGY Leaderboard's published data (index.json, models/, tasks/)",
                   NULL);
    walk w = {0};
    jl__walk_init(&w.wk);
    walk_dir(path, 0, &w);
    jl__walk_free(&w.wk);
    if (w.mlperf)
        return set(g, "mlperf-power", path,
                   "MLPerf Inference results (LoadGen's mlperf_log_detail.txt with PTDaemon's "
                   "spl.txt); the importer reads every power run below it",
                   NULL);
    if (w.bench)
        return set(g, "mlenergy-benchmark", path,
                   "ML.ENERGY Benchmark runs (results.json per run folder)", NULL);
    if (w.leaderboard_v2)
        return set(g, "mlenergy", path, "the ML.ENERGY Leaderboard v2/v1 data", NULL);
    if (w.vllm)
        return set(g, NULL, path, "a folder of " VLLM_WHAT, NULL);
    if (w.profile_path[0] && guess_file(w.profile_path, g)) {
        char what[sizeof g->what];
        memcpy(what, g->what, sizeof what);
        /* a long description is cut: what it says first is kept */
        if (snprintf(g->what, sizeof g->what, "a folder of profiles; this one is %.470s", what) < 0)
            g->what[0] = '\0';
        return 1;
    }
    if (w.csv)
        return set(g, "nvidia-smi", w.csv_path,
                   "a folder holding nvidia-smi CSV logs (this one and perhaps others); fill in "
                   "the upper-case values, or give them per run with `--runs RUNS.csv`",
                   NVSMI_SET);
    return 0;
}

int jl_import_guess_path(const char *path, jl_import_guess *g)
{
    memset(g, 0, sizeof *g);
    struct stat sb;
    if (!path || stat(path, &sb) != 0)
        return 0;
    if (S_ISDIR(sb.st_mode))
        return guess_dir(path, g);
    if (S_ISREG(sb.st_mode))
        return guess_file(path, g);
    return 0;
}
