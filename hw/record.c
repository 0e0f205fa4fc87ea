/* hw/record.c: run a command under perf_event_open and write its counts,
 * interval by interval, as rows of the long-CSV dataset.
 *
 * The command is forked but held on a pipe until every event is open on
 * it (enable_on_exec, inherit), so counting starts exactly at its exec and
 * covers its threads and children.  A second close-on-exec pipe carries
 * errno back when exec fails.  Each interval's rows go out in one write(),
 * so whatever kills the command, the dataset ends at an interval
 * boundary. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "hw/hec.h"

struct counter {
	int fd;
	uint64_t id;
	uint64_t value, enabled, running;          /* cumulative, last read */
	uint64_t prev_value, prev_enabled, prev_running;
};

struct group {
	size_t first, n;       /* events first .. first+n-1 of the list */
	int group_read;        /* read with PERF_FORMAT_GROUP from the leader */
};

struct recorder {
	const struct hec_eventlist *list;
	const struct hec_record_opts *o;
	struct counter *c;
	struct group *g;
	size_t n, n_groups;
	uint64_t *readbuf;
	size_t readbuf_len;
	size_t interval;        /* next interval number */
	struct cp_buf rows;
};

/* ---- small system helpers ---- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
				int cpu, int group_fd, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int sys_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

void hec_csv_field(struct cp_buf *b, const char *s)
{
	const char *p;

	if (!strpbrk(s, ",\"\n\r")) {
		cp_buf_puts(b, s);
		return;
	}
	cp_buf_puts(b, "\"");
	for (p = s; *p; p++) {
		if (*p == '"')
			cp_buf_puts(b, "\"");
		cp_buf_append(b, p, 1);
	}
	cp_buf_puts(b, "\"");
}

/* ---- opening ---- */

static void fill_attr(struct perf_event_attr *attr,
		      const struct hec_encoding *e, int leader, int group_read)
{
	memset(attr, 0, sizeof *attr);
	attr->size = sizeof *attr;
	attr->type = e->type;
	attr->config = e->config;
	attr->config1 = e->config1;
	attr->config2 = e->config2;
	attr->exclude_kernel = e->exclude_kernel;
	attr->exclude_user = e->exclude_user;
	attr->exclude_hv = e->exclude_hv;
	attr->inherit = 1;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	if (group_read)
		attr->read_format |= PERF_FORMAT_GROUP;
	/* the leader starts the group at exec; members follow it */
	attr->disabled = leader ? 1 : 0;
	attr->enable_on_exec = leader ? 1 : 0;
}

static void close_group(struct recorder *r, const struct group *g)
{
	size_t i;

	for (i = g->first; i < g->first + g->n; i++)
		if (r->c[i].fd >= 0) {
			close(r->c[i].fd);
			r->c[i].fd = -1;
		}
}

static int open_group(struct recorder *r, struct group *g, pid_t pid,
		      struct cp_error *err)
{
	size_t i;

	for (i = g->first; i < g->first + g->n; i++) {
		const struct hec_encoding *e = hec_eventlist_encoding(r->list, i);
		struct perf_event_attr attr;
		int leader = i == g->first;
		int group_fd = leader ? -1 : r->c[g->first].fd;
		long fd;

		fill_attr(&attr, e, leader, g->group_read);
		fd = sys_perf_event_open(&attr, pid, -1, group_fd,
					 PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == EINVAL && leader && g->group_read) {
			/* older kernels refuse inherit with group reads:
			 * read the members one by one instead */
			g->group_read = 0;
			fill_attr(&attr, e, leader, 0);
			fd = sys_perf_event_open(&attr, pid, -1, group_fd,
						 PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0) {
			int errnum = errno;

			close_group(r, g);
			return hec_open_error(err, hec_eventlist_name(r->list, i),
					      e, errnum, hec_perf_paranoid(),
					      hec_user_only_allowed(),
					      hec_machine_has_hw_pmu(), g->n);
		}
		r->c[i].fd = (int)fd;
		if (ioctl((int)fd, PERF_EVENT_IOC_ID, &r->c[i].id) < 0) {
			int errnum = errno;

			close_group(r, g);
			return cp_error_set(err, CP_EUNSUPPORTED,
					    "cannot identify '%s': %s",
					    hec_eventlist_name(r->list, i),
					    strerror(errnum));
		}
	}
	return 0;
}

/* ---- reading ---- */

/* How long a group read may keep failing with ECHILD: retries, and the
 * pause between them.  An inherited copy of a group is torn down member by
 * member when its task exits; a read meanwhile sums copies whose members
 * differ, which Linux (6.6 and later) refuses with ECHILD.  The teardown
 * takes microseconds; 20 ms of retries outlast it. */
#define ECHILD_RETRIES 1000
#define ECHILD_PAUSE_NS 20000

/* read(2) of a group leader, retrying while an exiting task's copy of the
 * group is half torn down. */
static ssize_t read_group(int fd, void *buf, size_t want)
{
	unsigned tries = 0;

	for (;;) {
		struct timespec pause = { 0, ECHILD_PAUSE_NS };
		ssize_t got = read(fd, buf, want);

		if (got >= 0 || (errno != ECHILD && errno != EINTR) ||
		    ++tries > ECHILD_RETRIES)
			return got;
		if (errno == ECHILD)
			nanosleep(&pause, NULL);
	}
}

static int read_counters(struct recorder *r, struct cp_error *err)
{
	size_t gi, i, k;

	errno = 0;
	for (gi = 0; gi < r->n_groups; gi++) {
		struct group *g = &r->g[gi];

		if (g->group_read) {
			/* { nr, enabled, running, { value, id } [nr] } */
			size_t want = (3 + 2 * g->n) * sizeof(uint64_t);
			ssize_t got = read_group(r->c[g->first].fd, r->readbuf, want);
			uint64_t *b = r->readbuf;

			if (got < 0 || (size_t)got < 3 * sizeof(uint64_t) ||
			    b[0] > g->n || (size_t)got < (3 + 2 * b[0]) * sizeof(uint64_t))
				goto fail;
			for (k = 0; k < b[0]; k++)
				for (i = g->first; i < g->first + g->n; i++)
					if (r->c[i].id == b[3 + 2 * k + 1]) {
						r->c[i].value = b[3 + 2 * k];
						r->c[i].enabled = b[1];
						r->c[i].running = b[2];
					}
			continue;
		}
		for (i = g->first; i < g->first + g->n; i++) {
			/* { value, enabled, running, id } */
			uint64_t b[4];
			ssize_t got = read(r->c[i].fd, b, sizeof b);

			if (got != (ssize_t)sizeof b)
				goto fail;
			r->c[i].value = b[0];
			r->c[i].enabled = b[1];
			r->c[i].running = b[2];
		}
	}
	return 0;
fail:
	return cp_error_set(err, CP_EUNSUPPORTED,
			    "cannot read the counters: %s",
			    errno ? strerror(errno) : "short read");
}

/* One interval: the deltas since the previous read, in one write(). */
static int emit_interval(struct recorder *r, struct cp_error *err)
{
	size_t i;
	int any_enabled = 0;
	char num[96];

	cp_buf_release(&r->rows);
	cp_buf_init(&r->rows);
	for (i = 0; i < r->n; i++)
		if (r->c[i].enabled != r->c[i].prev_enabled)
			any_enabled = 1;
	if (any_enabled) {
		for (i = 0; i < r->n; i++) {
			struct counter *c = &r->c[i];

			hec_csv_field(&r->rows, r->o->observation);
			snprintf(num, sizeof num, ",%zu,", r->interval);
			cp_buf_puts(&r->rows, num);
			hec_csv_field(&r->rows, hec_eventlist_name(r->list, i));
			snprintf(num, sizeof num, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
				 c->value - c->prev_value,
				 c->enabled - c->prev_enabled,
				 c->running - c->prev_running);
			cp_buf_puts(&r->rows, num);
		}
		r->interval++;
	}
	for (i = 0; i < r->n; i++) {
		r->c[i].prev_value = r->c[i].value;
		r->c[i].prev_enabled = r->c[i].enabled;
		r->c[i].prev_running = r->c[i].running;
	}
	if (r->rows.failed)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	if (r->rows.len && write_all(r->o->out_fd, r->rows.data, r->rows.len))
		return cp_error_set(err, CP_EIO, "cannot write the dataset: %s",
				    strerror(errno));
	return 0;
}

/* ---- the child ---- */

static void run_child(const char *const argv[], const struct hec_record_opts *o,
		      int go_fd, int go_write, int err_fd, int err_read)
{
	char c;
	int e;

	/* without these the child would hold its own pipes open */
	close(go_write);
	close(err_read);
	if (o->stdout_to_stderr)
		dup2(2, 1);
	/* wait until the parent has opened every event (0 bytes: give up) */
	if (read(go_fd, &c, 1) != 1)
		_exit(127);
	execvp(argv[0], (char *const *)argv);
	e = errno;
	if (write(err_fd, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

/* Sleep until deadline (CLOCK_MONOTONIC ns), the child's exit (pidfd
 * readable) or a signal.  Returns 1 when the child has exited. */
static int wait_tick(int pidfd, pid_t pid, uint64_t deadline, int *status,
		     int *reaped)
{
	uint64_t t = cp_nanoseconds();

	if (pidfd >= 0) {
		struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
		struct timespec ts = { 0, 0 };
		int n;

		if (deadline > t) {
			ts.tv_sec = (time_t)((deadline - t) / 1000000000u);
			ts.tv_nsec = (long)((deadline - t) % 1000000000u);
		}
		n = ppoll(&pfd, 1, &ts, NULL);
		return n > 0;
	}
	/* no pidfd (old kernel): poll waitpid every millisecond */
	while (t < deadline) {
		struct timespec ts = { 0, 1000000 };
		pid_t w = waitpid(pid, status, WNOHANG);

		if (w == pid) {
			*reaped = 1;
			return 1;
		}
		if (deadline - t < 1000000u)
			ts.tv_nsec = (long)(deadline - t);
		if (nanosleep(&ts, NULL) < 0 && errno == EINTR)
			return 0;
		t = cp_nanoseconds();
	}
	return 0;
}

static void set_result(struct hec_record_result *res, int status)
{
	if (WIFEXITED(status)) {
		res->exited = 1;
		res->status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->signaled = 1;
		res->signal = WTERMSIG(status);
	}
}

int hec_record(const struct hec_eventlist *l, const char *const argv[],
	       const struct hec_record_opts *o, struct hec_record_result *res,
	       struct cp_error *err)
{
	struct recorder r;
	int go[2] = { -1, -1 }, ep[2] = { -1, -1 };
	int pidfd = -1, status = 0, reaped = 0, forwarded = 0, rc = 0, e;
	size_t i, gi, max_group = 0;
	pid_t pid = -1;
	uint64_t t0, next, step;
	ssize_t got;

	memset(res, 0, sizeof *res);
	memset(&r, 0, sizeof r);
	cp_buf_init(&r.rows);
	r.list = l;
	r.o = o;
	r.n = hec_eventlist_size(l);
	if (!r.n || !argv[0] || !o->interval_ms)
		return cp_error_set(err, CP_EINPUT,
				    "nothing to record (no events or no command)");
	if (!hec_eventlist_encoding(l, 0))
		return cp_error_set(err, CP_EINTERNAL,
				    "hec_record: event list not encoded");
	r.n_groups = hec_eventlist_n_groups(l);
	r.c = cp_calloc(r.n, sizeof *r.c);
	r.g = cp_calloc(r.n_groups, sizeof *r.g);
	if (!r.c || !r.g) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < r.n; i++)
		r.c[i].fd = -1;
	/* groups are contiguous runs of the list */
	for (i = 0; i < r.n; i++) {
		struct group *g = &r.g[hec_eventlist_group(l, i)];

		if (!g->n)
			g->first = i;
		g->n++;
	}
	for (gi = 0; gi < r.n_groups; gi++) {
		r.g[gi].group_read = r.g[gi].n > 1;
		if (r.g[gi].n > max_group)
			max_group = r.g[gi].n;
	}
	r.readbuf_len = 3 + 2 * max_group;
	r.readbuf = cp_calloc(r.readbuf_len, sizeof *r.readbuf);
	if (!r.readbuf) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}

	if (pipe2(go, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
		rc = cp_error_set(err, CP_EINTERNAL, "cannot create a pipe: %s",
				  strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		rc = cp_error_set(err, CP_EINTERNAL, "cannot fork: %s",
				  strerror(errno));
		goto out;
	}
	if (pid == 0)
		run_child(argv, o, go[0], go[1], ep[1], ep[0]);
	close(go[0]);
	go[0] = -1;
	close(ep[1]);
	ep[1] = -1;

	for (gi = 0; gi < r.n_groups; gi++) {
		rc = open_group(&r, &r.g[gi], pid, err);
		if (rc)
			goto out;  /* closing go[1] unblocks the child: it exits */
	}
	pidfd = sys_pidfd_open(pid);

	/* release the child and learn whether its exec worked */
	if (write(go[1], "x", 1) != 1) {
		rc = cp_error_set(err, CP_EINTERNAL, "cannot start the command: %s",
				  strerror(errno));
		goto out;
	}
	close(go[1]);
	go[1] = -1;
	do
		got = read(ep[0], &e, sizeof e);
	while (got < 0 && errno == EINTR);
	if (got == (ssize_t)sizeof e) {
		rc = cp_error_set(err, CP_EINPUT, "cannot execute '%s': %s",
				  argv[0], strerror(e));
		goto out;
	}
	t0 = cp_nanoseconds();
	if (o->write_header &&
	    write_all(o->out_fd, HEC_DATASET_HEADER, strlen(HEC_DATASET_HEADER))) {
		rc = cp_error_set(err, CP_EIO, "cannot write the dataset: %s",
				  strerror(errno));
		goto out;
	}

	step = (uint64_t)o->interval_ms * 1000000u;
	next = t0 + step;
	for (;;) {
		int done = wait_tick(pidfd, pid, next, &status, &reaped);
		uint64_t t;

		if (o->stop && *o->stop && !forwarded) {
			kill(pid, (int)*o->stop);
			forwarded = 1;
		}
		if (done) {
			if (!reaped) {
				while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
					;
				reaped = 1;
			}
			/* the exited task's counts are folded into our
			 * events: this read is final */
			rc = read_counters(&r, err);
			if (!rc)
				rc = emit_interval(&r, err);
			break;
		}
		t = cp_nanoseconds();
		if (t < next)
			continue;  /* a signal woke us early */
		rc = read_counters(&r, err);
		if (!rc)
			rc = emit_interval(&r, err);
		if (rc) {
			kill(pid, SIGTERM);
			break;
		}
		next += step;
		if (next <= t)  /* fell behind: skip, do not burst */
			next = t + step;
	}
	res->elapsed_ns = cp_nanoseconds() - t0;
out:
	if (pid > 0 && go[1] >= 0) {
		close(go[1]);
		go[1] = -1;
	}
	if (pid > 0 && !reaped) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		reaped = 1;
	}
	if (pid > 0)
		set_result(res, status);
	res->intervals = r.interval;
	if (r.c && r.g)
		for (gi = 0; gi < r.n_groups; gi++)
			close_group(&r, &r.g[gi]);
	if (pidfd >= 0)
		close(pidfd);
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
	if (ep[0] >= 0)
		close(ep[0]);
	if (ep[1] >= 0)
		close(ep[1]);
	cp_buf_release(&r.rows);
	cp_free(r.readbuf);
	cp_free(r.c);
	cp_free(r.g);
	return rc;
}
