/* stats/stats_int.h: what the stats files share (not public; the names
 * carry the stats_ prefix for `make check-symbols`). */
#ifndef CP_STATS_INT_H
#define CP_STATS_INT_H

#include <stddef.h>

#include "stats/region.h"

/* The floor of the long-run quantiles' degrees of freedom (longrun.c). */
#define HAC_MIN_DOF 7.0

int stats_conf_ok(double c);
double stats_quantile_for(double confidence, size_t k, size_t n,
			  enum region_rule rule, double q1);
double stats_max_lag1(const double *x, size_t n, size_t k);
size_t stats_hac_bandwidth(const double *rates, size_t n, size_t k);
double stats_hac_dof(size_t n, size_t L);
double stats_prewhite_dof(double nu_hac, double rho, size_t n);
double stats_max_of(const double *a, size_t k);
void stats_block_cov(const double *x, size_t lo, size_t hi, size_t k,
		      size_t L, double *mu, double *S);
int stats_split_pca_box(struct region *r, const double *x, size_t m, size_t k,
			 size_t L, const double *rho, const size_t *njl,
			 const double *floor_, int per_interval, double conf,
			 struct cp_error *err);

#endif
