/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/fuzz/fuzz_file.h: for fuzz targets whose parser reads a path: the
 * input as an anonymous in-memory file (memfd), named /proc/self/fd/N, so
 * the real fopen path runs and nothing is left on disk. */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* Returns the memfd (close it when done) and its name in path, or -1. */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path,
			    size_t path_size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	size_t off = 0;

	if (fd < 0)
		return -1;
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);

		if (w <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	snprintf(path, path_size, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
