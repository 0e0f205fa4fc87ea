/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/event.c: event names to perf_event_attr encodings through libpfm4,
 * close-match suggestions for unknown names, and the error messages a
 * person needs when the kernel refuses to count something. */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <perfmon/pfmlib_perf_event.h>

#include "hw/hec.h"

/* ================================================================
 * The machine
 * ================================================================ */

/* libpfm4 is opened on first use, not linked: its event tables carry
 * some 41,000 relocations and 1 MB of data that the dynamic loader would
 * otherwise fix up at every start of every command (two thirds of
 * `counterpoint --version`), though only the commands that name hardware
 * events use it.  Every call below goes through these pointers, filled
 * once by pfm_start; hec_init is the gate. */
#define PFM_FUNCS(X) X(pfm_initialize) X(pfm_strerror) X(pfm_get_pmu_info) \
	X(pfm_get_event_info) X(pfm_get_event_next) X(pfm_get_event_attr_info) \
	X(pfm_get_os_event_encoding)
#define PFM_POINTER(f) static __typeof__(f) *dl_##f;
PFM_FUNCS(PFM_POINTER)
#define PFM_SONAME "libpfm.so.4"   /* LIBPFM_VERSION's major */

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status = PFM_ERR_NOINIT;
static char pfm_load_error[256];

static void pfm_start(void)
{
	void *lib = dlopen(PFM_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *why;

	if (!lib)
		goto fail;
#define PFM_LOAD(f) \
	if (!(*(void **)&dl_##f = dlsym(lib, #f))) \
		goto fail;
	PFM_FUNCS(PFM_LOAD)
	pfm_status = dl_pfm_initialize();
	return;
fail:
	why = dlerror();
	snprintf(pfm_load_error, sizeof pfm_load_error, "%s",
		 why ? why : PFM_SONAME);
}

int hec_init(struct cp_error *err)
{
	pthread_once(&pfm_once, pfm_start);
	if (pfm_load_error[0])
		return cp_error_set(err, CP_EUNSUPPORTED,
				    "cannot load libpfm4: %s", pfm_load_error);
	if (pfm_status != PFM_SUCCESS)
		return cp_error_set(err, CP_EUNSUPPORTED,
				    "cannot initialise libpfm4: %s",
				    dl_pfm_strerror(pfm_status));
	return 0;
}

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
				int cpu, int group_fd, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* The kernel's answer is authoritative: open "instructions" on ourselves.
 * ENOENT/EOPNOTSUPP/ENODEV mean no hardware PMU.  When the open is refused
 * for permission (perf_event_paranoid 3), fall back on sysfs and libpfm4's
 * own detection. */
static int has_pmu_cached = -1;
static pthread_once_t pmu_once = PTHREAD_ONCE_INIT;

static int sysfs_or_pfm_core_pmu(void)
{
	static const char *const dirs[] = {
		"/sys/bus/event_source/devices/cpu",
		"/sys/bus/event_source/devices/cpu_core",
		"/sys/bus/event_source/devices/cpu_atom",
		"/sys/bus/event_source/devices/armv8_pmuv3_0",
	};
	struct stat st;
	size_t i;
	int p;

	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		if (stat(dirs[i], &st) == 0)
			return 1;
	if (hec_init(NULL))
		return 0;
	for (p = 0; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;

		memset(&pi, 0, sizeof pi);
		pi.size = sizeof pi;
		if (dl_pfm_get_pmu_info((pfm_pmu_t)p, &pi) == PFM_SUCCESS &&
		    pi.is_present && pi.type == PFM_PMU_TYPE_CORE)
			return 1;
	}
	return 0;
}

/* Open a disabled user-space-only event on ourselves and close it:
 * 0 when it opened, else the errno. */
static int probe_open(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno ? errno : EINVAL;
	close((int)fd);
	return 0;
}

static void detect_pmu(void)
{
	int e = probe_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);

	if (!e)
		has_pmu_cached = 1;
	else if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
		has_pmu_cached = 0;
	else
		has_pmu_cached = sysfs_or_pfm_core_pmu();
}

int hec_machine_has_hw_pmu(void)
{
	pthread_once(&pmu_once, detect_pmu);
	return has_pmu_cached;
}

/* May this process count user space?  Open a user-only software event on
 * ourselves: at perf_event_paranoid 3 upstream Linux still allows it (it
 * treats 3 as 2), while kernels with Debian's patch refuse every
 * unprivileged open. */
static int user_only_cached = -1;
static pthread_once_t user_only_once = PTHREAD_ONCE_INIT;

static void detect_user_only(void)
{
	int e = probe_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);

	user_only_cached = !e ? 1 : e == EACCES || e == EPERM ? 0 : -1;
}

int hec_user_only_allowed(void)
{
	pthread_once(&user_only_once, detect_user_only);
	return user_only_cached;
}

int hec_perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v;

	if (!f)
		return INT32_MIN;
	if (fscanf(f, "%d", &v) != 1)
		v = INT32_MIN;
	fclose(f);
	return v;
}

/* ================================================================
 * Encoding one name
 * ================================================================ */

/* Software events perf knows that libpfm4 4.13's `perf` table lacks. */
static const struct {
	const char *name;
	uint64_t config;
} extra_software[] = {
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_COUNT_SW_DUMMY },
};

static int is_hardware_type(uint32_t type)
{
	return !(type == PERF_TYPE_SOFTWARE || type == PERF_TYPE_TRACEPOINT ||
		 type == PERF_TYPE_BREAKPOINT);
}

/* libpfm4 with the perf_event extended encoding.  Returns the pfm status. */
static int pfm_encode(const char *name, unsigned flags,
		      struct hec_encoding *out)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	pfm_event_info_t ei;
	pfm_pmu_info_t pi;
	char *fstr = NULL;
	int plm = PFM_PLM3 | ((flags & HEC_USER_ONLY) ? 0 : PFM_PLM0);
	int ret;

	memset(&attr, 0, sizeof attr);
	memset(&arg, 0, sizeof arg);
	arg.attr = &attr;
	arg.size = sizeof arg;
	arg.fstr = &fstr;
	ret = dl_pfm_get_os_event_encoding(name, plm, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS)
		return ret;
	memset(out, 0, sizeof *out);
	out->type = attr.type;
	out->config = attr.config;
	out->config1 = attr.config1;
	out->config2 = attr.config2;
	out->exclude_kernel = attr.exclude_kernel;
	out->exclude_user = attr.exclude_user;
	out->exclude_hv = attr.exclude_hv;
	out->hardware = is_hardware_type(attr.type);
	snprintf(out->canonical, sizeof out->canonical, "%s", fstr ? fstr : name);
	free(fstr);  /* libpfm4 allocates fstr with malloc */
	memset(&ei, 0, sizeof ei);
	ei.size = sizeof ei;
	if (dl_pfm_get_event_info(arg.idx, PFM_OS_PERF_EVENT_EXT, &ei) == PFM_SUCCESS) {
		memset(&pi, 0, sizeof pi);
		pi.size = sizeof pi;
		if (dl_pfm_get_pmu_info(ei.pmu, &pi) == PFM_SUCCESS) {
			snprintf(out->pmu, sizeof out->pmu, "%s", pi.name);
			if (pi.type == PFM_PMU_TYPE_CORE)
				out->pmu_counters = (unsigned)(pi.num_cntrs +
							       pi.num_fixed_cntrs);
		}
	}
	return PFM_SUCCESS;
}

/* "A.B.C" -> "A:B:C", keeping a "pmu::" prefix as it is.  NULL when the
 * name has no dot (nothing to try). */
static char *dotted_to_colon(const char *name)
{
	const char *rest = strstr(name, "::");
	char *copy, *p;

	rest = rest ? rest + 2 : name;
	if (!strchr(rest, '.'))
		return NULL;
	copy = cp_strdup(name);
	if (!copy)
		return NULL;
	for (p = copy + (rest - name); *p; p++)
		if (*p == '.')
			*p = ':';
	return copy;
}

/* Our own table, with optional ":u" / ":k" modifiers. */
static int extra_encode(const char *name, unsigned flags,
			struct hec_encoding *out)
{
	size_t i, n = strcspn(name, ":");
	const char *mods = name + n;

	for (i = 0; i < sizeof extra_software / sizeof extra_software[0]; i++) {
		if (strlen(extra_software[i].name) != n ||
		    strncasecmp(extra_software[i].name, name, n))
			continue;
		memset(out, 0, sizeof *out);
		out->type = PERF_TYPE_SOFTWARE;
		out->config = extra_software[i].config;
		out->exclude_hv = 1;
		out->exclude_kernel = (flags & HEC_USER_ONLY) ? 1 : 0;
		if (!strcasecmp(mods, ":u"))
			out->exclude_kernel = 1;
		else if (!strcasecmp(mods, ":k"))
			out->exclude_user = 1;
		else if (*mods)
			return -1;
		snprintf(out->canonical, sizeof out->canonical, "%s%s",
			 extra_software[i].name, mods);
		snprintf(out->pmu, sizeof out->pmu, "perf");
		return 0;
	}
	return -1;
}

/* ---- walking libpfm4's tables (active and inactive PMUs) ---- */

/* Calls fn(ctx, pmu, event index, event info) for every event of every PMU
 * libpfm4 knows; only_present restricts it to this machine's PMUs.  Stops
 * when fn returns non-zero and returns that value. */
typedef int (*event_fn)(void *ctx, const pfm_pmu_info_t *pi, int idx,
			const pfm_event_info_t *ei);

static int each_event(int only_present, event_fn fn, void *ctx)
{
	int p, idx, r;

	for (p = 0; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;

		memset(&pi, 0, sizeof pi);
		pi.size = sizeof pi;
		if (dl_pfm_get_pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS)
			continue;
		if (only_present && !pi.is_present)
			continue;
		for (idx = pi.first_event; idx != -1; idx = dl_pfm_get_event_next(idx)) {
			pfm_event_info_t ei;

			memset(&ei, 0, sizeof ei);
			ei.size = sizeof ei;
			if (dl_pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
				break;
			r = fn(ctx, &pi, idx, &ei);
			if (r)
				return r;
		}
	}
	return 0;
}

/* Is `name` (colon form, maybe with "pmu::" and modifiers) an event of a
 * PMU that is not on this machine?  Fills pmu_desc with that PMU. */
struct known_ctx {
	const char *pmu;       /* prefix given, or NULL */
	size_t pmu_len;
	const char *event;     /* event part */
	size_t event_len;
	const char *attrs;     /* ":a:b=1..." after the event part */
	char found[64];
};

static int attr_known(int idx, const pfm_event_info_t *ei, const char *a,
		      size_t n)
{
	int i;

	for (i = 0; i < ei->nattrs; i++) {
		pfm_event_attr_info_t ai;

		memset(&ai, 0, sizeof ai);
		ai.size = sizeof ai;
		if (dl_pfm_get_event_attr_info(idx, i, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS)
			continue;
		if (strlen(ai.name) == n && !strncasecmp(ai.name, a, n))
			return 1;
	}
	return 0;
}

static int known_fn(void *vctx, const pfm_pmu_info_t *pi, int idx,
		    const pfm_event_info_t *ei)
{
	struct known_ctx *c = vctx;
	const char *a;

	if (pi->is_present)
		return 0;
	if (c->pmu && (strlen(pi->name) != c->pmu_len ||
		       strncasecmp(pi->name, c->pmu, c->pmu_len)))
		return 0;
	if (strlen(ei->name) != c->event_len ||
	    strncasecmp(ei->name, c->event, c->event_len))
		return 0;
	for (a = c->attrs; *a == ':';) {
		size_t n;

		a++;
		n = strcspn(a, ":=");
		if (!attr_known(idx, ei, a, n))
			return 0;
		a += n;
		if (*a == '=')
			a += strcspn(a, ":");
	}
	if (*a)
		return 0;
	snprintf(c->found, sizeof c->found, "%s", pi->desc ? pi->desc : pi->name);
	return 1;
}

static int known_elsewhere(const char *colon_name, char *desc, size_t size)
{
	struct known_ctx c;
	const char *sep = strstr(colon_name, "::");

	memset(&c, 0, sizeof c);
	if (sep) {
		c.pmu = colon_name;
		c.pmu_len = (size_t)(sep - colon_name);
		c.event = sep + 2;
	} else {
		c.event = colon_name;
	}
	c.event_len = strcspn(c.event, ":");
	c.attrs = c.event + c.event_len;
	if (!each_event(0, known_fn, &c))
		return 0;
	snprintf(desc, size, "%s", c.found);
	return 1;
}

/* ================================================================
 * Close matches
 * ================================================================ */

#define SUGGEST_MAX 8

struct suggest_ctx {
	const char *query;     /* without "pmu::" */
	const char *pmu;       /* restrict to this PMU when given */
	size_t pmu_len;
	size_t qlen, limit;
	char sep;              /* '.' when the query is dotted, else ':' */
	int lower;             /* show perf names in lower case */
	size_t n;
	struct { char name[160]; size_t d; } best[SUGGEST_MAX];
};

static void offer(struct suggest_ctx *c, const char *cand)
{
	size_t d = cp_edit_distance(c->query, cand, c->limit), i, at;

	if (d > c->limit)
		return;
	for (i = 0; i < c->n; i++)
		if (!strcasecmp(c->best[i].name, cand))
			return;
	/* keep best[] sorted by (distance, name) */
	for (at = 0; at < c->n; at++)
		if (d < c->best[at].d ||
		    (d == c->best[at].d && strcmp(cand, c->best[at].name) < 0))
			break;
	if (at >= SUGGEST_MAX)
		return;
	if (c->n < SUGGEST_MAX)
		c->n++;
	memmove(&c->best[at + 1], &c->best[at],
		(c->n - 1 - at) * sizeof c->best[0]);
	snprintf(c->best[at].name, sizeof c->best[at].name, "%s", cand);
	c->best[at].d = d;
}

static int suggest_fn(void *vctx, const pfm_pmu_info_t *pi, int idx,
		      const pfm_event_info_t *ei)
{
	struct suggest_ctx *c = vctx;
	size_t elen = strlen(ei->name);
	char buf[160];
	int i;

	if (c->pmu && (strlen(pi->name) != c->pmu_len ||
		       strncasecmp(pi->name, c->pmu, c->pmu_len)))
		return 0;
	if (!strcmp(pi->name, "perf_raw"))
		return 0;
	if (!strcmp(pi->name, "perf")) {
		/* perf's aliases are the names people type: page-faults */
		size_t k;

		snprintf(buf, sizeof buf, "%s", ei->name);
		if (strchr(buf, '-'))
			for (k = 0; buf[k]; k++)
				buf[k] = (char)tolower((unsigned char)buf[k]);
		offer(c, buf);
		return 0;
	}
	if (elen + c->limit + 1 >= c->qlen)
		offer(c, ei->name);
	if (elen + 1 > c->qlen + c->limit)
		return 0;
	for (i = 0; i < ei->nattrs; i++) {
		pfm_event_attr_info_t ai;
		size_t alen;

		memset(&ai, 0, sizeof ai);
		ai.size = sizeof ai;
		if (dl_pfm_get_event_attr_info(idx, i, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS ||
		    ai.type != PFM_ATTR_UMASK)
			continue;
		alen = strlen(ai.name);
		if (elen + 1 + alen + c->limit < c->qlen ||
		    elen + 1 + alen > c->qlen + c->limit)
			continue;
		snprintf(buf, sizeof buf, "%s%c%s", ei->name, c->sep, ai.name);
		offer(c, buf);
	}
	return 0;
}

size_t hec_event_suggest(const char *name, size_t max, char *buf, size_t size)
{
	struct suggest_ctx *c;
	const char *sep = strstr(name, "::");
	size_t i, k, n, best_d;

	if (size)
		buf[0] = '\0';
	if (hec_init(NULL) || !max)
		return 0;
	c = cp_calloc(1, sizeof *c);
	if (!c)
		return 0;
	if (sep) {
		c->pmu = name;
		c->pmu_len = (size_t)(sep - name);
		c->query = sep + 2;
	} else {
		c->query = name;
	}
	c->qlen = strlen(c->query);
	c->limit = c->qlen < 6 ? 1 : c->qlen < 12 ? 2 : 3;
	c->sep = strchr(c->query, '.') ? '.' : ':';
	for (i = 0; i < sizeof extra_software / sizeof extra_software[0]; i++)
		if (!c->pmu)
			offer(c, extra_software[i].name);
	each_event(0, suggest_fn, c);
	/* only the closest ones: at the best distance, or one more */
	n = 0;
	best_d = c->n ? c->best[0].d : 0;
	for (i = 0; i < c->n && n < max; i++) {
		if (c->best[i].d > best_d + 1)
			break;
		n++;
	}
	for (i = 0, k = 0; i < n && size; i++) {
		int w = snprintf(buf + k, size - k, "%s'%.*s%s%s'",
				 i == 0 ? "" : i + 1 == n ? " or " : ", ",
				 (int)c->pmu_len, c->pmu ? c->pmu : "",
				 c->pmu ? "::" : "", c->best[i].name);
		if (w < 0 || (size_t)w >= size - k)
			break;
		k += (size_t)w;
	}
	cp_free(c);
	return n;
}

/* ================================================================
 * Listing
 * ================================================================ */

struct list_ctx {
	int all, has_pmu;
	hec_event_fn fn;
	void *ctx;
	int pass;           /* 0: the perf PMU's software names; 1: the rest */
};

/* The perf PMU's table holds canonical PERF_COUNT_* events and their
 * aliases (PAGE-FAULTS, FAULTS, ...): list the first alias in perf's
 * lower case with the canonical name and the other aliases. */
static int list_perf(struct list_ctx *c, const pfm_pmu_info_t *pi, int idx,
		     const pfm_event_info_t *ei)
{
	char name[96], desc[256];
	int j, n_alias = 0, hw;
	size_t k;

	(void)idx;
	if (ei->equiv)
		return 0;  /* an alias: listed with its canonical event */
	hw = strncmp(ei->name, "PERF_COUNT_SW_", 14) != 0;
	if (hw && !c->has_pmu && !c->all)
		return 0;
	name[0] = '\0';
	snprintf(desc, sizeof desc, "%s", ei->name);
	for (j = pi->first_event; j != -1; j = dl_pfm_get_event_next(j)) {
		pfm_event_info_t ai;

		memset(&ai, 0, sizeof ai);
		ai.size = sizeof ai;
		if (dl_pfm_get_event_info(j, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS)
			break;
		if (!ai.equiv || strcmp(ai.equiv, ei->name))
			continue;
		if (!name[0]) {
			snprintf(name, sizeof name, "%s", ai.name);
			for (k = 0; name[k]; k++)
				name[k] = (char)tolower((unsigned char)name[k]);
		} else {
			size_t len = strlen(desc);

			snprintf(desc + len, sizeof desc - len, "%s%s",
				 n_alias++ ? ", " : " (also: ", ai.name);
			for (k = len; desc[k]; k++)
				desc[k] = (char)tolower((unsigned char)desc[k]);
		}
	}
	if (n_alias) {
		size_t len = strlen(desc);

		snprintf(desc + len, sizeof desc - len, ")");
	}
	if (!name[0])
		snprintf(name, sizeof name, "%s", ei->name);
	{
		struct hec_event_desc d = { name, hw, !hw || c->has_pmu,
					    pi->name, desc };

		return c->fn(c->ctx, &d);
	}
}

static int list_fn(void *vctx, const pfm_pmu_info_t *pi, int idx,
		   const pfm_event_info_t *ei)
{
	struct list_ctx *c = vctx;
	char name[256];
	int i, r;

	if (!strcmp(pi->name, "perf"))
		return c->pass == 0 ? list_perf(c, pi, idx, ei) : 0;
	if (c->pass == 0 || !strcmp(pi->name, "perf_raw"))
		return 0;
	if (!pi->is_present && !c->all)
		return 0;
	if (pi->is_present)
		snprintf(name, sizeof name, "%s", ei->name);
	else
		snprintf(name, sizeof name, "%s::%s", pi->name, ei->name);
	{
		struct hec_event_desc d = { name, 1, pi->is_present, pi->name,
					    ei->desc ? ei->desc : "" };

		r = c->fn(c->ctx, &d);
		if (r)
			return r;
	}
	for (i = 0; i < ei->nattrs; i++) {
		pfm_event_attr_info_t ai;
		char full[320];

		memset(&ai, 0, sizeof ai);
		ai.size = sizeof ai;
		if (dl_pfm_get_event_attr_info(idx, i, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS ||
		    ai.type != PFM_ATTR_UMASK)
			continue;
		snprintf(full, sizeof full, "%s.%s", name, ai.name);
		{
			struct hec_event_desc d = { full, 1, pi->is_present,
						    pi->name, ai.desc ? ai.desc : "" };

			r = c->fn(c->ctx, &d);
			if (r)
				return r;
		}
	}
	return 0;
}

int hec_events_each(int all, hec_event_fn fn, void *ctx, struct cp_error *err)
{
	struct list_ctx c;
	size_t i;
	int r;

	if (hec_init(err))
		return CP_EUNSUPPORTED;
	memset(&c, 0, sizeof c);
	c.all = all;
	c.has_pmu = hec_machine_has_hw_pmu();
	c.fn = fn;
	c.ctx = ctx;
	r = each_event(1, list_fn, &c);
	for (i = 0; !r && i < sizeof extra_software / sizeof extra_software[0]; i++) {
		struct hec_event_desc d = { extra_software[i].name, 0, 1, "perf",
					    "" };
		char desc[64];

		if (extra_software[i].config == PERF_COUNT_SW_DUMMY)
			continue;  /* counts nothing */
		snprintf(desc, sizeof desc, "PERF_COUNT_SW_%s",
			 extra_software[i].config == PERF_COUNT_SW_ALIGNMENT_FAULTS ?
			 "ALIGNMENT_FAULTS" : "EMULATION_FAULTS");
		d.desc = desc;
		r = fn(ctx, &d);
	}
	c.pass = 1;
	if (!r)
		r = each_event(!all, list_fn, &c);
	return r;
}

/* ================================================================
 * hec_event_encode
 * ================================================================ */

int hec_event_encode(const char *name, unsigned flags,
		     struct hec_encoding *out, struct cp_error *err)
{
	char *colon = NULL;
	char desc[64], near[600];
	int ret, rc = 0;

	if (hec_init(err))
		return CP_EUNSUPPORTED;
	if (!name[0])
		return cp_error_set(err, CP_EINPUT, "empty event name");
	if (strchr(name, '/'))   /* perf's pmu/terms/ syntax: sysfs, not libpfm4 */
		return hec_pmu_terms_encode(name, flags, out, err);
	ret = pfm_encode(name, flags, out);
	if (ret != PFM_SUCCESS) {
		colon = dotted_to_colon(name);
		if (colon)
			ret = pfm_encode(colon, flags, out);
	}
	if (ret == PFM_SUCCESS || extra_encode(name, flags, out) == 0) {
		if (flags & HEC_USER_ONLY)
			out->exclude_kernel = 1;
		goto out;
	}
	if (!err) {   /* nobody reads why: skip the search for close names */
		rc = CP_EINPUT;
		goto out;
	}
	if (known_elsewhere(colon ? colon : name, desc, sizeof desc)) {
		if (!hec_machine_has_hw_pmu())
			rc = cp_error_set(err, CP_EUNSUPPORTED,
					  "cannot record '%s': " HEC_NO_PMU_MSG,
					  name);
		else
			rc = cp_error_set(err, CP_EUNSUPPORTED,
					  "cannot record '%s': it is an event of "
					  "%s, which is not this machine's PMU "
					  "(try 'counterpoint events')", name, desc);
		goto out;
	}
	if (hec_event_suggest(name, 3, near, sizeof near))
		rc = cp_error_set(err, CP_EINPUT,
				  "unknown event '%s'; did you mean %s?", name, near);
	else if (ret == PFM_ERR_ATTR || ret == PFM_ERR_ATTR_VAL)
		rc = cp_error_set(err, CP_EINPUT,
				  "unknown event '%s': %s (try 'counterpoint "
				  "events')", name, dl_pfm_strerror(ret));
	else
		rc = cp_error_set(err, CP_EINPUT,
				  "unknown event '%s' (try 'counterpoint events')",
				  name);
out:
	cp_free(colon);
	return rc;
}

/* ================================================================
 * Why an open failed
 * ================================================================ */

/* Permission refused counting a whole CPU, or attaching to a running
 * process: perf's rules (perf_event_paranoid's levels; CAP_PERFMON,
 * Linux 5.8 on, or CAP_SYS_ADMIN before it; ptrace rights for a process). */
static int attach_denied(struct cp_error *err, const char *name,
			 const struct hec_open_target *where, int kernel_too,
			 int paranoid, const char *setting)
{
	if (where->kind == HEC_TARGET_CPU)
		return cp_error_set(err, CP_EPERM,
			"cannot open '%s' on CPU %d: permission denied (%s; "
			"counting a whole CPU (-a, -C) takes perf_event_paranoid "
			"-1 or 0 or CAP_PERFMON: -1 allows everything, 0 CPUs "
			"and the kernel, 1 only one's own processes, 2 only their "
			"user space); run as root, give the recorder CAP_PERFMON, "
			"or as root run 'sysctl kernel.perf_event_paranoid=0'",
			name, where->id, setting);
	if (kernel_too && paranoid >= 2)
		return cp_error_set(err, CP_EPERM,
			"cannot attach '%s' to process %d: permission denied (%s: "
			"unprivileged users may count user space only, and only "
			"in processes they may trace); record with --user-only, "
			"run as root, or give the recorder CAP_PERFMON",
			name, where->id, setting);
	return cp_error_set(err, CP_EPERM,
		"cannot attach '%s' to process %d: permission denied (%s; "
		"attaching takes the right to trace the process: the same user "
		"(and kernel.yama.ptrace_scope allowing it), or CAP_PERFMON or "
		"CAP_SYS_PTRACE); run as root or give the recorder CAP_PERFMON",
		name, where->id, setting);
}

int hec_open_error(struct cp_error *err, const char *name,
		   const struct hec_encoding *enc, int errnum, int paranoid,
		   int user_only_ok, int has_hw_pmu, size_t group_size,
		   const struct hec_open_target *where)
{
	int kernel_too = enc && !enc->exclude_kernel;
	int attached = where && where->kind != HEC_TARGET_COMMAND;

	char setting[64];

	if (paranoid == INT32_MIN)
		snprintf(setting, sizeof setting,
			 "perf_event_paranoid could not be read");
	else
		snprintf(setting, sizeof setting, "perf_event_paranoid is %d",
			 paranoid);
	switch (errnum) {
	case EACCES:
	case EPERM:
		if (attached)
			return attach_denied(err, name, where, kernel_too, paranoid,
					     setting);
		/* 3 means "nothing for unprivileged users" only on kernels
		 * with Debian's patch; upstream treats it as 2.  A user-only
		 * open refused, or the probe refused: this kernel is strict. */
		if (paranoid >= 3 && (!kernel_too || user_only_ok == 0))
			return cp_error_set(err, CP_EPERM,
				"cannot open '%s': permission denied (%s: this "
				"kernel lets only privileged users count events); "
				"run as root, give the recorder CAP_PERFMON, or as "
				"root run 'sysctl kernel.perf_event_paranoid=2' and "
				"record with --user-only", name, setting);
		if (paranoid >= 3 && user_only_ok > 0)
			return cp_error_set(err, CP_EPERM,
				"cannot open '%s': permission denied (%s, and this "
				"kernel lets unprivileged users count user space "
				"only); record with --user-only, run as root, or as "
				"root run 'sysctl kernel.perf_event_paranoid=1'",
				name, setting);
		if (paranoid >= 3)
			return cp_error_set(err, CP_EPERM,
				"cannot open '%s': permission denied (%s: some "
				"kernels then let unprivileged users count user "
				"space only, others nothing); record with "
				"--user-only, run as root, or as root run "
				"'sysctl kernel.perf_event_paranoid=1'", name, setting);
		if (kernel_too && paranoid >= 2)
			return cp_error_set(err, CP_EPERM,
				"cannot open '%s': permission denied (%s: "
				"unprivileged users may count user space only); "
				"record with --user-only, run as root, or as root run "
				"'sysctl kernel.perf_event_paranoid=1'", name, setting);
		return cp_error_set(err, CP_EPERM,
			"cannot open '%s': permission denied (%s); run as root "
			"or give the recorder CAP_PERFMON", name, setting);
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (enc && enc->hardware && !has_hw_pmu)
			return cp_error_set(err, CP_EUNSUPPORTED,
					    "cannot record '%s': " HEC_NO_PMU_MSG,
					    name);
		if (enc && enc->hardware)
			return cp_error_set(err, CP_EUNSUPPORTED,
				"cannot record '%s': this machine's PMU does not "
				"support it (%s)", name, strerror(errnum));
		return cp_error_set(err, CP_EUNSUPPORTED,
			"cannot record '%s': this kernel does not provide it (%s)",
			name, strerror(errnum));
	case EINVAL:
		if (enc && enc->hardware && !has_hw_pmu)
			return cp_error_set(err, CP_EUNSUPPORTED,
					    "cannot record '%s': " HEC_NO_PMU_MSG,
					    name);
		if (group_size > 1)
			return cp_error_set(err, CP_EUNSUPPORTED,
				"cannot open '%s': too many events in one group "
				"for the PMU (its group of %zu events cannot be "
				"counted at once); split the group", name, group_size);
		return cp_error_set(err, CP_EUNSUPPORTED,
			"cannot open '%s': the kernel rejected its encoding "
			"(%s)", name, strerror(errnum));
	case ESRCH:
		return cp_error_set(err, CP_EINPUT,
			"cannot attach '%s' to process %d: it has exited", name,
			where ? where->id : -1);
	case EBUSY:
		return cp_error_set(err, CP_EUNSUPPORTED,
			"cannot open '%s': the PMU's counters are taken (another "
			"user holds them exclusively: a pinned or exclusive event, "
			"or the NMI watchdog)", name);
	case EMFILE:
	case ENFILE:
		return cp_error_set(err, CP_EUNSUPPORTED,
			"cannot open '%s': too many open files (raise 'ulimit -n')",
			name);
	default:
		return cp_error_set(err, CP_EUNSUPPORTED,
			"cannot open '%s': perf_event_open failed: %s", name,
			strerror(errnum));
	}
}

/* ================================================================
 * The PMU an event is encoded for, and events that go by several names
 * ================================================================ */

/* libpfm4's PMU named name (any case): 1 and its info, or 0. */
static int find_pmu(const char *name, pfm_pmu_info_t *out)
{
	int p;

	if (hec_init(NULL) || !name)
		return 0;
	for (p = 0; p < PFM_PMU_MAX; p++) {
		memset(out, 0, sizeof *out);
		out->size = sizeof *out;
		if (dl_pfm_get_pmu_info((pfm_pmu_t)p, out) == PFM_SUCCESS &&
		    !strcasecmp(out->name, name))
			return 1;
	}
	return 0;
}

int hec_pmu_status(const char *pmu)
{
	pfm_pmu_info_t pi;

	if (!find_pmu(pmu, &pi))
		return -1;
	return pi.is_present ? 1 : 0;
}

static char core_pmu[64];
static pthread_once_t core_pmu_once = PTHREAD_ONCE_INIT;

static void detect_core_pmu(void)
{
	int p;

	if (hec_init(NULL))
		return;
	for (p = 0; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;

		memset(&pi, 0, sizeof pi);
		pi.size = sizeof pi;
		if (dl_pfm_get_pmu_info((pfm_pmu_t)p, &pi) == PFM_SUCCESS &&
		    pi.is_present && pi.type == PFM_PMU_TYPE_CORE) {
			snprintf(core_pmu, sizeof core_pmu, "%s", pi.name);
			return;
		}
	}
}

const char *hec_machine_core_pmu(void)
{
	pthread_once(&core_pmu_once, detect_core_pmu);
	return core_pmu[0] ? core_pmu : NULL;
}

int hec_pmu_check(const char *pmu, struct cp_error *err)
{
	const char *env = getenv("LIBPFM_ENCODE_INACTIVE");
	const char *core;

	if (hec_init(err))
		return CP_EUNSUPPORTED;
	switch (hec_pmu_status(pmu)) {
	case 1:
		return 0;
	case 0:
		if (env && strcmp(env, "0"))
			return 0;
		core = hec_machine_core_pmu();
		if (core)
			return cp_error_set(err, CP_EUNSUPPORTED, "PMU '%s' is not "
				"this machine's (its core PMU is %s); "
				"LIBPFM_ENCODE_INACTIVE=1 with --dry-run shows its "
				"encodings", pmu, core);
		return cp_error_set(err, CP_EUNSUPPORTED, "PMU '%s' is not on this "
			"machine (%s); LIBPFM_ENCODE_INACTIVE=1 with --dry-run "
			"shows its encodings", pmu, hec_machine_has_hw_pmu() ?
			"libpfm4 finds no core PMU here" :
			"it has no hardware PMU: virtual machine?");
	default:
		return cp_error_set(err, CP_EINPUT, "unknown PMU '%s' (try "
				    "'counterpoint events --all' for libpfm4's "
				    "names, e.g. hsw, skl, icl, spr, "
				    "amd64_fam19h_zen3)", pmu);
	}
}

/* "r0808", "r808:u": perf's raw code (perf_raw in libpfm4). */
static int is_raw_name(const char *name)
{
	size_t i, n = strcspn(name, ":");

	if ((name[0] != 'r' && name[0] != 'R') || n < 2)
		return 0;
	for (i = 1; i < n; i++)
		if (!isxdigit((unsigned char)name[i]))
			return 0;
	return 1;
}

/* A raw code or perf's PMU terms: a code, not a name libpfm4 knows. */
static int is_code(const char *name)
{
	return is_raw_name(name) || strchr(name, '/') != NULL;
}

/* Which PMUs have an event named like the event part of a name
 * ("DTLB_LOAD_MISSES" of "hsw::DTLB_LOAD_MISSES.WALK_COMPLETED_1G:u"),
 * and its code on pmu. */
struct base_ctx {
	char base[128];
	const char *pmu;
	int on_pmu;            /* pmu has it */
	uint64_t code;         /* its code there */
	char others[128];      /* other PMUs that have it, "skl, icl" */
	size_t n_others;
};

static void list_add(char *list, size_t size, size_t *n, const char *name)
{
	size_t len = strlen(list);

	if (*n < 4)
		snprintf(list + len, size - len, "%s%s", len ? ", " : "", name);
	else if (*n == 4)
		snprintf(list + len, size - len, ", ...");
	(*n)++;
}

static int base_fn(void *vctx, const pfm_pmu_info_t *pi, int idx,
		   const pfm_event_info_t *ei)
{
	struct base_ctx *c = vctx;

	(void)idx;
	if (strcasecmp(ei->name, c->base) || !strcmp(pi->name, "perf") ||
	    !strcmp(pi->name, "perf_raw"))
		return 0;
	if (c->pmu && !strcasecmp(pi->name, c->pmu)) {
		c->on_pmu = 1;
		c->code = ei->code;
	} else {
		list_add(c->others, sizeof c->others, &c->n_others, pi->name);
	}
	return 0;
}

static void find_base(const char *name, const char *pmu, struct base_ctx *c)
{
	const char *sep = strstr(name, "::");

	memset(c, 0, sizeof *c);
	name = sep ? sep + 2 : name;
	snprintf(c->base, sizeof c->base, "%.*s", (int)strcspn(name, ".:"), name);
	c->pmu = pmu;
	each_event(0, base_fn, c);
}

/* The PMUs other than skip that know a name whole (event and umasks). */
struct whole_ctx {
	struct known_ctx k;
	const char *skip;
	char list[128];
	size_t n;
};

static int whole_fn(void *vctx, const pfm_pmu_info_t *pi, int idx,
		    const pfm_event_info_t *ei)
{
	struct whole_ctx *c = vctx;
	pfm_pmu_info_t any = *pi;

	if (c->skip && !strcasecmp(pi->name, c->skip))
		return 0;
	any.is_present = 0;   /* known_fn looks at absent PMUs only */
	if (known_fn(&c->k, &any, idx, ei))
		list_add(c->list, sizeof c->list, &c->n, pi->name);
	return 0;
}

static void pmus_knowing(const char *name, const char *skip, char *out,
			 size_t size)
{
	struct whole_ctx c;
	char *colon = dotted_to_colon(name);
	const char *q = colon ? colon : name;
	const char *sep = strstr(q, "::");

	memset(&c, 0, sizeof c);
	c.skip = skip;
	c.k.event = sep ? sep + 2 : q;
	c.k.event_len = strcspn(c.k.event, ":");
	c.k.attrs = c.k.event + c.k.event_len;
	each_event(0, whole_fn, &c);
	snprintf(out, size, "%s", c.list);
	cp_free(colon);
}

/* One name on pmu (NULL: as hec_event_encode resolves it): a name without
 * a PMU prefix is tried on pmu first; what else it resolves to must be
 * one of perf's generic events, never another processor's. */
static int encode_for(const char *pmu, const char *name, unsigned flags,
		      struct hec_encoding *out, struct cp_error *err)
{
	char buf[512], near[600], others[160];
	int rc;

	if (!pmu || strstr(name, "::") || is_code(name))
		return hec_event_encode(name, flags, out, err);
	snprintf(buf, sizeof buf, "%s::%s", pmu, name);
	if (hec_event_encode(buf, flags, out, NULL) == 0)
		return 0;
	rc = hec_event_encode(name, flags, out, NULL);
	if (rc == 0 && (!out->hardware || !strcmp(out->pmu, "perf") ||
			!strcasecmp(out->pmu, pmu)))
		return 0;
	if (!err)
		return CP_EINPUT;
	pmus_knowing(name, pmu, others, sizeof others);
	hec_event_suggest(buf, 3, near, sizeof near);
	return cp_error_set(err, CP_EINPUT,
			    "'%s' is unknown to libpfm4 for PMU %s%s%s%s%s%s", name,
			    pmu, near[0] ? " (near: " : "", near, near[0] ? ")" : "",
			    others[0] ? "; libpfm4 has it for " : "", others);
}

/* The event select of a raw or PMU-terms encoding: Intel's 8 bits, AMD's
 * 12 (bits 0-7 and 32-35 of config). */
static uint64_t event_select(const char *pmu, uint64_t config)
{
	uint64_t ev = config & 0xff;

	if (pmu && !strncmp(pmu, "amd64", 5))
		ev |= (config >> 24) & 0xf00;
	return ev;
}

/* May names[i] (a code, or perf's generic name) stand in for the names
 * before it on pmu?  Each of them that libpfm4 knows as an event of pmu
 * must have a code's event select; one that libpfm4 knows only for other
 * processors says the counter is theirs.  0, or the error. */
static int code_fits(const char *const *names, size_t i, const char *pmu,
		     const struct hec_encoding *enc, struct cp_error *err)
{
	size_t k;

	for (k = 0; k < i; k++) {
		struct base_ctx c;

		if (is_code(names[k]))
			continue;
		find_base(names[k], pmu, &c);
		if (c.on_pmu && is_code(names[i]) &&
		    c.code != event_select(pmu, enc->config))
			return cp_error_set(err, CP_EINPUT, "'%s' is event %#llx, but "
				"%s's %s is event %#llx", names[i],
				(unsigned long long)event_select(pmu, enc->config),
				pmu, c.base, (unsigned long long)c.code);
		if (!c.on_pmu && c.n_others)
			return cp_error_set(err, CP_EUNSUPPORTED, "'%s' is an event "
				"of %s, not of %s%s (so its alias '%s' would count "
				"something else here)", names[k], c.others,
				pmu ? "PMU " : "this machine's PMU", pmu ? pmu : "",
				names[i]);
	}
	return 0;
}

int hec_event_encode_any(const char *const *names, size_t n, const char *pmu,
			 unsigned flags, struct hec_encoding *out, size_t *chosen,
			 char *note, size_t note_size, struct cp_error *err)
{
	struct cp_error first, last;
	const char *target;
	size_t i;

	if (note_size)
		note[0] = '\0';
	*chosen = 0;
	if (hec_init(err))
		return CP_EUNSUPPORTED;
	if (!n)
		return cp_error_set(err, CP_EINPUT, "empty event name");
	/* names resolve on the PMU asked for (or as they do on this machine);
	 * codes are checked against the processor they will count on */
	target = pmu ? pmu : hec_machine_core_pmu();
	cp_error_clear(&first);
	cp_error_clear(&last);
	for (i = 0; i < n; i++) {
		struct cp_error *e = i ? &last : NULL;

		/* without any PMU no alias counts: the first reason stands */
		if (i && !target && !hec_machine_has_hw_pmu())
			break;
		/* why the first name fails is worked out only if it is said */
		if (encode_for(pmu, names[i], flags, out, e))
			continue;
		/* an alias that is not target's own libpfm4 event stands in */
		if (i && out->hardware && !(target && !strcasecmp(out->pmu, target)) &&
		    code_fits(names, i, target, out, e)) {
			if (e->code == CP_EUNSUPPORTED)
				return cp_error_set(err, e->code, "%s", e->msg);
			continue;
		}
		*chosen = i;
		if (i && note_size)
			snprintf(note, note_size, "for '%s', which libpfm4 does not "
				 "encode %s%s", names[0], target ? "for PMU " : "here",
				 target ? target : "");
		return 0;
	}
	encode_for(pmu, names[0], flags, out, &first);
	if (!last.msg[0])
		return cp_error_set(err, first.code, "%s", first.msg);
	return cp_error_set(err, first.code, "%s; no alias encodes either "
			    "(the last: %s)", first.msg, last.msg);
}
