/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/main.c: the counterpoint dispatcher.  Each subcommand lives in its
 * own file and owns its options and --help text; this file only finds it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli/cli.h"
#include "geometry/cone.h"
#include "build-version.h"

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct subcommand subcommands[] = {
	/* one line per subcommand, in the order --help lists them */
	{ "paths", cli_paths, "list a model's μpaths and distinct counter signatures" },
	{ "dot", cli_dot, "draw a model's μpath decision diagram (Graphviz)" },
	{ "cone", cli_cone, "derive a model's exact cone: equalities, facets, extreme rays" },
	{ "import", cli_import, "convert perf stat output into a dataset" },
	{ "region", cli_region, "confidence regions of a dataset's observations" },
	{ "sim", cli_sim, "simulate a Haswell-like MMU and write a dataset" },
	{ "record", cli_record, "run a command and record its event counters" },
	{ "events", cli_events, "list the events this machine can count" },
	{ "models", cli_models, "list the bundled models" },
	{ "bench-workload", cli_bench_workload, "run a linear or random memory access microbenchmark" },
	{ "check", cli_check, "test a model against measured observations" },
	{ "flows", cli_flows, "bound how much of each feature's μpaths the data need" },
	{ "explore", cli_explore, "search a model family for the features the data need" },
	{ "suggest", cli_suggest, "propose the μpaths a refuted model lacks" },
	{ NULL, NULL, NULL }
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out,
		"usage: counterpoint [--version] [--help] COMMAND [ARGS]\n"
		"\n"
		"Test what you believe about a processor against its hardware event\n"
		"counters: compile μpath decision diagrams, derive their exact model\n"
		"cones, and check counter measurements against them.\n"
		"\n"
		"commands:\n");
	for (i = 0; subcommands[i].name; i++)
		fprintf(out, "  %-15s %s\n", subcommands[i].name,
			subcommands[i].summary);
	fprintf(out, "  %-15s %s\n", "help COMMAND", "show a command's options");
	fprintf(out,
		"\n"
		"exit status: 0 success, 1 a negative result (model errors,\n"
		"infeasible observations), 2 bad usage or input, 3 internal error\n");
}

static const struct subcommand *find(const char *name)
{
	size_t i;

	for (i = 0; subcommands[i].name; i++)
		if (!strcmp(subcommands[i].name, name))
			return &subcommands[i];
	return NULL;
}

/* "unknown command", with the command it is close to when one is. */
static int unknown_command(const char *name)
{
	const char *names[sizeof subcommands / sizeof subcommands[0] + 1], *near;
	size_t n;

	for (n = 0; subcommands[n].name; n++)
		names[n] = subcommands[n].name;
	names[n++] = "help";
	near = cp_closest(name, names, n);
	fprintf(stderr, "counterpoint: unknown command '%s'", name);
	if (near)
		fprintf(stderr, " (did you mean '%s'?)", near);
	fputs("; try 'counterpoint --help'\n", stderr);
	return CLI_USAGE;
}

static int run(int argc, char **argv)
{
	const struct subcommand *sc;

	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		/* the release, and the commit it was built from when that
		 * is not the release's tag (build/gen/build-version.h) */
		printf("counterpoint %s%s%s%s\n%s\n", cp_version(),
		       *CP_BUILD_GIT ? " (git " : "", CP_BUILD_GIT,
		       *CP_BUILD_GIT ? ")" : "", cli_mpi_describe());
		return CLI_OK;
	}
	if (!strcmp(argv[1], "help")) {
		char help[] = "--help";
		char *args[3];

		if (argc < 3) {
			usage(stdout);
			return CLI_OK;
		}
		sc = find(argv[2]);
		if (!sc)
			return unknown_command(argv[2]);
		args[0] = argv[2];
		args[1] = help;
		args[2] = NULL;
		return sc->run(2, args);
	}
	if (argv[1][0] == '-') {
		fprintf(stderr, "counterpoint: unknown option '%s'; "
			"try 'counterpoint --help'\n", argv[1]);
		return CLI_USAGE;
	}
	sc = find(argv[1]);
	if (!sc)
		return unknown_command(argv[1]);
	return sc->run(argc - 1, argv + 1);
}

/* A command is one short process that builds and frees thousands of
 * blocks of 100 KB to a few MB (signature tables, cones, LPs, regions).
 * glibc hands such blocks back to the system when they are freed (mmap,
 * or trimming the heap's top) and the next one is fresh pages, each
 * faulted in: explore on the bundled sweep spent 1.0 s of its 4.3 s CPU in
 * the kernel that way.  Keep freed memory for reuse instead; the peak is
 * what the program holds at once either way. */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

/* Exact arithmetic out of memory (GMP cannot say so to its caller). */
static const char *command = "";

static void exact_out_of_memory(void)
{
	fprintf(stderr, "counterpoint %s: out of memory in exact arithmetic\n", command);
	cli_note_address_limit(command);
}

/* Under mpirun every process starts here: check and explore run on all
 * of them (cli/mpi.c), any other command on rank 0 alone. */
int main(int argc, char **argv)
{
	int rc;

	keep_freed_memory();
	if (argc > 1)
		command = argv[1];
	cone_gmp_exit_on_oom(exact_out_of_memory, CLI_INTERNAL);
	if (cli_mpi_init(&argc, &argv)) {
		fputs("counterpoint: cannot start MPI\n", stderr);
		return CLI_INTERNAL;
	}
	if (cli_mpi_rank() > 0 && !(argc > 1 && (!strcmp(argv[1], "check") ||
						  !strcmp(argv[1], "explore"))))
		rc = cli_mpi_idle();
	else
		rc = run(argc, argv);
	/* what went to standard output through stdio (--help, --version, a
	 * listing) must have arrived too */
	if ((fflush(stdout) || ferror(stdout)) && rc == CLI_OK) {
		fprintf(stderr, "counterpoint: cannot write to standard output: %s\n",
			strerror(errno));
		rc = CLI_USAGE;
	}
	return cli_mpi_finalize(rc);
}
