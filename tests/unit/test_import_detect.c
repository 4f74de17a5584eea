/* Unit tests of jl_import_guess_path and of what an analysis command says
 * when handed a file it must import first (jl_collect_paths). The inputs
 * are written here, in a temporary folder. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "joules/import.h"
#include "joules/study.h"
#include "test.h"

static char root[64];

static void put(const char *rel, const char *text, size_t len)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    /* make the folders on the way */
    for (char *s = strchr(p + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(p, 0700);
        *s = '/';
    }
    FILE *f = fopen(p, "wb");
    fwrite(text, 1, len, f);
    fclose(f);
}
#define PUT(rel, text) put(rel, text, sizeof text - 1)

static jl_import_guess guess(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    jl_import_guess g;
    if (!jl_import_guess_path(p, &g))
        strcpy(g.what, "(none)");
    return g;
}

/* The message an analysis command gives for rel (jl_collect_paths). */
static char *collect_message(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    const char *paths[1] = {p};
    char **files = NULL;
    size_t n = 0;
    jl_error_list errors = {0};
    jl_collect_paths(paths, 1, &files, &n, &errors);
    jl_paths_free(files, n);
    char *m = errors.count ? jl_error_format(errors.items[0]) : strdup("(no error)");
    jl_error_list_clear(&errors);
    return m;
}

TEST(files)
{
    PUT("log/gpu.csv", "timestamp, index, name, power.draw [W]\n2026/11/23 22:17:22.120, 0, "
                       "NVIDIA H100 80GB HBM3, 72.19 W\n");
    jl_import_guess g = guess("log/gpu.csv");
    CHECK_STR(g.format, "nvidia-smi");
    CHECK_CONTAINS(g.command, "joules import nvidia-smi ");
    CHECK_CONTAINS(g.command, "/log/gpu.csv --set workload=llm --set model=MODEL --set task=TASK "
                              "--set precision=PRECISION --set max_batch_size=CAP -o gpu.h5");
    /* a byte-order mark and UTF-16 (PowerShell's `>`) are seen through */
    PUT("log/bom.csv", "\xEF\xBB\xBFtimestamp, power.draw [W]\n");
    CHECK_STR(guess("log/bom.csv").format, "nvidia-smi");
    PUT("log/u16.csv",
        "\xFF\xFEt\0i\0m\0e\0s\0t\0a\0m\0p\0,\0 \0p\0o\0w\0e\0r\0.\0d\0r\0a\0w\0\n\0");
    CHECK_STR(guess("log/u16.csv").format, "nvidia-smi");
    PUT("log/table.log", "Tue Oct 29 19:00:23 2024\n+--------------+\n| NVIDIA-SMI 550.54.15 |\n");
    g = guess("log/table.log");
    CHECK_STR(g.format, "");
    CHECK_STR(g.command, "");
    CHECK_CONTAINS(g.what, "human-readable `nvidia-smi` table");
    PUT("log/dmon.txt", "# gpu    pwr  gtemp  mtemp     sm    mem\n# Idx      W      C      C\n");
    CHECK_CONTAINS(guess("log/dmon.txt").what, "`nvidia-smi dmon` output");
    PUT("vllm/r.json", "{\"date\": \"20250414\", \"backend\": \"vllm\", \"request_rate\": 1.0, "
                       "\"completed\": 200, \"input_lens\": [1]}");
    g = guess("vllm/r.json");
    CHECK_CONTAINS(g.what, "vLLM serving-benchmark result");
    CHECK_CONTAINS(g.what, "`requests` column of a RUNS.csv");
    PUT("mlp/results/sys/bert-99/Offline/performance/run_1/mlperf_log_detail.txt",
        ":::MLLOG {\"key\": \"x\"}\n");
    PUT("mlp/results/sys/bert-99/Offline/performance/power/spl.txt", "Time,x\n");
    g = guess("mlp/results/sys/bert-99/Offline/performance/power/spl.txt");
    CHECK_STR(g.format, "mlperf-power");
    CHECK_CONTAINS(g.command, "/Offline/performance -o performance.h5");
    g = guess("mlp/results/sys/bert-99/Offline/performance/run_1/mlperf_log_detail.txt");
    CHECK_CONTAINS(g.command, "/performance/run_1 -o run_1.h5");
    /* HDF5 and unknown text: not recognised (the trace reader judges) */
    PUT("t.h5", "\x89HDF\r\n\x1a\n");
    CHECK_STR(guess("t.h5").what, "(none)");
    PUT("notes.txt", "hello\n");
    CHECK_STR(guess("notes.txt").what, "(none)");
}

TEST(folders)
{
    PUT("lb/index.json", "{}");
    PUT("lb/models/a__b__chat.json", "{\"configurations\": []}");
    jl_import_guess g = guess("lb");
    CHECK_STR(g.format, "mlenergy");
    CHECK_CONTAINS(g.command, "/lb -o lb.h5");
    g = guess("lb/models/a__b__chat.json");
    CHECK_CONTAINS(g.command, "joules import mlenergy ");
    CHECK_CONTAINS(g.command, "/lb -o lb.h5");
    PUT("mlp2/closed/X/results/s/gptj-99/Server/performance/run_1/mlperf_log_detail.txt",
        ":::MLLOG {}\n");
    CHECK_STR(guess("mlp2").format, "mlperf-power");
    PUT("bench/llm/chat/o/m/H100/num_gpus+1/results.json", "{\"timeline\": {}}");
    CHECK_STR(guess("bench").format, "mlenergy-benchmark");
    PUT("logs/a/gpu.csv", "timestamp, power.draw [W]\n");
    g = guess("logs");
    CHECK_STR(g.format, "nvidia-smi");
    CHECK_CONTAINS(g.command, "/logs/a/gpu.csv --set workload=llm");
    /* a log without a name column: the GPU model asked for too */
    PUT("log/noname.csv", "timestamp, power.draw [W]\n");
    CHECK_CONTAINS(guess("log/noname.csv").command, "--set gpu_model=GPU -o noname.h5");
}

TEST(analysis_command_says_what_to_run)
{
    char *m = collect_message("log/gpu.csv");
    CHECK_CONTAINS(m, "not a trace file: it looks like an nvidia-smi CSV log");
    CHECK_CONTAINS(m, "Import it first: `joules import nvidia-smi ");
    free(m);
    m = collect_message("mlp2");
    CHECK_CONTAINS(m, "no *.h5 trace files in this directory: it looks like MLPerf Inference");
    CHECK_CONTAINS(m, "`joules import mlperf-power ");
    free(m);
    m = collect_message("log/table.log");
    CHECK_CONTAINS(m, "human-readable `nvidia-smi` table");
    free(m);
    m = collect_message("notes.txt"); /* not recognised: left to the trace reader */
    CHECK_STR(m, "(no error)");
    free(m);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/joules-detect-XXXXXX");
    if (!mkdtemp(root))
        return 1;
    RUN(files);
    RUN(folders);
    RUN(analysis_command_says_what_to_run);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        return 1;
    TEST_MAIN_END();
}
