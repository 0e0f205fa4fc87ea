/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/workload.c: native memory-access microbenchmarks to record on real
 * machines: linear access (footprint, stride, direction, store ratio) and
 * random access (footprint, store ratio), on 4K pages or on hugetlb 2M/1G
 * pages when the system provides them.  The same workloads drive the MMU
 * simulator's synthetic traces, so model checks on both can be compared. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "hw/hec.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

/* splitmix64: a fixed seed gives the same address sequence everywhere. */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Map `bytes` (already a multiple of the page size) with the asked page
 * size, or explain why the system cannot. */
static void *map_pages(size_t bytes, unsigned page_kb, struct cp_error *err)
{
	char dir[96], path[160];
	struct stat st;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	const char *label = page_kb == 2048 ? "2M" : "1G";
	void *p;

	if (page_kb == 4) {
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
		if (p == MAP_FAILED) {
			cp_error_set(err, CP_EUNSUPPORTED, "cannot map %zu bytes: %s",
				     bytes, strerror(errno));
			return NULL;
		}
		/* 4K means 4K: keep transparent huge pages out */
		madvise(p, bytes, MADV_NOHUGEPAGE);
		return p;
	}
	snprintf(dir, sizeof dir, "/sys/kernel/mm/hugepages/hugepages-%ukB", page_kb);
	if (stat(dir, &st) != 0) {
		cp_error_set(err, CP_EUNSUPPORTED, "this system provides no %s pages "
			     "(no %s: the processor or the kernel lacks them)",
			     label, dir);
		return NULL;
	}
	flags |= MAP_HUGETLB | (page_kb == 2048 ? 21 << MAP_HUGE_SHIFT
						: 30 << MAP_HUGE_SHIFT);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED) {
		int e = errno;
		long free_pages, total;

		snprintf(path, sizeof path, "%s/free_hugepages", dir);
		free_pages = read_long(path);
		snprintf(path, sizeof path, "%s/nr_hugepages", dir);
		total = read_long(path);
		if (e == ENOMEM || e == EINVAL)
			cp_error_set(err, CP_EUNSUPPORTED,
				     "cannot map %zu bytes with %s pages: %ld of %ld "
				     "reserved %s pages are free and %zu are needed "
				     "(as root: echo %zu > %s/nr_hugepages)",
				     bytes, label, free_pages, total, label,
				     bytes / ((size_t)page_kb * 1024),
				     bytes / ((size_t)page_kb * 1024), dir);
		else
			cp_error_set(err, CP_EUNSUPPORTED,
				     "cannot map %zu bytes with %s pages: %s",
				     bytes, label, strerror(e));
		return NULL;
	}
	return p;
}

int hec_workload_run(const struct hec_workload *w,
		     struct hec_workload_result *res, struct cp_error *err)
{
	size_t page = (size_t)w->page_kb * 1024, bytes, i;
	volatile uint64_t *mem;
	uint64_t t0, n, sum = 0, loads = 0, stores = 0, seed = w->seed;
	double credit = 0.0;

	memset(res, 0, sizeof *res);
	if (w->page_kb != 4 && w->page_kb != 2048 && w->page_kb != 1048576)
		return cp_error_set(err, CP_EINPUT, "page size must be 4k, 2m or 1g");
	if (w->stride < 8 || w->stride % 8)
		return cp_error_set(err, CP_EINPUT,
				    "stride must be a multiple of 8 bytes, not %zu",
				    w->stride);
	if (w->footprint < w->stride)
		return cp_error_set(err, CP_EINPUT,
				    "footprint (%zu bytes) is smaller than the "
				    "stride (%zu bytes)", w->footprint, w->stride);
	if (!(w->store_ratio >= 0.0 && w->store_ratio <= 1.0))
		return cp_error_set(err, CP_EINPUT, "store ratio must be in [0, 1]");
	bytes = (w->footprint + page - 1) / page * page;
	mem = map_pages(bytes, w->page_kb, err);
	if (!mem)
		return CP_EUNSUPPORTED;
	/* touch every page first, so the timed phase measures translation and
	 * caching, not first-touch faults */
	for (i = 0; i < bytes / 8; i += page / 8)
		mem[i] = i;
	res->bytes = bytes;

	t0 = cp_nanoseconds();
	if (w->kind == HEC_WORKLOAD_LINEAR) {
		/* walk the footprint by stride, wrapping, up or down; a store
		 * every 1/store_ratio accesses (deterministic credit) */
		size_t slots = w->footprint / w->stride, step = w->stride / 8, k = 0;

		for (n = 0; n < w->accesses; n++) {
			size_t slot = w->descending ? slots - 1 - k : k;
			volatile uint64_t *a = mem + slot * step;

			credit += w->store_ratio;
			if (credit >= 1.0) {
				credit -= 1.0;
				*a = n;
				stores++;
			} else {
				sum += *a;
				loads++;
			}
			if (++k == slots)
				k = 0;
		}
	} else {
		/* uniformly random 8-byte words of the footprint */
		uint64_t words = w->footprint / 8;

		for (n = 0; n < w->accesses; n++) {
			volatile uint64_t *a = mem + splitmix64(&seed) % words;

			credit += w->store_ratio;
			if (credit >= 1.0) {
				credit -= 1.0;
				*a = n;
				stores++;
			} else {
				sum += *a;
				loads++;
			}
		}
	}
	res->seconds = (double)(cp_nanoseconds() - t0) / 1e9;
	res->loads = loads;
	res->stores = stores;
	res->checksum = sum;
	munmap((void *)mem, bytes);
	return 0;
}
