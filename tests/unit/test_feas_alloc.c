/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_feas_alloc.c: every allocation of the solver fails in
 * turn (cp_alloc_fail_at) while a model is built and an infeasible region
 * of each shape is checked and explained: each run must end in CP_OK or
 * CP_ENOMEM, never crash, and leak nothing (the sanitized build checks).
 * And a thread whose GLPK environment cannot be made gets CP_ENOMEM, not
 * GLPK's abort(). */
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "solver/feas.h"
#include "solver/feas_int.h"
#include "check.h"
#include "test_feas_lib.h"

/* walk_basic: (causes_walk, pde_miss, walk_done, retired) */
static const uint32_t S[] = { 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1 };

static int run_once(struct tl_region *r)
{
	struct feas_model *fm = NULL;
	struct feas_result res;
	struct feas_query q;
	struct cp_error err;
	enum feas_shape sh;
	int rc;

	feas_result_init(&res);
	rc = feas_model_new(4, 3, S, NULL, &fm, &err);
	for (sh = FEAS_PCA; !rc && sh <= FEAS_ELLIPSOID; sh++) {
		tl_query(r, sh, &q);
		rc = feas_check(fm, &q, FEAS_EXPLAIN, &res, &err);
		if (!rc && (res.feasible || res.n_violations != 1))
			rc = 99;  /* a wrong answer, not an allocation failure */
	}
	feas_result_release(&res);
	feas_model_free(fm);
	return rc;
}

static void test_every_allocation_fails(void)
{
	struct tl_region r;
	unsigned long n, total;
	int bad = 0, rc;

	memset(&r, 0, sizeof r);
	r.k = 4;
	r.mu[0] = 1000;
	r.mu[1] = 1300;
	r.mu[2] = 1000;
	r.mu[3] = 5000;
	r.cov[0] = r.cov[5] = r.cov[10] = r.cov[15] = 4;
	tl_region_finish(&r, 13.28);
	/* how many allocations one clean run makes */
	cp_alloc_fail_at(0);
	total = cp_alloc_count();
	CHECK(run_once(&r) == CP_OK);
	total = cp_alloc_count() - total;
	CHECK(total > 10);
	for (n = 1; n <= total + 5; n++) {
		cp_alloc_fail_at(n);
		rc = run_once(&r);
		cp_alloc_fail_at(0);
		if (rc != CP_OK && rc != CP_ENOMEM) {
			printf("  allocation %lu failing: status %d\n", n, rc);
			bad++;
		}
	}
	CHECK(bad == 0);
	feas_thread_end();
}

static int go[2], done[2];

/* A thread that has not allocated yet: its first malloc needs a new
 * mapping, which the limit the main thread sets refuses. */
static void *env_thread(void *arg)
{
	struct cp_error err;
	char c;
	int *rc = arg;

	if (read(go[0], &c, 1) != 1)
		return NULL;
	rc[0] = feas_glpk_start(&err, "here");
	rc[1] = rc[0] == CP_ENOMEM && strcmp(err.msg, "out of memory here") == 0;
	if (write(done[1], "x", 1) != 1 || read(go[0], &c, 1) != 1)
		return NULL;
	rc[2] = feas_glpk_start(&err, "here");
	glp_free_env();
	return NULL;
}

static void test_glpk_env_out_of_memory(void)
{
	pid_t pid;

	FORK_UNDER_LIMIT(pid);
	if (pid == 0) {
		struct rlimit old, none;
		int rc[3] = { -9, 0, -9 };
		pthread_t t;
		char c;

		if (pipe(go) || pipe(done) || getrlimit(RLIMIT_AS, &old) ||
		    pthread_create(&t, NULL, env_thread, rc))
			_exit(10);
		none = old;
		none.rlim_cur = 1;    /* no new mapping: what exists stays */
		if (setrlimit(RLIMIT_AS, &none) || write(go[1], "x", 1) != 1)
			_exit(11);
		if (read(done[0], &c, 1) != 1 || setrlimit(RLIMIT_AS, &old) || write(go[1], "x", 1) != 1 ||
		    pthread_join(t, NULL))
			_exit(12);
		_exit(rc[0] != CP_ENOMEM ? 20 : !rc[1] ? 21 : rc[2] != CP_OK ? 22 : 0);
	}
	CHECK_CHILD_EXIT(pid, 0);
}

int main(void)
{
	check_prog = "test_feas_alloc";
	RUN(test_every_allocation_fails);
	RUN(test_glpk_env_out_of_memory);
	return check_summary();
}
