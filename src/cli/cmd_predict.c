/* joules predict — placeholder until the command lands (below). */
#include "cli/commands.h"
#include "cli/exit_codes.h"
int jl_cmd_predict(int argc, char **argv) { (void)argc; (void)argv; return JL_EXIT_USAGE; }
