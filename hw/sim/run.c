/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/sim/run.c: one observation = one workload run on one machine,
 * counted the way perf counts: P physical counters, the selected events
 * in groups of P rotated round-robin every mux slice of simulated time;
 * each interval reports per event the raw count collected while its
 * group was scheduled, the interval's time (enabled) and the time its
 * group was scheduled (running).  Rows go to the long CSV dataset. */
#include <stdio.h>
#include <string.h>

#include "hw/sim/mmu.h"
#include "hw/sim/sim_int.h"

static const char *const sweep[] = {
	"linear:footprint=32M,stride=64,dir=up,stores=0.2",
	"linear:footprint=32M,stride=64,dir=down,stores=0.2",
	"linear:footprint=8G,stride=4K,dir=up,stores=0.1",
	"random:footprint=1G,stores=0.2",
	"random:footprint=16G,stores=0.2",
	/* programs that move between those: a loop over an array, a hash
	 * table probed at random, a stream over a big one */
	"phases:mean=300k;linear:footprint=32M,stride=64,dir=up,stores=0.2;"
	"random:footprint=1G,stores=0.2,run=4;linear:footprint=8G,stride=4K,dir=up,stores=0.1",
	"phases:mean=100k;linear:footprint=8G,stride=4K,dir=up,stores=0.1;"
	"random:footprint=16G,stores=0.2",
	NULL
};

const char *const *mmu_sweep_workloads(void)
{
	return sweep;
}

void mmu_run_opts_default(struct mmu_run_opts *o)
{
	memset(o, 0, sizeof *o);
	o->intervals = 50;
	o->interval_uops = 100000;
	o->counters = 4;
	o->mux_ns = 4000;
	o->warmup_uops = 1000000;
	o->seed = 1;
	o->events = 0;
}

int mmu_events_parse(const struct mmu_cpu *cpu, const char *list,
		     uint32_t *out, struct cp_error *err)
{
	const char *p = list;
	uint32_t set = 0;

	if (!cpu)
		cpu = mmu_cpu_at(0);
	while (*p) {
		size_t n = strcspn(p, ","), j;

		for (j = 0; n && j < cpu->n_events; j++) {
			const struct mmu_cpu_event *ev = &cpu->events[j];

			if ((strlen(ev->event) == n && !strncmp(ev->event, p, n)) ||
			    (ev->name && strlen(ev->name) == n &&
			     !strncmp(ev->name, p, n)))
				break;
		}
		if (n && j == cpu->n_events)
			return cp_error_set(err, CP_EINPUT, "unknown event '%.*s'%s%s",
					    (int)n, p, cpu == mmu_cpu_at(0) ? "" :
					    " of ", cpu == mmu_cpu_at(0) ? "" :
					    cpu->name);
		if (n)
			set |= 1u << j;
		p += n;
		if (*p == ',')
			p++;
	}
	if (!set)
		return cp_error_set(err, CP_EINPUT, "empty event list");
	*out = set;
	return CP_OK;
}

void mmu_dataset_header(struct cp_buf *out)
{
	cp_buf_puts(out, CP_DATASET_HEADER);
}

void mmu_truth_header(struct cp_buf *out)
{
	cp_buf_puts(out, "observation,interval,uop,path,count\n");
}

/* Multiplexing state of one observation. */
struct mux {
	const struct mmu_cpu *cpu;     /* whose events */
	size_t n;                      /* selected events */
	int ev[MMU_MAX_CPU_EVENTS];    /* their indices in cpu's events */
	size_t per, groups, active;    /* events per group, groups, active group */
	uint64_t now[MMU_MAX_CPU_EVENTS];  /* cpu's events' values */
	uint64_t snap[MMU_MAX_CPU_EVENTS]; /* ... at the last slice edge */
	uint64_t value[MMU_MAX_CPU_EVENTS], running[MMU_MAX_CPU_EVENTS];
	uint64_t slice_start, next_slice, mux_ns;
};

/* Credit the active group with what happened since the last edge. */
static void mux_credit(struct mux *x, const struct mmu_machine *m, uint64_t t)
{
	size_t j;

	mmu_cpu_values(x->cpu, mmu_counts(m), mmu_truth(m), x->now);
	for (j = x->active * x->per; j < x->n && j < (x->active + 1) * x->per; j++) {
		int e = x->ev[j];

		x->value[j] += x->now[e] - x->snap[e];
		x->running[j] += t - x->slice_start;
	}
	memcpy(x->snap, x->now, sizeof x->snap);
	x->slice_start = t;
}

static void mux_advance(struct mux *x, const struct mmu_machine *m, uint64_t t)
{
	while (t >= x->next_slice) {
		mux_credit(x, m, x->next_slice);
		x->active = (x->active + 1) % x->groups;
		x->next_slice += x->mux_ns;
	}
}

/* The first cycle whose ns (cycles / ghz, truncated) reaches ns. */
static uint64_t edge_cycles(const struct mmu_config *cfg, uint64_t ns)
{
	uint64_t c = (uint64_t)((double)ns * cfg->ghz);

	while (c && (uint64_t)((double)(c - 1) / cfg->ghz) >= ns)
		c--;
	while ((uint64_t)((double)c / cfg->ghz) < ns)
		c++;
	return c;
}

void mmu_stream_fill(struct mmu_stream *s)
{
	size_t at = s->made % MMU_RING, i;
	uint64_t rng = s->rng;

	mmu_workload_fill(s->w, s->va + at, s->st + at, MMU_BATCH);
	if (!s->spec_cut) {
		memset(s->spec + at, 0, MMU_BATCH);
	} else {
		for (i = 0; i < MMU_BATCH; i++)
			s->spec[at + i] = rng_next(&rng) >= s->spec_cut ? 0 :
				(uint8_t)(1 + rng_next(&rng) % MMU_SPEC_AHEAD);
	}
	s->rng = rng;
	s->made += MMU_BATCH;
}

int mmu_run(const struct mmu_config *cfg, unsigned features,
	    enum mmu_page page, const char *workload,
	    const struct mmu_run_opts *o, const char *obs,
	    struct cp_buf *dataset, struct cp_buf *truth, struct cp_error *err)
{
	struct mmu_workload *w = mmu_workload_new(workload, o->seed, err);
	int rc;

	if (!w)
		return err ? err->code : CP_EINPUT;
	rc = mmu_run_workload(cfg, features, page, w, o, obs, dataset, truth, err);
	mmu_workload_free(w);
	return rc;
}

int mmu_run_workload(const struct mmu_config *cfg, unsigned features,
		     enum mmu_page page, struct mmu_workload *w,
		     const struct mmu_run_opts *o, const char *obs,
		     struct cp_buf *dataset, struct cp_buf *truth,
		     struct cp_error *err)
{
	struct mmu_machine *m = NULL;
	struct mmu_stream s;
	struct mux x;
	uint64_t truth0[MMU_N_CLASSES * MMU_N_PATHS];
	size_t i, j, k;
	uint64_t t0, t, edge;
	int rc = CP_OK;
	uint32_t events;

	memset(&s, 0, sizeof s);
	memset(&x, 0, sizeof x);
	x.cpu = o->cpu ? o->cpu : mmu_cpu_at(0);
	if (x.cpu->n_events > MMU_MAX_CPU_EVENTS)
		return cp_error_set(err, CP_EINTERNAL, "%s has too many events",
				    x.cpu->name);
	events = o->events ? o->events :
		 (uint32_t)((1ull << x.cpu->n_events) - 1);
	if (!o->counters || !o->mux_ns || !o->interval_uops)
		return cp_error_set(err, CP_EINPUT,
				    "counters, mux slice and interval must be positive");
	m = mmu_machine_new(cfg, features, page, o->seed, err);
	if (!m)
		return err ? err->code : CP_EINPUT;
	mmu_workload_restart(w, o->seed);
	s.w = w;
	s.rng = o->seed * 0x2545f4914f6cdd1dull + 7;
	s.spec_cut = cfg->spec_share >= 1 ? UINT64_MAX :
		     (uint64_t)(cfg->spec_share * 18446744073709551616.0);
	for (k = 0; k < x.cpu->n_events; k++)
		if (events & (1u << k))
			x.ev[x.n++] = (int)k;
	if (!x.n) {
		rc = cp_error_set(err, CP_EINPUT, "no event of %s selected",
				  x.cpu->name);
		goto out;
	}
	x.per = o->counters < x.n ? o->counters : x.n;
	x.groups = (x.n + x.per - 1) / x.per;
	x.mux_ns = o->mux_ns;

	(void)mmu_stream_run(&s, m, o->warmup_uops, UINT64_MAX);
	t = mmu_ns(m);
	mmu_cpu_values(x.cpu, mmu_counts(m), mmu_truth(m), x.snap);
	x.slice_start = t;
	x.next_slice = t + x.mux_ns;
	edge = edge_cycles(cfg, x.next_slice);
	memcpy(truth0, mmu_truth(m), sizeof truth0);
	for (i = 0; i < o->intervals; i++) {
		t0 = x.slice_start;
		memset(x.value, 0, sizeof x.value);
		memset(x.running, 0, sizeof x.running);
		for (k = 0; k < o->interval_uops;) {
			/* The machine stops at the slice edge (compared in
			 * cycles: no division per μop). */
			k += mmu_stream_run(&s, m, o->interval_uops - k, edge);
			if (mmu_cycles(m) >= edge) {
				mux_advance(&x, m, mmu_ns(m));
				edge = edge_cycles(cfg, x.next_slice);
			}
		}
		t = mmu_ns(m);
		mux_credit(&x, m, t);
		for (j = 0; j < x.n; j++) {
			cp_buf_csv_field(dataset, obs);
			cp_buf_printf(dataset, ",%zu,%s,%llu,%llu,%llu\n", i,
				      x.cpu->events[x.ev[j]].event,
				      (unsigned long long)x.value[j],
				      (unsigned long long)(t - t0),
				      (unsigned long long)x.running[j]);
		}
		if (truth) {
			const uint64_t *tr = mmu_truth(m);

			for (k = 0; k < MMU_N_CLASSES * MMU_N_PATHS; k++) {
				cp_buf_csv_field(truth, obs);
				cp_buf_printf(truth, ",%zu,%s,%s,%llu\n", i,
					      k < MMU_N_PATHS ? "load" : "store",
					      mmu_path_name((enum mmu_path)(k % MMU_N_PATHS)),
					      (unsigned long long)(tr[k] - truth0[k]));
				truth0[k] = tr[k];
			}
		}
	}
	rc = mmu_machine_status(m);
	if (rc == CP_ELIMIT)
		cp_error_set(err, rc, "the workload needs more than the simulated "
			     "machine's physical memory (data in at most %d "
			     "distinct 1G regions above 4 TB of virtual addresses, "
			     "and 2 TB of page tables)",
			     MMU_DATA_HI_GB);
	else if (rc)
		cp_error_set(err, rc, "out of memory for page tables");
	else if (dataset->failed || (truth && truth->failed))
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
out:
	mmu_machine_free(m);
	return rc;
}
