/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/bench_workload.c: `counterpoint bench-workload`: the linear and
 * random memory-access microbenchmarks, run natively so that users can
 * record them (`counterpoint record -e ... -- counterpoint bench-workload
 * linear ...`).  The workload itself is hec_workload_run (hw/). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "hw/hec.h"

static const char bench_help[] =
"usage: counterpoint bench-workload linear [--footprint SIZE] [--stride BYTES]\n"
"                                  [--direction up|down] [--store-ratio R]\n"
"                                  [--accesses N] [--pages 4k|2m|1g]\n"
"       counterpoint bench-workload random [--footprint SIZE] [--store-ratio R]\n"
"                                  [--accesses N] [--pages 4k|2m|1g] [--seed N]\n"
"\n"
"Run a memory-access microbenchmark: 'linear' walks the footprint by a\n"
"stride (wrapping around), 'random' touches uniformly random 8-byte words\n"
"of it.  Every page is touched once before the timed accesses.  Prints\n"
"one line: what ran and how long the timed accesses took.\n"
"\n"
"options:\n"
"  --footprint SIZE    bytes touched, with an optional K, M or G suffix\n"
"                      (powers of 1024; default 64M)\n"
"  --stride BYTES      linear: distance between accesses, a multiple of 8\n"
"                      (default 64, one cache line)\n"
"  --direction DIR     linear: up (default) or down\n"
"  --store-ratio R     fraction of accesses that are stores (default 0)\n"
"  --accesses N        timed accesses (default 4 passes over the footprint\n"
"                      for linear, footprint/8 for random)\n"
"  --pages P           4k (default; transparent huge pages kept out), 2m or\n"
"                      1g (hugetlb pages: an error says so when the system\n"
"                      has none reserved)\n"
"  --seed N            random: the address sequence's seed (default 1)\n"
"  -q, --quiet         print nothing\n"
"  -h, --help          this text\n"
"\n"
"exit status: 0 ran; 2 bad usage or a page size the system cannot give.\n";

/* "64M" -> 67108864.  CLI_OK or CLI_USAGE. */
static int parse_bytes(const char *cmd, const char *opt, const char *text,
		       size_t *out)
{
	char *end;
	unsigned long long v, mul = 1;

	errno = 0;
	if (!text[0] || text[0] == '-')
		goto bad;
	v = strtoull(text, &end, 10);
	if (errno || end == text)
		goto bad;
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || (v && mul > (unsigned long long)SIZE_MAX / v))
		goto bad;
	*out = (size_t)(v * mul);
	return CLI_OK;
bad:
	return cli_usage_error(cmd, "%s wants a size in bytes (suffix K, M or G), "
			       "not '%s'", opt, text);
}

/* Long only because getopt_long wants one case per option; the work is
 * in the library and in the report writers above. */
int cli_bench_workload(int argc, char **argv)
{
	enum { OPT_FOOT = 256, OPT_STRIDE, OPT_DIR, OPT_STORE, OPT_ACC,
	       OPT_PAGES, OPT_SEED };
	static const struct option longopts[] = {
		{ "footprint", required_argument, NULL, OPT_FOOT },
		{ "stride", required_argument, NULL, OPT_STRIDE },
		{ "direction", required_argument, NULL, OPT_DIR },
		{ "store-ratio", required_argument, NULL, OPT_STORE },
		{ "accesses", required_argument, NULL, OPT_ACC },
		{ "pages", required_argument, NULL, OPT_PAGES },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cmd = "bench-workload";
	struct hec_workload w;
	struct hec_workload_result res;
	struct cp_error err;
	size_t accesses = 0, seed = 1;
	int quiet = 0, opt, rc, have_accesses = 0, linear_only = 0;
	const char *pages = "4k";

	memset(&w, 0, sizeof w);
	w.footprint = 64u << 20;
	w.stride = 64;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_FOOT:
			if ((rc = parse_bytes(cmd, "--footprint", optarg, &w.footprint)))
				return rc;
			break;
		case OPT_STRIDE:
			if ((rc = parse_bytes(cmd, "--stride", optarg, &w.stride)))
				return rc;
			linear_only = 1;
			break;
		case OPT_DIR:
			if (!strcmp(optarg, "up"))
				w.descending = 0;
			else if (!strcmp(optarg, "down"))
				w.descending = 1;
			else
				return cli_usage_error(cmd, "--direction is up or down, "
						       "not '%s'", optarg);
			linear_only = 1;
			break;
		case OPT_STORE:
			if ((rc = cli_parse_double(cmd, "--store-ratio", optarg, 0.0,
						   1.0, &w.store_ratio)))
				return rc;
			break;
		case OPT_ACC:
			if ((rc = cli_parse_size(cmd, "--accesses", optarg, &accesses)))
				return rc;
			have_accesses = 1;
			break;
		case OPT_PAGES:
			pages = optarg;
			break;
		case OPT_SEED:
			if ((rc = cli_parse_size(cmd, "--seed", optarg, &seed)))
				return rc;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(bench_help, stdout);
			return CLI_OK;
		default:
			return cli_bad_option(cmd, opt, argv, longopts);
		}
	}
	if (optind >= argc)
		return cli_usage_error(cmd, "which workload: linear or random?");
	if (argc - optind > 1)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
	if (!strcmp(argv[optind], "linear"))
		w.kind = HEC_WORKLOAD_LINEAR;
	else if (!strcmp(argv[optind], "random"))
		w.kind = HEC_WORKLOAD_RANDOM;
	else
		return cli_usage_error(cmd, "unknown workload '%s' (linear or random)",
				       argv[optind]);
	if (w.kind == HEC_WORKLOAD_RANDOM && linear_only)
		return cli_usage_error(cmd, "--stride and --direction are for "
				       "the linear workload");
	if (!strcasecmp(pages, "4k"))
		w.page_kb = 4;
	else if (!strcasecmp(pages, "2m"))
		w.page_kb = 2048;
	else if (!strcasecmp(pages, "1g"))
		w.page_kb = 1048576;
	else
		return cli_usage_error(cmd, "--pages is 4k, 2m or 1g, not '%s'", pages);
	w.seed = seed;
	if (have_accesses)
		w.accesses = accesses;
	else if (w.kind == HEC_WORKLOAD_LINEAR)
		w.accesses = 4 * (w.footprint / (w.stride ? w.stride : 1));
	else
		w.accesses = w.footprint / 8;

	cp_error_clear(&err);
	if (hec_workload_run(&w, &res, &err))
		return cli_print_error(cmd, &err);
	if (!quiet) {
		uint64_t n = res.loads + res.stores;

		if (w.kind == HEC_WORKLOAD_LINEAR)
			printf("linear: footprint %zu bytes, stride %zu, %s, ",
			       w.footprint, w.stride, w.descending ? "down" : "up");
		else
			printf("random: footprint %zu bytes, seed %llu, ",
			       w.footprint, (unsigned long long)w.seed);
		printf("%s pages: %llu loads, %llu stores in %.6f s (%.2f ns "
		       "per access)\n", pages, (unsigned long long)res.loads,
		       (unsigned long long)res.stores, res.seconds,
		       n ? res.seconds * 1e9 / (double)n : 0.0);
	}
	return CLI_OK;
}
