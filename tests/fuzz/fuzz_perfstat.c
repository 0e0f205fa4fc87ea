/* tests/fuzz/fuzz_perfstat.c: libFuzzer target for the `perf stat`
 * importer (hw/perfstat.c), CSV (-x ,) and JSON (-j) alike: any byte
 * string must convert or fail with a message, and what it converts must
 * be a dataset the loader accepts: an import that check would then reject
 * is a bug (the target aborts).  `make fuzz FUZZ_TARGETS=fuzz_perfstat`. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hw/perfstat.h"
#include "stats/region.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hec_perfstat_summary sum;
	struct cp_error err;
	struct cp_buf out;

	cp_error_clear(&err);
	cp_buf_init(&out);
	if (hec_perfstat_convert("fuzz.stat", (const char *)data, size, "run",
				 1, &out, &sum, &err) == CP_OK && !out.failed) {
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
	cp_buf_release(&out);
	return 0;
}
