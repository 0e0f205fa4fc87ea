/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_mmu_run.c: runs of the MMU simulator: the dataset
 * format, multiplexing (P counters, round-robin groups, no noise with
 * P >= events), determinism for a seed, ground truth, workloads (linear,
 * random, lackey traces) and machine parameters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cp.h"
#include "hw/sim/mmu.h"
#include "hw/sim/sim_int.h"
#include "check.h"

struct row {
	char obs[96], event[64];
	size_t interval;
	unsigned long long value, enabled, running;
};

/* Parse the dataset in b (after its header) into rows; returns count. */
static size_t parse(const struct cp_buf *b, struct row *rows, size_t max)
{
	const char *p = strchr(b->data, '\n') + 1;
	size_t n = 0;

	while (*p && n < max) {
		struct row *r = &rows[n];

		if (sscanf(p, "%95[^,],%zu,%63[^,],%llu,%llu,%llu", r->obs,
			   &r->interval, r->event, &r->value, &r->enabled,
			   &r->running) != 6)
			break;
		n++;
		p = strchr(p, '\n') + 1;
	}
	return n;
}

static void run(struct cp_buf *b, struct cp_buf *truth, unsigned features,
		const char *workload, const struct mmu_run_opts *o)
{
	struct mmu_config cfg;
	struct cp_error err;

	mmu_config_default(&cfg);
	cp_buf_init(b);
	mmu_dataset_header(b);
	if (truth) {
		cp_buf_init(truth);
		mmu_truth_header(truth);
	}
	if (mmu_run(&cfg, features, MMU_PAGE_4K, workload, o, "obs", b, truth, &err))
		printf("  run: %s\n", err.msg);
}

static void test_no_mux(void)
{
	struct mmu_run_opts o;
	struct cp_buf b;
	static struct row rows[2000];
	size_t n, i;

	mmu_run_opts_default(&o);
	o.warmup_uops = 10000;
	o.intervals = 5;
	o.interval_uops = 20000;
	o.counters = MMU_N_EVENTS;
	run(&b, NULL, MMU_F_ALL, "linear:footprint=64M,stores=0.2", &o);
	CHECK(!strncmp(b.data, "observation,interval,event,value,enabled_ns,running_ns\n", 55));
	n = parse(&b, rows, 2000);
	CHECK(n == 5 * MMU_N_EVENTS);
	for (i = 0; i < n; i++) {
		CHECK(rows[i].running == rows[i].enabled);
		CHECK(rows[i].enabled > 0);
		CHECK(rows[i].interval == i / MMU_N_EVENTS);
		CHECK_STR(rows[i].event,
			  mmu_event_info((enum mmu_event)(i % MMU_N_EVENTS))->event);
		if (rows[i].event[0] == 'M' && strstr(rows[i].event, "ALL_")) {
			/* the 20000 μops of an interval are loads and stores */
		}
	}
	CHECK(rows[MMU_RETIRED_LOADS].value + rows[MMU_RETIRED_STORES].value == 20000);
	cp_buf_release(&b);
}

/* P = 4: 7 groups rotate; each event runs about 1/7 of the time, and
 * running_ns sums over events to about 4 × enabled_ns per interval. */
static void test_mux(void)
{
	struct mmu_run_opts o;
	struct cp_buf b;
	static struct row rows[4000];
	size_t n, i, k;

	mmu_run_opts_default(&o);
	o.warmup_uops = 10000;
	o.intervals = 10;
	o.interval_uops = 50000;
	o.mux_ns = 2000;
	run(&b, NULL, MMU_F_ALL, "random:footprint=1G,stores=0.2", &o);
	n = parse(&b, rows, 4000);
	CHECK(n == 10 * MMU_N_EVENTS);
	for (i = 0; i < 10; i++) {
		unsigned long long sum = 0, en = rows[i * MMU_N_EVENTS].enabled;

		for (k = 0; k < MMU_N_EVENTS; k++) {
			const struct row *r = &rows[i * MMU_N_EVENTS + k];

			CHECK(r->running <= r->enabled);
			CHECK(r->enabled == en);
			sum += r->running;
		}
		CHECKF(sum == 4 * en, "interval %zu: running %llu, enabled %llu",
		       i, sum, en);
	}
	/* Events of one group share running times; retired loads are in
	 * group 6 (events 24..27), scaled close to the truth. */
	{
		double scaled = 0;
		unsigned long long total = 0;

		for (i = 0; i < 10; i++) {
			const struct row *r = &rows[i * MMU_N_EVENTS + MMU_RETIRED_LOADS];

			CHECK(r->running == rows[i * MMU_N_EVENTS + MMU_RETIRED_STORES].running);
			if (r->running)
				scaled += (double)r->value * (double)r->enabled /
					  (double)r->running;
			total += 50000;
		}
		CHECKF(scaled > 0.6 * 0.8 * (double)total && scaled < 1.4 * 0.8 * (double)total,
		       "scaled loads %g", scaled);
	}
	cp_buf_release(&b);
}

static void test_events_subset(void)
{
	struct mmu_run_opts o;
	struct cp_buf b;
	struct cp_error err;
	static struct row rows[100];
	size_t n;

	mmu_run_opts_default(&o);
	o.warmup_uops = 10000;
	o.intervals = 3;
	o.interval_uops = 1000;
	CHECK(mmu_events_parse(NULL, "load.causes_walk,MEM_UOPS_RETIRED.ALL_LOADS", &o.events,
			       &err) == 0);
	CHECK(mmu_events_parse(NULL, "load.nope", &o.events, &err) == CP_EINPUT);
	CHECK(mmu_events_parse(NULL, "", &o.events, &err) == CP_EINPUT);
	CHECK(mmu_events_parse(NULL, "load.causes_walk,MEM_UOPS_RETIRED.ALL_LOADS", &o.events,
			       &err) == 0);
	run(&b, NULL, 0, "linear", &o);
	n = parse(&b, rows, 100);
	CHECK(n == 6);
	CHECK_STR(rows[1].event, "MEM_UOPS_RETIRED.ALL_LOADS");
	CHECK(rows[1].value == 1000 && rows[1].running == rows[1].enabled);
	cp_buf_release(&b);
}

/* The value of event ev in interval iv of a dataset's rows, or -1. */
static long long value_of(const struct row *rows, size_t n, size_t iv,
			  const char *ev)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].interval == iv && !strcmp(rows[i].event, ev))
			return (long long)rows[i].value;
	return -1;
}

/* Every processor's events come from the same machine: run for run (one
 * seed, no multiplexing), each is its sum of Haswell's events and of the
 * μops the truth says were dispatched; processors' own names; their
 * counter counts as the default P. */
static void test_cpus(void)
{
	static struct row hsw[4000], cpu[4000];
	struct mmu_run_opts o;
	struct cp_buf b, t;
	struct cp_error err;
	size_t nh, nc, iv, c, j;
	const char *tp;

	mmu_run_opts_default(&o);
	o.warmup_uops = 20000;
	o.intervals = 3;
	o.interval_uops = 20000;
	o.counters = 64;
	run(&b, &t, MMU_F_ALL, "random:footprint=4G,stores=0.3", &o);
	nh = parse(&b, hsw, 4000);
	CHECK(nh == 3 * MMU_N_EVENTS);
	cp_buf_release(&b);
	CHECK(mmu_cpu_at(0) == mmu_cpu_find("haswell") && mmu_cpu_find("Zen3"));
	CHECK(mmu_cpu_find("pentium") == NULL);
	for (c = 1; mmu_cpu_at(c); c++) {
		const struct mmu_cpu *cp = mmu_cpu_at(c);
		struct cp_buf b2;

		o.cpu = cp;
		run(&b2, NULL, MMU_F_ALL, "random:footprint=4G,stores=0.3", &o);
		nc = parse(&b2, cpu, 4000);
		CHECKF(nc == 3 * cp->n_events, "%s: %zu rows", cp->name, nc);
		CHECK(cp->counters == 4 || cp->counters == 6 || cp->counters == 8);
		for (iv = 0; iv < 3; iv++)
			for (j = 0; j < cp->n_events; j++) {
				const struct mmu_cpu_event *ev = &cp->events[j];
				long long want = 0, got;
				int e;

				for (e = 0; e < MMU_N_EVENTS; e++)
					if (ev->sum & (1u << e))
						want += value_of(hsw, nh, iv,
								 mmu_event_info((enum mmu_event)e)->event);
				got = value_of(cpu, nc, iv, ev->event);
				if (ev->dispatched) {
					/* the truth's paths of the class, this interval */
					char key[64];
					const char *cls = ev->dispatched == 1u << MMU_C_LOAD ?
							  "load" : "store";
					int p;

					for (p = 0; p < MMU_N_PATHS; p++) {
						if (!mmu_path_is_path((enum mmu_path)p))
							continue;
						snprintf(key, sizeof key, "obs,%zu,%s,%s,", iv, cls,
							 mmu_path_name((enum mmu_path)p));
						tp = strstr(t.data, key);
						if (tp)
							want += atoll(tp + strlen(key));
					}
					CHECKF(want > 20000 * 0.2, "%s: %lld dispatched",
					       ev->event, want);
				}
				CHECKF(got == want, "%s interval %zu %s: %lld, expected %lld",
				       cp->name, iv, ev->event, got, want);
			}
		cp_buf_release(&b2);
	}
	cp_buf_release(&t);
	o.cpu = mmu_cpu_find("zen4");
	CHECK(mmu_events_parse(o.cpu, "ls_dispatch.ld_dispatch", &o.events, &err) == 0);
	CHECK(o.events == 1);
	CHECK(mmu_events_parse(o.cpu, "load.causes_walk", &o.events, &err) == CP_EINPUT);
	CHECK_STR(err.msg, "unknown event 'load.causes_walk' of zen4");
}

static void test_deterministic(void)
{
	struct mmu_run_opts o;
	struct cp_buf a, b, ta, tb;

	mmu_run_opts_default(&o);
	o.warmup_uops = 10000;
	o.intervals = 4;
	o.interval_uops = 20000;
	run(&a, &ta, MMU_F_ALL, "random:footprint=4G,stores=0.3", &o);
	run(&b, &tb, MMU_F_ALL, "random:footprint=4G,stores=0.3", &o);
	CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
	CHECK(ta.len == tb.len && !memcmp(ta.data, tb.data, ta.len));
	cp_buf_release(&b);
	cp_buf_release(&tb);
	o.seed = 2;
	run(&b, &tb, MMU_F_ALL, "random:footprint=4G,stores=0.3", &o);
	CHECK(a.len != b.len || memcmp(a.data, b.data, a.len));
	cp_buf_release(&a);
	cp_buf_release(&b);
	cp_buf_release(&ta);
	cp_buf_release(&tb);
}

/* Ground truth: per interval, the correct-path μops' paths sum to the
 * interval's μops (wrong-path μops and the extra events on top), with
 * every feature on. */
static void test_truth(void)
{
	struct mmu_run_opts o;
	struct cp_buf b, t;
	const char *p;
	unsigned long long sum[3] = { 0, 0, 0 };
	size_t rows = 0;

	mmu_run_opts_default(&o);
	o.warmup_uops = 10000;
	o.intervals = 3;
	o.interval_uops = 10000;
	run(&b, &t, MMU_F_ALL, "linear:footprint=64M,stores=0.25", &o);
	CHECK(!strncmp(t.data, "observation,interval,uop,path,count\n", 36));
	for (p = strchr(t.data, '\n') + 1; *p; p = strchr(p, '\n') + 1) {
		char uop[16], path[32];
		size_t iv;
		unsigned long long cnt;
		int k, is_path = -1;

		if (sscanf(p, "obs,%zu,%15[^,],%31[^,],%llu", &iv, uop, path, &cnt) != 4) {
			CHECK(0);
			break;
		}
		rows++;
		for (k = 0; k < MMU_N_PATHS; k++)
			if (!strcmp(path, mmu_path_name((enum mmu_path)k)))
				is_path = mmu_path_is_path((enum mmu_path)k) &&
					  k != MMU_P_SQUASHED && k != MMU_P_WALK_ABORTED &&
					  k != MMU_P_ABORTED_QUEUED &&
					  k != MMU_P_SQUASHED_WALK;
		CHECK(is_path >= 0);
		if (iv < 3 && is_path > 0)
			sum[iv] += cnt;
	}
	CHECK(rows == 3 * MMU_N_CLASSES * MMU_N_PATHS);
	CHECK(sum[0] == 10000 && sum[1] == 10000 && sum[2] == 10000);
	cp_buf_release(&b);
	cp_buf_release(&t);
}

/* The ground truth accounts for every counted event, interval by
 * interval (no multiplexing), with every feature on, on every page mode:
 * walks started are own walks (completed, bypassed, squashed after
 * completing, aborted), each below the paging-structure cache that served
 * it; completed walks are those plus replays plus prefetch walks (load
 * side, whoever triggered them); PDE-cache misses are the walks that
 * missed it plus the counted lookups that started no walk; retired STLB
 * misses are own walks and merges. */
static void test_truth_accounts(void)
{
	enum { IV = 4 };
	static const char *const names[] = {
		"MISS_CAUSES_A_WALK", "WALK_COMPLETED", "PDE_CACHE_MISS",
	};
	static const unsigned features[2] = {
		MMU_F_ALL, MMU_F_ALL & ~(MMU_F_PF_STLB_MISS | MMU_F_PF_DTLB_MISS)
	};
	struct mmu_config cfg;
	struct mmu_run_opts o;
	struct cp_error err;
	int page, cls, run;

	mmu_config_default(&cfg);
	cfg.abit_clear_ns = 50000;
	mmu_run_opts_default(&o);
	o.warmup_uops = 300000;
	o.intervals = IV;
	o.interval_uops = 50000;
	o.counters = MMU_N_EVENTS;
	for (run = 0; run < 2 * MMU_N_PAGE_MODES; run++) {
		struct cp_buf b, t;
		static unsigned long long ev[IV][MMU_N_EVENTS];
		static unsigned long long tv[IV][MMU_N_CLASSES][MMU_N_PATHS];
		const char *p;
		size_t iv;

		page = run % MMU_N_PAGE_MODES;
		memset(ev, 0, sizeof ev);
		memset(tv, 0, sizeof tv);
		cp_buf_init(&b);
		cp_buf_init(&t);
		mmu_dataset_header(&b);
		mmu_truth_header(&t);
		if (mmu_run(&cfg, features[run / MMU_N_PAGE_MODES], (enum mmu_page)page,
			    "phases:mean=20k;linear:footprint=8M,stores=0.3;"
			    "random:footprint=4G,stores=0.3,run=4;"
			    "linear:footprint=1G,stride=4K,dir=down", &o, "obs",
			    &b, &t, &err)) {
			printf("  run: %s\n", err.msg);
			CHECK(0);
		}
		for (p = strchr(b.data, '\n') + 1; *p; p = strchr(p, '\n') + 1) {
			char e[64];
			unsigned long long v;

			if (sscanf(p, "obs,%zu,%63[^,],%llu", &iv, e, &v) == 3 && iv < IV)
				ev[iv][mmu_event_find(e)] = v;
		}
		for (p = strchr(t.data, '\n') + 1; *p; p = strchr(p, '\n') + 1) {
			char uop[16], path[32];
			unsigned long long v;
			int k;

			if (sscanf(p, "obs,%zu,%15[^,],%31[^,],%llu", &iv, uop, path, &v) != 4 ||
			    iv >= IV)
				continue;
			for (k = 0; k < MMU_N_PATHS; k++)
				if (!strcmp(path, mmu_path_name((enum mmu_path)k)))
					tv[iv][strcmp(uop, "load") ? 1 : 0][k] = v;
		}
		for (iv = 0; iv < IV; iv++)
			for (cls = 0; cls < MMU_N_CLASSES; cls++) {
				const unsigned long long *x = tv[iv][cls];
				unsigned long long own = x[MMU_P_WALK_1REF] + x[MMU_P_WALK_2REF] +
					x[MMU_P_WALK_3REF] + x[MMU_P_WALK_4REF] +
					x[MMU_P_WALK_BYPASSED];
				unsigned long long want[3], got[3];
				int k, off = cls ? MMU_STORE_OFFSET : 0;

				want[0] = own + x[MMU_P_SQUASHED_WALK] + x[MMU_P_WALK_ABORTED];
				want[1] = own + x[MMU_P_SQUASHED_WALK] + x[MMU_P_REPLAYED] +
					  (cls ? 0 : tv[iv][0][MMU_P_PF_WALK] + tv[iv][1][MMU_P_PF_WALK]);
				want[2] = x[MMU_P_PSC_PDPTE] + x[MMU_P_PSC_PML4] + x[MMU_P_PSC_NONE] +
					  x[MMU_P_PDE_NOWALK_MISS];
				for (k = 0; k < 3; k++) {
					char full[64];

					snprintf(full, sizeof full, "%s.%s",
						 cls ? "DTLB_STORE_MISSES" : "DTLB_LOAD_MISSES", names[k]);
					got[k] = ev[iv][mmu_event_find(full)];
					CHECKF(got[k] == want[k], "%s interval %zu %s: counted %llu, truth %llu",
					       mmu_page_name((enum mmu_page)page), iv, full, got[k], want[k]);
				}
				CHECK(x[MMU_P_PSC_PDE] + x[MMU_P_PSC_PDPTE] + x[MMU_P_PSC_PML4] +
				      x[MMU_P_PSC_NONE] == got[0]);
				CHECK(ev[iv][MMU_RETIRED_STLB_MISS_LOADS + cls] == own + x[MMU_P_MERGED]);
				CHECK(ev[iv][MMU_LOAD_CAUSES_WALK + off] >= x[MMU_P_MERGE_REWALK]);
			}
		/* every mechanism showed up somewhere (waited needs merge off) */
		if (run == MMU_N_PAGE_MODES) {
			static const enum mmu_path seen[] = {
				MMU_P_MERGED, MMU_P_WALK_ABORTED,
				MMU_P_ABORTED_QUEUED, MMU_P_REPLAYED, MMU_P_PF_WALK,
				MMU_P_PF_ABIT, MMU_P_PF_ABSENT, MMU_P_PSC_PML4,
				MMU_P_PDE_NOWALK, MMU_P_REFS_BYPASSED, MMU_P_REPLAY_REFS,
				MMU_P_WALK_BYPASSED, MMU_P_SQUASHED_WALK,
			};
			size_t k;

			for (k = 0; k < sizeof seen / sizeof seen[0]; k++) {
				unsigned long long sum = 0;

				for (iv = 0; iv < IV; iv++)
					sum += tv[iv][0][seen[k]] + tv[iv][1][seen[k]];
				CHECKF(sum > 0, "no %s", mmu_path_name(seen[k]));
			}
		}
		cp_buf_release(&b);
		cp_buf_release(&t);
	}
}

static void test_workloads(void)
{
	struct cp_error err;
	struct mmu_workload *w;
	uint64_t va, first;
	int st, i, stores = 0;

	w = mmu_workload_new("linear:footprint=8K,stride=1K,dir=down", 1, &err);
	CHECK(w != NULL);
	if (w) {
		CHECK_STR(mmu_workload_label(w), "linear-down-s1024-fp8k");
		mmu_workload_next(w, &first, &st);
		for (i = 1; i < 8; i++) {
			mmu_workload_next(w, &va, &st);
			CHECK(va == first - (uint64_t)i * 1024);
			CHECK(!st);
		}
		mmu_workload_next(w, &va, &st);
		CHECK(va == first);            /* wraps */
		mmu_workload_free(w);
	}
	w = mmu_workload_new("random:footprint=1M,stores=0.5", 1, &err);
	CHECK(w != NULL);
	if (w) {
		CHECK_STR(mmu_workload_label(w), "random-fp1m");
		for (i = 0; i < 1000; i++) {
			mmu_workload_next(w, &va, &st);
			CHECK(va >= (1ull << 40) && va < (1ull << 40) + (1 << 20));
			stores += st;
		}
		CHECK(stores > 400 && stores < 600);
		mmu_workload_free(w);
	}
	CHECK(!mmu_workload_new("linear:footprint=1Q", 1, &err));
	CHECK(strstr(err.msg, "footprint") != NULL);
	CHECK(!mmu_workload_new("linear:dir=sideways", 1, &err));
	CHECK(!mmu_workload_new("linear:stores=2", 1, &err));
	CHECK(!mmu_workload_new("linear:colour=red", 1, &err));
	CHECK(!mmu_workload_new("zigzag", 1, &err));
	CHECK(strstr(err.msg, "unknown workload 'zigzag'") != NULL);
	CHECK(!mmu_workload_new("trace", 1, &err));
	CHECK(!mmu_workload_new("trace:/nonexistent/t.out", 1, &err));
	CHECK(err.code == CP_EIO);
}

/* phases: two linear streams in their own 1G-aligned regions; phases of
 * length 1 .. 2·mean − 1 alternate between them (with two workloads the
 * next is always the other), each stream resumes where it stopped, and
 * the seed fixes the sequence. */
static void test_phases(void)
{
	const char *spec = "phases:mean=1000;linear:footprint=4M,stride=64;"
			   "linear:footprint=3G,stride=4K,stores=1";
	struct cp_error err;
	struct mmu_workload *w, *v;
	uint64_t va, next[2], base[2] = { 1ull << 40, (1ull << 40) + (1ull << 30) };
	uint64_t run = 0, runs = 0, total = 0, longest = 0, shortest = UINT64_MAX;
	int st, cur = -1, i, same = 1, resumed = 1;

	w = mmu_workload_new(spec, 3, &err);
	v = mmu_workload_new(spec, 3, &err);
	CHECK(w != NULL && v != NULL);
	if (!w || !v)
		goto out;
	CHECK_STR(mmu_workload_label(w),
		  "phases-linear-up-s64-fp4m+linear-up-s4096-fp3g");
	next[0] = base[0];
	next[1] = base[1];
	for (i = 0; i < 200000; i++) {
		uint64_t va2;
		int st2, k;

		mmu_workload_next(w, &va, &st);
		mmu_workload_next(v, &va2, &st2);
		same &= va == va2 && st == st2;
		k = va >= base[1];
		CHECK(va < base[k] + (k ? 3ull << 30 : 4ull << 20));
		CHECK(st == k);
		resumed &= va == next[k];
		next[k] = va + (k ? 4096 : 64);
		if (next[k] == base[k] + (k ? 3ull << 30 : 4ull << 20))
			next[k] = base[k];      /* the stream wraps around */
		if (k != cur) {
			if (cur >= 0) {
				runs++;
				total += run;
				longest = run > longest ? run : longest;
				shortest = run < shortest ? run : shortest;
			}
			cur = k;
			run = 0;
		}
		run++;
	}
	CHECK(same && resumed);
	CHECKF(runs > 80 && total / runs > 900 && total / runs < 1100,
	       "%llu phases, mean %llu", (unsigned long long)runs,
	       (unsigned long long)(runs ? total / runs : 0));
	CHECK(longest <= 1999 && shortest >= 1 && longest > 1500 && shortest < 500);
	mmu_workload_free(v);
	v = mmu_workload_new(spec, 4, &err);     /* another seed */
	if (v) {
		uint64_t a, b;
		int differ = 0;

		mmu_workload_free(w);
		w = mmu_workload_new(spec, 3, &err);
		for (i = 0; i < 5000 && w; i++) {
			mmu_workload_next(w, &a, &st);
			mmu_workload_next(v, &b, &st);
			differ |= a != b;
		}
		CHECK(differ);
	}
out:
	mmu_workload_free(w);
	mmu_workload_free(v);
	CHECK(!mmu_workload_new("phases:linear", 1, &err));
	CHECK(strstr(err.msg, "at least two") != NULL);
	CHECK(!mmu_workload_new("phases:mean=0;linear;random", 1, &err));
	CHECK(strstr(err.msg, "mean") != NULL);
	CHECK(!mmu_workload_new("phases:linear;random:footprint=1Q", 1, &err));
	CHECK_STR(err.msg, "phase 2: bad footprint '1Q'");
	CHECK(!mmu_workload_new("phases:linear;phases:random;linear", 1, &err));
	CHECK(strstr(err.msg, "nested") != NULL);
	CHECK(!mmu_workload_new("phases:random:footprint=64T;random:footprint=64T;linear",
				1, &err));
	CHECK(strstr(err.msg, "47-bit") != NULL);
}

static void test_lackey(void)
{
	char path[] = "/tmp/test_mmu_lackeyXXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct cp_error err;
	struct mmu_workload *w;
	uint64_t va;
	int st;

	CHECK(f != NULL);
	if (!f)
		return;
	fputs("==123== Lackey, an example Valgrind tool\n"
	      "I  04001090,3\n"
	      " L 1ffefffd08,8\n"
	      " S 1ffefffd00,8\n"
	      "I  04001093,5\n"
	      " M 0402a0c8,4\n", f);
	fclose(f);
	w = mmu_workload_new(path, 1, &err);      /* not a workload spec */
	CHECK(!w);
	{
		char spec[64];

		snprintf(spec, sizeof spec, "trace:%s", path);
		w = mmu_workload_new(spec, 1, &err);
	}
	CHECK(w != NULL);
	if (w) {
		CHECK(!strncmp(mmu_workload_label(w), "trace-test_mmu_lackey", 21));
		mmu_workload_next(w, &va, &st);
		CHECK(va == 0x1ffefffd08ull && !st);
		mmu_workload_next(w, &va, &st);
		CHECK(va == 0x1ffefffd00ull && st);
		mmu_workload_next(w, &va, &st);
		CHECK(va == 0x0402a0c8ull && !st);     /* M: load, then store */
		mmu_workload_next(w, &va, &st);
		CHECK(va == 0x0402a0c8ull && st);
		mmu_workload_next(w, &va, &st);
		CHECK(va == 0x1ffefffd08ull && !st);   /* replayed in a loop */
		mmu_workload_free(w);
	}
	f = fopen(path, "w");
	if (f) {
		fputs(" X 1234,8\n", f);
		fclose(f);
	}
	{
		char spec[64];

		snprintf(spec, sizeof spec, "trace:file=%s", path);
		w = mmu_workload_new(spec, 1, &err);
		CHECK(!w && err.line == 1);
	}
	unlink(path);
}

static void test_config(void)
{
	struct mmu_config c;
	struct cp_error err;
	struct cp_buf b;
	char path[] = "/tmp/test_mmu_cfgXXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	mmu_config_default(&c);
	CHECK(mmu_config_check(&c, &err) == 0);
	CHECK(mmu_config_set(&c, "stlb_entries", "512", &err) == 0 && c.stlb_entries == 512);
	CHECK(mmu_config_set(&c, "spec_share", "0.25", &err) == 0 && c.spec_share == 0.25);
	CHECK(mmu_config_set(&c, "abort_after_refs", "-1", &err) == 0);
	CHECK(mmu_config_set(&c, "walkers", "-1", &err) == CP_EINPUT);
	CHECK(mmu_config_set(&c, "nope", "1", &err) == CP_EINPUT);
	CHECK(mmu_config_set(&c, "stlb_ways", "3", &err) == 0);
	CHECK(mmu_config_check(&c, &err) == CP_EINPUT);
	CHECK(strstr(err.msg, "stlb") != NULL);
	mmu_config_default(&c);
	cp_buf_init(&b);
	mmu_config_format(&c, &b);
	CHECK(strstr(b.data, "stlb_entries       = 1024") != NULL);
	cp_buf_release(&b);
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("# a smaller machine\nwalkers = 4\n  window=32  # comment\n\nbogus = 1\n", f);
	fclose(f);
	CHECK(mmu_config_load(&c, path, &err) == CP_EINPUT);
	CHECK(err.line == 5);
	CHECK(c.walkers == 4 && c.window == 32);
	unlink(path);
	CHECK(mmu_config_load(&c, path, &err) == CP_EIO);
}

/* A workload whose data spans more 1G regions above 4 TB than the
 * machine has physical memory for fails the run with a message that says
 * so; one that spans them all runs. */
static void test_physical_full(void)
{
	struct mmu_run_opts o;
	struct mmu_config cfg;
	struct cp_error err;
	struct cp_buf b;

	mmu_config_default(&cfg);
	mmu_run_opts_default(&o);
	o.warmup_uops = 0;
	o.intervals = 2;
	o.interval_uops = 10000;
	cp_buf_init(&b);
	/* from 1T: 5120 regions above 4T, which 20000 random lines reach
	 * about 4500 of */
	CHECK(mmu_run(&cfg, 0, MMU_PAGE_1G, "random:footprint=8T", &o, "obs",
		      &b, NULL, &err) == CP_ELIMIT);
	CHECK(err.code == CP_ELIMIT);
	CHECK(strstr(err.msg, "physical memory") != NULL);
	CHECK(strstr(err.msg, "2048 distinct 1G regions above 4 TB") != NULL);
	cp_buf_release(&b);
	/* 1T .. 6T: all 2048 regions above 4T fit */
	o.interval_uops = 40000;
	cp_buf_init(&b);
	CHECK(mmu_run(&cfg, 0, MMU_PAGE_1G, "random:footprint=5T", &o, "obs",
		      &b, NULL, &err) == CP_OK);
	cp_buf_release(&b);
}

/* Allocation failures surface as CP_ENOMEM, never a crash or a leak. */
static void test_alloc_failures(void)
{
	struct mmu_config c;
	struct cp_error err;
	unsigned long k;

	mmu_config_default(&c);
	for (k = 1; k < 40; k++) {
		struct mmu_machine *m;

		cp_alloc_fail_at(k);
		m = mmu_machine_new(&c, MMU_F_ALL, MMU_PAGE_4K, 1, &err);
		cp_alloc_fail_at(0);
		if (m) {
			mmu_machine_free(m);
			break;
		}
		CHECK(err.code == CP_ENOMEM);
	}
	CHECK(k > 5 && k < 40);
}

int main(void)
{
	check_prog = "test_mmu_run";
	RUN(test_no_mux);
	RUN(test_mux);
	RUN(test_events_subset);
	RUN(test_cpus);
	RUN(test_deterministic);
	RUN(test_truth);
	RUN(test_truth_accounts);
	RUN(test_workloads);
	RUN(test_phases);
	RUN(test_lackey);
	RUN(test_config);
	RUN(test_alloc_failures);
	RUN(test_physical_full);
	return check_summary();
}
