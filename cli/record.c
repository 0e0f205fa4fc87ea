/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/record.c: `counterpoint record`: run a command under perf_event_open,
 * or attach to processes or CPUs as perf stat does, and write the
 * counters, interval by interval, as a long-CSV dataset.  Option parsing,
 * the output file and signals live here; the recording itself is
 * hec_record (hw/). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "hw/hec.h"
#include "stats/region.h"

static const char record_help[] =
"usage: counterpoint record -e EVENT[,EVENT...] [-e ...] [-I MS]\n"
"                           [--observation NAME] [-o data.csv] [--append]\n"
"                           [--user-only] -- COMMAND [ARGS]\n"
"       counterpoint record --model MODEL [-e ...] [options] -- COMMAND [ARGS]\n"
"       counterpoint record (-p PID[,PID...] | -a | -C CPUS) [options]\n"
"                           [-- COMMAND [ARGS]]\n"
"       counterpoint record --dry-run -e EVENT[,...]\n"
"\n"
"Run COMMAND with hardware or software event counters open on it\n"
"(perf_event_open: counting starts at its exec, its threads and children\n"
"count too), or count running processes or whole CPUs as perf stat does,\n"
"and write one dataset row per event per interval:\n"
"  observation,interval,event,value,enabled_ns,running_ns\n"
"with the raw deltas of the interval.  The event column holds each event\n"
"exactly as named here, so a model's `counter` lines match it.\n"
"\n"
"options:\n"
"  -e, --event LIST       events, comma-separated; {a,b} is a group counted\n"
"                         together.  Names: perf's (page-faults,\n"
"                         instructions), vendor\n"
"                         (DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK),\n"
"                         libpfm4 (pmu::EVENT:UMASK:modifier), raw (r108),\n"
"                         perf's PMU syntax (cpu/event=0x08,umask=0x01/u)\n"
"  -m, --model MODEL      also record every event MODEL's counter lines name\n"
"                         (one group, counted together, when they fit the PMU)\n"
"  -I, --interval MS      read the counters every MS milliseconds (default 100)\n"
"      --observation NAME the dataset's observation (default: COMMAND's name)\n"
"  -o, --output FILE      the dataset (default '-': stdout, and COMMAND's own\n"
"                         stdout then goes to stderr)\n"
"      --append           add rows to an existing dataset instead of replacing it\n"
"                         (which must load and not have the observation yet)\n"
"      --pmu PMU          resolve names without a 'pmu::' prefix on PMU first\n"
"                         (with LIBPFM_ENCODE_INACTIVE=1 and --dry-run: see\n"
"                         another processor's encodings, e.g. --pmu hsw)\n"
"  -p, --pid PID[,PID...] count these running processes (every thread, and\n"
"                         the threads and children they start) until they\n"
"                         exit, COMMAND exits, or SIGINT; they keep running\n"
"  -a, --all-cpus         count every online CPU whole (every process; takes\n"
"                         perf_event_paranoid <= 0 or CAP_PERFMON), until\n"
"                         COMMAND exits or SIGINT\n"
"  -C, --cpu CPUS         the same on these CPUs only (0,2-3)\n"
"  -u, --user-only        count user space only (what perf_event_paranoid=2\n"
"                         allows unprivileged users)\n"
"      --dry-run          resolve the events, print their encodings, run nothing\n"
"  -v, --verbose          say how many intervals were written and how much\n"
"                         CPU time the recorder itself used\n"
"  -h, --help             this text\n"
"\n"
"The dataset is written as the command runs, each interval in one write,\n"
"so a command that is killed leaves a valid dataset up to its last interval.\n"
"\n"
"exit status: COMMAND's own (as perf stat passes it on), 128+N when it was\n"
"killed by signal N (the dataset is still valid; stderr says which); without\n"
"a COMMAND 0 once the processes exit or SIGINT stops the recording; 2 bad\n"
"usage, an unknown event, a machine that cannot count an event, permission\n"
"refused, or a command that cannot be executed; 3 internal error.\n"
"SIGTERM and SIGHUP are passed on to COMMAND; SIGINT reaches it from the\n"
"terminal, and the recorder waits for it to finish.  Without a COMMAND any\n"
"of them ends the recording.\n";

static volatile sig_atomic_t stop_signal;
static int no_command;   /* attached to processes or CPUs alone */

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_interrupt(int sig)
{
	/* the command gets the terminal's SIGINT itself; attached alone,
	 * it ends the recording */
	if (no_command)
		stop_signal = sig;
}

/* "123,456": process ids, into a new array. */
static int parse_pids(const char *cmd, const char *text, pid_t **pids,
		      size_t *n)
{
	const char *p = text;
	size_t k = 0;

	*n = 1;
	for (p = text; *p; p++)
		*n += *p == ',';
	*pids = cp_calloc(*n, sizeof **pids);
	if (!*pids)
		return cli_usage_error(cmd, "out of memory");
	for (p = text; k < *n; k++) {
		char *end;
		long v;

		errno = 0;
		v = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : 0;
		if (v <= 0 || errno || v > INT32_MAX || (*end && *end != ',')) {
			cp_free(*pids);
			*pids = NULL;
			return cli_usage_error(cmd, "-p wants process ids "
					       "(123,456), not '%s'", text);
		}
		(*pids)[k] = (pid_t)v;
		p = end + (*end == ',');
	}
	return CLI_OK;
}

static void on_pipe(int sig)
{
	(void)sig;  /* a write error (EPIPE) stops the recording instead */
}

static void install_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_interrupt;
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_pipe;
	sigaction(SIGPIPE, &sa, NULL);
}

/* Does fd hold a counterpoint dataset (or nothing)?  1 yes (and *empty),
 * 0 no. */
static int dataset_header_ok(int fd, int *empty)
{
	char line[sizeof CP_DATASET_HEADER];
	size_t want = strlen(CP_DATASET_HEADER) - 1;
	ssize_t got = pread(fd, line, want, 0);

	*empty = got == 0;
	if (got == 0)
		return 1;
	return got == (ssize_t)want && !memcmp(line, CP_DATASET_HEADER, want);
}

/* Before appending: the dataset at path (open on fd) must load and not
 * hold the observation already (check would reject it), as import
 * --append demands.  A file holding only the header is fine. */
static int check_new_observation(const char *path, int fd,
				 const char *observation)
{
	struct stats_dataset *d = NULL;
	struct cp_error err;
	struct stat st;
	int rc;

	cp_error_clear(&err);
	if (fstat(fd, &st) == 0 && st.st_size == (off_t)strlen(CP_DATASET_HEADER))
		return CLI_OK;
	if (stats_dataset_load(path, &d, &err))
		return cli_print_error("record", &err);
	rc = stats_dataset_find_observation(d, observation) != (size_t)-1;
	stats_dataset_free(d);
	if (rc) {
		fprintf(stderr, "counterpoint record: '%s' already has observation "
			"'%s' (name this run with --observation NAME)\n", path,
			observation);
		return CLI_USAGE;
	}
	return CLI_OK;
}

/* The events a model's `counter` lines name, appended to l, each with
 * its aliases (record opens the first name that encodes).  *first is the
 * index of the first, for hec_eventlist_group_if_fits once encoded. */
static int add_model_events(const char *cmd, const char *path,
			    struct hec_eventlist *l, size_t *first, size_t *n)
{
	struct udd_model *model = NULL;
	udd_features sel;
	struct cp_error err;
	const char **names = NULL;
	size_t i, j;
	int rc;

	rc = cli_load_model(cmd, path, NULL, CLI_USAGE, &model, &sel);
	if (rc)
		return rc;
	cp_error_clear(&err);
	*first = hec_eventlist_size(l);
	*n = udd_model_n_counters(model);
	for (i = 0; i < *n && !rc; i++) {
		size_t k = udd_model_counter_n_events(model, i);
		char label[512];

		names = cp_reallocarray(names, k, sizeof *names);
		if (!names) {
			rc = cp_error_set(&err, CP_ENOMEM, "out of memory");
			break;
		}
		for (j = 0; j < k; j++)
			names[j] = udd_model_counter_event_at(model, i, j);
		snprintf(label, sizeof label, "%s: counter '%s'", path,
			 udd_model_counter_name(model, i));
		rc = hec_eventlist_add(l, names, k, label, &err);
	}
	cp_free(names);
	udd_model_free(model);
	return rc ? cli_print_error(cmd, &err) : CLI_OK;
}

static void print_dry_run(const struct hec_eventlist *l)
{
	size_t i;

	for (i = 0; i < hec_eventlist_size(l); i++) {
		const struct hec_encoding *e = hec_eventlist_encoding(l, i);

		printf("%s\tgroup=%zu type=%u config=%#llx", hec_eventlist_name(l, i),
		       hec_eventlist_group(l, i), e->type,
		       (unsigned long long)e->config);
		if (e->config1)
			printf(" config1=%#llx", (unsigned long long)e->config1);
		if (e->config2)
			printf(" config2=%#llx", (unsigned long long)e->config2);
		printf(" pmu=%s%s%s%s", e->pmu[0] ? e->pmu : "-",
		       e->hardware ? " hardware" : " software",
		       e->exclude_kernel ? " exclude_kernel" : "",
		       e->exclude_user ? " exclude_user" : "");
		if (hec_eventlist_note(l, i)[0])
			printf("\t%s", hec_eventlist_note(l, i));
		putchar('\n');
	}
}

/* The observation of a recording without a command: "pid-123-456",
 * "all-cpus", "cpus-0+2-3" (no commas: they would need quoting). */
static char *default_observation(const pid_t *pids, size_t n_pids,
				 int all_cpus, const char *cpu_spec)
{
	struct cp_buf b;
	size_t k;
	char *out;

	cp_buf_init(&b);
	if (all_cpus) {
		cp_buf_puts(&b, "all-cpus");
	} else if (cpu_spec) {
		cp_buf_puts(&b, "cpus-");
		for (; *cpu_spec; cpu_spec++)
			cp_buf_printf(&b, "%c", *cpu_spec == ',' ? '+' : *cpu_spec);
	} else {
		cp_buf_puts(&b, "pid");
		for (k = 0; k < n_pids; k++)
			cp_buf_printf(&b, "-%d", (int)pids[k]);
	}
	out = b.failed ? NULL : cp_strdup(b.data);
	cp_buf_release(&b);
	return out;
}

/* Open path for --append, locked until cp_lock_release: a new file is
 * made (and goes again if nothing is written), an existing one must be a
 * dataset without the observation.  *fd appends to it; *empty when it is
 * (the header is then to be written).  An exit status. */
static int open_append(const char *path, const char *observation,
		       struct cp_lock *lock, int *fd, int *empty)
{
	struct cp_error err;
	int rc;

	cp_error_clear(&err);
	rc = cp_lock_acquire(lock, path, CP_LOCK_CREATE | CP_LOCK_NOWAIT, &err);
	if (rc == 1) {
		fprintf(stderr, "counterpoint record: waiting for another append to "
			"'%s' to end\n", path);
		rc = cp_lock_acquire(lock, path, CP_LOCK_CREATE, &err);
	}
	if (rc)
		return cli_print_error("record", &err);
	if (!dataset_header_ok(lock->fd, empty)) {
		cp_error_set(&err, CP_EINPUT, "cannot append to '%s': it is not a "
			     "counterpoint dataset (its first line is not the dataset "
			     "header)", path);
		return cli_print_error("record", &err);
	}
	if (!*empty && (rc = check_new_observation(path, lock->fd, observation)))
		return rc;
	if ((*fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0) {
		cp_error_set(&err, CP_EIO, "cannot open '%s' for writing: %s", path,
			     strerror(errno));
		return cli_print_error("record", &err);
	}
	return CLI_OK;
}

/* After the first interval is written: the new dataset replaces the old
 * one (whose content stays until then), and the rest go to it. */
struct commit {
	struct cp_output *out;
	struct hec_record_opts *ro;
};

static int commit_first(void *arg, size_t intervals, struct cp_error *err)
{
	struct commit *c = arg;
	int rc;

	(void)intervals;
	if (c->out->committed)
		return CP_OK;
	rc = cp_output_commit(c->out, err);
	c->ro->out_fd = c->out->fd;
	return rc;
}

/* `counterpoint record`.  Long because it parses the recorder's options
 * and owns the order of a recording's steps (events from -e or a model,
 * --dry-run, the child, the sampling loop, the atomic write or --append),
 * each of which must clean up on every exit path. */
int cli_record(int argc, char **argv)
{
	enum { OPT_OBS = 256, OPT_APPEND, OPT_DRY, OPT_PMU };
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "model", required_argument, NULL, 'm' },
		{ "interval", required_argument, NULL, 'I' },
		{ "observation", required_argument, NULL, OPT_OBS },
		{ "output", required_argument, NULL, 'o' },
		{ "append", no_argument, NULL, OPT_APPEND },
		{ "user-only", no_argument, NULL, 'u' },
		{ "dry-run", no_argument, NULL, OPT_DRY },
		{ "pmu", required_argument, NULL, OPT_PMU },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cmd = "record", *out_path = "-", *observation = NULL;
	const char *model_path = NULL, *pmu = NULL;
	struct hec_eventlist *list = NULL;
	struct hec_record_opts ro;
	struct hec_record_result res;
	struct cp_error err;
	size_t interval_ms = 100, model_first = 0, model_n = 0;
	unsigned flags = 0;
	int append = 0, dry_run = 0, verbose = 0, opt, rc = CLI_OK;
	int fd = -1, empty = 1, have_out = 0;
	char *obs_default = NULL;
	pid_t *pids = NULL;
	int *cpus = NULL;
	size_t n_pids = 0, n_cpus = 0;
	const char *cpu_spec = NULL;
	int all_cpus = 0, command;
	struct cp_output out;
	struct cp_lock lock = { -1, 0, NULL };
	struct commit commit;
	size_t i;

	cp_error_clear(&err);
	list = hec_eventlist_new();
	if (!list) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		return cli_print_error(cmd, &err);
	}
	opterr = 0;
	optind = 1;
	/* '+': options end at the command's name */
	while ((opt = getopt_long(argc, argv, "+:e:m:I:o:p:aC:uvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (hec_eventlist_parse(list, optarg, &err)) {
				rc = cli_print_error(cmd, &err);
				goto out;
			}
			break;
		case 'm':
			model_path = optarg;
			break;
		case 'I':
			if ((rc = cli_parse_size(cmd, "-I", optarg, &interval_ms)))
				goto out;
			if (interval_ms < 1 || interval_ms > 86400000) {
				rc = cli_usage_error(cmd, "-I wants milliseconds in "
						     "[1, 86400000], not '%s'", optarg);
				goto out;
			}
			break;
		case OPT_OBS:
			observation = optarg;
			break;
		case 'o':
			out_path = optarg;
			break;
		case OPT_APPEND:
			append = 1;
			break;
		case 'u':
			flags |= HEC_USER_ONLY;
			break;
		case OPT_DRY:
			dry_run = 1;
			break;
		case OPT_PMU:
			pmu = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'p':
			cp_free(pids);
			if ((rc = parse_pids(cmd, optarg, &pids, &n_pids)))
				goto out;
			break;
		case 'a':
			all_cpus = 1;
			break;
		case 'C':
			cpu_spec = optarg;
			break;
		case 'h':
			fputs(record_help, stdout);
			goto out;
		default:
			rc = cli_bad_option(cmd, opt, argv, longopts);
			goto out;
		}
	}
	{
		const struct cp_file_use files[] = {
			{ "--model", model_path, 0 }, { "-o", out_path, 1 }
		};

		if ((rc = cli_files_distinct(cmd, files, 2)))
			goto out;
	}
	if (model_path && (rc = add_model_events(cmd, model_path, list,
						     &model_first, &model_n)))
		goto out;
	if (!hec_eventlist_size(list)) {
		rc = cli_usage_error(cmd, "no events to record (use -e EVENT or "
				     "--model MODEL)");
		goto out;
	}
	if (all_cpus && cpu_spec) {
		rc = cli_usage_error(cmd, "-a counts every CPU; -C names some (give one)");
		goto out;
	}
	if ((all_cpus || cpu_spec) && n_pids) {
		rc = cli_usage_error(cmd, "-p counts processes, -a and -C whole CPUs "
				     "(give one)");
		goto out;
	}
	if ((all_cpus || cpu_spec) && hec_cpus_parse(cpu_spec, &cpus, &n_cpus, &err)) {
		rc = cli_print_error(cmd, &err);
		goto out;
	}
	command = optind < argc;
	if (!dry_run && !command && !n_pids && !n_cpus) {
		rc = cli_usage_error(cmd, "no command to run (put it after '--'), "
				     "and no -p, -a or -C");
		goto out;
	}
	if (dry_run && optind < argc) {
		rc = cli_usage_error(cmd, "--dry-run runs no command");
		goto out;
	}
	/* another processor's encodings count something else here */
	if (pmu && !dry_run && hec_pmu_status(pmu) == 0) {
		cp_error_set(&err, CP_EUNSUPPORTED, "PMU '%s' is not this "
			     "machine's: only --dry-run encodes for it", pmu);
		rc = cli_print_error(cmd, &err);
		goto out;
	}
	if (pmu && hec_eventlist_set_pmu(list, pmu)) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		rc = cli_print_error(cmd, &err);
		goto out;
	}
	if (hec_eventlist_encode(list, flags, &err)) {
		rc = cli_print_error(cmd, &err);
		goto out;
	}
	/* a model's events are read together when they fit the PMU */
	if (model_path)
		hec_eventlist_group_if_fits(list, model_first, model_n);
	if (dry_run) {
		print_dry_run(list);
		goto out;
	}

	if (!observation) {
		if (command) {
			const char *slash = strrchr(argv[optind], '/');

			obs_default = cp_strdup(slash ? slash + 1 : argv[optind]);
		} else {
			obs_default = default_observation(pids, n_pids, all_cpus,
							  cpu_spec);
		}
		if (!obs_default) {
			cp_error_set(&err, CP_ENOMEM, "out of memory");
			rc = cli_print_error(cmd, &err);
			goto out;
		}
		observation = obs_default;
	}
	for (i = 0; i < hec_eventlist_size(list) && !rc; i++)
		if (cp_csv_name_check("event", hec_eventlist_name(list, i), &err))
			rc = cli_usage_error(cmd, "%s", err.msg);
	if (!rc && cp_csv_name_check("observation", observation, &err))
		rc = cli_usage_error(cmd, "%s", err.msg);
	if (rc)
		goto out;
	/* The dataset is written as the command runs, an interval at a time.
	 * A new one goes to a temporary file beside the target, which
	 * replaces the target once the first interval is on disk (before
	 * that a failure leaves the old file as it was); an append holds the
	 * file locked from the header check to the last interval, so that
	 * two appends do not interleave their headers. */
	if (append) {
		if ((rc = open_append(out_path, observation, &lock, &fd, &empty)))
			goto out;
	} else {
		if (cp_output_open(&out, out_path, &err)) {
			rc = cli_print_error(cmd, &err);
			goto out;
		}
		fd = out.fd;
		have_out = 1;
	}

	memset(&ro, 0, sizeof ro);
	ro.observation = observation;
	ro.interval_ms = (unsigned)interval_ms;
	ro.out_fd = fd;
	ro.write_header = !append || empty;
	ro.stdout_to_stderr = fd == STDOUT_FILENO;
	ro.stop = &stop_signal;
	ro.pids = pids;
	ro.n_pids = n_pids;
	ro.cpus = cpus;
	ro.n_cpus = n_cpus;
	no_command = !command;
	if (have_out) {
		commit.out = &out;
		commit.ro = &ro;
		ro.written = commit_first;
		ro.written_arg = &commit;
	}
	install_handlers();
	if (hec_record(list, command ? (const char *const *)(argv + optind) : NULL,
		       &ro, &res, &err)) {
		rc = cli_print_error(cmd, &err);
		goto out;
	}
	if (have_out && !res.intervals && out.has_old) {
		/* nothing recorded: the old dataset stays */
		fprintf(stderr, "counterpoint record: no interval recorded; '%s' is "
			"left as it was\n", out_path);
		cp_output_abort(&out);
		have_out = 0;
		fd = -1;
	}
	/* the command's status is record's own, as perf stat passes it on;
	 * killed by signal N: 128 + N, as a shell reports it */
	if (res.signaled) {
		fprintf(stderr, "counterpoint record: '%s' was killed by signal %d "
			"(%s); %zu interval%s written\n", argv[optind], res.signal,
			strsignal(res.signal), res.intervals,
			res.intervals == 1 ? "" : "s");
		rc = 128 + res.signal;
	} else if (res.exited && res.status != 0) {
		fprintf(stderr, "counterpoint record: '%s' exited with status %d; "
			"%zu interval%s written\n", argv[optind], res.status,
			res.intervals, res.intervals == 1 ? "" : "s");
		rc = res.status;
	}
	if (verbose) {
		/* the recorder's own CPU time (the command's is not in it) */
		struct rusage ru;
		double cpu = 0.0;

		if (getrusage(RUSAGE_SELF, &ru) == 0)
			cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
			      ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
		fprintf(stderr, "counterpoint record: %zu intervals of %zu events "
			"in %.3f s; the recorder used %.1f ms of CPU\n",
			res.intervals, hec_eventlist_size(list),
			(double)res.elapsed_ns / 1e9, cpu * 1e3);
	}
out:
	if (have_out) {
		/* a failure before the first interval keeps the old file; after
		 * it, the dataset holds every interval written */
		if (rc != CLI_OK && rc != CLI_RESULT && !out.committed)
			cp_output_abort(&out);
		else if (cp_output_close(&out, &err) && rc == CLI_OK)
			rc = cli_print_error(cmd, &err);
	} else if (fd >= 0 && close(fd) && rc == CLI_OK) {
		cp_error_set(&err, CP_EIO, "cannot write '%s': %s", out_path,
			     strerror(errno));
		rc = cli_print_error(cmd, &err);
	}
	cp_lock_release(&lock);
	cp_free(obs_default);
	cp_free(pids);
	cp_free(cpus);
	hec_eventlist_free(list);
	return rc;
}
