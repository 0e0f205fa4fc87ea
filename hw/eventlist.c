/* hw/eventlist.c: the events of one recording, as the user named them,
 * with their groups ("a,{b,c},d") and, once encoded, their perf_event
 * encodings.  The names given are the dataset's event names. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "hw/hec.h"

struct hec_event_entry {
	char *name;
	size_t group;
	struct hec_encoding enc;
};

struct hec_eventlist {
	struct hec_event_entry *ev;
	size_t n, cap;
	size_t n_groups;
	int encoded;
	char *pmu;   /* default PMU for unprefixed names, or NULL */
};

struct hec_eventlist *hec_eventlist_new(void)
{
	return cp_calloc(1, sizeof(struct hec_eventlist));
}

void hec_eventlist_free(struct hec_eventlist *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		cp_free(l->ev[i].name);
	cp_free(l->ev);
	cp_free(l->pmu);
	cp_free(l);
}

static int add(struct hec_eventlist *l, const char *s, size_t len,
	       size_t group, const char *spec, struct cp_error *err)
{
	size_t i;
	char *name;

	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (!len)
		return cp_error_set(err, CP_EINPUT,
				    "empty event name in event list '%s'", spec);
	name = cp_strndup(s, len);
	if (!name)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < l->n; i++)
		if (!strcmp(l->ev[i].name, name)) {
			cp_error_set(err, CP_EINPUT, "event '%s' named twice", name);
			cp_free(name);
			return CP_EINPUT;
		}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct hec_event_entry *ev = cp_reallocarray(l->ev, cap, sizeof *ev);

		if (!ev) {
			cp_free(name);
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		}
		l->ev = ev;
		l->cap = cap;
	}
	memset(&l->ev[l->n], 0, sizeof l->ev[l->n]);
	l->ev[l->n].name = name;
	l->ev[l->n].group = group;
	l->n++;
	l->encoded = 0;
	return 0;
}

/* The length of the name at p: up to ',', '{' or '}', except between the
 * slashes of perf's PMU syntax (cpu/event=0x08,umask=0x01/u).  *open is
 * set when a slash is left unclosed. */
static size_t name_span(const char *p, int *open)
{
	size_t i;

	*open = 0;
	for (i = 0; p[i]; i++) {
		if (p[i] == '/')
			*open = !*open;
		else if (!*open && strchr(",{}", p[i]))
			break;
	}
	return i;
}

/* Grammar: list = item { "," item }; item = name | "{" name { "," name } "}".
 * Names end at ',', '{' or '}' (name_span). */
int hec_eventlist_parse(struct hec_eventlist *l, const char *spec,
			struct cp_error *err)
{
	const char *p = spec;
	int in_group = 0, rc, open;
	size_t group_events = 0;

	for (;;) {
		size_t len;

		while (isspace((unsigned char)*p))
			p++;
		if (*p == '{') {
			if (in_group)
				return cp_error_set(err, CP_EINPUT,
					"nested '{' in event list '%s'", spec);
			in_group = 1;
			group_events = 0;
			p++;
			continue;
		}
		len = name_span(p, &open);
		if (open)
			return cp_error_set(err, CP_EINPUT, "'/' not closed in event "
					    "'%.*s' of event list '%s'", (int)len, p,
					    spec);
		if (p[len] == '{')
			return cp_error_set(err, CP_EINPUT,
				"unexpected '{' in event list '%s'", spec);
		rc = add(l, p, len, l->n_groups, spec, err);
		if (rc)
			return rc;
		group_events++;
		p += len;
		if (!in_group)
			l->n_groups++;
		if (*p == '}') {
			if (!in_group)
				return cp_error_set(err, CP_EINPUT,
					"unmatched '}' in event list '%s'", spec);
			in_group = 0;
			l->n_groups++;
			p++;
			while (isspace((unsigned char)*p))
				p++;
			if (!*p)
				return 0;
			if (*p != ',')
				return cp_error_set(err, CP_EINPUT,
					"',' expected after '}' in event list '%s'",
					spec);
			p++;
			continue;
		}
		if (!*p) {
			if (in_group)
				return cp_error_set(err, CP_EINPUT,
					"missing '}' in event list '%s'", spec);
			return 0;
		}
		p++;  /* ',' */
	}
}

int hec_eventlist_set_pmu(struct hec_eventlist *l, const char *pmu)
{
	cp_free(l->pmu);
	l->pmu = NULL;
	if (pmu && !(l->pmu = cp_strdup(pmu)))
		return CP_ENOMEM;
	l->encoded = 0;
	return 0;
}

/* With a default PMU, "EVENT" is tried as "pmu::EVENT" first. */
static int encode_one(const struct hec_eventlist *l, const char *name,
		      unsigned flags, struct hec_encoding *enc,
		      struct cp_error *err)
{
	if (l->pmu && !strstr(name, "::")) {
		struct cp_buf b;
		int rc;

		cp_buf_init(&b);
		cp_buf_printf(&b, "%s::%s", l->pmu, name);
		rc = b.failed ? CP_ENOMEM : hec_event_encode(b.data, flags, enc, NULL);
		cp_buf_release(&b);
		if (rc == 0)
			return 0;
	}
	return hec_event_encode(name, flags, enc, err);
}

int hec_eventlist_encode(struct hec_eventlist *l, unsigned flags,
			 struct cp_error *err)
{
	size_t i, j, g;
	int rc;

	for (i = 0; i < l->n; i++) {
		rc = encode_one(l, l->ev[i].name, flags, &l->ev[i].enc, err);
		if (rc)
			return rc;
	}
	/* A group is scheduled all at once: more hardware events than the
	 * PMU has counters can never run.  (The kernel's own check, at open,
	 * also knows about hyper-threading and counter constraints.) */
	for (g = 0; g < l->n_groups; g++) {
		size_t hw = 0, first = l->n, cap = 0;
		const char *pmu = "";

		for (i = 0; i < l->n; i++) {
			if (l->ev[i].group != g || !l->ev[i].enc.hardware)
				continue;
			if (first == l->n)
				first = i;
			hw++;
			if (l->ev[i].enc.pmu_counters) {
				cap = l->ev[i].enc.pmu_counters;
				pmu = l->ev[i].enc.pmu;
			}
		}
		if (!cap || hw <= cap)
			continue;
		{
			struct cp_buf b;

			cp_buf_init(&b);
			for (j = first; j < l->n; j++)
				if (l->ev[j].group == g)
					cp_buf_printf(&b, "%s%s", b.len ? "," : "{",
						      l->ev[j].name);
			cp_buf_puts(&b, "}");
			cp_error_set(err, CP_EINPUT,
				     "too many events in one group for the PMU: "
				     "%s has %zu hardware events but the %s PMU "
				     "has %zu counters; split the group",
				     b.failed ? "a group" : b.data, hw, pmu, cap);
			cp_buf_release(&b);
			return CP_EINPUT;
		}
	}
	l->encoded = 1;
	return 0;
}

size_t hec_eventlist_size(const struct hec_eventlist *l)
{
	return l->n;
}

const char *hec_eventlist_name(const struct hec_eventlist *l, size_t i)
{
	return l->ev[i].name;
}

size_t hec_eventlist_group(const struct hec_eventlist *l, size_t i)
{
	return l->ev[i].group;
}

size_t hec_eventlist_n_groups(const struct hec_eventlist *l)
{
	return l->n_groups;
}

const struct hec_encoding *hec_eventlist_encoding(const struct hec_eventlist *l,
						  size_t i)
{
	return l->encoded ? &l->ev[i].enc : NULL;
}
