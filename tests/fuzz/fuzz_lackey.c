/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/fuzz/fuzz_lackey.c: libFuzzer target for the simulator's valgrind
 * lackey trace reader (hw/sim/workload.c, `sim --workload trace:FILE`):
 * any file must load or fail with a message, and a trace that loads must
 * replay.  `make fuzz FUZZ_TARGETS=fuzz_lackey` runs it. */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "hw/sim/mmu.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], spec[96];
	struct mmu_workload *w;
	struct cp_error err;
	int fd, i;

	if ((fd = fuzz_file(data, size, path, sizeof path)) < 0)
		return 0;
	snprintf(spec, sizeof spec, "trace:%s", path);
	cp_error_clear(&err);
	w = mmu_workload_new(spec, 1, &err);
	if (w) {
		uint64_t va;
		int is_store;

		(void)mmu_workload_label(w);
		for (i = 0; i < 64; i++)
			mmu_workload_next(w, &va, &is_store);
	}
	mmu_workload_free(w);
	close(fd);
	return 0;
}
