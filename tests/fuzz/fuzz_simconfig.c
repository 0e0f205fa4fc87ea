/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/fuzz/fuzz_simconfig.c: libFuzzer target for the simulator's
 * --config parser (hw/sim/config.c): any file must load or fail with a
 * message; a configuration that passes its check prints (print-config)
 * a file that loads back as the same configuration, and must build a
 * machine that runs (caches capped at 64 MB here, to keep runs fast).
 * `make fuzz FUZZ_TARGETS=fuzz_simconfig` runs it. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "hw/sim/mmu.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mmu_config cfg;
	struct cp_error err;
	struct cp_buf text;
	char path[64];
	int fd;

	if ((fd = fuzz_file(data, size, path, sizeof path)) < 0)
		return 0;
	cp_error_clear(&err);
	mmu_config_default(&cfg);
	if (mmu_config_load(&cfg, path, &err) == CP_OK &&
	    mmu_config_check(&cfg, &err) == CP_OK) {
		struct mmu_config back;
		struct cp_buf again;
		char path2[64];
		int fd2;

		cp_buf_init(&text);
		cp_buf_init(&again);
		mmu_config_format(&cfg, &text);
		/* the round trip: print, load, print the same */
		if (!text.failed &&
		    (fd2 = fuzz_file((const uint8_t *)text.data, text.len, path2,
				     sizeof path2)) >= 0) {
			mmu_config_default(&back);
			if (mmu_config_load(&back, path2, &err) != CP_OK ||
			    mmu_config_check(&back, &err) != CP_OK)
				__builtin_trap();
			mmu_config_format(&back, &again);
			if (!again.failed && (again.len != text.len ||
					      memcmp(again.data, text.data, text.len)))
				__builtin_trap();
			close(fd2);
		}
		cp_buf_release(&again);
		cp_buf_release(&text);
		if (cfg.l1_bytes <= (64u << 20) && cfg.l2_bytes <= (64u << 20) &&
		    cfg.l3_bytes <= (64u << 20)) {
			struct mmu_machine *m;
			uint64_t i;

			m = mmu_machine_new(&cfg, MMU_F_ALL, MMU_PAGE_4K, 1, &err);
			if (m) {
				for (i = 0; i < 256; i++)
					mmu_access(m, (1ull << 40) + i * 4096 * 17, (int)(i & 1));
				mmu_drain(m);
				(void)mmu_counts(m);
			}
			mmu_machine_free(m);
		}
	}
	close(fd);
	return 0;
}
