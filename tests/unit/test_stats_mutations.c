/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_stats_mutations.c: the dataset loader and the perf
 * importer on mutated copies of the committed captures (fixed seed):
 * every input either loads or fails with CP_EINPUT and a located message;
 * under the sanitizers, nothing reads out of bounds or leaks.  A cheap
 * stand-in for a fuzz target. */
#include <stdio.h>
#include <string.h>

#include "common/cp.h"
#include "hw/perfstat.h"
#include "stats/region.h"
#include "check.h"

#define MUTATIONS 1500

static char *read_all(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;

	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	buf = cp_malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
		cp_free(buf);
		buf = NULL;
	}
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

static unsigned long rng = 88172645463325252ul;

static unsigned long next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Flip, insert or delete a few bytes (from a small alphabet of the
 * characters that matter to the parsers). */
static size_t mutate(const char *src, size_t len, char *dst)
{
	static const char alphabet[] = ",\"\n-.0123456789<>{}: eax";
	size_t n = len, i, edits = 1 + next() % 4;

	memcpy(dst, src, len);
	for (i = 0; i < edits && n > 0; i++) {
		size_t at = next() % n;

		switch (next() % 3) {
		case 0:
			dst[at] = alphabet[next() % (sizeof alphabet - 1)];
			break;
		case 1:
			memmove(dst + at + 1, dst + at, n - at);
			dst[at] = alphabet[next() % (sizeof alphabet - 1)];
			n++;
			break;
		default:
			memmove(dst + at, dst + at + 1, n - at - 1);
			n--;
		}
	}
	return n;
}

static void test_dataset_mutations(void)
{
	size_t len, i, n, loaded = 0;
	char *src = read_all("tests/data/perf/per-thread.long.csv", &len), *buf;

	CHECK(src != NULL);
	if (!src)
		return;
	buf = cp_malloc(len + 16);
	for (i = 0; i < MUTATIONS; i++) {
		struct stats_dataset *d = NULL;
		struct cp_error err;
		int rc;

		n = mutate(src, len, buf);
		cp_error_clear(&err);
		rc = stats_dataset_parse("m.csv", buf, n, &d, NULL, &err);
		CHECKF(rc == 0 || (rc == CP_EINPUT && err.line > 0),
		       "mutation %zu: rc %d line %u: %s", i, rc, err.line, err.msg);
		if (rc == 0) {
			const char *ev[1];
			double *rates = NULL;
			size_t nr;

			loaded++;
			ev[0] = stats_dataset_event(d, 0);
			if (!stats_observation_rates(d, 0, ev, 1, &rates, &nr, &err))
				cp_free(rates);
		}
		stats_dataset_free(d);
	}
	printf("  %zu of %d mutated datasets loaded\n", loaded, MUTATIONS);
	cp_free(buf);
	cp_free(src);
}

static void test_perfstat_mutations(void)
{
	static const char *const files[] = { "tests/data/perf/per-cpu.csv",
					     "tests/data/perf/sw.json",
					     "tests/data/perf/std-repeat.txt",
					     "tests/data/perf/std-interval-summary.txt" };
	const size_t nf = sizeof files / sizeof *files;
	size_t f, i, n, len, ok = 0;

	for (f = 0; f < nf; f++) {
		char *src = read_all(files[f], &len), *buf;

		CHECK(src != NULL);
		if (!src)
			continue;
		buf = cp_malloc(len + 16);
		for (i = 0; i < MUTATIONS / nf; i++) {
			struct hec_perfstat_options opt = { HEC_PERFSTAT_HEADER, NULL,
							    0, NULL, 0 };
			struct hec_perfstat_input in = { "m.csv", buf, 0, "o" };
			struct cp_buf out;
			struct cp_error err;
			int rc;

			n = mutate(src, len, buf);
			in.len = n;
			cp_buf_init(&out);
			cp_error_clear(&err);
			rc = hec_perfstat_convert(&in, 1, &opt, &out, NULL, &err);
			CHECKF(rc == 0 || rc == CP_EINPUT,
			       "%s mutation %zu: rc %d: %s", files[f], i, rc, err.msg);
			if (rc == 0) {
				/* what the importer writes, the loader takes */
				struct stats_dataset *d = NULL;

				ok++;
				CHECKF(stats_dataset_parse("o.csv", out.data, out.len,
							   &d, NULL, &err) == 0,
				       "%s mutation %zu: output does not load: %s",
				       files[f], i, err.msg);
				stats_dataset_free(d);
			}
			cp_buf_release(&out);
		}
		cp_free(buf);
		cp_free(src);
	}
	printf("  %zu of %d mutated perf captures imported\n", ok, MUTATIONS);
}

int main(void)
{
	check_prog = "test_stats_mutations";
	RUN(test_dataset_mutations);
	RUN(test_perfstat_mutations);
	return check_summary();
}
