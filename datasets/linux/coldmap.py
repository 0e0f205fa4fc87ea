#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""datasets/linux/coldmap.py: a workload with major page faults.  Writes a
file, syncs it and asks the kernel to drop its cached pages
(POSIX_FADV_DONTNEED), then maps it without readahead (MADV_RANDOM) and
reads one byte per page, so every fault waits for the disk.
Usage: coldmap.py [MEGABYTES] [ROUNDS]"""
import mmap
import os
import sys
import tempfile

mb = int(sys.argv[1]) if len(sys.argv) > 1 else 64
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 4
page = mmap.PAGESIZE
with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", "/var/tmp")) as d:
    path = os.path.join(d, "cold")
    with open(path, "wb") as f:
        block = os.urandom(1 << 20)
        for _ in range(mb):
            f.write(block)
        f.flush()
        os.fsync(f.fileno())
    total = 0
    for _ in range(rounds):
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
        m.madvise(mmap.MADV_RANDOM)  # no readahead: each fault reads its page
        for off in range(0, mb << 20, page):
            total += m[off]
        m.close()
        os.close(fd)
    print(total)
