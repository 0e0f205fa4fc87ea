/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/fuzz/fuzz_dataset.c: libFuzzer target for the dataset loader
 * (stats/dataset.c): any byte string must load or fail with a message,
 * and every observation of a dataset that loads must give its rates and
 * a region (or a clean error) without crashing, leaking or undefined
 * behaviour, and its observations' first lines and event names must be
 * consistent.  On threads (its lines cut into ranges of one byte and up,
 * in memory and as a file read at offsets) it must give what one thread
 * gives, field by field and message by message (one input in
 * THREADS_EVERY, 64: the threads are the slow part, and one in 16 held
 * the target to under 1,000 executions a second).  Its names written back
 * by the dataset writer (cp_buf_csv_field) load as the same names.
 * `make fuzz FUZZ_TARGETS=fuzz_dataset` runs it. */
#include <stddef.h>
#include <stdint.h>

#include "stats/region.h"
#include "tests/fuzz/fuzz_file.h"
#include "tests/unit/dataset_same.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define THREADS_EVERY 64

/* The writer's round trip: every observation and event name of d, as
 * the dataset writer quotes it, loads back as itself. */
static void names_round_trip(const struct stats_dataset *d)
{
	size_t no = stats_dataset_n_observations(d), ne = stats_dataset_n_events(d);
	size_t o, e;
	struct stats_dataset *back = NULL;
	struct cp_error err;
	struct cp_buf b;

	if (no > 4)
		no = 4;
	if (ne > 8)
		ne = 8;
	cp_buf_init(&b);
	cp_buf_puts(&b, CP_DATASET_HEADER);
	for (o = 0; o < no; o++)
		for (e = 0; e < ne; e++) {
			cp_buf_csv_field(&b, stats_dataset_observation(d, o));
			cp_buf_puts(&b, ",0,");
			cp_buf_csv_field(&b, stats_dataset_event(d, e));
			cp_buf_puts(&b, ",1,1,1\n");
		}
	cp_error_clear(&err);
	if (!b.failed && no && ne) {
		if (stats_dataset_parse("back.csv", b.data, b.len, &back, NULL,
					&err) != CP_OK)
			__builtin_trap();    /* written names that do not load */
		for (o = 0; o < no; o++)
			if (stats_dataset_find_observation(back,
				stats_dataset_observation(d, o)) == (size_t)-1)
				__builtin_trap();
		for (e = 0; e < ne; e++)
			if (stats_dataset_find_event(back, stats_dataset_event(d, e)) ==
			    (size_t)-1)
				__builtin_trap();
		stats_dataset_free(back);
	}
	cp_buf_release(&b);
}

/* The loader on 1 thread, on 3 in memory and on 2 from the file. */
static void same_on_threads(const uint8_t *data, size_t size)
{
	struct load_result one, many;
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof path);

	if (fd < 0)
		return;
	load_result_read(&one, path, (const char *)data, size, 1, 1);
	load_result_read(&many, path, (const char *)data, size, 3, 1);
	if (load_result_diff(&one, &many))
		__builtin_trap();
	load_result_release(&many);
	load_result_read(&many, path, NULL, 0, 2, 1);
	if (load_result_diff(&one, &many))
		__builtin_trap();
	load_result_release(&many);
	load_result_release(&one);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stats_dataset *d = NULL;
	struct cp_error err;
	struct cp_buf diag;
	size_t obs, e, k;

	cp_error_clear(&err);
	cp_buf_init(&diag);
	if (stats_dataset_parse("fuzz.csv", (const char *)data, size, &d, &diag,
				&err) == CP_OK) {
		const char *events[8];

		k = stats_dataset_n_events(d);
		if (k > 8)
			k = 8;
		for (e = 0; e < k; e++) {
			events[e] = stats_dataset_event(d, e);
			if (stats_dataset_find_event(d, events[e]) != e)
				__builtin_trap();     /* names are unique */
		}
		for (obs = 0; obs < stats_dataset_n_observations(d) && obs < 4; obs++) {
			struct region *r = NULL;
			double *rates = NULL;
			size_t n = 0;

			(void)stats_dataset_observation(d, obs);
			(void)stats_dataset_n_intervals(d, obs);
			/* every observation has a first row, after the header */
			if (stats_dataset_observation_line(d, obs) < 2)
				__builtin_trap();
			(void)stats_observation_error(d, obs, CP_EINPUT, &err, "%s",
						      "fuzz");
			for (e = 0; e < k; e++)
				(void)stats_dataset_n_counted(d, obs, e);
			if (stats_observation_rates(d, obs, events, k, &rates, &n,
						    &err) == CP_OK)
				cp_free(rates);
			if (stats_observation_region(d, obs, events, k, NULL, &r,
						     &err) == CP_OK)
				region_free(r);
		}
		names_round_trip(d);
	}
	stats_dataset_free(d);
	cp_buf_release(&diag);
	if (cp_hash(CP_HASH_SEED, data, size) % THREADS_EVERY == 0)
		same_on_threads(data, size);
	return 0;
}
