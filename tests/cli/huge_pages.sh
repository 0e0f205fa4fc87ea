#!/bin/sh
# tests/cli/huge_pages.sh: a command given a dataset of 64 MB or more
# starts itself again with glibc's malloc on transparent huge pages
# (cli/main.c): the same output, far fewer page faults; the caller's own
# hugetlb setting and COUNTERPOINT_NO_HUGE_PAGES=1 are respected, another
# tunable of the caller's is kept, a second thread's memory is on huge
# pages too (one malloc arena).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "huge_pages.sh: $*"; exit 1; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
grep -q '\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null ||
	{ echo "transparent huge pages are not in madvise mode here"; exit 77; }
v=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed 's/^glibc //')
case $v in
2.3[5-9]*|2.[4-9]*|[3-9].*) ;;
*) echo "glibc $v has no glibc.malloc.hugetlb"; exit 77 ;;
esac
python3 - "$CP" "$tmp" <<'PY' || fail "see above"
import os, random, subprocess, sys
cp, tmp = sys.argv[1], sys.argv[2]
data = os.path.join(tmp, "big.csv")
rnd = random.Random(7)
with open(data, "w") as f:           # about 70 MB: 20,000 observations
    f.write("observation,interval,event,value,enabled_ns,running_ns\n")
    for o in range(20000):
        rows = []
        for i in range(12):
            a = 1000000 + rnd.randrange(100000)
            for e, x in (("a", a), ("b", a // 2 + rnd.randrange(1000)),
                         ("c", rnd.randrange(5000))):
                rows.append("observation_%06d_of_a_long_run_of_a_program,%d,"
                            "event_%s_counted_by_the_machine,%d,100000000,100000000\n"
                            % (o, i, e, x))
        f.write("".join(rows))
assert os.path.getsize(data) >= 64 << 20, os.path.getsize(data)

def run(tag, env_extra, drop=(), threads="1"):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_extra)
    out = os.path.join(tmp, tag + ".txt")
    with open(out, "wb") as o:
        p = subprocess.Popen([cp, "region", data, "--threads", threads], env=env, stdout=o)
        _, status, ru = os.wait4(p.pid, 0)
    assert status == 0, (tag, status)
    return open(out, "rb").read(), ru.ru_minflt

plain, f_plain = run("plain", {"COUNTERPOINT_NO_HUGE_PAGES": "1"}, ("GLIBC_TUNABLES",))
huge, f_huge = run("huge", {}, ("GLIBC_TUNABLES", "COUNTERPOINT_NO_HUGE_PAGES"))
other, f_other = run("other", {"GLIBC_TUNABLES": "glibc.malloc.perturb=0"},
                     ("COUNTERPOINT_NO_HUGE_PAGES",))
theirs, f_theirs = run("theirs", {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"},
                       ("COUNTERPOINT_NO_HUGE_PAGES",))
# a second thread shares the huge-page arena (glibc gives a thread's own
# arena none)
huge2, f_huge2 = run("huge2", {}, ("GLIBC_TUNABLES", "COUNTERPOINT_NO_HUGE_PAGES"), "2")
print("minor faults: plain %d, huge pages %d (two threads %d), with another "
      "tunable %d, caller's hugetlb=0 %d" % (f_plain, f_huge, f_huge2, f_other, f_theirs))
assert plain == huge == other == theirs == huge2, "the regions differ"
assert f_huge * 2 < f_plain, "huge pages did not cut the page faults"
assert f_huge2 < 2 * f_huge, "the second thread's memory is not on huge pages"
assert f_other * 2 < f_plain, "another tunable of the caller's stopped it"
assert f_theirs * 2 > f_plain, "the caller's hugetlb=0 was overridden"
PY
