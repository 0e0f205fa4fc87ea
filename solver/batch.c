/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solver/batch.c: many checks on threads of its own, each with a private LP,
 * observations handed out in chunks so each thread warm-starts from a
 * neighbour; results in input order. */
#include <errno.h>
#include <glpk.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "solver/feas.h"
#include "solver/feas_int.h"

/* ================================================================ *
 * Threads                                                           *
 * ================================================================ */

/* Observations go out in chunks of FEAS_CHUNK consecutive indices, each
 * checked from a fresh LP, so within a chunk each warm-starts from a
 * neighbour (datasets list similar runs together) and what a chunk
 * reports (a certificate-derived explanation depends on the warm start)
 * is the same on any thread, for any thread count; results go to their
 * input slot, so order is kept.  Thread t of T takes chunks t, t + T,
 * t + 2T, ... */
#define BATCH_CHUNK FEAS_CHUNK

struct batch {
	const struct feas_model *fm;
	const struct feas_query *queries;
	struct feas_result *results;
	unsigned flags;
	size_t n;
	pthread_mutex_t lock;
	pthread_cond_t moved;   /* done grew or a thread failed */
	size_t done, threads;
	int failed;
	struct cp_error err;
	size_t err_index;
};

struct batch_part {
	struct batch *b;
	size_t first;   /* this thread's first chunk */
};

static void *batch_thread(void *arg)
{
	struct batch_part *part = arg;
	struct batch *b = part->b;
	struct worker *w = NULL;
	struct cp_error err;
	size_t chunk = part->first;
	int rc, used = 0;

	cp_error_clear(&err);
	rc = feas_worker_new(b->fm, &w, &err);
	for (;; chunk += b->threads) {
		size_t lo = chunk * BATCH_CHUNK, hi, i;

		pthread_mutex_lock(&b->lock);
		if (rc && !b->failed) {
			b->failed = 1;
			b->err = err;
			b->err_index = (size_t)-1;
		}
		if (b->failed || lo >= b->n) {
			pthread_cond_signal(&b->moved);
			pthread_mutex_unlock(&b->lock);
			break;
		}
		pthread_mutex_unlock(&b->lock);
		hi = lo + BATCH_CHUNK < b->n ? lo + BATCH_CHUNK : b->n;
		for (i = lo; i < hi && !rc; i++) {
			if (used && feas_fresh_at(i, b->flags)) {
				feas_worker_free(w);
				w = NULL;
				if ((rc = feas_worker_new(b->fm, &w, &err)))
					break;
			}
			used = 1;
			rc = feas_check_with(w, &b->queries[i], b->flags, &b->results[i], &err);
			if (rc) {
				pthread_mutex_lock(&b->lock);
				if (!b->failed || i < b->err_index) {
					b->failed = 1;
					b->err = err;
					b->err_index = i;
				}
				pthread_mutex_unlock(&b->lock);
			}
		}
		pthread_mutex_lock(&b->lock);
		b->done += hi - lo;
		pthread_cond_signal(&b->moved);
		pthread_mutex_unlock(&b->lock);
	}
	feas_worker_free(w);
	glp_free_env();
	return NULL;
}

/* ================================================================ *
 * Checkers: the callers' own threads                                *
 * ================================================================ */

struct feas_checker {
	const struct feas_model *fm;
	struct worker *w;   /* NULL until the first check after a restart */
};

int feas_checker_new(const struct feas_model *fm, struct feas_checker **out,
		     struct cp_error *err)
{
	*out = cp_calloc(1, sizeof **out);
	if (!*out)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	(*out)->fm = fm;
	return CP_OK;
}

void feas_checker_restart(struct feas_checker *c)
{
	feas_worker_free(c->w);
	c->w = NULL;
}

int feas_checker_check(struct feas_checker *c, const struct feas_query *q,
		       unsigned flags, struct feas_result *res,
		       struct cp_error *err)
{
	if (flags & FEAS_FRESH)
		feas_checker_restart(c);
	return feas_check_on(c->fm, &c->w, q, flags, res, err);
}

void feas_checker_free(struct feas_checker *c)
{
	if (!c)
		return;
	feas_worker_free(c->w);
	cp_free(c);
}

int feas_fresh_at(size_t i, unsigned flags)
{
	return (flags & FEAS_FRESH) || i % FEAS_CHUNK == 0;
}

size_t feas_cpu_count(void)
{
	long c = sysconf(_SC_NPROCESSORS_ONLN);

	return c > 0 ? (size_t)c : 1;
}

int feas_check_batch(const struct feas_model *fm, size_t n,
		     const struct feas_query *queries, unsigned flags,
		     size_t threads, struct feas_result *results,
		     feas_progress_fn progress, void *ctx,
		     struct cp_error *err)
{
	struct batch b;
	struct batch_part *part;
	pthread_t *tid;
	size_t t, started = 0;
	int rc = CP_OK, e = 0;

	if (n == 0)
		return CP_OK;
	if (threads == 0)
		threads = feas_cpu_count();
	if (threads > (n + BATCH_CHUNK - 1) / BATCH_CHUNK)
		threads = (n + BATCH_CHUNK - 1) / BATCH_CHUNK;
	if (threads > 256)
		threads = 256;
	memset(&b, 0, sizeof b);
	b.fm = fm;
	b.queries = queries;
	b.results = results;
	b.flags = flags;
	b.n = n;
	cp_error_clear(&b.err);
	if (pthread_mutex_init(&b.lock, NULL))
		return cp_error_set(err, CP_EINTERNAL, "cannot create a mutex");
	if (pthread_cond_init(&b.moved, NULL)) {
		pthread_mutex_destroy(&b.lock);
		return cp_error_set(err, CP_EINTERNAL, "cannot create a condition variable");
	}
	tid = cp_malloc(threads * sizeof *tid);
	part = cp_malloc(threads * sizeof *part);
	if (!tid || !part) {
		cp_free(tid);
		cp_free(part);
		pthread_cond_destroy(&b.moved);
		pthread_mutex_destroy(&b.lock);
		return cp_error_set(err, CP_ENOMEM, "out of memory starting threads");
	}
	/* every chunk needs its thread: all start, or none works */
	b.threads = threads;
	for (t = 0; t < threads; t++) {
		part[t].b = &b;
		part[t].first = t;
		if ((e = pthread_create(&tid[t], NULL, batch_thread, &part[t])) != 0)
			break;
		started++;
	}
	if (started < threads) {
		pthread_mutex_lock(&b.lock);
		b.failed = 1;
		pthread_mutex_unlock(&b.lock);
		for (t = 0; t < started; t++)
			pthread_join(tid[t], NULL);
		/* EAGAIN: no memory for its stack */
		rc = cp_error_set(err, e == EAGAIN ? CP_ENOMEM : CP_EINTERNAL,
				  "cannot start a thread: %s", strerror(e));
		goto out;
	}
	/* wait for the end, woken by every chunk done (so a short batch
	 * returns when it ends, not at the next tick), and report progress
	 * at least every 50 ms */
	pthread_mutex_lock(&b.lock);
	for (;;) {
		size_t done = b.done;
		int stop = b.failed || done >= n;
		struct timespec ts;

		if (progress) {
			pthread_mutex_unlock(&b.lock);
			progress(ctx, done, n);
			pthread_mutex_lock(&b.lock);
		}
		if (stop)
			break;
		if (b.done != done || b.failed)
			continue;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&b.moved, &b.lock, &ts);
	}
	pthread_mutex_unlock(&b.lock);
	for (t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	if (b.failed) {
		rc = b.err.code ? b.err.code : CP_EINTERNAL;
		if (err) {
			*err = b.err;
			if (b.err_index != (size_t)-1)
				cp_error_set(err, rc, "observation %zu: %.900s",
					     b.err_index + 1, b.err.msg);
		}
	}
out:
	cp_free(tid);
	cp_free(part);
	pthread_cond_destroy(&b.moved);
	pthread_mutex_destroy(&b.lock);
	return rc;
}

