/* cli/bench_workload.c: placeholder. */
#include "cli/cli.h"
int cli_bench_workload(int argc, char **argv) { (void)argc; (void)argv; return 3; }
