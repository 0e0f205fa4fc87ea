/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/events.c: `counterpoint events`: the events this machine can count
 * (and, with --all, those of every processor libpfm4 knows), as names
 * `counterpoint record -e` accepts. */
#include <ctype.h>
#include <fnmatch.h>
#include <getopt.h>
#include <string.h>

#include "cli/cli.h"
#include "hw/hec.h"

static const char events_help[] =
"usage: counterpoint events [--all] [--json] [PATTERN]\n"
"\n"
"List the events this machine can count, one a line: the name to give\n"
"'counterpoint record -e', whether it is a software (kernel) or hardware\n"
"(PMU) event, and a description.  Hardware events are listed in the\n"
"vendor's EVENT.UMASK form.  PATTERN selects names containing it (case\n"
"does not matter), or matching it as a glob when it holds * ? or [; a\n"
"PATTERN naming a PMU ('skl::*TLB*') lists that processor's events whether\n"
"or not this machine is one.\n"
"\n"
"options:\n"
"  -a, --all    also list the events of processors this machine is not\n"
"               (prefixed 'pmu::'; encodable with LIBPFM_ENCODE_INACTIVE=1)\n"
"  --json       the list as JSON (docs/manual/json.md): per event its name, kind,\n"
"               PMU, description and whether this machine has it\n"
"  -h, --help   this text\n"
"\n"
"exit status: 0 events listed, 1 none matches PATTERN, 2 bad usage.\n";

struct listing {
	const char *pattern;
	int glob, json;
	size_t shown;
	struct cp_buf out;
};

static int contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return n == 0;
}

static int show(void *vctx, const struct hec_event_desc *d)
{
	struct listing *l = vctx;

	if (l->pattern) {
		/* "hsw::EVENT" also matches a pattern for EVENT; a pattern
		 * "pmu::P" matches P against the events of that PMU, listed
		 * with the prefix or not (this machine's are not) */
		const char *sep = strstr(d->name, "::");
		const char *bare = sep ? sep + 2 : d->name;
		const char *psep = strstr(l->pattern, "::");
		const char *pat = l->pattern;

		if (psep) {
			size_t n = (size_t)(psep - l->pattern);

			if (!d->pmu || strlen(d->pmu) != n ||
			    strncasecmp(d->pmu, l->pattern, n))
				return 0;
			pat = psep + 2;
		}
		if (l->glob ? fnmatch(pat, d->name, FNM_CASEFOLD) != 0 &&
			      fnmatch(pat, bare, FNM_CASEFOLD) != 0
			    : !contains_nocase(psep ? bare : d->name, pat))
			return 0;
	}
	if (l->json) {
		cp_buf_puts(&l->out, l->shown ? ",\n  {\"name\": " : "\n  {\"name\": ");
		cp_buf_json_string(&l->out, d->name);
		cp_buf_printf(&l->out, ", \"kind\": \"%s\", \"pmu\": ",
			      d->hardware ? "hardware" : "software");
		cp_buf_json_string_or_null(&l->out, d->pmu);
		cp_buf_puts(&l->out, ", \"description\": ");
		cp_buf_json_string(&l->out, d->desc ? d->desc : "");
		cp_buf_printf(&l->out, ", \"present\": %s}", d->present ? "true" : "false");
	} else {
		cp_buf_printf(&l->out, "%-40s %-8s %s%s\n", d->name,
			      d->hardware ? "hardware" : "software", d->desc,
			      d->present ? "" : " [not on this machine]");
	}
	l->shown++;
	return 0;
}

int cli_events(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cmd = "events";
	struct listing l;
	struct cp_error err;
	int all = 0, json = 0, opt, rc;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":ah", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			all = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			fputs(events_help, stdout);
			return CLI_OK;
		default:
			return cli_bad_option(cmd, opt, argv, longopts);
		}
	}
	if (argc - optind > 1)
		return cli_usage_error(cmd, "one PATTERN at most");
	memset(&l, 0, sizeof l);
	cp_buf_init(&l.out);
	l.pattern = optind < argc ? argv[optind] : NULL;
	l.glob = l.pattern && strpbrk(l.pattern, "*?[") != NULL;
	l.json = json;
	if (json) {
		cp_buf_json_begin(&l.out, NULL, NULL);
		cp_buf_puts(&l.out, ",\n\"events\": [");
	}
	/* "skl::*TLB*" names a processor: list its events, here or not */
	if (l.pattern && strstr(l.pattern, "::"))
		all = 1;
	cp_error_clear(&err);
	if (hec_events_each(all, show, &l, &err)) {
		cp_buf_release(&l.out);
		return cli_print_error(cmd, &err);
	}
	if (json)
		cp_buf_puts(&l.out, "]\n}\n");
	if (!hec_machine_has_hw_pmu())
		fprintf(stderr, "counterpoint events: note: " HEC_NO_PMU_MSG
			"%s\n", all ? "" : " ('--all' lists other processors' events)");
	rc = cli_write_output(cmd, "-", &l.out);
	cp_buf_release(&l.out);
	if (rc)
		return rc;
	if (!l.shown) {
		fprintf(stderr, "counterpoint events: no event matches '%s'\n",
			l.pattern ? l.pattern : "");
		return CLI_RESULT;
	}
	return CLI_OK;
}
