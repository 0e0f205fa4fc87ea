/* bench/sim.c: simulated memory μops per second of the MMU simulator, as
 * `counterpoint sim` runs it (workload, wrong-path injection, machine,
 * multiplexed counting), for linear and random workloads, all features on
 * and off.  Prints figures; never passes or fails.
 * usage: build/bench/sim [MILLION_UOPS (default 20)] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hw/sim/mmu.h"

/* CPU time of this process: on a shared machine, wall time would count
 * the other agents' time slices. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *workload;
		unsigned features;
		enum mmu_page page;
	} cases[] = {
		{ "linear:footprint=1G,stride=64,dir=up,stores=0.2", MMU_F_ALL, MMU_PAGE_4K },
		{ "linear:footprint=1G,stride=64,dir=up,stores=0.2", 0, MMU_PAGE_4K },
		{ "linear:footprint=1G,stride=64,dir=up,stores=0.2", MMU_F_ALL, MMU_PAGE_2M },
		{ "random:footprint=1G,stores=0.2", MMU_F_ALL, MMU_PAGE_4K },
		{ "random:footprint=16G,stores=0.2", MMU_F_ALL, MMU_PAGE_4K },
	};
	double million = argc > 1 ? atof(argv[1]) : 20;
	struct mmu_config cfg;
	struct mmu_run_opts o;
	size_t i;

	mmu_config_default(&cfg);
	mmu_run_opts_default(&o);
	o.interval_uops = 100000;
	o.intervals = (size_t)(million * 1e6 / (double)o.interval_uops);
	if (!o.intervals)
		o.intervals = 1;
	o.warmup_uops = 0;
	printf("MMU simulator throughput (one thread; the machine may be shared)\n");
	printf("%zu intervals x %zu μops, P=%zu counters, spec_share=%g\n",
	       o.intervals, o.interval_uops, o.counters, cfg.spec_share);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct cp_buf b;
		struct cp_error err;
		char feat[128];
		double t0, t;
		double n = (double)o.intervals * (double)o.interval_uops;

		int rep, failed = 0;

		mmu_features_format(cases[i].features, feat, sizeof feat);
		/* Best of 3: on a shared machine the slowest runs measure the
		 * neighbours, the fastest the simulator. */
		t = 1e300;
		for (rep = 0; rep < 3 && !failed; rep++) {
			cp_buf_init(&b);
			t0 = now_s();
			if (mmu_run(&cfg, cases[i].features, cases[i].page,
				    cases[i].workload, &o, "bench", &b, NULL, &err)) {
				printf("%s: %s\n", cases[i].workload, err.msg);
				failed = 1;
			}
			if (now_s() - t0 < t)
				t = now_s() - t0;
			cp_buf_release(&b);
		}
		if (failed)
			continue;
		printf("%-50s %-3s %-45s %7.1f M correct-path μops/s (best of 3: %.2f s CPU)\n",
		       cases[i].workload, mmu_page_name(cases[i].page), feat,
		       n / t / 1e6, t);
	}
	return 0;
}
