/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/eventlist.c: the events of one recording, as the user named them,
 * with their groups ("a,{b,c},d") and, once encoded, their perf_event
 * encodings.  The names given are the dataset's event names. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "hw/hec.h"

struct hec_event_entry {
	char **names;          /* the names it goes by; [chosen] is opened */
	size_t n_names, chosen;
	char *label;           /* for errors, or NULL */
	size_t group;
	struct hec_encoding enc;
	char note[192];        /* why names[chosen] and not names[0] */
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

static void free_entry(struct hec_event_entry *e)
{
	size_t j;

	for (j = 0; j < e->n_names; j++)
		cp_free(e->names[j]);
	cp_free(e->names);
	cp_free(e->label);
}

void hec_eventlist_free(struct hec_eventlist *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		free_entry(&l->ev[i]);
	cp_free(l->ev);
	cp_free(l->pmu);
	cp_free(l);
}

/* Is name one of the list's names (any event's, any alternative)? */
static int named(const struct hec_eventlist *l, const char *name)
{
	size_t i, j;

	for (i = 0; i < l->n; i++)
		for (j = 0; j < l->ev[i].n_names; j++)
			if (!strcmp(l->ev[i].names[j], name))
				return 1;
	return 0;
}

/* Append an entry taking names (n of them, owned) and label (owned). */
static int append(struct hec_eventlist *l, char **names, size_t n,
		  char *label, size_t group, struct cp_error *err)
{
	struct hec_event_entry e;
	size_t j;

	memset(&e, 0, sizeof e);
	e.names = names;
	e.n_names = n;
	e.label = label;
	e.group = group;
	for (j = 0; j < n; j++)
		if (named(l, names[j])) {
			cp_error_set(err, CP_EINPUT, "event '%s' named twice", names[j]);
			goto fail;
		}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct hec_event_entry *ev = cp_reallocarray(l->ev, cap, sizeof *ev);

		if (!ev) {
			cp_error_set(err, CP_ENOMEM, "out of memory");
			goto fail;
		}
		l->ev = ev;
		l->cap = cap;
	}
	l->ev[l->n++] = e;
	l->encoded = 0;
	return 0;
fail:
	free_entry(&e);
	return err ? err->code : CP_EINPUT;
}

static int add(struct hec_eventlist *l, const char *s, size_t len,
	       size_t group, const char *spec, struct cp_error *err)
{
	char **names;

	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (!len)
		return cp_error_set(err, CP_EINPUT,
				    "empty event name in event list '%s'", spec);
	names = cp_calloc(1, sizeof *names);
	if (!names || !(names[0] = cp_strndup(s, len))) {
		cp_free(names);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	return append(l, names, 1, NULL, group, err);
}

int hec_eventlist_add(struct hec_eventlist *l, const char *const *names,
		      size_t n, const char *label, struct cp_error *err)
{
	char **copy = n ? cp_calloc(n, sizeof *copy) : NULL;
	char *lab = NULL;
	size_t j;
	int rc;

	if (!n)
		return cp_error_set(err, CP_EINPUT, "empty event name");
	if (!copy)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (j = 0; j < n; j++) {
		if (!names[j][0]) {
			rc = cp_error_set(err, CP_EINPUT, "empty event name");
			goto fail;
		}
		if (!(copy[j] = cp_strdup(names[j]))) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory");
			goto fail;
		}
	}
	if (label && !(lab = cp_strdup(label))) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto fail;
	}
	rc = append(l, copy, n, lab, l->n_groups, err);
	if (!rc)
		l->n_groups++;
	return rc;
fail:
	for (j = 0; j < n; j++)
		cp_free(copy[j]);
	cp_free(copy);
	return rc;
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

int hec_eventlist_encode(struct hec_eventlist *l, unsigned flags,
			 struct cp_error *err)
{
	size_t i, j, g;
	int rc;

	l->encoded = 0;
	if (l->pmu && (rc = hec_pmu_check(l->pmu, err)))
		return rc;
	for (i = 0; i < l->n; i++) {
		struct hec_event_entry *e = &l->ev[i];

		rc = hec_event_encode_any((const char *const *)e->names, e->n_names,
					  l->pmu, flags, &e->enc, &e->chosen,
					  e->note, sizeof e->note, err);
		if (rc) {
			if (e->label && err) {
				char msg[CP_ERROR_MAX];

				snprintf(msg, sizeof msg, "%s", err->msg);
				cp_error_set(err, rc, "%s: %s", e->label, msg);
			}
			return rc;
		}
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
						      hec_eventlist_name(l, j));
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

int hec_eventlist_group_if_fits(struct hec_eventlist *l, size_t first,
				size_t n)
{
	size_t i, hw = 0, cap = 0;

	if (!l->encoded || n < 2 || first + n != l->n)
		return 0;
	for (i = first; i < first + n; i++) {
		const struct hec_encoding *e = &l->ev[i].enc;

		if (!e->hardware)
			continue;
		if (!e->pmu_counters)
			return 0;   /* a raw code or sysfs PMU: capacity unknown */
		hw++;
		if (!cap || e->pmu_counters < cap)
			cap = e->pmu_counters;
	}
	if (hw > cap)
		return 0;
	for (i = first; i < first + n; i++)
		l->ev[i].group = l->ev[first].group;
	l->n_groups = l->ev[first].group + 1;
	return 1;
}

size_t hec_eventlist_size(const struct hec_eventlist *l)
{
	return l->n;
}

const char *hec_eventlist_name(const struct hec_eventlist *l, size_t i)
{
	return l->ev[i].names[l->ev[i].chosen];
}

const char *hec_eventlist_note(const struct hec_eventlist *l, size_t i)
{
	return l->encoded ? l->ev[i].note : "";
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
