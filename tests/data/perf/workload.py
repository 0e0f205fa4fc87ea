# SPDX-License-Identifier: GPL-3.0-or-later
# A small workload with phases: it allocates and frees buffers of varying
# size (page faults), busy-loops (task-clock) and sleeps (context switches),
# so every software event moves from one 100 ms interval to the next.
import sys, threading, time

def phase(r):
    xs = [bytearray(4096 * (1 + (r % 5) * 50)) for _ in range(20)]
    s = 0
    for i in range(60000 + (r % 3) * 20000):
        s += i
    time.sleep(0.01 * (r % 4))
    return len(xs) + s

def work(rounds, delay):
    time.sleep(delay)
    for r in range(rounds):
        phase(r)

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 0
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 40
if threads == 0:
    work(rounds, 0)
else:
    # threads wait before working so that `perf stat -p` finds them all
    ts = [threading.Thread(target=work, args=(rounds + 10 * k, 1.5))
          for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
