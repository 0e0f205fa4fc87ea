/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/fuzz/fuzz_parser.c: libFuzzer target for the μDD compiler: any
 * byte string must parse or fail cleanly, and a model that passes its
 * checks must enumerate (under a small signature limit) and draw without
 * crashing or leaking.  `make fuzz FUZZ_TIME=600` runs it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dsl/udd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct udd_model *m = NULL;
	struct udd_sigset *s = NULL;
	struct cp_error err;
	size_t i;

	cp_error_clear(&err);
	if (udd_model_parse_string("fuzz.udd", (const char *)data, size, &m,
				   &err) == CP_OK) {
		udd_features all = 0;

		for (i = 0; i < udd_model_n_features(m) && i < 64; i++)
			if (i % 2 == 0)
				all |= (udd_features)1 << i;
		if (udd_sigset_build(m, all, 5000, &s, &err) == CP_OK &&
		    udd_sigset_size(s) > 0) {
			size_t j = udd_sigset_size(s) - 1;

			(void)udd_sigset_example(s, j);
			for (i = 0; i < udd_sigset_uop_count(s, j); i++)
				(void)udd_sigset_uop_paths(s, j, i);
		}
		udd_sigset_free(s);
		/* the drawing walks the same graph */
		{
			static FILE *devnull;

			if (!devnull)
				devnull = fopen("/dev/null", "w");
			if (devnull)
				(void)udd_model_dot(m, all, devnull, &err);
		}
	}
	if (m)
		for (i = 0; i < udd_model_n_diagnostics(m); i++)
			(void)udd_model_diagnostic(m, i);
	udd_model_free(m);
	return 0;
}
