/* stats/model.c: a model's counters as dataset events.  Each μDD counter
 * declares the hardware event it is read from; the region of an
 * observation for a model uses those events, in counter order. */
#include <string.h>

#include "dsl/udd.h"
#include "stats/region.h"

const char *stats_dataset_event_with_modifiers(const struct stats_dataset *d,
					       const char *ev)
{
	size_t len = strlen(ev), e, n = stats_dataset_n_events(d);

	for (e = 0; e < n; e++) {
		const char *name = stats_dataset_event(d, e), *m;

		if (strncmp(name, ev, len))
			continue;
		m = name + len;
		if (*m == ':' && !(len && ev[len - 1] == '/'))
			m++;
		else if (!(len && ev[len - 1] == '/'))
			continue;
		if (*m && strspn(m, "ukhIGHpPSDWe") == strlen(m))
			return name;
	}
	return NULL;
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

		for (e = 0; e < n; e++)
			if (!strcmp(stats_dataset_event(d, e), ev))
				break;
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
		if (e == n)
			return cp_error_set(err, CP_EINPUT, "the dataset has no "
					    "event '%s' (model counter '%s')", ev,
					    udd_sigset_counter_name(s, j));
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
