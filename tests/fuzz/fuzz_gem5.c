/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/fuzz/fuzz_gem5.c: libFuzzer target for the gem5 stats.txt
 * importer (hw/gem5.c): any byte string must convert or fail with a
 * message, and what it converts must be a dataset the loader accepts.
 * The first byte picks the options: bits 0-1 --dumps (auto, delta,
 * cumulative), bit 2 --events '*::*,*.dtb.*', bit 3 every message
 * collected.  `make fuzz FUZZ_TARGETS=fuzz_gem5`. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hw/gem5.h"
#include "stats/region.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hec_gem5_options opt = { "run", NULL, HEC_GEM5_DUMPS_AUTO, 1, NULL };
	struct cp_error err;
	struct cp_buf out, messages;
	int rc;

	if (size < 1)
		return 0;
	opt.dumps = (enum hec_gem5_dumps)(data[0] & 3 ? (data[0] & 3) - 1 : 0);
	if (data[0] & 4)
		opt.events = "*::*,*.dtb.*";
	cp_buf_init(&messages);
	if (data[0] & 8)
		opt.messages = &messages;
	cp_error_clear(&err);
	cp_buf_init(&out);
	rc = hec_gem5_convert("fuzz.txt", (const char *)data + 1, size - 1, &opt,
			      &out, NULL, &err);
	if (rc == CP_OK && !out.failed) {
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
	} else if (rc != CP_ENOMEM && (!err.msg[0] ||
		   (opt.messages && rc == CP_EINPUT && !messages.len))) {
		fprintf(stderr, "failed without a message (%d)\n", rc);
		abort();
	}
	cp_buf_release(&messages);
	cp_buf_release(&out);
	return 0;
}
