/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/flows.c: the flow bounds of a feasible model of the family (the
 * evaluator's flows callback): `counterpoint flows --with` the model, on
 * the family's regions, starting from the per-observation verdicts its
 * evaluation found, so that the bounds go with the verdicts the claims
 * rest on, on explore's --threads (every region's flow LP starts from
 * the same basis, so the bounds do not depend on the thread count). */
#include <string.h>

#include "explore/explore.h"
#include "explore/family_int.h"

#include "solver/feas.h"
#include "stats/region.h"

void explore_flows_release(struct explore_flows *fl)
{
	size_t i;

	if (!fl)
		return;
	pipe_flows_free(fl->pf);
	for (i = 0; fl->observations && i < fl->n_observations; i++)
		cp_free(fl->observations[i]);
	cp_free(fl->observations);
	cp_free(fl->status);
	cp_free(fl->bounds);
	memset(fl, 0, sizeof *fl);
}

int explore_family_flows(void *ctx, udd_features sel, struct explore_flows *out,
			 struct cp_error *err)
{
	struct explore_family *f = ctx;
	struct feas_result *res = NULL;
	struct entry *e;
	size_t i, n = f->n_obs, cells;
	int rc;

	if ((rc = explore_family_entry(f, sel, &e, err)))
		return rc;
	if (!e->evaluated || !e->feasible)
		return cp_error_set(err, CP_EINTERNAL, "flows of a model not evaluated");
	out->features = sel;
	if (!sel)
		return 0;   /* no feature, no flow to bound (pf stays NULL) */
	if ((rc = pipe_flows_new(f->model, sel, f->pd, &out->pf, err)))
		goto fail;
	cells = pipe_flows_n_uops(out->pf) * pipe_flows_n_features(out->pf);
	out->n_observations = n;
	out->observations = cp_calloc(n + 1, sizeof *out->observations);
	out->status = cp_calloc(n + 1, sizeof *out->status);
	out->bounds = cp_calloc(n * cells + 1, sizeof *out->bounds);
	res = cp_calloc(n + 1, sizeof *res);
	if (!out->observations || !out->status || !out->bounds || !res) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < n; i++) {
		out->observations[i] = cp_strdup(stats_dataset_observation(f->data, i));
		if (!out->observations[i]) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory");
			goto fail;
		}
		/* pipe_flows_bound reads only the verdict */
		feas_result_init(&res[i]);
		res[i].feasible = e->feasible[i];
	}
	rc = pipe_flows_bound(out->pf, f->pd, res, f->opt.threads, out->bounds,
			      out->status, err);
fail:
	cp_free(res);
	if (rc)
		explore_flows_release(out);
	return rc;
}
