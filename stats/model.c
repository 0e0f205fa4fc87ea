/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stats/model.c: a model's counters as dataset events.  Each μDD counter
 * declares the hardware event it is read from; the region of an
 * observation for a model uses those events, in counter order. */
#include <string.h>

#include "dsl/udd.h"
#include "hw/hec.h"
#include "stats/region.h"

int stats_model_counter_event(const struct stats_dataset *d,
			       const struct udd_model *m, size_t i, size_t *e,
			       struct cp_error *err)
{
	size_t n = stats_dataset_n_events(d), names = udd_model_counter_n_events(m, i);
	size_t x, j;

	*e = (size_t)-1;
	for (x = 0; x < n; x++) {
		const char *ev = stats_dataset_event(d, x);

		for (j = 0; j < names; j++)
			if (hec_event_name_matches(ev, udd_model_counter_event_at(m, i, j)))
				break;
		if (j == names)
			continue;
		if (*e != (size_t)-1)
			return cp_error_set(err, CP_EINPUT, "the dataset has two "
					    "names for the event of counter '%s': "
					    "'%s' and '%s' (keep one)",
					    udd_model_counter_name(m, i),
					    stats_dataset_event(d, *e), ev);
		*e = x;
	}
	return CP_OK;
}

size_t stats_model_unread_events(const struct stats_dataset *d,
				 const struct udd_model *m, size_t max,
				 struct cp_buf *names)
{
	size_t n = stats_dataset_n_events(d), i, j, e, unread = 0;

	for (e = 0; e < n; e++) {
		const char *ev = stats_dataset_event(d, e);
		int read = 0;

		for (i = 0; !read && i < udd_model_n_counters(m); i++)
			for (j = 0; !read && j < udd_model_counter_n_events(m, i); j++)
				read = hec_event_name_matches(ev,
					udd_model_counter_event_at(m, i, j));
		if (read)
			continue;
		if (names && unread < max)
			cp_buf_printf(names, "%s%s", unread ? ", " : "",
				      stats_dataset_event(d, e));
		else if (names && unread == max)
			cp_buf_puts(names, ", ...");
		unread++;
	}
	return unread;
}

int stats_sigset_events(const struct stats_dataset *d, size_t obs,
			const struct udd_sigset *s, const char **events,
			struct cp_error *err)
{
	const struct udd_model *m = udd_sigset_model(s);
	size_t k = udd_sigset_n_counters(s), j, e;
	int rc;

	if (obs >= stats_dataset_n_observations(d))
		return cp_error_set(err, CP_EINPUT, "no observation #%zu", obs);
	for (j = 0; j < k; j++) {
		const char *ev = udd_sigset_counter_event(s, j);

		if ((rc = stats_model_counter_event(d, m, j, &e, err)))
			return rc;
		if (e == (size_t)-1) {
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
						       "'%s') was never counted",
						       stats_dataset_event(d, e),
						       udd_sigset_counter_name(s, j));
		events[j] = stats_dataset_event(d, e);
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
