/* cli/record.c: `counterpoint record`: run a command under perf_event_open
 * and write its counters, interval by interval, as a long-CSV dataset.
 * Option parsing, the output file and signals live here; the recording
 * itself is hec_record (hw/). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "hw/hec.h"

static const char record_help[] =
"usage: counterpoint record -e EVENT[,EVENT...] [-e ...] [-I MS]\n"
"                           [--observation NAME] [-o data.csv] [--append]\n"
"                           [--user-only] -- COMMAND [ARGS]\n"
"       counterpoint record --dry-run -e EVENT[,...]\n"
"\n"
"Run COMMAND with hardware or software event counters open on it\n"
"(perf_event_open: counting starts at its exec, its threads and children\n"
"count too) and write one dataset row per event per interval:\n"
"  observation,interval,event,value,enabled_ns,running_ns\n"
"with the raw deltas of the interval.  The event column holds each event\n"
"exactly as named here, so a model's `counter` lines match it.\n"
"\n"
"options:\n"
"  -e, --event LIST       events, comma-separated; {a,b} is a group counted\n"
"                         together.  Names: perf's (page-faults,\n"
"                         instructions), vendor (DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK),\n"
"                         libpfm4 (pmu::EVENT:UMASK:modifier), raw (r108)\n"
"  -I, --interval MS      read the counters every MS milliseconds (default 100)\n"
"      --observation NAME the dataset's observation (default: COMMAND's name)\n"
"  -o, --output FILE      the dataset (default '-': stdout, and COMMAND's own\n"
"                         stdout then goes to stderr)\n"
"      --append           add rows to an existing dataset instead of replacing it\n"
"  -u, --user-only        count user space only (what perf_event_paranoid=2\n"
"                         allows unprivileged users)\n"
"      --dry-run          resolve the events, print their encodings, run nothing\n"
"  -v, --verbose          say how many intervals were written\n"
"  -h, --help             this text\n"
"\n"
"The dataset is written as the command runs, each interval in one write,\n"
"so a command that is killed leaves a valid dataset up to its last interval.\n"
"\n"
"exit status: 0 the command exited with 0; 1 it exited with another status\n"
"or was killed (the dataset is still valid; the status is reported);\n"
"2 bad usage, an unknown event, a machine that cannot count an event, or a\n"
"command that cannot be executed; 3 internal error.\n"
"SIGTERM and SIGHUP are passed on to COMMAND; SIGINT reaches it from the\n"
"terminal, and the recorder waits for it to finish.\n";

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static void on_interrupt(int sig)
{
	(void)sig;  /* the command gets the terminal's SIGINT itself */
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
	char line[sizeof HEC_DATASET_HEADER];
	size_t want = strlen(HEC_DATASET_HEADER) - 1;
	ssize_t got = pread(fd, line, want, 0);

	*empty = got == 0;
	if (got == 0)
		return 1;
	return got == (ssize_t)want && !memcmp(line, HEC_DATASET_HEADER, want);
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
		printf(" pmu=%s%s%s%s\n", e->pmu[0] ? e->pmu : "-",
		       e->hardware ? " hardware" : " software",
		       e->exclude_kernel ? " exclude_kernel" : "",
		       e->exclude_user ? " exclude_user" : "");
	}
}

int cli_record(int argc, char **argv)
{
	enum { OPT_OBS = 256, OPT_APPEND, OPT_DRY };
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "interval", required_argument, NULL, 'I' },
		{ "observation", required_argument, NULL, OPT_OBS },
		{ "output", required_argument, NULL, 'o' },
		{ "append", no_argument, NULL, OPT_APPEND },
		{ "user-only", no_argument, NULL, 'u' },
		{ "dry-run", no_argument, NULL, OPT_DRY },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cmd = "record", *out_path = "-", *observation = NULL;
	struct hec_eventlist *list = NULL;
	struct hec_record_opts ro;
	struct hec_record_result res;
	struct cp_error err;
	size_t interval_ms = 100;
	unsigned flags = 0;
	int append = 0, dry_run = 0, verbose = 0, opt, rc = CLI_OK;
	int fd = -1, created = 0, empty = 1;
	char *obs_default = NULL;

	cp_error_clear(&err);
	list = hec_eventlist_new();
	if (!list) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		return cli_print_error(cmd, &err);
	}
	opterr = 0;
	optind = 1;
	/* '+': options end at the command's name */
	while ((opt = getopt_long(argc, argv, "+:e:I:o:uvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (hec_eventlist_parse(list, optarg, &err)) {
				rc = cli_print_error(cmd, &err);
				goto out;
			}
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
		case 'v':
			verbose = 1;
			break;
		case 'h':
			fputs(record_help, stdout);
			goto out;
		default:
			rc = cli_bad_option(cmd, opt, argv);
			goto out;
		}
	}
	if (!hec_eventlist_size(list)) {
		rc = cli_usage_error(cmd, "no events to record (use -e EVENT)");
		goto out;
	}
	if (!dry_run && optind >= argc) {
		rc = cli_usage_error(cmd, "no command to run (put it after '--')");
		goto out;
	}
	if (dry_run && optind < argc) {
		rc = cli_usage_error(cmd, "--dry-run runs no command");
		goto out;
	}
	if (hec_eventlist_encode(list, flags, &err)) {
		rc = cli_print_error(cmd, &err);
		goto out;
	}
	if (dry_run) {
		print_dry_run(list);
		goto out;
	}

	if (!observation) {
		const char *slash = strrchr(argv[optind], '/');

		obs_default = cp_strdup(slash ? slash + 1 : argv[optind]);
		if (!obs_default) {
			cp_error_set(&err, CP_ENOMEM, "out of memory");
			rc = cli_print_error(cmd, &err);
			goto out;
		}
		observation = obs_default;
	}
	/* The dataset is the one file written in place, not through a
	 * temporary and rename: rows must be on disk while the command runs
	 * so that a crash of either process leaves every finished interval. */
	if (!strcmp(out_path, "-")) {
		fd = STDOUT_FILENO;
	} else {
		struct stat st;

		created = stat(out_path, &st) != 0;
		fd = open(out_path, O_WRONLY | O_CREAT | O_CLOEXEC |
			  (append ? O_APPEND : O_TRUNC), 0644);
		if (fd < 0) {
			cp_error_set(&err, CP_EIO, "cannot open '%s' for writing: %s",
				     out_path, strerror(errno));
			rc = cli_print_error(cmd, &err);
			goto out;
		}
		if (append && !dataset_header_ok(fd, &empty)) {
			cp_error_set(&err, CP_EINPUT, "cannot append to '%s': it is "
				     "not a counterpoint dataset (its first line is "
				     "not the dataset header)", out_path);
			rc = cli_print_error(cmd, &err);
			goto out;
		}
	}

	memset(&ro, 0, sizeof ro);
	ro.observation = observation;
	ro.interval_ms = (unsigned)interval_ms;
	ro.out_fd = fd;
	ro.write_header = !append || empty;
	ro.stdout_to_stderr = fd == STDOUT_FILENO;
	ro.stop = &stop_signal;
	install_handlers();
	if (hec_record(list, (const char *const *)(argv + optind), &ro, &res, &err)) {
		rc = cli_print_error(cmd, &err);
		if (created && fd != STDOUT_FILENO && !res.intervals)
			unlink(out_path);
		goto out;
	}
	if (res.signaled) {
		fprintf(stderr, "counterpoint record: '%s' was killed by signal %d "
			"(%s); %zu interval%s written\n", argv[optind], res.signal,
			strsignal(res.signal), res.intervals,
			res.intervals == 1 ? "" : "s");
		rc = CLI_RESULT;
	} else if (res.exited && res.status != 0) {
		fprintf(stderr, "counterpoint record: '%s' exited with status %d; "
			"%zu interval%s written\n", argv[optind], res.status,
			res.intervals, res.intervals == 1 ? "" : "s");
		rc = CLI_RESULT;
	} else if (verbose) {
		fprintf(stderr, "counterpoint record: %zu intervals of %zu events "
			"in %.3f s\n", res.intervals, hec_eventlist_size(list),
			(double)res.elapsed_ns / 1e9);
	}
out:
	if (fd >= 0 && fd != STDOUT_FILENO && close(fd) && rc == CLI_OK) {
		cp_error_set(&err, CP_EIO, "cannot write '%s': %s", out_path,
			     strerror(errno));
		rc = cli_print_error(cmd, &err);
	}
	cp_free(obs_default);
	hec_eventlist_free(list);
	return rc;
}
