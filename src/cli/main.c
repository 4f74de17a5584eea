/* joules — the command-line tool. Only argv handling and dispatch live here;
 * every command is a thin layer over the library (include/joules/). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "cli/mpi.h"
#include "joules/version.h"

static const cli_command commands[] = {
#define CLI_X_ENTRY(name, summary) {#name, summary, cli_cmd_##name},
    CLI_COMMANDS(CLI_X_ENTRY)
#undef CLI_X_ENTRY
};

static void usage(FILE *out)
{
    fprintf(out, "usage: joules <command> [options] [PATH...]\n\n"
                 "Where do the joules go? Offline analysis of GPU energy traces of AI\n"
                 "inference runs (trace format v1, trace-format.md).\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n`joules <command> --help` for a command's options; `joules --version`\n"
                 "the version.\n"
                 "Exit status: 0 ok, 1 some input failed (others still processed),\n"
                 "2 usage error, 3 nothing could be processed, 4 output could not be written,\n"
                 "5 out of memory or internal error (cli.md).\n");
}

/* Tables and documents printed with printf() are checked once, here: a
 * full disk or a closed pipe on stdout is an output failure (exit 4 by
 * cli_exit_for_error), never a silent 0. */
static int finish(const char *cmd, int rc)
{
    errno = 0;
    if ((fflush(stdout) != 0 || ferror(stdout)) && rc != CLI_EXIT_OUTPUT) {
        jl_error *err = NULL;
        jl_status st = jl_fail_output(&err, JL_EIO, "<stdout>", NULL, NULL, -1,
                                      "cannot write to standard output: %s",
                                      errno ? strerror(errno) : "write error");
        int out = err ? cli_fail(cmd, st, err) : cli_oom(cmd);
        if (rc < out)
            rc = out;
    }
    return rc;
}

/* The commands that read a study: under mpirun every rank loads a share
 * of it (cli/mpi.h); `import --each` shares its inputs. Any other command
 * runs on rank 0 alone. */
static int shares_work(int argc, char **argv)
{
    const char *cmd = argv[1];
    if (!strcmp(cmd, "import")) {
        for (int i = 2; i < argc; i++)
            if (!strcmp(argv[i], "--each"))
                return 1;
        return 0;
    }
    static const char *const study[] = {"summarize", "check",     "frontier", "pick",     "compare",
                                        "capacity",  "fit",       "predict",  "diagnose", "report",
                                        "budget",    "emissions", "label",    "card"};
    for (size_t i = 0; i < sizeof study / sizeof study[0]; i++)
        if (!strcmp(cmd, study[i]))
            return 1;
    return 0;
}

static int run(int argc, char **argv);

int main(int argc, char **argv)
{
    if (cli_mpi_init(&argc, &argv) > 1 && argc >= 2 && shares_work(argc, argv))
        cli_mpi_share(); /* every rank takes part in this command's study load */
    if (cli_mpi_size() > 1 && cli_mpi_rank() != 0) {
        /* a rank other than 0 prints no help and runs no command but its
         * share of a study load */
        int help = argc < 2 || !shares_work(argc, argv);
        for (int i = 1; i < argc && !help; i++)
            help = !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help");
        if (help)
            return cli_mpi_finish(CLI_EXIT_OK);
    }
    return cli_mpi_finish(run(argc, argv));
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        cli_help(NULL, NULL);
        return finish("help", CLI_EXIT_OK);
    }
    if (!strcmp(argv[1], "--version")) {
        printf("joules %s\n", jl_version());
        return finish("--version", CLI_EXIT_OK);
    }
    /* Commands report a bad option themselves, naming it (cli_bad_option),
     * so getopt prints nothing of its own. */
    opterr = 0;
    cli_use_installed_data();
    cli_provenance_begin(argc, argv);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return finish(argv[1], commands[i].run(argc - 1, argv + 1));
    fprintf(stderr, "joules: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CLI_EXIT_USAGE;
}
