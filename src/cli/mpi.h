/* cli/mpi.h — the same commands under mpirun / srun (docs/scaling.md).
 * Built with -DJOULES_MPI=ON these use MPI; otherwise, and whenever the
 * program was not started by an MPI launcher, there is one process and
 * they do nothing. The library never calls MPI: the CLI hands it a study
 * share and a gather function (jl_study_options.shard). */
#ifndef JOULES_CLI_MPI_H
#define JOULES_CLI_MPI_H

#include "joules/study.h"

/* Start MPI when launched by mpirun/srun (their environment says so).
 * Returns the number of processes (1 without MPI). */
int cli_mpi_init(int *argc, char ***argv);
/* This process's rank (0 without MPI) and the number of ranks. */
int cli_mpi_rank(void);
int cli_mpi_size(void);
/* The command shares its study among the ranks (main.c decides, from the
 * command). Without it, rank 0 loads the whole study alone and the others
 * have ended: a command that reads a study but was not marked stays right,
 * just not parallel. */
void cli_mpi_share(void);
/* With several ranks and cli_mpi_share(): this rank loads its share of the study and rank 0
 * gathers the others' (opt->shard). The progress is rank 0's, counting every
 * rank's files: a line on stderr after 5 s, then every 10 s (opt->progress
 * replaced; ranks' stderr is never a terminal under Open MPI). */
void cli_mpi_study(jl_study_options *opt, const char *cmd);
/* After the study load on a rank other than 0: its share went to rank 0,
 * which alone computes and writes; this rank ends here (exit 0). */
void cli_mpi_secondary_done(void);
/* A rank whose study load failed (st != JL_OK, already printed) while
 * others wait for it: the whole job ends here with exit code rc (no rank
 * writes anything). Returns with one process. */
void cli_mpi_abort(int rc);
/* End MPI (when started); returns rc. */
int cli_mpi_finish(int rc);

#endif
