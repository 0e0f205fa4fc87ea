/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/record.c: run a command under perf_event_open, or attach to running
 * processes or whole CPUs as perf stat does, and write the counts,
 * interval by interval, as rows of the long-CSV dataset.
 *
 * A command is forked but held on a pipe until every event is open on it
 * (enable_on_exec, inherit), so counting starts exactly at its exec and
 * covers its threads and children.  A second close-on-exec pipe carries
 * errno back when exec fails.  Attached to processes (each of their
 * threads, inherit for those they start) or CPUs (every process there),
 * every event is opened once per target, disabled, and all are enabled
 * together; a row sums the targets, as perf stat's aggregate does.  Each
 * interval's rows go out in one write(), so whatever kills the command,
 * the dataset ends at an interval boundary. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Where the events are opened: a task (pid, cpu -1) or a CPU (pid -1). */
struct target {
	pid_t pid;
	int cpu;
	pid_t process;          /* attached: the process pid belongs to */
	int gone;               /* a thread that exited before it was opened */
};

struct recorder {
	const struct hec_eventlist *list;
	const struct hec_record_opts *o;
	struct target *t;
	size_t n_targets;
	struct counter *c;      /* [target * n + event] */
	struct group *g;        /* [target * n_groups + group] */
	struct counter *ev;     /* per event: the targets' sums */
	size_t n, n_groups;
	uint64_t *readbuf;
	size_t readbuf_len;
	size_t interval;        /* next interval number */
	struct cp_buf rows;
};

/* ---- small system helpers ---- */

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

/* ---- opening ---- */

static void fill_attr(struct perf_event_attr *attr,
		      const struct hec_encoding *e, int leader, int group_read,
		      int on_exec, int inherit)
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
	attr->inherit = inherit ? 1 : 0;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	if (group_read)
		attr->read_format |= PERF_FORMAT_GROUP;
	/* the leader starts the group (at exec, or when all are open);
	 * members follow it */
	attr->disabled = leader ? 1 : 0;
	attr->enable_on_exec = leader && on_exec ? 1 : 0;
}

static void close_group(struct recorder *r, size_t ti, const struct group *g)
{
	struct counter *c = r->c + ti * r->n;
	size_t i;

	for (i = g->first; i < g->first + g->n; i++)
		if (c[i].fd >= 0) {
			close(c[i].fd);
			c[i].fd = -1;
		}
}

/* Open group g of target ti; on_exec: counting starts at the target's
 * exec (a held child), else when enable_all() runs. */
static int open_group(struct recorder *r, size_t ti, struct group *g,
		      int on_exec, struct cp_error *err)
{
	const struct target *t = &r->t[ti];
	struct counter *c = r->c + ti * r->n;
	int inherit = t->cpu < 0;   /* tasks: their children count too */
	size_t i;

	for (i = g->first; i < g->first + g->n; i++) {
		const struct hec_encoding *e = hec_eventlist_encoding(r->list, i);
		struct perf_event_attr attr;
		int leader = i == g->first;
		int group_fd = leader ? -1 : c[g->first].fd;
		long fd;

		fill_attr(&attr, e, leader, g->group_read, on_exec, inherit);
		fd = sys_perf_event_open(&attr, t->pid, t->cpu, group_fd,
					 PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == EINVAL && leader && g->group_read && inherit) {
			/* older kernels refuse inherit with group reads:
			 * read the members one by one instead */
			g->group_read = 0;
			fill_attr(&attr, e, leader, 0, on_exec, inherit);
			fd = sys_perf_event_open(&attr, t->pid, t->cpu, group_fd,
						 PERF_FLAG_FD_CLOEXEC);
		}
		if (fd < 0) {
			int errnum = errno;
			struct hec_open_target where = { HEC_TARGET_COMMAND, -1 };

			close_group(r, ti, g);
			if (errnum == ESRCH && r->o->n_pids && t->pid != t->process) {
				/* a thread that ended since /proc listed it:
				 * its process is still counted */
				r->t[ti].gone = 1;
				return 0;
			}
			if (t->cpu >= 0) {
				where.kind = HEC_TARGET_CPU;
				where.id = t->cpu;
			} else if (r->o->n_pids) {
				where.kind = HEC_TARGET_PROCESS;
				where.id = t->process;
			}
			return hec_open_error(err, hec_eventlist_name(r->list, i),
					      e, errnum, hec_perf_paranoid(),
					      hec_user_only_allowed(),
					      hec_machine_has_hw_pmu(), g->n, &where);
		}
		c[i].fd = (int)fd;
		if (ioctl((int)fd, PERF_EVENT_IOC_ID, &c[i].id) < 0) {
			int errnum = errno;

			close_group(r, ti, g);
			return cp_error_set(err, CP_EUNSUPPORTED,
					    "cannot identify '%s': %s",
					    hec_eventlist_name(r->list, i),
					    strerror(errnum));
		}
	}
	return 0;
}

/* Start every group of every target at once. */
static int enable_all(struct recorder *r, struct cp_error *err)
{
	size_t ti, gi;

	for (ti = 0; ti < r->n_targets; ti++)
		for (gi = 0; gi < r->n_groups; gi++) {
			const struct group *g = &r->g[ti * r->n_groups + gi];
			int fd = r->c[ti * r->n + g->first].fd;

			if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
				return cp_error_set(err, CP_EUNSUPPORTED,
						    "cannot start the counters: %s",
						    strerror(errno));
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

/* Read target ti's counters (cumulative values in r->c). */
static int read_target(struct recorder *r, size_t ti)
{
	struct counter *c = r->c + ti * r->n;
	size_t gi, i, k;

	if (r->t[ti].gone)
		return 0;
	for (gi = 0; gi < r->n_groups; gi++) {
		struct group *g = &r->g[ti * r->n_groups + gi];

		if (g->group_read) {
			/* { nr, enabled, running, { value, id } [nr] } */
			size_t want = (3 + 2 * g->n) * sizeof(uint64_t);
			ssize_t got = read_group(c[g->first].fd, r->readbuf, want);
			uint64_t *b = r->readbuf;

			if (got < 0 || (size_t)got < 3 * sizeof(uint64_t) ||
			    b[0] > g->n || (size_t)got < (3 + 2 * b[0]) * sizeof(uint64_t))
				return -1;
			for (k = 0; k < b[0]; k++)
				for (i = g->first; i < g->first + g->n; i++)
					if (c[i].id == b[3 + 2 * k + 1]) {
						c[i].value = b[3 + 2 * k];
						c[i].enabled = b[1];
						c[i].running = b[2];
					}
			continue;
		}
		for (i = g->first; i < g->first + g->n; i++) {
			/* { value, enabled, running, id } */
			uint64_t b[4];
			ssize_t got = read(c[i].fd, b, sizeof b);

			if (got != (ssize_t)sizeof b)
				return -1;
			c[i].value = b[0];
			c[i].enabled = b[1];
			c[i].running = b[2];
		}
	}
	return 0;
}

/* Read every target and sum them per event (perf stat's aggregate: the
 * counts, and the enabled and running times, so that value * enabled /
 * running still scales a multiplexed count). */
static int read_counters(struct recorder *r, struct cp_error *err)
{
	size_t ti, i;

	errno = 0;
	for (ti = 0; ti < r->n_targets; ti++)
		if (read_target(r, ti))
			return cp_error_set(err, CP_EUNSUPPORTED,
					    "cannot read the counters: %s",
					    errno ? strerror(errno) : "short read");
	for (i = 0; i < r->n; i++) {
		r->ev[i].value = r->ev[i].enabled = r->ev[i].running = 0;
		for (ti = 0; ti < r->n_targets; ti++) {
			const struct counter *c = &r->c[ti * r->n + i];

			r->ev[i].value += c->value;
			r->ev[i].enabled += c->enabled;
			r->ev[i].running += c->running;
		}
	}
	return 0;
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
		if (r->ev[i].enabled != r->ev[i].prev_enabled)
			any_enabled = 1;
	if (any_enabled) {
		for (i = 0; i < r->n; i++) {
			struct counter *c = &r->ev[i];

			cp_buf_csv_field(&r->rows, r->o->observation);
			snprintf(num, sizeof num, ",%zu,", r->interval);
			cp_buf_puts(&r->rows, num);
			cp_buf_csv_field(&r->rows, hec_eventlist_name(r->list, i));
			snprintf(num, sizeof num, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
				 c->value - c->prev_value,
				 c->enabled - c->prev_enabled,
				 c->running - c->prev_running);
			cp_buf_puts(&r->rows, num);
		}
		r->interval++;
	}
	for (i = 0; i < r->n; i++) {
		r->ev[i].prev_value = r->ev[i].value;
		r->ev[i].prev_enabled = r->ev[i].enabled;
		r->ev[i].prev_running = r->ev[i].running;
	}
	if (r->rows.failed)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	if (r->rows.len && cp_write_all(r->o->out_fd, r->rows.data, r->rows.len))
		return cp_error_set(err, CP_EIO, "cannot write the dataset: %s",
				    strerror(errno));
	if (r->rows.len && r->o->written)
		return r->o->written(r->o->written_arg, r->interval, err);
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

/* What the recording waits for: the command's exit (a child, reaped
 * here), or every attached process's (not our children: watched, never
 * reaped), or only a stop signal (CPUs without a command). */
struct watch {
	pid_t child;            /* the command, or -1 */
	int status, reaped;
	const pid_t *pids;      /* attached processes (without a command) */
	size_t n_pids, left;    /* ... and how many still run */
	struct pollfd *pfd;     /* pidfds: the child's, or each attached one's */
	size_t n_pfd;           /* 0: no pidfd (old kernel) */
};

/* Has an attached process ended?  (Without a pidfd: it no longer exists,
 * or it is a zombie.) */
static int gone(pid_t pid)
{
	char path[64], state = 0;
	FILE *f;
	int rc;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	rc = fscanf(f, "%*d (%*[^)]) %c", &state);
	fclose(f);
	return rc == 1 && (state == 'Z' || state == 'X');
}

/* Sleep until deadline (CLOCK_MONOTONIC ns), the end watched for, or a
 * signal.  Returns 1 when the end has come. */
static int wait_tick(struct watch *w, uint64_t deadline)
{
	uint64_t t = cp_nanoseconds();
	size_t k;

	if (w->n_pfd) {
		struct timespec ts = { 0, 0 };

		if (deadline > t) {
			ts.tv_sec = (time_t)((deadline - t) / 1000000000u);
			ts.tv_nsec = (long)((deadline - t) % 1000000000u);
		}
		if (ppoll(w->pfd, w->n_pfd, &ts, NULL) <= 0)
			return 0;
		if (w->child > 0)
			return 1;
		for (k = 0; k < w->n_pfd; k++)
			if (w->pfd[k].fd >= 0 && w->pfd[k].revents) {
				close(w->pfd[k].fd);
				w->pfd[k].fd = -1;   /* poll skips it from now on */
				w->left--;
			}
		return w->left == 0;
	}
	/* no pidfd (old kernel), or only CPUs: poll every millisecond */
	while (t < deadline) {
		struct timespec ts = { 0, 1000000 };

		if (w->child > 0 && waitpid(w->child, &w->status, WNOHANG) == w->child) {
			w->reaped = 1;
			return 1;
		}
		if (w->n_pids) {
			for (k = 0, w->left = 0; k < w->n_pids; k++)
				w->left += !gone(w->pids[k]);
			if (!w->left)
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

/* The threads of process pid (/proc/PID/task), appended to the targets. */
static int add_threads(struct recorder *r, pid_t pid, size_t *cap,
		       struct cp_error *err)
{
	char dir[64];
	DIR *d;
	struct dirent *e;
	size_t before = r->n_targets;

	snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d || pid <= 0) {
		if (d)
			closedir(d);
		return cp_error_set(err, CP_EINPUT, "cannot attach to process %d: "
				    "no such process", (int)pid);
	}
	while ((e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);

		if (e->d_name[0] == '.' || *end || tid <= 0)
			continue;
		if (r->n_targets == *cap) {
			size_t nc = *cap ? 2 * *cap : 16;
			struct target *t = cp_reallocarray(r->t, nc, sizeof *t);

			if (!t) {
				closedir(d);
				return cp_error_set(err, CP_ENOMEM, "out of memory");
			}
			r->t = t;
			*cap = nc;
		}
		r->t[r->n_targets].pid = (pid_t)tid;
		r->t[r->n_targets].cpu = -1;
		r->t[r->n_targets].process = pid;
		r->n_targets++;
	}
	closedir(d);
	if (r->n_targets == before)
		return cp_error_set(err, CP_EINPUT, "cannot attach to process %d: "
				    "no such process", (int)pid);
	return 0;
}

/* The targets: the CPUs asked for, else every thread of the processes
 * asked for, else the command. */
static int make_targets(struct recorder *r, pid_t child, struct cp_error *err)
{
	const struct hec_record_opts *o = r->o;
	size_t cap = 0, k;
	int rc;

	if (o->n_cpus) {
		r->t = cp_calloc(o->n_cpus, sizeof *r->t);
		if (!r->t)
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		for (k = 0; k < o->n_cpus; k++) {
			r->t[k].pid = -1;
			r->t[k].cpu = o->cpus[k];
		}
		r->n_targets = o->n_cpus;
		return 0;
	}
	if (o->n_pids) {
		for (k = 0; k < o->n_pids; k++)
			if ((rc = add_threads(r, o->pids[k], &cap, err)))
				return rc;
		return 0;
	}
	r->t = cp_calloc(1, sizeof *r->t);
	if (!r->t)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	r->t[0].pid = child;
	r->t[0].cpu = -1;
	r->n_targets = 1;
	return 0;
}

/* Set up the counters of every target and the groups (contiguous runs
 * of the list, the same for every target). */
static int make_counters(struct recorder *r, struct cp_error *err)
{
	const struct hec_eventlist *l = r->list;
	size_t i, ti, gi, max_group = 0;

	r->c = cp_calloc(r->n_targets * r->n, sizeof *r->c);
	r->g = cp_calloc(r->n_targets * r->n_groups, sizeof *r->g);
	r->ev = cp_calloc(r->n, sizeof *r->ev);
	if (!r->c || !r->g || !r->ev)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < r->n_targets * r->n; i++)
		r->c[i].fd = -1;
	for (i = 0; i < r->n; i++) {
		struct group *g = &r->g[hec_eventlist_group(l, i)];

		if (!g->n)
			g->first = i;
		g->n++;
	}
	for (gi = 0; gi < r->n_groups; gi++) {
		r->g[gi].group_read = r->g[gi].n > 1;
		if (r->g[gi].n > max_group)
			max_group = r->g[gi].n;
	}
	for (ti = 1; ti < r->n_targets; ti++)
		memcpy(r->g + ti * r->n_groups, r->g, r->n_groups * sizeof *r->g);
	r->readbuf_len = 3 + 2 * max_group;
	r->readbuf = cp_calloc(r->readbuf_len, sizeof *r->readbuf);
	if (!r->readbuf)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	return 0;
}

/* Watch the child's pidfd, or each attached process's. */
static void make_watch(struct recorder *r, struct watch *w, pid_t child)
{
	const struct hec_record_opts *o = r->o;
	size_t k, n = child > 0 ? 1 : o->n_cpus ? 0 : o->n_pids;

	memset(w, 0, sizeof *w);
	w->child = child;
	if (child <= 0 && !o->n_cpus) {
		w->pids = o->pids;
		w->n_pids = w->left = o->n_pids;
	}
	if (!n || !(w->pfd = cp_calloc(n, sizeof *w->pfd)))
		return;
	for (k = 0; k < n; k++) {
		w->pfd[k].fd = sys_pidfd_open(child > 0 ? child : o->pids[k]);
		w->pfd[k].events = POLLIN;
		if (w->pfd[k].fd < 0) {   /* no pidfd: poll by hand */
			while (k--)
				close(w->pfd[k].fd);
			cp_free(w->pfd);
			w->pfd = NULL;
			return;
		}
	}
	w->n_pfd = n;
}

int hec_record(const struct hec_eventlist *l, const char *const argv[],
	       const struct hec_record_opts *o, struct hec_record_result *res,
	       struct cp_error *err)
{
	struct recorder r;
	struct watch w;
	int go[2] = { -1, -1 }, ep[2] = { -1, -1 };
	int forwarded = 0, rc = 0, e, command = argv && argv[0];
	size_t ti, gi, k;
	pid_t pid = -1;
	uint64_t t0, next, step;
	ssize_t got;

	memset(res, 0, sizeof *res);
	memset(&r, 0, sizeof r);
	memset(&w, 0, sizeof w);
	w.child = -1;
	cp_buf_init(&r.rows);
	r.list = l;
	r.o = o;
	r.n = hec_eventlist_size(l);
	if (!r.n || !o->interval_ms || (!command && !o->n_pids && !o->n_cpus))
		return cp_error_set(err, CP_EINPUT, "nothing to record (no events, "
				    "or no command, process or CPU)");
	if (!hec_eventlist_encoding(l, 0))
		return cp_error_set(err, CP_EINTERNAL,
				    "hec_record: event list not encoded");
	r.n_groups = hec_eventlist_n_groups(l);

	if (command) {
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
	}
	if ((rc = make_targets(&r, pid, err)) || (rc = make_counters(&r, err)))
		goto out;
	/* the command alone starts counting at its exec; attached targets
	 * all at once, once every event is open */
	for (ti = 0; ti < r.n_targets; ti++)
		for (gi = 0; gi < r.n_groups && !r.t[ti].gone; gi++) {
			rc = open_group(&r, ti, &r.g[ti * r.n_groups + gi],
					command && !o->n_pids && !o->n_cpus, err);
			if (rc)
				goto out;  /* closing go[1] unblocks the child: it exits */
		}
	for (ti = 0; ti < r.n_targets; ti++)   /* a gone thread: none open */
		if (r.t[ti].gone)
			for (gi = 0; gi < r.n_groups; gi++)
				close_group(&r, ti, &r.g[ti * r.n_groups + gi]);
	make_watch(&r, &w, pid);
	if ((o->n_pids || o->n_cpus) && (rc = enable_all(&r, err)))
		goto out;

	if (command) {
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
	}
	t0 = cp_nanoseconds();
	if (o->write_header &&
	    cp_write_all(o->out_fd, CP_DATASET_HEADER, strlen(CP_DATASET_HEADER))) {
		rc = cp_error_set(err, CP_EIO, "cannot write the dataset: %s",
				  strerror(errno));
		goto out;
	}

	step = (uint64_t)o->interval_ms * 1000000u;
	next = t0 + step;
	for (;;) {
		int done = wait_tick(&w, next);
		uint64_t t;

		if (o->stop && *o->stop && !forwarded) {
			if (!command) {
				done = 1;   /* attached: stop, leave them running */
			} else {
				kill(pid, (int)*o->stop);
				forwarded = 1;
			}
		}
		if (done) {
			if (command && !w.reaped) {
				while (waitpid(pid, &w.status, 0) < 0 && errno == EINTR)
					;
				w.reaped = 1;
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
			if (command)
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
	if (pid > 0 && !w.reaped) {
		while (waitpid(pid, &w.status, 0) < 0 && errno == EINTR)
			;
		w.reaped = 1;
	}
	if (pid > 0)
		set_result(res, w.status);
	res->intervals = r.interval;
	if (r.c && r.g)
		for (ti = 0; ti < r.n_targets; ti++)
			for (gi = 0; gi < r.n_groups; gi++)
				close_group(&r, ti, &r.g[ti * r.n_groups + gi]);
	for (k = 0; k < w.n_pfd; k++)
		if (w.pfd[k].fd >= 0)
			close(w.pfd[k].fd);
	cp_free(w.pfd);
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
	cp_free(r.ev);
	cp_free(r.t);
	return rc;
}

/* "0,2-3" into a bitmap of CPUs below max (seen[]); -1 when malformed or
 * out of range, with *bad at the offending item. */
#define HEC_MAX_CPUS 8192

static int cpu_list(const char *spec, unsigned char *seen, const char **bad)
{
	const char *p = spec;

	while (*p) {
		char *end;
		long a, b;

		*bad = p;
		if (!isdigit((unsigned char)*p))
			return -1;
		a = strtol(p, &end, 10);
		b = a;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -1;
			b = strtol(end + 1, &end, 10);
		}
		if (a < 0 || b < a || b >= HEC_MAX_CPUS || (*end && *end != ',' &&
							    *end != '\n'))
			return -1;
		for (; a <= b; a++)
			seen[a] = 1;
		p = *end ? end + 1 : end;
		if (*end == '\n')
			break;
	}
	return 0;
}

int hec_cpus_parse(const char *spec, int **cpus, size_t *n,
		   struct cp_error *err)
{
	unsigned char *online = cp_calloc(2, HEC_MAX_CPUS);
	unsigned char *want = online + HEC_MAX_CPUS;
	char line[4096];
	const char *bad;
	FILE *f;
	size_t k, m = 0;
	int rc = 0;

	*cpus = NULL;
	*n = 0;
	if (!online)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	f = fopen("/sys/devices/system/cpu/online", "r");
	if (!f || !fgets(line, sizeof line, f) || cpu_list(line, online, &bad)) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);   /* no sysfs: 0..n-1 */

		for (k = 0; c > 0 && k < (size_t)c && k < HEC_MAX_CPUS; k++)
			online[k] = 1;
	}
	if (f)
		fclose(f);
	if (!spec) {
		memcpy(want, online, HEC_MAX_CPUS);
	} else if (!*spec || cpu_list(spec, want, &bad)) {
		rc = cp_error_set(err, CP_EINPUT, "bad CPU list '%s' (CPU numbers "
				  "and ranges, e.g. 0,2-3)", spec);
		goto out;
	}
	for (k = 0; k < HEC_MAX_CPUS; k++) {
		if (!want[k])
			continue;
		if (!online[k]) {
			rc = cp_error_set(err, CP_EINPUT, "CPU %zu is not online "
					  "(/sys/devices/system/cpu/online)", k);
			goto out;
		}
		m++;
	}
	if (!m) {
		rc = cp_error_set(err, CP_EINPUT, "no CPU online");
		goto out;
	}
	*cpus = cp_calloc(m, sizeof **cpus);
	if (!*cpus) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (k = 0; k < HEC_MAX_CPUS; k++)
		if (want[k])
			(*cpus)[(*n)++] = (int)k;
out:
	cp_free(online);
	return rc;
}
