/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench/sim.c: simulated correct-path memory μops per second of the MMU
 * simulator, as `counterpoint sim` runs it (workload, wrong-path
 * injection, machine, multiplexed counting), for streaming, random and
 * phased workloads, all features on and off, each with its ratio to the
 * streaming case (linear 1G, 4K pages, all features) measured in the same
 * run.  Prints figures and the command; never passes or fails.
 * usage: build/bench/sim [MILLION_UOPS (default 20)] [REPEATS (default 3)] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hw/sim/mmu.h"

/* CPU time of this thread: on a shared machine, wall time would count the
 * other jobs' time slices, and process time any library's idle threads. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *workload;
		unsigned features;
		enum mmu_page page;
	} cases[] = {
		/* the first is the streaming reference of every ratio */
		{ "linear:footprint=1G,stride=64,dir=up,stores=0.2", MMU_F_ALL, MMU_PAGE_4K },
		{ "linear:footprint=1G,stride=64,dir=up,stores=0.2", 0, MMU_PAGE_4K },
		{ "linear:footprint=1G,stride=64,dir=up,stores=0.2", MMU_F_ALL, MMU_PAGE_2M },
		{ "linear:footprint=1G,stride=64,dir=up,stores=0.2", MMU_F_ALL, MMU_PAGE_MIX },
		{ "random:footprint=1G,stores=0.2", MMU_F_ALL, MMU_PAGE_4K },
		{ "random:footprint=1G,stores=0.2", 0, MMU_PAGE_4K },
		{ "random:footprint=16G,stores=0.2", MMU_F_ALL, MMU_PAGE_4K },
		{ "random:footprint=16G,stores=0.2", MMU_F_ALL, MMU_PAGE_MIX },
		{ "phases:mean=100k;linear:footprint=32M,stride=64,dir=up,stores=0.2;"
		  "random:footprint=1G,stores=0.2,run=4;"
		  "linear:footprint=8G,stride=4K,dir=up,stores=0.1", MMU_F_ALL, MMU_PAGE_4K },
	};
	enum { N_CASES = sizeof cases / sizeof cases[0] };
	double million = argc > 1 ? atof(argv[1]) : 20;
	int repeats = argc > 2 ? atoi(argv[2]) : 3;
	double n, best[N_CASES];
	int failed[N_CASES] = { 0 };
	struct mmu_config cfg;
	struct mmu_run_opts o;
	size_t i;
	int rep;

	if (repeats < 1)
		repeats = 1;
	mmu_config_default(&cfg);
	mmu_run_opts_default(&o);
	o.interval_uops = 100000;
	o.intervals = (size_t)(million * 1e6 / (double)o.interval_uops);
	if (!o.intervals)
		o.intervals = 1;
	o.warmup_uops = 0;
	n = (double)o.intervals * (double)o.interval_uops;
	printf("MMU simulator throughput: build/bench/sim %g %d\n", million, repeats);
	printf("(one thread, thread CPU time, best of %d rounds over all the cases; "
	       "%zu intervals x %zu μops from a cold machine, P=%zu counters, "
	       "spec_share=%g)\n", repeats, o.intervals, o.interval_uops,
	       o.counters, cfg.spec_share);
	/* Best of the repeats: on a shared machine the slowest runs measure
	 * the neighbours, the fastest the simulator.  Each round runs every
	 * case once, so that a busy stretch of the host falls on all the
	 * cases alike rather than on all the repeats of one (and the ratios
	 * compare cases timed side by side). */
	for (i = 0; i < N_CASES; i++)
		best[i] = 1e300;
	for (rep = 0; rep < repeats; rep++) {
		for (i = 0; i < N_CASES; i++) {
			struct cp_error err;
			struct cp_buf b;
			double t0, t;

			if (failed[i])
				continue;
			cp_buf_init(&b);
			t0 = now_s();
			if (mmu_run(&cfg, cases[i].features, cases[i].page,
				    cases[i].workload, &o, "bench", &b, NULL, &err)) {
				printf("%s: %s\n", cases[i].workload, err.msg);
				failed[i] = 1;
			}
			t = now_s() - t0;
			if (t < best[i])
				best[i] = t;
			cp_buf_release(&b);
		}
	}
	for (i = 0; i < N_CASES; i++) {
		char feat[192];
		double rate = n / best[i] / 1e6, stream_rate = n / best[0] / 1e6;

		if (failed[i])
			continue;
		mmu_features_format(cases[i].features, feat, sizeof feat);
		printf("%-52.52s %-3s %-4s %6.1f M μops/s  %5.2f x streaming  (%.2f s)\n",
		       cases[i].workload, mmu_page_name(cases[i].page),
		       cases[i].features == MMU_F_ALL ? "all" :
		       cases[i].features ? feat : "none", rate,
		       failed[0] ? 0 : rate / stream_rate, best[i]);
	}
	return 0;
}
