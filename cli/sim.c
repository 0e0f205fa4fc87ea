/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/sim.c: `counterpoint sim`: run the bundled MMU simulator on one
 * workload (or the default sweep of workloads × page sizes) and write the
 * long CSV dataset, optionally the per-interval ground truth. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "hw/sim/mmu.h"

static const char *const cmd = "sim";

static void help(void)
{
	printf(
"usage: counterpoint sim [OPTIONS] [-o DATASET]\n"
"\n"
"Simulate a Haswell-like data-side MMU (L1 DTLBs, STLB, paging-structure\n"
"caches, page walker over an L1/L2/L3 cache model, walk MSHRs, wrong-path\n"
"μops, LSQ TLB prefetcher) and write its counters, as a processor's events\n"
"(--cpu; default Haswell's), as a long CSV dataset (observation,interval,\n"
"event,value,enabled_ns,running_ns), multiplexed the way perf multiplexes.\n"
"\n"
"options:\n"
"  --workload SPEC    linear:footprint=1G,stride=64,dir=up,stores=0.2 |\n"
"                     random:footprint=1G,stores=0.2 | trace:FILE (valgrind\n"
"                     lackey text, .xz allowed) | phases:[mean=N;]SPEC;SPEC...\n"
"                     (moves between the SPEC workloads in phases of random\n"
"                     length, N μops on average, default 100000); default\n"
"                     linear.  Generated workloads start at 1T; data above\n"
"                     4T may touch at most 2048 distinct 1G regions (the\n"
"                     simulated machine's physical memory)\n"
"  --pages SIZE       4k, 2m or 1g (every page of the run), or mix (4K and 2M\n"
"                     pages, a mix_2m_share of the 2M regions in 2M pages);\n"
"                     default 4k\n"
"  --features LIST    comma list of prefetch, merge, pde_early, pml4_cache,\n"
"                     abort, replay, bypass, prefetch_dtlb_miss,\n"
"                     prefetch_stlb_miss, prefetch_stores (or all, none);\n"
"                     default none (the conventional model m0)\n"
"  --sweep            run the default workloads and every --workload (may be\n"
"                     repeated) x {4k,2m,1g,mix} pages into one dataset\n"
"  --intervals N      intervals (samples) per observation; default 50\n"
"  --interval-uops N  correct-path memory μops per interval; default 100000\n"
"  --warmup N         μops simulated before counting; default 1000000\n"
"  --cpu CPU          whose events to write, from the same machine: haswell\n"
"                     (default), skylake, icelake, sapphirerapids, zen3 or\n"
"                     zen4 (--list-events --cpu CPU shows them)\n"
"  --counters P       physical counters; default the processor's general\n"
"                     counters per thread (Intel 4 or 8, AMD 6; P >= events:\n"
"                     no multiplexing)\n"
"  --mux-ns NS        simulated ns per multiplexing slice; default 4000\n"
"  --events LIST      events to write (the processor's names; Haswell's short\n"
"                     names too); default all\n"
"  --seed N           default 1; equal seeds give equal datasets\n"
"  --name NAME        observation name (default WORKLOAD-PAGES)\n"
"  --config FILE      machine parameters, 'key = value' lines\n"
"  --set KEY=VALUE    one machine parameter (repeatable, after --config)\n"
"  --truth FILE       also write the ground truth: per interval and μop\n"
"                     class, the μops of each path and the events on the way\n"
"  --list-events      print the events (Haswell: name, short name, unit,\n"
"                     meaning; another --cpu: name and what it adds up)\n"
"  --json             with --list-events: the list as JSON (docs/manual/json.md)\n"
"  --list-features    print the features, one a line\n"
"  --print-config     print the machine parameters and exit\n"
"  -o, --output FILE  dataset file (default standard output), written\n"
"                     atomically\n"
"  -h, --help         this text\n"
"\n"
"exit status: 0 success, 2 bad usage or input, 3 internal error\n");
}

/* One event of --list-events as JSON: its name, short name, unit and
 * what it counts (null where the processor's list has none). */
static void event_json(struct cp_buf *b, size_t i, const char *event,
		       const char *name, const char *unit, const char *desc)
{
	cp_buf_puts(b, i ? ",\n  {\"event\": " : "\n  {\"event\": ");
	cp_buf_json_string(b, event);
	cp_buf_puts(b, ", \"name\": ");
	cp_buf_json_string_or_null(b, name);
	cp_buf_puts(b, ", \"unit\": ");
	cp_buf_json_string_or_null(b, unit);
	cp_buf_puts(b, ", \"description\": ");
	cp_buf_json_string(b, desc);
	cp_buf_puts(b, "}");
}

static int list_events(const struct mmu_cpu *cpu, int json)
{
	char what[256];
	struct cp_buf b;
	size_t j;
	int e, rc;

	cpu = cpu ? cpu : mmu_cpu_at(0);
	cp_buf_init(&b);
	if (json) {
		cp_buf_json_begin(&b, NULL, NULL);
		cp_buf_puts(&b, ",\n\"cpu\": ");
		cp_buf_json_string(&b, cpu->name);
		cp_buf_puts(&b, ",\n\"description\": ");
		cp_buf_json_string(&b, cpu->desc);
		cp_buf_printf(&b, ",\n\"counters_per_thread\": %zu,\n\"events\": [",
			      cpu->counters);
	}
	if (cpu == mmu_cpu_at(0)) {
		for (e = 0; e < MMU_N_EVENTS; e++) {
			const struct mmu_event_info *in = mmu_event_info((enum mmu_event)e);

			if (json)
				event_json(&b, (size_t)e, in->event, in->name, in->unit, in->desc);
			else
				cp_buf_printf(&b, "%-40s %-24s %-10s %s\n", in->event, in->name,
					      in->unit, in->desc);
		}
	} else {
		if (!json)
			cp_buf_printf(&b, "# %s: %s; %zu general counters per thread\n",
				      cpu->name, cpu->desc, cpu->counters);
		for (j = 0; j < cpu->n_events; j++) {
			mmu_cpu_event_format(&cpu->events[j], what, sizeof what);
			if (json)
				event_json(&b, j, cpu->events[j].event, cpu->events[j].name,
					   NULL, what);
			else
				cp_buf_printf(&b, "%-48s %s\n", cpu->events[j].event, what);
		}
	}
	if (json)
		cp_buf_puts(&b, "]\n}\n");
	rc = cli_write_output(cmd, "-", &b);
	cp_buf_release(&b);
	return rc;
}

/* The names --cpu takes, "haswell, skylake, ...". */
static void cpu_names(char *buf, size_t size)
{
	const struct mmu_cpu *c;
	size_t i, len = 0;

	buf[0] = 0;
	for (i = 0; (c = mmu_cpu_at(i)) && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					i ? ", " : "", c->name);
}

enum {
	O_WORKLOAD = 256, O_PAGES, O_FEATURES, O_SWEEP, O_INTERVALS,
	O_IUOPS, O_WARMUP, O_COUNTERS, O_MUXNS, O_EVENTS, O_SEED, O_NAME,
	O_CONFIG, O_SET, O_TRUTH, O_LIST, O_LISTF, O_PRINTCFG, O_CPU, O_JSON
};

static const struct option options[] = {
	{ "workload", required_argument, NULL, O_WORKLOAD },
	{ "pages", required_argument, NULL, O_PAGES },
	{ "features", required_argument, NULL, O_FEATURES },
	{ "sweep", no_argument, NULL, O_SWEEP },
	{ "intervals", required_argument, NULL, O_INTERVALS },
	{ "interval-uops", required_argument, NULL, O_IUOPS },
	{ "warmup", required_argument, NULL, O_WARMUP },
	{ "counters", required_argument, NULL, O_COUNTERS },
	{ "cpu", required_argument, NULL, O_CPU },
	{ "mux-ns", required_argument, NULL, O_MUXNS },
	{ "events", required_argument, NULL, O_EVENTS },
	{ "seed", required_argument, NULL, O_SEED },
	{ "name", required_argument, NULL, O_NAME },
	{ "config", required_argument, NULL, O_CONFIG },
	{ "set", required_argument, NULL, O_SET },
	{ "truth", required_argument, NULL, O_TRUTH },
	{ "list-events", no_argument, NULL, O_LIST },
	{ "json", no_argument, NULL, O_JSON },
	{ "list-features", no_argument, NULL, O_LISTF },
	{ "print-config", no_argument, NULL, O_PRINTCFG },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

#define MAX_SETS 64
#define MAX_WORKLOADS 16
#define N_SWEEP 16             /* room for mmu_sweep_workloads() */

/* One observation: w run on one page size, named name or WORKLOAD-PAGES. */
static int run_one(const struct mmu_config *cfg, unsigned features,
		   enum mmu_page page, struct mmu_workload *w,
		   const struct mmu_run_opts *ro, const char *name,
		   struct cp_buf *data, struct cp_buf *truth)
{
	struct cp_error err;
	struct cp_buf obs;
	int rc = CLI_OK;

	cp_error_clear(&err);
	cp_buf_init(&obs);
	if (name)
		cp_buf_puts(&obs, name);
	else
		cp_buf_printf(&obs, "%s-%s", mmu_workload_label(w), mmu_page_name(page));
	if (obs.failed)
		cp_error_set(&err, CP_ENOMEM, "out of memory");
	if (obs.failed ||
	    mmu_run_workload(cfg, features, page, w, ro, obs.data, data, truth, &err))
		rc = cli_print_error(cmd, &err);
	cp_buf_release(&obs);
	return rc;
}

/* `counterpoint sim`.  Long because the simulator has many options
 * (machine, workloads, sweep, multiplexing, truth, output), each parsed
 * and checked here in one switch; the runs themselves are in hw/sim/. */
int cli_sim(int argc, char **argv)
{
	struct mmu_config cfg;
	struct mmu_run_opts ro;
	struct cp_error err;
	struct cp_buf data, truth;
	const char *workloads[MAX_WORKLOADS], *out = NULL, *truth_path = NULL;
	const char *specs[N_SWEEP + MAX_WORKLOADS];
	struct mmu_workload *made[N_SWEEP + MAX_WORKLOADS];
	size_t n_workloads = 0, n_made = 0;
	const char *name = NULL, *config = NULL, *sets[MAX_SETS];
	const char *events = NULL;
	const struct mmu_cpu *cpu = mmu_cpu_at(0);
	enum mmu_page page = MMU_PAGE_4K;
	unsigned features = 0;
	size_t n_sets = 0, v, i;
	int sweep = 0, print_cfg = 0, list = 0, json = 0, counters_set = 0, opt, rc = CLI_OK;

	mmu_config_default(&cfg);
	mmu_run_opts_default(&ro);
	cp_error_clear(&err);
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "ho:", options, NULL)) != -1) {
		switch (opt) {
		case 'h':
			help();
			return CLI_OK;
		case 'o': out = optarg; break;
		case O_WORKLOAD:
			if (n_workloads == MAX_WORKLOADS)
				return cli_usage_error(cmd, "too many --workload options");
			workloads[n_workloads++] = optarg;
			break;
		case O_PAGES:
			if (mmu_page_parse(optarg, &page))
				return cli_usage_error(cmd, "--pages wants 4k, 2m, 1g or mix, not '%s'",
						       optarg);
			break;
		case O_FEATURES:
			if (mmu_features_parse(optarg, &features, &err))
				return cli_usage_error(cmd, "%s", err.msg);
			break;
		case O_SWEEP: sweep = 1; break;
		case O_INTERVALS:
			if (cli_parse_size(cmd, "--intervals", optarg, &ro.intervals))
				return CLI_USAGE;
			break;
		case O_IUOPS:
			if (cli_parse_size(cmd, "--interval-uops", optarg, &ro.interval_uops))
				return CLI_USAGE;
			if (!ro.interval_uops)
				return cli_usage_error(cmd, "--interval-uops must be positive");
			break;
		case O_WARMUP:
			if (cli_parse_size(cmd, "--warmup", optarg, &v))
				return CLI_USAGE;
			ro.warmup_uops = v;
			break;
		case O_COUNTERS:
			if (cli_parse_size(cmd, "--counters", optarg, &ro.counters))
				return CLI_USAGE;
			if (!ro.counters)
				return cli_usage_error(cmd, "--counters must be positive");
			counters_set = 1;
			break;
		case O_CPU:
			cpu = mmu_cpu_find(optarg);
			if (!cpu) {
				char known[128];

				cpu_names(known, sizeof known);
				return cli_usage_error(cmd, "--cpu wants one of %s, not '%s'",
						       known, optarg);
			}
			break;
		case O_MUXNS:
			if (cli_parse_size(cmd, "--mux-ns", optarg, &v))
				return CLI_USAGE;
			if (!v)
				return cli_usage_error(cmd, "--mux-ns must be positive");
			ro.mux_ns = v;
			break;
		case O_EVENTS:
			events = optarg;
			break;
		case O_SEED:
			if (cli_parse_size(cmd, "--seed", optarg, &v))
				return CLI_USAGE;
			ro.seed = v;
			break;
		case O_NAME: name = optarg; break;
		case O_CONFIG: config = optarg; break;
		case O_SET:
			if (n_sets == MAX_SETS)
				return cli_usage_error(cmd, "too many --set options");
			if (!strchr(optarg, '='))
				return cli_usage_error(cmd, "--set wants KEY=VALUE, not '%s'",
						       optarg);
			sets[n_sets++] = optarg;
			break;
		case O_TRUTH: truth_path = optarg; break;
		case O_LIST:
			list = 1;
			break;
		case O_JSON: json = 1; break;
		case O_LISTF: {
			char all[256], *p;

			mmu_features_format(MMU_F_ALL, all, sizeof all);
			for (p = strtok(all, ","); p; p = strtok(NULL, ","))
				puts(p);
			return CLI_OK;
		}
		case O_PRINTCFG: print_cfg = 1; break;
		default:
			return cli_bad_option(cmd, opt, argv, options);
		}
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (json && !list)
		return cli_usage_error(cmd, "--json goes with --list-events");
	if (list)
		return list_events(cpu, json);
	ro.cpu = cpu;
	if (!counters_set)
		ro.counters = cpu->counters;
	if (events && mmu_events_parse(cpu, events, &ro.events, &err))
		return cli_usage_error(cmd, "%s", err.msg);
	if (!sweep && n_workloads > 1)
		return cli_usage_error(cmd, "several --workload options need --sweep");
	if (sweep && name)
		return cli_usage_error(cmd, "--name names one observation; not with --sweep");
	if (!ro.intervals)
		return cli_usage_error(cmd, "--intervals must be positive (a dataset "
				       "without rows has no observation)");
	if (name && cp_csv_name_check("observation", name, &err))
		return cli_usage_error(cmd, "--name: %s", err.msg);
	if (config && mmu_config_load(&cfg, config, &err))
		return cli_print_error(cmd, &err);
	for (i = 0; i < n_sets; i++) {
		char key[128];
		const char *eq = strchr(sets[i], '=');
		size_t kl = (size_t)(eq - sets[i]);

		if (kl >= sizeof key)
			return cli_usage_error(cmd, "unknown parameter '%s'", sets[i]);
		memcpy(key, sets[i], kl);
		key[kl] = 0;
		if (mmu_config_set(&cfg, key, eq + 1, &err))
			return cli_usage_error(cmd, "%s", err.msg);
	}
	if (mmu_config_check(&cfg, &err))   /* from --config: file:line */
		return err.file[0] ? cli_print_error(cmd, &err) :
				     cli_usage_error(cmd, "%s", err.msg);
	if (print_cfg) {
		cp_buf_init(&data);
		mmu_config_format(&cfg, &data);
		rc = cli_write_output(cmd, "-", &data);
		cp_buf_release(&data);
		return rc;
	}

	/* every workload made once (a trace read once: a FIFO or a pipe
	 * works), restarted for each page size; the defaults first */
	if (sweep) {
		const char *const *w = mmu_sweep_workloads();

		for (i = 0; w[i] && n_made < N_SWEEP; i++)
			specs[n_made++] = w[i];
		for (i = 0; i < n_workloads; i++)
			specs[n_made++] = workloads[i];
	} else {
		specs[n_made++] = n_workloads ? workloads[0] : "linear";
	}
	for (i = 0; i < n_made; i++)
		made[i] = NULL;
	for (i = 0; i < n_made && !rc; i++)
		if (!(made[i] = mmu_workload_new(specs[i], ro.seed, &err)))
			rc = cli_print_error(cmd, &err);
	if (!rc) {
		/* the outputs against every input: the config and the traces */
		size_t nt = 0, nf = 0;
		struct cp_file_use *files;
		const char **t;

		for (i = 0; i < n_made; i++)
			nt += mmu_workload_files(made[i], NULL, 0);
		files = cp_calloc(nt + 3, sizeof *files);
		t = cp_calloc(nt + 1, sizeof *t);
		if (!files || !t) {
			cp_error_set(&err, CP_ENOMEM, "out of memory");
			rc = cli_print_error(cmd, &err);
		} else {
			for (i = 0, nt = 0; i < n_made; i++)
				nt += mmu_workload_files(made[i], t + nt, SIZE_MAX);
			files[nf++] = (struct cp_file_use){ "--config", config, 0 };
			for (i = 0; i < nt; i++)
				files[nf++] = (struct cp_file_use){ "the trace", t[i], 0 };
			files[nf++] = (struct cp_file_use){ "-o", out, 1 };
			files[nf++] = (struct cp_file_use){ "--truth", truth_path, 1 };
			rc = cli_files_distinct(cmd, files, nf);
		}
		cp_free(files);
		cp_free(t);
	}
	cp_buf_init(&data);
	cp_buf_init(&truth);
	mmu_dataset_header(&data);
	if (truth_path)
		mmu_truth_header(&truth);
	if (sweep) {
		struct cli_progress prog;
		size_t done = 0, n = n_made * MMU_N_PAGE_MODES;
		int p;

		cli_progress_init(&prog, cmd);
		for (i = 0; i < n_made && !rc; i++)
			for (p = 0; p < MMU_N_PAGE_MODES && !rc; p++, done++) {
				cli_progress_show(&prog, "%zu/%zu runs", done, n);
				rc = run_one(&cfg, features, (enum mmu_page)p, made[i], &ro,
					     NULL, &data, truth_path ? &truth : NULL);
			}
		cli_progress_end(&prog);
	} else if (!rc) {
		rc = run_one(&cfg, features, page, made[0], &ro, name, &data,
			     truth_path ? &truth : NULL);
	}
	if (!rc) {	/* both or neither */
		const char *paths[2] = { out, truth_path };
		struct cp_buf *bufs[2] = { &data, &truth };

		rc = cli_write_outputs(cmd, paths, bufs, truth_path ? 2 : 1);
	}
	for (i = 0; i < n_made; i++)
		mmu_workload_free(made[i]);
	cp_buf_release(&data);
	cp_buf_release(&truth);
	return rc;
}
