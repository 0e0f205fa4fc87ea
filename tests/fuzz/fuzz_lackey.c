/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/fuzz/fuzz_lackey.c: libFuzzer target for the simulator's valgrind
 * lackey trace reader (hw/sim/workload.c, `sim --workload trace:FILE`):
 * any file must load or fail with a message, and a trace that loads must
 * replay and survive a round trip: its first records written back as
 * lackey lines (" L addr,1" / " S addr,1") load as the same records.
 * `make fuzz FUZZ_TARGETS=fuzz_lackey` runs it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "hw/sim/mmu.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { N = 64 };

/* Load the trace in data; its first N records (replayed in a loop) into
 * va and st.  0 when it does not load. */
static int first_records(const uint8_t *data, size_t size, uint64_t *va, int *st)
{
	char path[64], spec[96];
	struct mmu_workload *w;
	struct cp_error err;
	int fd, i, ok;

	if ((fd = fuzz_file(data, size, path, sizeof path)) < 0)
		return 0;
	snprintf(spec, sizeof spec, "trace:%s", path);
	cp_error_clear(&err);
	w = mmu_workload_new(spec, 1, &err);
	ok = w != NULL;
	if (w) {
		(void)mmu_workload_label(w);
		for (i = 0; i < N; i++)
			mmu_workload_next(w, &va[i], &st[i]);
	} else if (!err.msg[0]) {
		abort();   /* a failure must say why */
	}
	mmu_workload_free(w);
	close(fd);
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t va[N], va2[N];
	int st[N], st2[N], i;
	char text[N * 24 + 1];
	size_t len = 0;

	if (!first_records(data, size, va, st))
		return 0;
	for (i = 0; i < N; i++)
		len += (size_t)snprintf(text + len, sizeof text - len, " %c %llx,1\n",
					st[i] ? 'S' : 'L', (unsigned long long)va[i]);
	if (!first_records((const uint8_t *)text, len, va2, st2))
		abort();   /* what the reader gave back must load */
	for (i = 0; i < N; i++)
		if (va[i] != va2[i] || st[i] != st2[i])
			abort();
	return 0;
}
