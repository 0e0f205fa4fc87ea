/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/fuzz/fuzz_perfstat.c: libFuzzer target for the `perf stat`
 * importer (hw/perfstat.c), every variant (CSV with any separator, JSON,
 * the human-readable output): any byte string must convert or fail with
 * a message, and what it converts must be a dataset the loader accepts:
 * an import that check would then reject is a bug (the target aborts).
 * The first byte picks the options (runs pooled as intervals over the
 * input cut in two, --runs, --strict), so every path is reached.
 * `make fuzz FUZZ_TARGETS=fuzz_perfstat`. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hw/perfstat.h"
#include "stats/region.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hec_perfstat_options opt = { HEC_PERFSTAT_HEADER, NULL, 0, NULL, 0 };
	struct hec_perfstat_input in[2];
	struct hec_perfstat_report rep;
	struct cp_error err;
	struct cp_buf out;
	size_t n = 1;
	unsigned pick = size ? data[0] : 0;

	/* a seed's first byte is a newline (10): plain options */
	if (size && pick != '\n') {
		if (pick & 1)
			opt.flags |= HEC_PERFSTAT_RUNS_AS_INTERVALS;
		if (pick & 2)
			opt.flags |= HEC_PERFSTAT_STRICT;
		if (pick & 4)
			opt.runs = 3;
		if (pick & 8)
			opt.flags |= HEC_PERFSTAT_STRIP_MODIFIERS;
	}
	if (size) {
		data++;
		size--;
	}
	in[0].name = "fuzz.stat";
	in[0].text = (const char *)data;
	in[0].len = size;
	in[0].observation = "run";
	if ((opt.flags & HEC_PERFSTAT_RUNS_AS_INTERVALS) && size > 1) {
		/* two inputs: the text cut in the middle */
		in[0].len = size / 2;
		in[1] = in[0];
		in[1].name = "fuzz2.stat";
		in[1].text = (const char *)data + size / 2;
		in[1].len = size - size / 2;
		n = 2;
	}
	cp_error_clear(&err);
	cp_buf_init(&out);
	hec_perfstat_report_init(&rep);
	if (hec_perfstat_convert(in, n, &opt, &out, &rep, &err) == CP_OK && !out.failed) {
		struct stats_dataset *d = NULL;
		struct cp_error lerr;

		cp_error_clear(&lerr);
		if (stats_dataset_parse("fuzz.csv", out.data ? out.data : "",
					out.len, &d, NULL, &lerr) != CP_OK &&
		    lerr.code != CP_ENOMEM) {
			char line[CP_ERROR_MAX + 300];

			cp_error_format(&lerr, line, sizeof line);
			fprintf(stderr, "imported dataset does not load: %s\n"
				"%s", line, out.data ? out.data : "");
			abort();
		}
		stats_dataset_free(d);
	}
	hec_perfstat_report_release(&rep);
	cp_buf_release(&out);
	return 0;
}
