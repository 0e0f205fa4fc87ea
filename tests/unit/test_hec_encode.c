/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_hec_encode.c: event names to perf_event encodings.
 * Hardware names are encoded for Haswell through libpfm4's inactive-PMU
 * mode (LIBPFM_ENCODE_INACTIVE=1, set before libpfm4 starts), so the
 * expected configs hold on any machine, PMU or not.  Values from Intel's
 * event tables (event code | umask << 8). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "hw/hec.h"
#include "tests/unit/check.h"

#define PERF_TYPE_HARDWARE_ 0
#define PERF_TYPE_SOFTWARE_ 1
#define PERF_TYPE_RAW_ 4

static void expect(const char *name, unsigned flags, uint32_t type,
		   uint64_t config)
{
	struct hec_encoding e;
	struct cp_error err;
	int rc;

	cp_error_clear(&err);
	rc = hec_event_encode(name, flags, &e, &err);
	CHECKF(rc == 0, "%s: %s", name, err.msg);
	if (rc)
		return;
	CHECKF(e.type == type, "%s: type %u, expected %u", name, e.type, type);
	CHECKF(e.config == config, "%s: config %#llx, expected %#llx", name,
	       (unsigned long long)e.config, (unsigned long long)config);
}

static void test_haswell_dtlb(void)
{
	expect("hsw::DTLB_LOAD_MISSES:MISS_CAUSES_A_WALK", 0, PERF_TYPE_RAW_, 0x108);
	expect("hsw::DTLB_LOAD_MISSES:WALK_COMPLETED_4K", 0, PERF_TYPE_RAW_, 0x208);
	expect("hsw::DTLB_LOAD_MISSES:WALK_COMPLETED_2M_4M", 0, PERF_TYPE_RAW_, 0x408);
	expect("hsw::DTLB_LOAD_MISSES:WALK_COMPLETED", 0, PERF_TYPE_RAW_, 0xe08);
	expect("hsw::DTLB_LOAD_MISSES:STLB_HIT_4K", 0, PERF_TYPE_RAW_, 0x2008);
	expect("hsw::DTLB_LOAD_MISSES:PDE_CACHE_MISS", 0, PERF_TYPE_RAW_, 0x8008);
	expect("hsw::DTLB_STORE_MISSES:MISS_CAUSES_A_WALK", 0, PERF_TYPE_RAW_, 0x149);
}

static void test_haswell_walker_and_retired(void)
{
	expect("hsw::PAGE_WALKER_LOADS:DTLB_L1", 0, PERF_TYPE_RAW_, 0x11bc);
	expect("hsw::PAGE_WALKER_LOADS:DTLB_MEMORY", 0, PERF_TYPE_RAW_, 0x18bc);
	expect("hsw::MEM_UOPS_RETIRED:ALL_LOADS", 0, PERF_TYPE_RAW_, 0x81d0);
	expect("hsw::MEM_UOPS_RETIRED:STLB_MISS_LOADS", 0, PERF_TYPE_RAW_, 0x11d0);
}

/* Vendor dotted names map to libpfm4's colon form; case does not matter. */
static void test_vendor_dotted_names(void)
{
	expect("hsw::DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK", 0, PERF_TYPE_RAW_, 0x108);
	expect("hsw::dtlb_load_misses.miss_causes_a_walk", 0, PERF_TYPE_RAW_, 0x108);
	expect("hsw::PAGE_WALKER_LOADS.DTLB_L1", 0, PERF_TYPE_RAW_, 0x11bc);
}

static void test_modifiers_and_user_only(void)
{
	struct hec_encoding e;
	struct cp_error err;

	CHECK(hec_event_encode("hsw::DTLB_LOAD_MISSES:MISS_CAUSES_A_WALK:u", 0,
			       &e, &err) == 0);
	CHECK(e.config == 0x108 && e.exclude_kernel && !e.exclude_user);
	CHECK(hec_event_encode("hsw::DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK",
			       HEC_USER_ONLY, &e, &err) == 0);
	CHECK(e.exclude_kernel);
	CHECK(hec_event_encode("hsw::DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK", 0,
			       &e, &err) == 0);
	CHECK(!e.exclude_kernel && !e.exclude_user);
	CHECK(e.hardware);
	CHECK_STR(e.pmu, "hsw");
	CHECKF(e.pmu_counters >= 4, "hsw counters %u", e.pmu_counters);
	CHECK(hec_event_encode("page-faults", HEC_USER_ONLY, &e, &err) == 0);
	CHECK(e.exclude_kernel && !e.hardware);
}

static void test_generic_perf_names(void)
{
	expect("page-faults", 0, PERF_TYPE_SOFTWARE_, 2);
	expect("faults", 0, PERF_TYPE_SOFTWARE_, 2);
	expect("minor-faults", 0, PERF_TYPE_SOFTWARE_, 5);
	expect("major-faults", 0, PERF_TYPE_SOFTWARE_, 6);
	expect("context-switches", 0, PERF_TYPE_SOFTWARE_, 3);
	expect("cpu-migrations", 0, PERF_TYPE_SOFTWARE_, 4);
	expect("task-clock", 0, PERF_TYPE_SOFTWARE_, 1);
	expect("alignment-faults", 0, PERF_TYPE_SOFTWARE_, 7);
	expect("emulation-faults", 0, PERF_TYPE_SOFTWARE_, 8);
	expect("instructions", 0, PERF_TYPE_HARDWARE_, 1);
	expect("cycles", 0, PERF_TYPE_HARDWARE_, 0);
	expect("r108", 0, PERF_TYPE_RAW_, 0x108);
	expect("r81d0", 0, PERF_TYPE_RAW_, 0x81d0);
}

static void test_unknown_names_suggest(void)
{
	struct hec_encoding e;
	struct cp_error err;
	char buf[512];

	cp_error_clear(&err);
	CHECK(hec_event_encode("page-fault", 0, &e, &err) == CP_EINPUT);
	CHECK_STR(err.msg, "unknown event 'page-fault'; did you mean 'page-faults'?");
	CHECK(hec_event_encode("hsw::DTLB_LOAD_MISSES:MISS_CAUSE_A_WALK", 0, &e,
			       &err) == CP_EINPUT);
	CHECK_STR(err.msg, "unknown event 'hsw::DTLB_LOAD_MISSES:MISS_CAUSE_A_WALK'; "
		  "did you mean 'hsw::DTLB_LOAD_MISSES:MISS_CAUSES_A_WALK'?");
	CHECK(hec_event_encode("no_such_event_anywhere", 0, &e, &err) == CP_EINPUT);
	CHECK_STR(err.msg, "unknown event 'no_such_event_anywhere' "
		  "(try 'counterpoint events')");
	CHECK(hec_event_suggest("contxt-switches", 3, buf, sizeof buf) >= 1);
	CHECK(strstr(buf, "'context-switches'") != NULL);
	CHECK(hec_event_suggest("", 3, buf, sizeof buf) == 0 || buf[0]);
	CHECK(hec_event_encode("", 0, &e, &err) == CP_EINPUT);
}

static void test_eventlist_groups(void)
{
	struct hec_eventlist *l = hec_eventlist_new();
	struct cp_error err;

	CHECK(l != NULL);
	CHECK(hec_eventlist_parse(l, "page-faults, {minor-faults,major-faults},cs",
				  &err) == 0);
	CHECK(hec_eventlist_parse(l, "{task-clock}", &err) == 0);
	CHECK(hec_eventlist_size(l) == 5);
	CHECK(hec_eventlist_n_groups(l) == 4);
	CHECK_STR(hec_eventlist_name(l, 0), "page-faults");
	CHECK_STR(hec_eventlist_name(l, 1), "minor-faults");
	CHECK(hec_eventlist_group(l, 0) == 0);
	CHECK(hec_eventlist_group(l, 1) == 1 && hec_eventlist_group(l, 2) == 1);
	CHECK(hec_eventlist_group(l, 3) == 2 && hec_eventlist_group(l, 4) == 3);
	CHECK(hec_eventlist_encoding(l, 0) == NULL);
	CHECK(hec_eventlist_encode(l, 0, &err) == 0);
	CHECK(hec_eventlist_encoding(l, 3)->config == 3);
	hec_eventlist_free(l);
	hec_eventlist_free(NULL);
}

static void bad_list(const char *spec, const char *msg)
{
	struct hec_eventlist *l = hec_eventlist_new();
	struct cp_error err;

	cp_error_clear(&err);
	CHECKF(hec_eventlist_parse(l, spec, &err) == CP_EINPUT, "%s", spec);
	CHECK_STR(err.msg, msg);
	hec_eventlist_free(l);
}

static void test_eventlist_errors(void)
{
	bad_list("a,,b", "empty event name in event list 'a,,b'");
	bad_list("{a,b", "missing '}' in event list '{a,b'");
	bad_list("a}", "unmatched '}' in event list 'a}'");
	bad_list("{a,{b}}", "nested '{' in event list '{a,{b}}'");
	bad_list("{}", "empty event name in event list '{}'");
	bad_list("a,a", "event 'a' named twice");
	bad_list("{a}b", "',' expected after '}' in event list '{a}b'");
}

/* perf's PMU syntax, pmu/term=value,.../modifiers: the commas between the
 * slashes belong to the name. */
static void test_eventlist_pmu_terms(void)
{
	struct hec_eventlist *l = hec_eventlist_new();
	struct cp_error err;

	CHECK(hec_eventlist_parse(l, "cpu/event=0x08,umask=0x01/,{page-faults,"
				  "cpu/event=0x49,umask=0x01/u},msr/tsc/", &err) == 0);
	CHECK(hec_eventlist_size(l) == 4);
	CHECK_STR(hec_eventlist_name(l, 0), "cpu/event=0x08,umask=0x01/");
	CHECK_STR(hec_eventlist_name(l, 2), "cpu/event=0x49,umask=0x01/u");
	CHECK_STR(hec_eventlist_name(l, 3), "msr/tsc/");
	CHECK(hec_eventlist_group(l, 1) == 1 && hec_eventlist_group(l, 2) == 1);
	CHECK(hec_eventlist_n_groups(l) == 3);
	hec_eventlist_free(l);
	bad_list("cpu/event=0x08,umask=0x01", "'/' not closed in event "
		 "'cpu/event=0x08,umask=0x01' of event list 'cpu/event=0x08,umask=0x01'");
}

static void expect_error(const char *name, const char *msg)
{
	struct hec_encoding e;
	struct cp_error err;

	cp_error_clear(&err);
	CHECKF(hec_event_encode(name, 0, &e, &err) != 0, "%s", name);
	CHECK_STR(err.msg, msg);
}

/* The PMU syntax is encoded from sysfs, as perf does: the PMU's type,
 * its format/ files (which bits of config each term fills) and its
 * events/ aliases.  This machine's PMUs are what sysfs has: uprobe (two
 * terms), msr (an alias) and software (no format: config= only). */
static void test_pmu_terms_from_sysfs(void)
{
	struct hec_encoding e;
	struct cp_error err;
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/format/ref_ctr_offset", "r");
	char fmt[64] = "";
	unsigned type = 0;

	if (f) {
		if (!fgets(fmt, sizeof fmt, f))
			fmt[0] = '\0';
		fclose(f);
	}
	f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	if (f) {
		if (fscanf(f, "%u", &type) != 1)
			type = 0;
		fclose(f);
	}
	if (strcmp(fmt, "config:32-63\n") || !type)
		SKIP("no uprobe PMU with ref_ctr_offset in config:32-63 in sysfs");
	/* retprobe is config:0, ref_ctr_offset config:32-63 */
	expect("uprobe/retprobe=1,ref_ctr_offset=5/", 0, type, 0x500000001ull);
	expect("uprobe/retprobe,ref_ctr_offset=0x10/", 0, type, 0x1000000001ull);
	expect("uprobe/config=7,config1=3/", 0, type, 7);
	cp_error_clear(&err);
	CHECK(hec_event_encode("uprobe/config2=9/u", 0, &e, &err) == 0);
	CHECK(e.config2 == 9 && e.exclude_kernel && !e.exclude_user);
	CHECK(hec_event_encode("uprobe/config=1/k", HEC_USER_ONLY, &e, &err) == 0);
	CHECK(e.exclude_user);
	CHECK_STR(e.pmu, "uprobe");
	expect_error("uprobe/retprobe=2/", "cannot encode 'uprobe/retprobe=2/': "
		     "value 2 of term 'retprobe' does not fit its 1 bit (config:0)");
	expect_error("uprobe/bogus=1/", "cannot encode 'uprobe/bogus=1/': PMU "
		     "'uprobe' has no term or event 'bogus' (its terms: "
		     "ref_ctr_offset, retprobe)");
	expect_error("uprobe/retprobe=x/", "cannot encode 'uprobe/retprobe=x/': "
		     "value 'x' of term 'retprobe' is not a number");
	expect_error("uprobe/retprobe/q", "cannot encode 'uprobe/retprobe/q': "
		     "unknown modifier 'q' (u: user space only, k: kernel only)");
	expect_error("nosuchpmu/event=1/", "cannot encode 'nosuchpmu/event=1/': "
		     "this machine has no PMU 'nosuchpmu' (no "
		     "/sys/bus/event_source/devices/nosuchpmu)");
	if (!access("/sys/bus/event_source/devices/msr/events/tsc", R_OK)) {
		CHECK(hec_event_encode("msr/tsc/", 0, &e, &err) == 0);
		CHECK(e.config == 0 && e.hardware);
	}
	if (!access("/sys/bus/event_source/devices/software/type", R_OK)) {
		/* software/config=2/ is page-faults */
		expect("software/config=2/", 0, PERF_TYPE_SOFTWARE_, 2);
		CHECK(hec_event_encode("software/config=2/", 0, &e, &err) == 0);
		CHECK(!e.hardware);
	}
}

/* Haswell has 4 (8 without hyper-threading) generic and 3 fixed counters:
 * twelve events in one group can never be scheduled. */
static void test_too_many_in_group(void)
{
	static const char *const umasks[] = {
		"DTLB_LOAD_MISSES:MISS_CAUSES_A_WALK", "DTLB_LOAD_MISSES:WALK_COMPLETED_4K",
		"DTLB_LOAD_MISSES:WALK_COMPLETED_2M_4M", "DTLB_LOAD_MISSES:STLB_HIT_4K",
		"DTLB_LOAD_MISSES:PDE_CACHE_MISS", "DTLB_STORE_MISSES:MISS_CAUSES_A_WALK",
		"DTLB_STORE_MISSES:WALK_COMPLETED_4K", "PAGE_WALKER_LOADS:DTLB_L1",
		"PAGE_WALKER_LOADS:DTLB_L2", "PAGE_WALKER_LOADS:DTLB_L3",
		"PAGE_WALKER_LOADS:DTLB_MEMORY", "MEM_UOPS_RETIRED:ALL_LOADS",
	};
	struct hec_eventlist *l = hec_eventlist_new(), *ok = hec_eventlist_new();
	struct cp_error err;
	struct cp_buf b;
	size_t i;

	cp_buf_init(&b);
	cp_buf_puts(&b, "{");
	for (i = 0; i < 12; i++)
		cp_buf_printf(&b, "%shsw::%s", i ? "," : "", umasks[i]);
	cp_buf_puts(&b, "}");
	CHECK(hec_eventlist_parse(l, b.data, &err) == 0);
	cp_error_clear(&err);
	CHECK(hec_eventlist_encode(l, 0, &err) == CP_EINPUT);
	CHECKF(strstr(err.msg, "too many events in one group for the PMU") != NULL,
	       "%s", err.msg);
	CHECKF(strstr(err.msg, "has 12 hardware events but the hsw PMU has 11 "
		      "counters") != NULL, "%s", err.msg);
	/* the same events ungrouped are fine: the kernel multiplexes them */
	for (i = 0; i < 12; i++) {
		char name[128];

		snprintf(name, sizeof name, "hsw::%s", umasks[i]);
		CHECK(hec_eventlist_parse(ok, name, &err) == 0);
	}
	CHECK(hec_eventlist_encode(ok, 0, &err) == 0);
	cp_buf_release(&b);
	hec_eventlist_free(l);
	hec_eventlist_free(ok);
}

/* The open-error messages, fed every errno that matters. */
static void test_open_errors(void)
{
	struct hec_encoding sw, hw;
	struct cp_error err;

	memset(&sw, 0, sizeof sw);
	sw.type = 1;
	memset(&hw, 0, sizeof hw);
	hw.type = 4;
	hw.hardware = 1;

	CHECK(hec_open_error(&err, "page-faults", &sw, EACCES, 2, 1, 0, 1, NULL) == CP_EPERM);
	CHECK_STR(err.msg, "cannot open 'page-faults': permission denied "
		  "(perf_event_paranoid is 2: unprivileged users may count user "
		  "space only); record with --user-only, run as root, or as root "
		  "run 'sysctl kernel.perf_event_paranoid=1'");
	/* 3: kernels that still allow user space only (upstream Linux
	 * treats 3 as 2) get the same advice as at 2 ... */
	CHECK(hec_open_error(&err, "page-faults", &sw, EACCES, 3, 1, 0, 1, NULL) == CP_EPERM);
	CHECK_STR(err.msg, "cannot open 'page-faults': permission denied "
		  "(perf_event_paranoid is 3, and this kernel lets unprivileged "
		  "users count user space only); record with --user-only, run as "
		  "root, or as root run 'sysctl kernel.perf_event_paranoid=1'");
	/* ... kernels that refuse everything (Debian's 3) are told so ... */
	CHECK(hec_open_error(&err, "page-faults", &sw, EACCES, 3, 0, 0, 1, NULL) == CP_EPERM);
	CHECK_STR(err.msg, "cannot open 'page-faults': permission denied "
		  "(perf_event_paranoid is 3: this kernel lets only privileged "
		  "users count events); run as root, give the recorder "
		  "CAP_PERFMON, or as root run 'sysctl kernel.perf_event_paranoid=2' "
		  "and record with --user-only");
	/* ... and when the probe could not tell, both are said */
	CHECK(hec_open_error(&err, "page-faults", &sw, EACCES, 3, -1, 0, 1, NULL) == CP_EPERM);
	CHECK_STR(err.msg, "cannot open 'page-faults': permission denied "
		  "(perf_event_paranoid is 3: some kernels then let unprivileged "
		  "users count user space only, others nothing); record with "
		  "--user-only, run as root, or as root run "
		  "'sysctl kernel.perf_event_paranoid=1'");
	sw.exclude_kernel = 1;
	/* user space only already, refused at 3: this kernel's 3 is strict */
	CHECK(hec_open_error(&err, "page-faults", &sw, EACCES, 3, -1, 0, 1, NULL) == CP_EPERM);
	CHECK(strstr(err.msg, "(perf_event_paranoid is 3: this kernel lets only "
		     "privileged users count events)") != NULL);
	CHECK(hec_open_error(&err, "page-faults", &sw, EPERM, 2, 1, 0, 1, NULL) == CP_EPERM);
	CHECK_STR(err.msg, "cannot open 'page-faults': permission denied "
		  "(perf_event_paranoid is 2); run as root or give the recorder "
		  "CAP_PERFMON");
	CHECK(hec_open_error(&err, "page-faults", &sw, EACCES, INT32_MIN, 1, 0, 1, NULL) == CP_EPERM);
	CHECK(strstr(err.msg, "perf_event_paranoid could not be read") != NULL);

	CHECK(hec_open_error(&err, "instructions", &hw, ENOENT, 2, 1, 0, 1, NULL) == CP_EUNSUPPORTED);
	CHECK_STR(err.msg, "cannot record 'instructions': this machine exposes no "
		  "hardware counters (virtual machine?): only software events can "
		  "be recorded");
	CHECK(hec_open_error(&err, "r108", &hw, EOPNOTSUPP, 2, 1, 0, 1, NULL) == CP_EUNSUPPORTED);
	CHECK(strstr(err.msg, HEC_NO_PMU_MSG) != NULL);
	CHECK(hec_open_error(&err, "r108", &hw, ENOENT, 2, 1, 1, 1, NULL) == CP_EUNSUPPORTED);
	CHECK(strstr(err.msg, "this machine's PMU does not support it") != NULL);

	CHECK(hec_open_error(&err, "e5", &hw, EINVAL, 2, 1, 1, 5, NULL) == CP_EUNSUPPORTED);
	CHECK_STR(err.msg, "cannot open 'e5': too many events in one group for "
		  "the PMU (its group of 5 events cannot be counted at once); "
		  "split the group");
	CHECK(hec_open_error(&err, "x", &hw, EINVAL, 2, 1, 1, 1, NULL) == CP_EUNSUPPORTED);
	CHECK(strstr(err.msg, "rejected its encoding") != NULL);
	CHECK(hec_open_error(&err, "x", &sw, EMFILE, 2, 1, 1, 1, NULL) == CP_EUNSUPPORTED);
	CHECK(strstr(err.msg, "ulimit -n") != NULL);
	CHECK(hec_open_error(&err, "x", &hw, EBUSY, 2, 1, 1, 1, NULL) == CP_EUNSUPPORTED);
	CHECK(strstr(err.msg, "the PMU's counters are taken") != NULL);
}

/* Attached to CPUs (-a, -C) or running processes (-p): perf's rules. */
static void test_open_errors_attached(void)
{
	struct hec_encoding sw;
	struct hec_open_target cpu = { HEC_TARGET_CPU, 3 };
	struct hec_open_target proc = { HEC_TARGET_PROCESS, 1234 };
	struct cp_error err;

	memset(&sw, 0, sizeof sw);
	CHECK(hec_open_error(&err, "task-clock", &sw, EACCES, 2, 1, 0, 1, &cpu) == CP_EPERM);
	CHECK_STR(err.msg, "cannot open 'task-clock' on CPU 3: permission denied "
		  "(perf_event_paranoid is 2; counting a whole CPU (-a, -C) takes "
		  "perf_event_paranoid -1 or 0 or CAP_PERFMON: -1 allows "
		  "everything, 0 CPUs and the kernel, 1 only one's own processes, "
		  "2 only their user space); run as root, give the recorder "
		  "CAP_PERFMON, or as root run 'sysctl kernel.perf_event_paranoid=0'");
	CHECK(hec_open_error(&err, "task-clock", &sw, EACCES, 2, 1, 0, 1, &proc) == CP_EPERM);
	CHECK(strstr(err.msg, "cannot attach 'task-clock' to process 1234: "
		     "permission denied (perf_event_paranoid is 2: unprivileged "
		     "users may count user space only, and only in processes they "
		     "may trace); record with --user-only") == err.msg);
	sw.exclude_kernel = 1;
	CHECK(hec_open_error(&err, "task-clock", &sw, EPERM, 2, 1, 0, 1, &proc) == CP_EPERM);
	CHECK(strstr(err.msg, "attaching takes the right to trace the process") != NULL);
	CHECK(hec_open_error(&err, "task-clock", &sw, ESRCH, 2, 1, 0, 1, &proc) == CP_EINPUT);
	CHECK_STR(err.msg, "cannot attach 'task-clock' to process 1234: it has exited");
}

/* Every allocation of parsing and encoding an event list fails in turn:
 * each failure is reported as CP_ENOMEM and nothing leaks (ASan build). */
static void test_allocation_failures(void)
{
	const char *two[] = { "major-faults", "r0808" };
	unsigned long n;
	int ok_seen = 0;

	for (n = 1; n < 200 && !ok_seen; n++) {
		struct hec_eventlist *l;
		struct cp_error err;
		int rc;

		cp_error_clear(&err);
		cp_alloc_fail_at(n);
		l = hec_eventlist_new();
		if (!l) {
			cp_alloc_fail_at(0);
			continue;
		}
		rc = hec_eventlist_parse(l, "a,{b,c},d,e,f,g,h,i,j", &err);
		if (!rc)
			rc = hec_eventlist_set_pmu(l, "hsw");
		if (!rc)
			rc = hec_eventlist_parse(l, "{page-faults,minor-faults}", &err);
		if (!rc)
			rc = hec_eventlist_add(l, two, 2, "m.udd: counter 'x'", &err);
		cp_alloc_fail_at(0);
		CHECKF(rc == 0 || rc == CP_ENOMEM, "n=%lu rc=%d %s", n, rc, err.msg);
		if (rc == 0) {
			CHECK(hec_eventlist_size(l) == 13);
			ok_seen = 1;
		}
		hec_eventlist_free(l);
	}
	CHECK(ok_seen);
}

/* An event that goes by several names: the first that encodes on the PMU
 * asked for, a code standing in only where it is that PMU's event. */
static int any(const char *pmu, const char *a, const char *b,
	       struct hec_encoding *e, size_t *chosen, char *note,
	       struct cp_error *err)
{
	const char *names[2] = { a, b };

	cp_error_clear(err);
	return hec_event_encode_any(names, b ? 2 : 1, pmu, 0, e, chosen, note,
				    256, err);
}

static void test_alternatives(void)
{
	struct hec_encoding e;
	struct cp_error err;
	size_t chosen = 9;
	char note[256];

	/* libpfm4's hsw table lacks the 1G umasks that Intel's list has */
	CHECK(any("hsw", "DTLB_LOAD_MISSES.WALK_COMPLETED_1G", "r0808", &e,
		  &chosen, note, &err) == 0);
	CHECK(chosen == 1 && e.config == 0x808 && e.hardware);
	CHECK_STR(note, "for 'DTLB_LOAD_MISSES.WALK_COMPLETED_1G', which libpfm4 "
		  "does not encode for PMU hsw");
	CHECK(any("hsw", "DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK", "r0108", &e,
		  &chosen, note, &err) == 0);
	CHECK(chosen == 0 && e.config == 0x108 && !note[0]);
	CHECK_STR(e.pmu, "hsw");
	/* alone, the reason names the PMU, the near names and who has it */
	CHECK(any("hsw", "DTLB_LOAD_MISSES.WALK_COMPLETED_1G", NULL, &e,
		  &chosen, note, &err) == CP_EINPUT);
	CHECKF(strstr(err.msg, "'DTLB_LOAD_MISSES.WALK_COMPLETED_1G' is unknown "
		      "to libpfm4 for PMU hsw (near: 'hsw::DTLB_LOAD_MISSES."
		      "WALK_COMPLETED_4K'") == err.msg, "%s", err.msg);
	CHECKF(strstr(err.msg, "; libpfm4 has it for ") && strstr(err.msg, "skl"),
	       "%s", err.msg);
	/* a code whose event select is not hsw's DTLB_LOAD_MISSES */
	CHECK(any("hsw", "DTLB_LOAD_MISSES.WALK_COMPLETED_1G", "r0812", &e,
		  &chosen, note, &err) == CP_EINPUT);
	CHECKF(strstr(err.msg, "no alias encodes either (the last: 'r0812' is "
		      "event 0x12, but hsw's DTLB_LOAD_MISSES is event 0x8)"),
	       "%s", err.msg);
	/* a counter of another processor: its code would count garbage */
	CHECK(any("skl", "PAGE_WALKER_LOADS.DTLB_L1", "r11bc", &e, &chosen,
		  note, &err) == CP_EUNSUPPORTED);
	CHECKF(strstr(err.msg, "'PAGE_WALKER_LOADS.DTLB_L1' is an event of hsw") ==
	       err.msg && strstr(err.msg, "not of PMU skl"), "%s", err.msg);
	CHECK(any("amd64_fam19h_zen3", "DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK",
		  "dTLB-load-misses", &e, &chosen, note, &err) == CP_EUNSUPPORTED);
	/* Linux's name, which libpfm4 lacks, and AMD's code */
	CHECK(any("amd64_fam19h_zen3", "ls_tablewalker.dside", "r0346", &e,
		  &chosen, note, &err) == 0);
	CHECK(chosen == 1 && e.config == 0x346);
	CHECK(any("amd64_fam19h_zen3", "ls_l1_d_tlb_miss.tlb_reload_4k_l2_miss",
		  "L1_DTLB_MISS.TLB_RELOAD_4K_L2_MISS", &e, &chosen, note, &err) == 0);
	CHECK(chosen == 1 && e.config == 0x1045);
	CHECK_STR(e.pmu, "amd64_fam19h_zen3");
	/* with a PMU asked for, another processor's event is refused */
	CHECK(any("hsw", "skl::DTLB_LOAD_MISSES.WALK_COMPLETED_1G", NULL, &e,
		  &chosen, note, &err) == 0);
	CHECK(any("hsw", "L1_DTLB_MISS.TLB_RELOAD_4K_L2_MISS", NULL, &e, &chosen,
		  note, &err) == CP_EINPUT);
	/* PMUs */
	CHECK(hec_pmu_status("no_such_pmu") == -1);
	CHECK(hec_pmu_status("HSW") >= 0);
	CHECK(hec_pmu_check("hsw", &err) == 0);   /* LIBPFM_ENCODE_INACTIVE */
	CHECK(hec_pmu_check("hws", &err) == CP_EINPUT);
	CHECK(strstr(err.msg, "unknown PMU 'hws'") == err.msg);
}

/* A model's counters in an event list: aliases are names of the list, a
 * label heads the errors, and the model's events form one group when
 * they fit. */
static void test_eventlist_aliases(void)
{
	struct hec_eventlist *l = hec_eventlist_new();
	const char *a[] = { "DTLB_LOAD_MISSES.WALK_COMPLETED_1G", "r0808" };
	const char *b[] = { "DTLB_LOAD_MISSES.STLB_HIT", "r6008" };
	const char *c[] = { "page-faults", "faults" };
	const char *d[] = { "no_such_event_x" };
	struct cp_error err;

	cp_error_clear(&err);
	CHECK(hec_eventlist_parse(l, "minor-faults", &err) == 0);
	CHECK(hec_eventlist_add(l, a, 2, "m.udd: counter 'x'", &err) == 0);
	CHECK(hec_eventlist_add(l, b, 2, "m.udd: counter 'y'", &err) == 0);
	CHECK(hec_eventlist_add(l, a + 1, 1, NULL, &err) == CP_EINPUT);
	CHECK_STR(err.msg, "event 'r0808' named twice");
	CHECK(hec_eventlist_n_groups(l) == 3);
	CHECK_STR(hec_eventlist_name(l, 1), "DTLB_LOAD_MISSES.WALK_COMPLETED_1G");
	CHECK(hec_eventlist_set_pmu(l, "hsw") == 0);
	CHECK(hec_eventlist_encode(l, 0, &err) == 0);
	CHECK_STR(hec_eventlist_name(l, 1), "r0808");
	CHECK(hec_eventlist_note(l, 1)[0] && !hec_eventlist_note(l, 2)[0]);
	CHECK(hec_eventlist_encoding(l, 2)->config == 0x6008);
	/* a raw code's PMU capacity is unknown: left apart */
	CHECK(hec_eventlist_group_if_fits(l, 1, 2) == 0);
	CHECK(hec_eventlist_n_groups(l) == 3);
	hec_eventlist_free(l);

	l = hec_eventlist_new();
	CHECK(hec_eventlist_add(l, c, 2, NULL, &err) == 0);
	CHECK(hec_eventlist_parse(l, "minor-faults,major-faults", &err) == 0);
	CHECK(hec_eventlist_encode(l, 0, &err) == 0);
	CHECK(hec_eventlist_group_if_fits(l, 0, 3) == 1);
	CHECK(hec_eventlist_n_groups(l) == 1 && hec_eventlist_group(l, 2) == 0);
	CHECK(hec_eventlist_add(l, d, 1, "m.udd: counter 'z'", &err) == 0);
	CHECK(hec_eventlist_encode(l, 0, &err) == CP_EINPUT);
	CHECKF(strstr(err.msg, "m.udd: counter 'z': unknown event") == err.msg,
	       "%s", err.msg);
	hec_eventlist_free(l);
}

int main(void)
{
	check_prog = "test_hec_encode";
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	RUN(test_haswell_dtlb);
	RUN(test_haswell_walker_and_retired);
	RUN(test_vendor_dotted_names);
	RUN(test_modifiers_and_user_only);
	RUN(test_generic_perf_names);
	RUN(test_unknown_names_suggest);
	RUN(test_eventlist_groups);
	RUN(test_eventlist_errors);
	RUN(test_eventlist_pmu_terms);
	RUN(test_pmu_terms_from_sysfs);
	RUN(test_too_many_in_group);
	RUN(test_open_errors);
	RUN(test_open_errors_attached);
	RUN(test_allocation_failures);
	RUN(test_alternatives);
	RUN(test_eventlist_aliases);
	return check_summary();
}
