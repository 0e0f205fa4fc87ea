/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/cli.h: the counterpoint command.  main.c dispatches to one function
 * per subcommand (one file each); the helpers here print errors and load
 * models the same way everywhere.
 *
 * Exit statuses: 0 success (every observation consistent), 1 a result
 * that is not success (an infeasible observation; for the compiler
 * commands paths/dot/cone, a model with errors), 2 bad usage or input,
 * 3 internal error.
 *
 * Adding a subcommand: write cli/NAME.c with cli_NAME() (its getopt_long
 * options, its --help text, library calls, printing, exit status; no
 * geometry or statistics of its own), declare it below, add a row to the
 * command table in cli/main.c, and add golden cases under tests/cli/cases/
 * and a README section (docs/internals/architecture.md). */
#ifndef CLI_H
#define CLI_H

#include <limits.h>
#include <stdio.h>

#include "common/cp.h"
#include "dsl/udd.h"
#include "solver/feas.h"

enum { CLI_OK = 0, CLI_RESULT = 1, CLI_USAGE = 2, CLI_INTERNAL = 3 };

/* ---- subcommands: argv[0] is the subcommand's name ---- */
int cli_paths(int argc, char **argv);
int cli_dot(int argc, char **argv);
int cli_explore(int argc, char **argv);
int cli_cone(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_flows(int argc, char **argv);
int cli_suggest(int argc, char **argv);
int cli_region(int argc, char **argv);
int cli_import(int argc, char **argv);
int cli_sim(int argc, char **argv);
int cli_record(int argc, char **argv);
int cli_events(int argc, char **argv);
int cli_models(int argc, char **argv);
int cli_bench_workload(int argc, char **argv);

/* ---- shared helpers ---- */
/* "counterpoint CMD: MESSAGE" and "try 'counterpoint CMD --help'" on
 * stderr; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print err ("counterpoint CMD: file:line:col: message" and its detail) on
 * stderr; returns the exit status that fits its code. */
int cli_print_error(const char *cmd, const struct cp_error *err);
/* Out of memory: the address-space limit, when one is set, as a note. */
void cli_note_address_limit(const char *cmd);
/* Parse and check MODEL (a file, or the name of a bundled model:
 * haswell/mmu), print its diagnostics (errors and warnings) on stderr,
 * and resolve the --with list (may be NULL).  Returns CLI_OK with *model
 * and *sel set, or an exit status (model_error_status for errors in the
 * model, CLI_USAGE for a file that cannot be read or found). */
/* The folders of bundled models (at most max, into dirs): models
 * installed beside the command (PREFIX/share/counterpoint/models for
 * PREFIX/bin/counterpoint), and the source tree's models/ (for
 * bin/counterpoint in the tree it was built in).  Returns how many. */
size_t cli_model_dirs(char dirs[][PATH_MAX], size_t max);
int cli_load_model(const char *cmd, const char *path, const char *with,
		   int model_error_status, struct udd_model **model,
		   udd_features *sel);
/* The dataset's events that no counter of the model reads, named in one
 * note on stderr ("counterpoint CMD: note: data.csv: 3 events the model
 * does not read: a, b, c"); nothing when there are none.  Once per run,
 * after the dataset loads; never an error. */
struct stats_dataset;
void cli_note_unread_events(const char *cmd, const char *data_path,
			    const struct udd_model *m, const struct stats_dataset *d);
/* Parse a non-negative integer option value; CLI_OK or CLI_USAGE (after
 * printing the error). */
int cli_parse_size(const char *cmd, const char *opt, const char *text,
		   size_t *out);
/* The same for a positive integer (a count that cannot be 0). */
int cli_parse_count(const char *cmd, const char *opt, const char *text,
		    size_t *out);
/* --batches: a count of at least 2, 'none' (1: every interval a sample)
 * or 'auto' (REGION_BATCHES_AUTO); the same words in every command. */
int cli_parse_batches(const char *cmd, const char *text, size_t *out);
/* Parse a double in [lo, hi]; CLI_OK or CLI_USAGE. */
int cli_parse_double(const char *cmd, const char *opt, const char *text,
		     double lo, double hi, double *out);
/* --region: pca, independent or ellipsoid; CLI_OK or CLI_USAGE.  And the
 * shape's name for reports. */
int cli_parse_region(const char *cmd, const char *text, enum feas_shape *out);
const char *cli_region_name(enum feas_shape s);
/* --threads: 0 (one per CPU) to 256; CLI_OK or CLI_USAGE. */
int cli_parse_threads(const char *cmd, const char *text, size_t *out);
/* The options that check, flows, explore, suggest and region share
 * (cli/options.c): one table entry each (CLI_OPT_*, for a command's
 * longopts), one parser and one validation, the same words and limits in
 * every command.  cli_data_option() is a command's getopt_long default:
 * it stores opt's value and returns CLI_OK, or CLI_USAGE after printing
 * the error; an opt none of them is goes to cli_bad_option (longopts are
 * the command's, for its "did you mean"). */
enum {
	CLI_O_WITH = 0x100, CLI_O_REGION, CLI_O_CONFIDENCE, CLI_O_FAMILY_CONFIDENCE,
	CLI_O_BATCHES, CLI_O_PER_INTERVAL, CLI_O_COUNTERS, CLI_O_THREADS,
	CLI_O_JSON, CLI_O_HTML, CLI_O_PLOTS, CLI_O_VIOLATIONS
};
#define CLI_OPT_WITH { "with", required_argument, NULL, CLI_O_WITH }
#define CLI_OPT_REGION { "region", required_argument, NULL, CLI_O_REGION }
#define CLI_OPT_CONFIDENCE { "confidence", required_argument, NULL, CLI_O_CONFIDENCE }
#define CLI_OPT_FAMILY_CONFIDENCE \
	{ "family-confidence", required_argument, NULL, CLI_O_FAMILY_CONFIDENCE }
#define CLI_OPT_BATCHES { "batches", required_argument, NULL, CLI_O_BATCHES }
#define CLI_OPT_PER_INTERVAL { "per-interval", no_argument, NULL, CLI_O_PER_INTERVAL }
#define CLI_OPT_COUNTERS { "counters", required_argument, NULL, CLI_O_COUNTERS }
#define CLI_OPT_THREADS { "threads", required_argument, NULL, CLI_O_THREADS }
#define CLI_OPT_JSON { "json", no_argument, NULL, CLI_O_JSON }
#define CLI_OPT_HTML { "html", required_argument, NULL, CLI_O_HTML }
#define CLI_OPT_PLOTS { "plots", required_argument, NULL, CLI_O_PLOTS }
#define CLI_OPT_VIOLATIONS { "violations", required_argument, NULL, CLI_O_VIOLATIONS }
struct cli_data_options {
	const char *with;          /* --with F,... (NULL: none) */
	enum feas_shape region;    /* --region (pca) */
	double confidence;         /* --confidence (0.99) */
	double family_confidence;  /* --family-confidence (0.99) */
	size_t batches;            /* --batches (0: auto) */
	int per_interval;          /* --per-interval */
	const char *counters;      /* --counters C,... */
	size_t threads;            /* --threads (0: one per CPU) */
	int json;                  /* --json */
	const char *html;          /* --html FILE */
	size_t plots;              /* --plots (CLI_PLOTS_DEFAULT) */
	size_t violations;         /* --violations (5) */
};
void cli_data_options_init(struct cli_data_options *o);
struct option;
int cli_data_option(const char *cmd, int opt, const char *arg, char **argv,
		    const struct option *longopts, struct cli_data_options *o);
/* The pipeline's options from them (region, confidence, batches,
 * per-interval, counters). */
struct pipe_options;
void cli_data_pipe_options(const struct cli_data_options *o, struct pipe_options *po);
/* The operands of a command that reads a MODEL and a DATA file: exactly
 * two after the options (argv[optind], argv[optind + 1]), else a usage
 * error (exit 2). */
int cli_model_and_data(const char *cmd, int argc, int optind);

/* Handle getopt's '?' and ':' results uniformly (one line, exit 2); an
 * unknown long option close to one of longopts (NULL: none) is answered
 * with "did you mean". */
struct option;
int cli_bad_option(const char *cmd, int opt, char **argv,
		   const struct option *longopts);

/* Append s as a JSON string literal (quoted, escaped). */
void cli_json_string(struct cp_buf *b, const char *s);
/* Write a finished buffer to path atomically ("-" or NULL: stdout). */
int cli_write_output(const char *cmd, const char *path, struct cp_buf *b);

/* Progress of long work: one line on stderr, redrawn in place, only when
 * stderr is a terminal, from half a second into the work and at most
 * every 50 ms ("counterpoint CMD: ..." with a bar when done/total are
 * known); cli_progress_end() erases it. */
struct cli_progress {
	const char *cmd;
	int tty, shown;
	double start, last, after;
};
void cli_progress_init(struct cli_progress *p, const char *cmd);
/* Would cli_progress_show draw now?  (To skip costly counts when not.) */
int cli_progress_due(const struct cli_progress *p);
void cli_progress_show(struct cli_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cli_progress_end(struct cli_progress *p);
/* Write n finished buffers to their paths, all or none: each file to its
 * temporary file, then standard output, then every rename (up to
 * CLI_MAX_OUTPUTS); an exit status. */
#define CLI_MAX_OUTPUTS 4
int cli_write_outputs(const char *cmd, const char *const *paths,
		      struct cp_buf *const *bufs, size_t n);
/* Refuse (exit 2) an output that is an input or another output
 * (cp_files_distinct), after the options are parsed, before any work. */
int cli_files_distinct(const char *cmd, const struct cp_file_use *u, size_t n);
/* --html FILE (cli/report.c): the HTML report of a check or a search,
 * one self-contained page, into page (written with the command's other
 * outputs: cli_write_outputs); an exit status. */
struct report_check;
struct report_explore;
int cli_html_check(const struct report_check *c, struct cp_buf *page);
int cli_html_explore(const struct report_explore *e, struct cp_buf *page);
struct explore_suggest;
int cli_html_suggest(const struct udd_model *m, const char *model,
		     const char *data, const struct explore_suggest *s,
		     struct cp_buf *page);
/* --plots N|all: how many observations the page draws (SIZE_MAX: all). */
#define CLI_PLOTS_DEFAULT 50
int cli_parse_plots(const char *cmd, const char *text, size_t *out);

/* cli/mpi.c: check and explore under mpirun (docs/manual/mpi.md).  Built with
 * CP_MPI (bin/counterpoint-mpi) these spread the work; without, there is
 * one process and the job functions are never called.  init and
 * finalize bracket main; finalize(status) returns the status this
 * process exits with (a worker's: rank 0's).  Workers call their
 * *_worker after parsing the same options as rank 0. */
struct pipe_data;
struct pipe_model;
struct pipe_options;
struct pipe_budget;
struct feas_result;
struct stats_dataset;
struct explore_family;
struct explore_family_options;
int cli_mpi_init(int *argc, char ***argv);
int cli_mpi_finalize(int status);
int cli_mpi_rank(void);
int cli_mpi_size(void);
/* "MPI: no ..." or "MPI: Open MPI v4.1.4, 2 processes" */
const char *cli_mpi_describe(void);
/* A worker while rank 0 runs a command alone. */
int cli_mpi_idle(void);
/* check: pipe_check(pm, pd, FEAS_EXPLAIN, threads) into res, its lanes
 * spread over the processes (identical results). */
int cli_mpi_check(const char *model_path, const char *data_path,
		  const struct stats_dataset *data, const struct pipe_data *pd,
		  struct pipe_model *pm, size_t threads, struct feas_result *res,
		  struct cp_error *err);
int cli_mpi_check_worker(const char *model_path, const char *with,
			 const struct pipe_options *po, const struct pipe_budget *budget);
/* explore: the family's evaluations spread over the processes (sends
 * the inputs and sets the family's dispatch). */
int cli_mpi_explore(const char *model_path, const char *data_path,
		    struct explore_family *fam, struct cp_error *err);
int cli_mpi_explore_worker(const char *model_path, const char *data_path,
			   const struct explore_family_options *fo);

#endif
