/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/mpi.c: `check` and `explore` under mpirun (bin/counterpoint-mpi,
 * built with -DCP_MPI by `make mpi`; docs/manual/mpi.md).  Every process parses
 * the same command line; rank 0 reads the files, hands out work from a
 * queue (one message at a time, so a slow item holds up only its
 * process), works on the queue itself between messages, puts the
 * results in the one-process order and writes every output at the end.
 * The others are silent (their stdout and stderr go to /dev/null) and
 * exit with rank 0's status.  Without CP_MPI this is one process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#ifndef CP_MPI

int cli_mpi_init(int *argc, char ***argv) { (void)argc; (void)argv; return 0; }
int cli_mpi_finalize(int status) { return status; }
int cli_mpi_rank(void) { return 0; }
int cli_mpi_size(void) { return 1; }
int cli_mpi_idle(void) { return CLI_OK; }
const char *cli_mpi_describe(void) { return "MPI: no (make mpi builds bin/counterpoint-mpi)"; }
int cli_mpi_check(const char *model_path, const char *data_path,
		  const struct stats_dataset *data, const struct pipe_data *pd,
		  struct pipe_model *pm, size_t threads, struct feas_result *res,
		  struct cp_error *err)
{
	(void)model_path; (void)data_path; (void)data; (void)pd; (void)pm;
	(void)threads; (void)res;
	return cp_error_set(err, CP_EINTERNAL, "built without MPI");
}
int cli_mpi_check_worker(const char *model_path, const char *with,
			 const struct pipe_options *po, const struct pipe_budget *budget)
{
	(void)model_path; (void)with; (void)po; (void)budget;
	return CLI_INTERNAL;
}
int cli_mpi_explore(const char *model_path, const char *data_path,
		    struct explore_family *fam, struct cp_error *err)
{
	(void)model_path; (void)data_path; (void)fam;
	return cp_error_set(err, CP_EINTERNAL, "built without MPI");
}
int cli_mpi_explore_worker(const char *model_path, const char *data_path,
			   const struct explore_family_options *fo)
{
	(void)model_path; (void)data_path; (void)fo;
	return CLI_INTERNAL;
}

#else

#include <mpi.h>
#include <signal.h>

#include "explore/explore.h"
#include "pipeline/pipeline.h"
#include "stats/region.h"

/* Rank 0 to the others: a job's start by broadcast, then point to point
 * work items, and the end (with rank 0's exit status). */
enum { JOB_STOP = 0, JOB_CHECK = 1, JOB_EXPLORE = 2 };
enum { TAG_WORK = 1, TAG_RESULT = 2, TAG_ERROR = 3, TAG_STOP = 4 };

static struct {
	int rank, size, started;   /* started: the job's header went out / came in */
	int header_kind;           /* what a worker received */
	long long header_status;
} mpi;

int cli_mpi_init(int *argc, char ***argv)
{
	if (MPI_Init(argc, argv) != MPI_SUCCESS)
		return -1;
	MPI_Comm_rank(MPI_COMM_WORLD, &mpi.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &mpi.size);
	if (mpi.rank > 0) {
		/* rank 0 says everything once */
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			return -1;
	}
	return 0;
}

int cli_mpi_rank(void) { return mpi.rank; }
int cli_mpi_size(void) { return mpi.size; }

const char *cli_mpi_describe(void)
{
	static char text[MPI_MAX_LIBRARY_VERSION_STRING + 64];
	char lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0;

	MPI_Get_library_version(lib, &len);
	lib[strcspn(lib, ",\n")] = 0;
	snprintf(text, sizeof text, "MPI: %s, %d process%s", lib, mpi.size,
		 mpi.size == 1 ? "" : "es");
	return text;
}

/* ---- messages ---- */

static void header_send(int kind)
{
	long long h[2] = { kind, 0 };

	MPI_Bcast(h, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
	mpi.started = 1;
}

/* A worker waits for the job; 0 when it is `kind`, else the status to
 * exit with (the job stopped before it began). */
static int header_wait(int kind, int *status)
{
	long long h[2];

	MPI_Bcast(h, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
	mpi.started = 1;
	*status = (int)h[1];
	return h[0] == kind ? 0 : -1;
}

/* Bytes from rank 0 to all, in pieces below INT_MAX. */
static int bcast_bytes(char **data, size_t *len)
{
	unsigned long long n = *len;
	size_t off;

	MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
	if (mpi.rank > 0) {
		*len = (size_t)n;
		*data = cp_malloc(*len + 1);
		if (!*data)
			return -1;
		(*data)[*len] = 0;
	}
	for (off = 0; off < *len; off += (size_t)1 << 30) {
		size_t piece = *len - off < (size_t)1 << 30 ? *len - off : (size_t)1 << 30;

		MPI_Bcast(*data + off, (int)piece, MPI_BYTE, 0, MPI_COMM_WORLD);
	}
	return 0;
}

static void send_buf(int to, int tag, const char *data, size_t len)
{
	MPI_Send(data ? data : "", (int)len, MPI_BYTE, to, tag, MPI_COMM_WORLD);
}

/* The next message from `from` (MPI_ANY_SOURCE), whole, NUL-terminated. */
static int recv_buf(int from, int *src, int *tag, struct cp_buf *b)
{
	MPI_Status st;
	int n;

	MPI_Probe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_BYTE, &n);
	b->len = 0;
	cp_buf_append(b, "", 0);
	{
		char *tmp = cp_malloc((size_t)n + 1);

		if (!tmp)
			return -1;
		MPI_Recv(tmp, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		cp_buf_append(b, tmp, (size_t)n);
		cp_free(tmp);
	}
	*src = st.MPI_SOURCE;
	*tag = st.MPI_TAG;
	return b->failed ? -1 : 0;
}

int cli_mpi_finalize(int status)
{
	int w;

	if (mpi.rank == 0 && mpi.size > 1) {
		if (!mpi.started) {
			long long h[2] = { JOB_STOP, status };

			MPI_Bcast(h, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
		} else {
			for (w = 1; w < mpi.size; w++)
				send_buf(w, TAG_STOP, (const char *)&status, sizeof status);
		}
	} else if (mpi.rank > 0 && !mpi.started) {
		int st;

		header_wait(-1, &st);   /* an option error: rank 0 stops the job */
		status = st;
	}
	MPI_Finalize();
	return status;
}

/* Any other command: rank 0 runs it alone. */
int cli_mpi_idle(void)
{
	int st;

	header_wait(-1, &st);
	return st;
}

static char *read_all(const char *path, size_t *len, struct cp_error *err)
{
	FILE *f = fopen(path, "rb");
	struct cp_buf b;
	char piece[65536];
	size_t n;

	cp_buf_init(&b);
	if (!f) {
		cp_error_set(err, CP_EIO, "cannot read '%.300s'", path);
		return NULL;
	}
	while ((n = fread(piece, 1, sizeof piece, f)) > 0)
		cp_buf_append(&b, piece, n);
	fclose(f);
	if (b.failed) {
		cp_buf_release(&b);
		cp_error_set(err, CP_ENOMEM, "out of memory");
		return NULL;
	}
	cp_buf_append(&b, "", 0);
	*len = b.len;
	return b.data ? b.data : cp_strdup("");
}

/* A test of the failure path (tests/cli/mpi.sh): the worker whose rank
 * CP_MPI_TEST_KILL_RANK names dies at its first work item. */
static void maybe_die(void)
{
	const char *r = getenv("CP_MPI_TEST_KILL_RANK");

	if (r && atoi(r) == mpi.rank)
		raise(SIGKILL);
}

/* ---- the queue, on rank 0 ---- */

struct queue {
	size_t n;
	void *ctx;
	/* item i as a message */
	int (*request)(void *ctx, size_t i, struct cp_buf *out, struct cp_error *err);
	/* item i done here */
	int (*local)(void *ctx, size_t i, struct cp_error *err);
	/* item i's result from another process */
	int (*result)(void *ctx, size_t i, const struct cp_buf *in, struct cp_error *err);
};

/* Every item once: each worker holds up to QUEUE_DEPTH, rank 0 takes
 * the next whenever no result is waiting.  One: the sends block, and a
 * second large item (a lane of check) sent while the worker sends back
 * a large result would wait for each other for ever; a worker is sent
 * its next item only once its result is in.  A worker answers
 * in the order it was sent (MPI keeps the order between two processes).
 * On a failure, what is out comes back before the error is returned (so
 * the workers are free to stop). */
#define QUEUE_DEPTH 1

static int queue_send(const struct queue *q, int w, size_t *holds, size_t *held,
		      size_t *next, size_t *out, struct cp_buf *msg, struct cp_error *err)
{
	size_t *h = holds + (size_t)w * QUEUE_DEPTH;
	int rc;

	msg->len = 0;
	rc = q->request(q->ctx, *next, msg, err);
	if (rc)
		return rc;
	send_buf(w, TAG_WORK, msg->data, msg->len);
	h[held[w]++] = (*next)++;
	++*out;
	return 0;
}

static int queue_run(const struct queue *q, struct cp_error *err)
{
	size_t *holds = cp_calloc((size_t)mpi.size * QUEUE_DEPTH, sizeof *holds);
	size_t *held = cp_calloc((size_t)mpi.size, sizeof *held);
	size_t next = 0, out = 0, i, d;
	struct cp_buf msg, in;
	int w, rc = 0;

	cp_buf_init(&msg);
	cp_buf_init(&in);
	if (!holds || !held) {
		cp_free(holds);
		cp_free(held);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	for (d = 0; d < QUEUE_DEPTH; d++)
		for (w = 1; w < mpi.size && next < q->n && !rc; w++)
			rc = queue_send(q, w, holds, held, &next, &out, &msg, err);
	while (out || (next < q->n && !rc)) {
		int waiting = 0, src, tag;
		size_t *h;

		if (next < q->n && !rc)
			MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &waiting,
				   MPI_STATUS_IGNORE);
		if (next < q->n && !rc && !waiting) {
			rc = q->local(q->ctx, next++, err);
			continue;
		}
		if (recv_buf(MPI_ANY_SOURCE, &src, &tag, &in)) {
			rc = rc ? rc : cp_error_set(err, CP_ENOMEM, "out of memory");
			break;
		}
		out--;
		h = holds + (size_t)src * QUEUE_DEPTH;
		i = h[0];
		for (d = 1; d < held[src]; d++)
			h[d - 1] = h[d];
		held[src]--;
		if (tag == TAG_ERROR && !rc)
			rc = cp_error_set(err, CP_EINTERNAL, "process %d: %.900s", src,
					  in.data ? in.data : "");
		else if (tag == TAG_RESULT && !rc)
			rc = q->result(q->ctx, i, &in, err);
		if (!rc && next < q->n)
			rc = queue_send(q, src, holds, held, &next, &out, &msg, err);
	}
	cp_buf_release(&msg);
	cp_buf_release(&in);
	cp_free(holds);
	cp_free(held);
	return rc;
}

/* A worker: each item through serve, until rank 0 says stop. */
static int worker_loop(int (*serve)(void *ctx, const struct cp_buf *in,
				    struct cp_buf *out, struct cp_error *err),
		       void *ctx)
{
	struct cp_buf in, out;
	int first = 1, status = CLI_INTERNAL;

	cp_buf_init(&in);
	cp_buf_init(&out);
	for (;;) {
		struct cp_error err;
		int src, tag;

		if (recv_buf(0, &src, &tag, &in))
			break;
		if (tag == TAG_STOP) {
			if (in.len == sizeof status)
				memcpy(&status, in.data, sizeof status);
			break;
		}
		if (first)
			maybe_die();
		first = 0;
		cp_error_clear(&err);
		out.len = 0;
		if (!serve)
			cp_error_set(&err, CP_EINPUT, "process %d could not load the model "
				     "or the data rank 0 sent", mpi.rank);
		if (!serve || serve(ctx, &in, &out, &err) || out.failed) {
			char line[CP_ERROR_MAX + 300];

			if (!err.code)
				cp_error_set(&err, CP_ENOMEM, "out of memory");
			cp_error_format(&err, line, sizeof line);
			send_buf(0, TAG_ERROR, line, strlen(line));
		} else {
			send_buf(0, TAG_RESULT, out.data, out.len);
		}
	}
	cp_buf_release(&in);
	cp_buf_release(&out);
	return status;
}

/* The model's text, from rank 0's file to every process's parse. */
static struct udd_model *model_shared(const char *model_path, char **text,
				      size_t *len, struct cp_error *err)
{
	struct udd_model *m = NULL;

	if (bcast_bytes(text, len)) {
		cp_error_set(err, CP_ENOMEM, "out of memory");
		return NULL;
	}
	if (udd_model_parse_string(model_path, *text, *len, &m, err)) {
		udd_model_free(m);
		return NULL;
	}
	return m;
}

/* ================================================================ */
/* check: pipe_check's lanes over the processes                     */
/* ================================================================ */

/* A lane goes out as the dataset's header and the lines of its
 * observations (stats_dataset_line_run), so a worker holds only what it
 * checks; it comes back as one line per observation and violation,
 * numbers in %a (exact). */
struct check_job {
	const struct stats_dataset *data;
	const struct pipe_data *pd;
	struct pipe_model *pm;
	size_t threads;
	struct feas_result *res;
	const char *text;          /* the dataset file */
	size_t *line_at;           /* offsets of its lines (1-based), and the end */
	size_t n_lines;
	size_t *obs;               /* scratch: one lane's observations */
};

static int check_request(void *ctx, size_t lane, struct cp_buf *out, struct cp_error *err)
{
	struct check_job *j = ctx;
	size_t n = pipe_check_lane(j->pd, j->threads, lane, j->obs), i, r;

	cp_buf_append(out, j->text, j->line_at[2] - j->line_at[1]);
	for (i = 0; i < n; i++)
		for (r = 0; r < stats_dataset_n_line_runs(j->data, j->obs[i]); r++) {
			size_t first, count;

			stats_dataset_line_run(j->data, j->obs[i], r, &first, &count);
			if (first < 2 || first + count > j->n_lines + 1)
				return cp_error_set(err, CP_EINTERNAL, "line %zu is not in "
						    "the dataset file read again", first);
			cp_buf_append(out, j->text + j->line_at[first],
				      j->line_at[first + count] - j->line_at[first]);
		}
	return out->failed ? cp_error_set(err, CP_ENOMEM, "out of memory") : 0;
}

static int check_local(void *ctx, size_t lane, struct cp_error *err)
{
	struct check_job *j = ctx;
	size_t n = pipe_check_lane(j->pd, j->threads, lane, j->obs);

	return pipe_check_some(j->pm, j->pd, j->obs, n, FEAS_EXPLAIN, j->res, NULL, err);
}

static void pack_result(struct cp_buf *b, const struct feas_result *r, size_t k)
{
	size_t v, c;

	cp_buf_printf(b, "%d %d %a %a %a %zu\n", r->feasible, r->borderline, r->d2,
		      r->p_value, r->kkt, r->n_violations);
	for (v = 0; v < r->n_violations; v++) {
		const struct feas_violation *x = &r->violations[v];

		cp_buf_printf(b, "%d %d %d %zu %a %a", x->is_equality, x->is_facet,
			      x->exact, x->index, x->margin, x->mean_sd);
		for (c = 0; c < k; c++)
			cp_buf_printf(b, " %lld", (long long)x->a[c]);
		cp_buf_puts(b, "\n");
	}
}

/* The next line of *p as numbers; -1 when malformed. */
static int unpack_result(const char **p, struct feas_result *r, size_t k)
{
	char *q;
	size_t v, c;
	int n = 0;

	if (sscanf(*p, "%d %d %la %la %la %zu\n%n", &r->feasible, &r->borderline, &r->d2,
		   &r->p_value, &r->kkt, &r->n_violations, &n) < 6 || !n)
		return -1;
	*p += n;
	r->k = k;
	if (r->n_violations > 1000000)
		return -1;
	r->violations = cp_calloc(r->n_violations + 1, sizeof *r->violations);
	if (!r->violations) {
		r->n_violations = 0;
		return -1;
	}
	for (v = 0; v < r->n_violations; v++) {
		struct feas_violation *x = &r->violations[v];

		x->a = cp_calloc(k + 1, sizeof *x->a);
		if (!x->a || sscanf(*p, "%d %d %d %zu %la %la%n", &x->is_equality,
				    &x->is_facet, &x->exact, &x->index, &x->margin,
				    &x->mean_sd, &n) < 6) {
			r->n_violations = v + (x->a != NULL);
			return -1;
		}
		q = (char *)*p + n;
		for (c = 0; c < k; c++)
			x->a[c] = (int64_t)strtoll(q, &q, 10);
		if (*q != '\n') {
			r->n_violations = v + 1;
			return -1;
		}
		*p = q + 1;
	}
	return 0;
}

static int check_result(void *ctx, size_t lane, const struct cp_buf *in, struct cp_error *err)
{
	struct check_job *j = ctx;
	size_t n = pipe_check_lane(j->pd, j->threads, lane, j->obs), i;
	const char *p = in->data ? in->data : "";

	for (i = 0; i < n; i++) {
		struct feas_result *r = &j->res[j->obs[i]];

		feas_result_release(r);
		if (unpack_result(&p, r, pipe_data_n_counters(j->pd)))
			return cp_error_set(err, CP_EINTERNAL, "a malformed verdict came "
					    "back for observation '%.200s'",
					    stats_dataset_observation(j->data, j->obs[i]));
	}
	return 0;
}

int cli_mpi_check(const char *model_path, const char *data_path,
		  const struct stats_dataset *data, const struct pipe_data *pd,
		  struct pipe_model *pm, size_t threads, struct feas_result *res,
		  struct cp_error *err)
{
	struct check_job j;
	struct queue q;
	char *model_text = NULL;
	size_t model_len = 0, i, len = 0, cap;
	int rc;

	memset(&j, 0, sizeof j);
	j.data = data;
	j.pd = pd;
	j.pm = pm;
	j.threads = threads;
	j.res = res;
	model_text = read_all(model_path, &model_len, err);
	j.text = model_text ? read_all(data_path, &len, err) : NULL;
	j.obs = cp_calloc(pipe_data_n_observations(pd) + 1, sizeof *j.obs);
	cap = 1024;
	j.line_at = cp_calloc(cap, sizeof *j.line_at);
	if (!model_text || !j.text || !j.obs || !j.line_at) {
		rc = err->code ? err->code : cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	/* line l (1-based) starts at line_at[l]; line_at[n_lines + 1] = end */
	j.line_at[1] = 0;
	j.n_lines = 0;
	for (i = 0; i <= len; i++) {
		if (i < len && j.text[i] != '\n')
			continue;
		if (i == len && (len == 0 || j.text[len - 1] == '\n'))
			break;
		if (j.n_lines + 3 > cap) {
			size_t *na = cp_reallocarray(j.line_at, cap * 2, sizeof *na);

			if (!na) {
				rc = cp_error_set(err, CP_ENOMEM, "out of memory");
				goto out;
			}
			j.line_at = na;
			cap *= 2;
		}
		j.n_lines++;
		j.line_at[j.n_lines + 1] = i < len ? i + 1 : len;
	}
	header_send(JOB_CHECK);
	bcast_bytes(&model_text, &model_len);
	q.n = pipe_check_n_lanes(pd, threads);
	q.ctx = &j;
	q.request = check_request;
	q.local = check_local;
	q.result = check_result;
	rc = queue_run(&q, err);
out:
	cp_free(model_text);
	cp_free((char *)j.text);
	cp_free(j.line_at);
	cp_free(j.obs);
	return rc;
}

struct check_worker {
	const struct udd_model *m;
	udd_features sel;
	const struct pipe_options *po;
	const struct pipe_budget *budget;
	/* the first lane's data and the model built on it, kept: the cone
	 * is computed once per process */
	struct stats_dataset *first_data;
	struct pipe_data *first_pd;
	struct pipe_model *pm;
};

static int check_serve(void *ctx, const struct cp_buf *in, struct cp_buf *out,
		       struct cp_error *err)
{
	struct check_worker *w = ctx;
	struct stats_dataset *d = NULL;
	struct pipe_data *pd = NULL;
	struct feas_result *res = NULL;
	size_t *obs = NULL, n = 0, i;
	int rc;

	rc = stats_dataset_parse("lane", in->data ? in->data : "", in->len, &d, NULL, err);
	if (!rc)
		rc = pipe_data_new(w->m, d, w->po, &pd, err);
	if (!rc && !w->pm) {
		rc = pipe_model_new(w->m, w->sel, pd, w->budget, &w->pm, err);
		if (!rc) {
			w->first_data = d;
			w->first_pd = pd;
		}
	}
	if (rc)
		goto out;
	n = pipe_data_n_observations(pd);
	res = cp_calloc(n + 1, sizeof *res);
	obs = cp_calloc(n + 1, sizeof *obs);
	if (!res || !obs) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		feas_result_init(&res[i]);
		obs[i] = i;
	}
	rc = pipe_check_some(w->pm, pd, obs, n, FEAS_EXPLAIN, res, NULL, err);
	for (i = 0; i < n && !rc; i++)
		pack_result(out, &res[i], pipe_data_n_counters(pd));
out:
	for (i = 0; res && i < n; i++)
		feas_result_release(&res[i]);
	cp_free(res);
	cp_free(obs);
	if (pd != w->first_pd) {
		pipe_data_free(pd);
		stats_dataset_free(d);
	}
	return rc;
}

int cli_mpi_check_worker(const char *model_path, const char *with,
			 const struct pipe_options *po, const struct pipe_budget *budget)
{
	struct check_worker w;
	struct udd_model *m = NULL;
	struct cp_error err;
	char *text = NULL;
	size_t len = 0;
	int status;

	if (header_wait(JOB_CHECK, &status))
		return status;
	memset(&w, 0, sizeof w);
	cp_error_clear(&err);
	m = model_shared(model_path, &text, &len, &err);
	if (m && udd_model_select(m, with, &w.sel, &err)) {
		udd_model_free(m);
		m = NULL;
	}
	w.m = m;
	w.po = po;
	w.budget = budget;
	/* a model rank 0 parsed fails here only if the processes differ:
	 * every item then comes back as that error */
	status = worker_loop(m ? check_serve : NULL, &w);
	pipe_model_free(w.pm);
	pipe_data_free(w.first_pd);
	stats_dataset_free(w.first_data);
	udd_model_free(m);
	cp_free(text);
	feas_thread_end();
	return status;
}

/* ================================================================ */
/* explore: feature sets over the processes                         */
/* ================================================================ */

/* A feature set goes out as "sel cone_limit", comes back as
 * explore_family_evaluate_packed's text. */
struct explore_job {
	struct explore_family *fam;
	const udd_features *sel;
	struct cp_buf *out;
};

static int explore_request(void *ctx, size_t i, struct cp_buf *out, struct cp_error *err)
{
	struct explore_job *j = ctx;

	cp_buf_printf(out, "%llu %zu", (unsigned long long)j->sel[i],
		      explore_family_cone_limit(j->fam));
	return out->failed ? cp_error_set(err, CP_ENOMEM, "out of memory") : 0;
}

static int explore_local(void *ctx, size_t i, struct cp_error *err)
{
	struct explore_job *j = ctx;
	struct cp_buf scratch;
	int rc;

	/* evaluated in this process's family: out[i] stays empty */
	cp_buf_init(&scratch);
	rc = explore_family_evaluate_packed(j->fam, j->sel[i],
					    explore_family_cone_limit(j->fam), &scratch, err);
	cp_buf_release(&scratch);
	return rc;
}

static int explore_result(void *ctx, size_t i, const struct cp_buf *in, struct cp_error *err)
{
	struct explore_job *j = ctx;

	if (!in->len)
		return cp_error_set(err, CP_EINTERNAL, "an empty evaluation came back");
	cp_buf_append(&j->out[i], in->data, in->len);
	return j->out[i].failed ? cp_error_set(err, CP_ENOMEM, "out of memory") : 0;
}

static int explore_dispatch(void *ctx, const udd_features *sel, size_t n,
			    struct cp_buf *out, struct cp_error *err)
{
	struct explore_job j = { ctx, sel, out };
	struct queue q = { n, &j, explore_request, explore_local, explore_result };

	return queue_run(&q, err);
}

int cli_mpi_explore(const char *model_path, const char *data_path,
		    struct explore_family *fam, struct cp_error *err)
{
	char *model_text, *data_text = NULL;
	size_t model_len = 0, data_len = 0;

	model_text = read_all(model_path, &model_len, err);
	if (model_text)
		data_text = read_all(data_path, &data_len, err);
	if (!data_text) {
		cp_free(model_text);
		return err->code;
	}
	header_send(JOB_EXPLORE);
	bcast_bytes(&model_text, &model_len);
	bcast_bytes(&data_text, &data_len);
	cp_free(model_text);
	cp_free(data_text);
	explore_family_set_dispatch(fam, explore_dispatch, fam);
	return 0;
}

static int explore_serve(void *ctx, const struct cp_buf *in, struct cp_buf *out,
			 struct cp_error *err)
{
	unsigned long long sel;
	size_t limit;

	if (!in->data || sscanf(in->data, "%llu %zu", &sel, &limit) != 2)
		return cp_error_set(err, CP_EINTERNAL, "a malformed work item");
	return explore_family_evaluate_packed(ctx, (udd_features)sel, limit, out, err);
}

int cli_mpi_explore_worker(const char *model_path, const char *data_path,
			   const struct explore_family_options *fo)
{
	struct udd_model *m = NULL;
	struct stats_dataset *d = NULL;
	struct explore_family *fam = NULL;
	struct cp_error err;
	char *model_text = NULL, *data_text = NULL;
	size_t model_len = 0, data_len = 0;
	int status;

	if (header_wait(JOB_EXPLORE, &status))
		return status;
	cp_error_clear(&err);
	m = model_shared(model_path, &model_text, &model_len, &err);
	bcast_bytes(&data_text, &data_len);
	/* the whole dataset: every feature set is checked on every
	 * observation; its regions are built once, here */
	if (m && data_text &&
	    !stats_dataset_parse(data_path, data_text, data_len, &d, NULL, &err))
		explore_family_new(m, d, fo, &fam, &err);
	cp_free(data_text);
	status = worker_loop(fam ? explore_serve : NULL, fam);
	explore_family_free(fam);
	feas_thread_end();
	stats_dataset_free(d);
	udd_model_free(m);
	cp_free(model_text);
	return status;
}

#endif
