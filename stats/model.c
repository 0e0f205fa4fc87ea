/* stats/model.c: a model's counters as dataset events.  Each μDD counter
 * declares the hardware event it is read from; the region of an
 * observation for a model uses those events, in counter order. */
#include <string.h>

#include "dsl/udd.h"
#include "stats/region.h"

/* name is ev with perf's modifiers: "ev:MODS", or "ev/MODS" for an event
 * that ends in '/'. */
static int with_modifiers(const char *name, const char *ev)
{
	size_t len = strlen(ev);
	const char *m;

	if (strncmp(name, ev, len))
		return 0;
	m = name + len;
	if (*m == ':' && !(len && ev[len - 1] == '/'))
		m++;
	else if (!(len && ev[len - 1] == '/'))
		return 0;
	return *m && strspn(m, "ukhIGHpPSDWe") == strlen(m);
}

const char *stats_dataset_event_with_modifiers(const struct stats_dataset *d,
					       const char *ev)
{
	size_t e, n = stats_dataset_n_events(d);

	for (e = 0; e < n; e++)
		if (with_modifiers(stats_dataset_event(d, e), ev))
			return stats_dataset_event(d, e);
	return NULL;
}

size_t stats_model_unread_events(const struct stats_dataset *d,
				 const struct udd_model *m, size_t max,
				 struct cp_buf *names)
{
	size_t n = stats_dataset_n_events(d), i, e, unread = 0;
	unsigned char *read = cp_calloc(n + 1, 1);

	if (!read) {
		if (names)
			names->failed = 1;
		return 0;
	}
	for (i = 0; i < udd_model_n_counters(m); i++)
		if ((e = stats_dataset_find_event(d, udd_model_counter_event(m, i))) <
		    n)
			read[e] = 1;
	for (e = 0; e < n; e++) {
		/* page-faults:u is a counter's event, only spelt as perf does
		 * (the missing-counter error says so): not unread */
		for (i = 0; !read[e] && i < udd_model_n_counters(m); i++)
			read[e] = (unsigned char)with_modifiers(
				stats_dataset_event(d, e), udd_model_counter_event(m, i));
		if (read[e])
			continue;
		if (names && unread < max)
			cp_buf_printf(names, "%s%s", unread ? ", " : "",
				      stats_dataset_event(d, e));
		else if (names && unread == max)
			cp_buf_puts(names, ", ...");
		unread++;
	}
	cp_free(read);
	return unread;
}

int stats_sigset_events(const struct stats_dataset *d, size_t obs,
			const struct udd_sigset *s, const char **events,
			struct cp_error *err)
{
	size_t k = udd_sigset_n_counters(s), j, e, n = stats_dataset_n_events(d);

	if (obs >= stats_dataset_n_observations(d))
		return cp_error_set(err, CP_EINPUT, "no observation #%zu", obs);
	for (j = 0; j < k; j++) {
		const char *ev = udd_sigset_counter_event(s, j);

		e = stats_dataset_find_event(d, ev);
		if (e == (size_t)-1)
			e = n;
		if (e == n && stats_dataset_event_with_modifiers(d, ev))
			return cp_error_set(err, CP_EINPUT, "the dataset has no "
					    "event '%s' (model counter '%s'), but it "
					    "has '%s', as perf names a count with "
					    "modifiers (:u is user space only): import "
					    "it with 'counterpoint import perf "
					    "--strip-modifiers', or name '%s' in the "
					    "counter line", ev,
					    udd_sigset_counter_name(s, j),
					    stats_dataset_event_with_modifiers(d, ev), stats_dataset_event_with_modifiers(d, ev));
		if (e == n) {
			const char *near = stats_dataset_closest_event(d, ev);

			return cp_error_set(err, CP_EINPUT, "the dataset has no "
					    "event '%s' (model counter '%s')%s%s%s",
					    ev, udd_sigset_counter_name(s, j),
					    near ? "; did you mean '" : "",
					    near ? near : "", near ? "'?" : "");
		}
		if (!stats_dataset_n_counted(d, obs, e))
			return stats_observation_error(d, obs, CP_EINPUT, err,
						       "event '%s' (model counter "
						       "'%s') was never counted", ev,
						       udd_sigset_counter_name(s, j));
		events[j] = ev;
	}
	return CP_OK;
}

int stats_sigset_region(const struct stats_dataset *d, size_t obs,
			const struct udd_sigset *s,
			const struct region_options *opt, struct region **out,
			struct cp_error *err)
{
	size_t k = udd_sigset_n_counters(s), j;
	const char **events = cp_calloc(k ? k : 1, sizeof *events);
	const char **names = cp_calloc(k ? k : 1, sizeof *names);
	struct region_options o = { 0 };
	int rc;

	*out = NULL;
	if (!events || !names) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = stats_sigset_events(d, obs, s, events, err)))
		goto out;
	if (opt)
		o = *opt;
	if (!o.names) {
		for (j = 0; j < k; j++)
			names[j] = udd_sigset_counter_name(s, j);
		o.names = names;
	}
	rc = stats_observation_region(d, obs, events, k, &o, out, err);
out:
	cp_free(events);
	cp_free(names);
	return rc;
}
