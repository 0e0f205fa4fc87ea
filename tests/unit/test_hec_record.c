/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_hec_record.c: live recordings of the kernel's software
 * events (they work on every Linux machine, PMU or not): the dataset's
 * shape, the command's exit status and signal, exec failures, signal
 * forwarding, and the no-PMU error on machines without hardware counters. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw/hec.h"
#include "tests/unit/check.h"

struct recording {
	int rc;
	struct hec_record_result res;
	struct cp_error err;
	char *text;       /* the dataset written */
};

static void record_every(struct recording *out, const char *events,
			 const char **argv, volatile sig_atomic_t *stop,
			 unsigned interval_ms)
{
	struct hec_eventlist *l = hec_eventlist_new();
	struct hec_record_opts o;
	char path[] = "/tmp/test_hec_record.XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	long n;

	memset(out, 0, sizeof *out);
	cp_error_clear(&out->err);
	CHECK(fd >= 0);
	CHECK(hec_eventlist_parse(l, events, &out->err) == 0);
	CHECK(hec_eventlist_encode(l, HEC_USER_ONLY, &out->err) == 0);
	memset(&o, 0, sizeof o);
	o.observation = "obs, 1";
	o.interval_ms = interval_ms;
	o.out_fd = fd;
	o.write_header = 1;
	o.stop = stop;
	out->rc = hec_record(l, argv, &o, &out->res, &out->err);
	f = fopen(path, "r");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	out->text = calloc(1, (size_t)n + 1);
	if (fread(out->text, 1, (size_t)n, f) != (size_t)n)
		CHECK(0);
	fclose(f);
	close(fd);
	unlink(path);
	hec_eventlist_free(l);
}

static void record(struct recording *out, const char *events, const char **argv,
		   volatile sig_atomic_t *stop)
{
	record_every(out, events, argv, stop, 5);
}

/* Sum of column `value` over the rows of event `name`; counts the rows.
 * *enabled_sum gets the sum of their enabled_ns. */
static unsigned long long total_en(const char *text, const char *name,
				   size_t *rows, unsigned long long *enabled_sum)
{
	unsigned long long sum = 0;
	const char *p = strchr(text, '\n');
	char ev[64];

	*rows = 0;
	*enabled_sum = 0;
	while (p && p[1]) {
		unsigned long long v, en, run;
		size_t interval;

		p++;
		/* the observation is quoted: "obs, 1" */
		if (sscanf(p, "\"obs, 1\",%zu,%63[^,],%llu,%llu,%llu", &interval, ev,
			   &v, &en, &run) != 5) {
			CHECKF(0, "bad row: %.60s", p);
			break;
		}
		CHECK(run <= en);
		if (!strcmp(ev, name)) {
			sum += v;
			*enabled_sum += en;
			(*rows)++;
		}
		p = strchr(p, '\n');
	}
	return sum;
}

static unsigned long long total(const char *text, const char *name, size_t *rows)
{
	unsigned long long en;

	return total_en(text, name, rows, &en);
}

static void test_exit_status_and_rows(void)
{
	const char *argv[] = { "sh", "-c",
		"i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; exit 3", NULL };
	struct recording r;
	size_t n_pf, n_min, n_maj;
	unsigned long long pf, min, maj;

	record(&r, "{page-faults,minor-faults,major-faults},task-clock", argv, NULL);
	if (r.rc == CP_EPERM) {
		free(r.text);
		SKIP("perf_event_open not permitted here: %s", r.err.msg);
	}
	CHECKF(r.rc == 0, "%s", r.err.msg);
	CHECK(r.res.exited && r.res.status == 3 && !r.res.signaled);
	CHECK(r.res.intervals >= 1);
	CHECK(!strncmp(r.text, CP_DATASET_HEADER, strlen(CP_DATASET_HEADER)));
	pf = total(r.text, "page-faults", &n_pf);
	min = total(r.text, "minor-faults", &n_min);
	maj = total(r.text, "major-faults", &n_maj);
	CHECK(n_pf == r.res.intervals && n_min == n_pf && n_maj == n_pf);
	CHECK(pf > 0);
	/* every counted fault that completes is minor or major */
	CHECKF(pf >= min + maj, "page-faults %llu < minor %llu + major %llu",
	       pf, min, maj);
	{
		/* task-clock counts the nanoseconds the task ran, which is
		 * also its enabled time: the deltas must agree */
		unsigned long long tc, en;
		size_t n_tc;

		tc = total_en(r.text, "task-clock", &n_tc, &en);
		CHECK(n_tc == r.res.intervals && tc > 0);
		CHECKF(tc <= en + en / 100 + 100000 && en <= tc + tc / 100 + 100000,
		       "task-clock %llu ns, enabled %llu ns", tc, en);
	}
	free(r.text);
}

static void test_killed_command(void)
{
	const char *argv[] = { "sh", "-c", "kill -KILL $$", NULL };
	struct recording r;

	record(&r, "page-faults", argv, NULL);
	if (r.rc == CP_EPERM) {
		free(r.text);
		SKIP("perf_event_open not permitted here");
	}
	CHECKF(r.rc == 0, "%s", r.err.msg);
	CHECK(r.res.signaled && r.res.signal == SIGKILL && !r.res.exited);
	/* whatever was written is whole rows under the header */
	CHECK(!strncmp(r.text, CP_DATASET_HEADER, strlen(CP_DATASET_HEADER)));
	CHECK(r.text[strlen(r.text) - 1] == '\n');
	free(r.text);
}

/* A group read while an inherited task (a child, a thread) is tearing its
 * copy of the group down fails with ECHILD (Linux 6.6 and later refuse to
 * sum groups whose members differ); the recorder retries instead of
 * giving up.  A thousand children exit here, read every millisecond, and
 * the command finally kills itself. */
static void test_group_with_exiting_children(void)
{
	const char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 1000 ]; do "
			       "/bin/true; i=$((i+1)); done; kill -KILL $$", NULL };
	struct recording r;
	size_t n_pf, n_min, n_cs;
	unsigned long long pf, min;

	record_every(&r, "{page-faults,minor-faults,context-switches}", argv,
		     NULL, 1);
	if (r.rc == CP_EPERM) {
		free(r.text);
		SKIP("perf_event_open not permitted here");
	}
	CHECKF(r.rc == 0, "%s", r.err.msg);
	CHECK(r.res.signaled && r.res.signal == SIGKILL);
	pf = total(r.text, "page-faults", &n_pf);
	min = total(r.text, "minor-faults", &n_min);
	(void)total(r.text, "context-switches", &n_cs);
	CHECK(n_pf == r.res.intervals && n_min == n_pf && n_cs == n_pf);
	/* a thousand execs fault thousands of pages, children included */
	CHECKF(pf > 10000 && pf >= min, "page-faults %llu, minor %llu", pf, min);
	free(r.text);
}

static void test_exec_failure(void)
{
	const char *argv[] = { "/nonexistent/command", NULL };
	struct recording r;

	record(&r, "page-faults", argv, NULL);
	if (r.rc == CP_EPERM) {
		free(r.text);
		SKIP("perf_event_open not permitted here");
	}
	CHECK(r.rc == CP_EINPUT);
	CHECK_STR(r.err.msg, "cannot execute '/nonexistent/command': "
		  "No such file or directory");
	CHECK(r.res.intervals == 0);
	CHECK_STR(r.text, "");  /* no header: nothing ran */
	free(r.text);
}

/* A stop request (the CLI's SIGTERM handler) is passed on to the command. */
static void test_stop_forwards_signal(void)
{
	const char *argv[] = { "sleep", "30", NULL };
	volatile sig_atomic_t stop = SIGTERM;
	struct recording r;

	record(&r, "context-switches", argv, &stop);
	if (r.rc == CP_EPERM) {
		free(r.text);
		SKIP("perf_event_open not permitted here");
	}
	CHECKF(r.rc == 0, "%s", r.err.msg);
	CHECK(r.res.signaled && r.res.signal == SIGTERM);
	CHECK(r.res.elapsed_ns < 10000000000ull);
	free(r.text);
}

static void test_no_pmu_live(void)
{
	const char *argv[] = { "true", NULL };
	struct hec_eventlist *l = hec_eventlist_new();
	struct hec_record_opts o;
	struct hec_record_result res;
	struct cp_error err;
	int rc, fd = open("/dev/null", O_WRONLY);

	if (hec_machine_has_hw_pmu()) {
		hec_eventlist_free(l);
		close(fd);
		SKIP("this machine has a hardware PMU; the no-PMU path cannot run");
	}
	CHECK(hec_eventlist_parse(l, "page-faults,instructions", &err) == 0);
	CHECK(hec_eventlist_encode(l, HEC_USER_ONLY, &err) == 0);
	memset(&o, 0, sizeof o);
	o.observation = "x";
	o.interval_ms = 10;
	o.out_fd = fd;
	rc = hec_record(l, argv, &o, &res, &err);
	CHECK(rc == CP_EUNSUPPORTED);
	CHECK_STR(err.msg, "cannot record 'instructions': " HEC_NO_PMU_MSG);
	hec_eventlist_free(l);
	close(fd);
}

/* perf's -C lists; NULL is every online CPU (-a). */
static void test_cpus_parse(void)
{
	struct cp_error err;
	int *cpus = NULL;
	size_t n = 0;
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	CHECK(hec_cpus_parse(NULL, &cpus, &n, &err) == 0);
	CHECKF(n >= 1 && (long)n <= online + 64, "%zu online", n);
	CHECK(cpus && cpus[0] >= 0);
	cp_free(cpus);
	CHECK(hec_cpus_parse("0", &cpus, &n, &err) == 0 && n == 1 && cpus[0] == 0);
	cp_free(cpus);
	CHECK(hec_cpus_parse("0,0-0", &cpus, &n, &err) == 0 && n == 1);
	cp_free(cpus);
	CHECK(hec_cpus_parse("0-x", &cpus, &n, &err) == CP_EINPUT && !cpus);
	CHECK_STR(err.msg, "bad CPU list '0-x' (CPU numbers and ranges, e.g. 0,2-3)");
	CHECK(hec_cpus_parse("", &cpus, &n, &err) == CP_EINPUT);
	CHECK(hec_cpus_parse("3-1", &cpus, &n, &err) == CP_EINPUT);
	CHECK(hec_cpus_parse("8191", &cpus, &n, &err) == CP_EINPUT);
	CHECK_STR(err.msg, "CPU 8191 is not online (/sys/devices/system/cpu/online)");
	CHECK(hec_cpus_parse("8192", &cpus, &n, &err) == CP_EINPUT);
}

int main(void)
{
	check_prog = "test_hec_record";
	RUN(test_cpus_parse);
	RUN(test_exit_status_and_rows);
	RUN(test_killed_command);
	RUN(test_group_with_exiting_children);
	RUN(test_exec_failure);
	RUN(test_stop_forwards_signal);
	RUN(test_no_pmu_live);
	return check_summary();
}
