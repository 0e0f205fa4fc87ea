/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_gem5.c: the gem5 stats.txt importer: deltas and running
 * totals, missing statistics, what is an event (nan, inf, fractions,
 * negative counts), the line forms of every gem5 version, each bad-input
 * message at its line, and the real files of tests/data/gem5. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cp.h"
#include "hw/gem5.h"
#include "stats/region.h"
#include "check.h"

#define BEGIN "---------- Begin Simulation Statistics ----------\n"
#define END "---------- End Simulation Statistics   ----------\n"
#define HEADER "observation,interval,event,value,enabled_ns,running_ns\n"

/* out holds s (false for no output at all). */
static int has(const struct cp_buf *out, const char *s)
{
	return out->data && strstr(out->data, s);
}

/* Convert text; returns the status and leaves the output in out. */
static int convert(const char *text, const char *events,
		   enum hec_gem5_dumps dumps, struct cp_buf *out,
		   struct hec_gem5_summary *sum, struct cp_error *err)
{
	struct hec_gem5_options opt = { "o", events, dumps, 1, NULL };

	cp_buf_init(out);
	cp_error_clear(err);
	return hec_gem5_convert("stats.txt", text, strlen(text), &opt, out, sum,
				err);
}

/* text must fail with msg (cp_error_format's line) and detail. */
static void expect_error(const char *text, const char *events,
			 enum hec_gem5_dumps dumps, const char *msg,
			 const char *detail)
{
	struct cp_buf out;
	struct cp_error err;
	char line[2048];

	CHECK(convert(text, events, dumps, &out, NULL, &err) == CP_EINPUT);
	cp_error_format(&err, line, sizeof line);
	CHECK_STR(line, msg);
	CHECK_STR(err.detail, detail ? detail : "");
	CHECK(out.len == 0);
	cp_buf_release(&out);
}

/* Two dumps, the statistics reset at the first (the second began counting
 * at its end, tick 1000000): each dump is its own interval, and a
 * statistic missing from a dump is not counted there. */
static void test_delta_dumps(void)
{
	static const char text[] =
		"\n" BEGIN
		"sim_seconds                                  0.000001                       # Number of seconds simulated\n"
		"sim_ticks                                     1000000                       # Number of ticks simulated\n"
		"final_tick                                    1000000                       # Number of ticks from beginning of simulation (restored from checkpoints and never reset)\n"
		"sim_freq                                 1000000000000                       # Frequency of simulated ticks\n"
		"system.cpu.dtb.read_hits                           90                       # DTB read hits\n"
		"system.cpu.dtb.read_misses                         10                       # DTB read misses\n"
		"system.cpu.ipc                                0.500000                       # IPC: Instructions Per Cycle\n"
		"\n" END "\n" BEGIN
		"sim_seconds                                  0.000002                       # Number of seconds simulated\n"
		"sim_ticks                                     2000000                       # Number of ticks simulated\n"
		"final_tick                                    3000000                       # Number of ticks from beginning of simulation (restored from checkpoints and never reset)\n"
		"sim_freq                                 1000000000000                       # Frequency of simulated ticks\n"
		"system.cpu.dtb.read_hits                          150                       # DTB read hits\n"
		"system.cpu.ipc                                     nan                       # IPC: Instructions Per Cycle\n"
		"\n" END;
	struct cp_buf out;
	struct cp_error err;
	struct hec_gem5_summary sum;

	CHECK(convert(text, "system.cpu.dtb.*", HEC_GEM5_DUMPS_AUTO, &out, &sum,
		      &err) == CP_OK);
	CHECK_STR(out.data, HEADER
		  "o,0,system.cpu.dtb.read_hits,90,1000,1000\n"
		  "o,0,system.cpu.dtb.read_misses,10,1000,1000\n"
		  "o,1,system.cpu.dtb.read_hits,150,2000,2000\n"
		  "o,1,system.cpu.dtb.read_misses,0,2000,0\n");
	CHECK(sum.dumps == 2 && sum.deltas == 1 && sum.totals == 0);
	CHECK(sum.events == 2 && sum.statistics == 7 && sum.not_counts == 0);
	CHECK(sum.rows == 4 && sum.not_counted == 1 && sum.missing == 1);
	cp_buf_release(&out);

	/* without --events: the counts, not sim_seconds or the IPC */
	CHECK(convert(text, NULL, HEC_GEM5_DUMPS_AUTO, &out, &sum, &err) == CP_OK);
	CHECK(sum.events == 5 && sum.not_counts == 2);
	CHECK(has(&out, "o,1,final_tick,3000000,2000,2000\n"));
	CHECK(!has(&out, "ipc") && !has(&out, "seconds"));
	cp_buf_release(&out);

	/* the ticks say deltas: --dumps delta agrees, cumulative does not */
	CHECK(convert(text, NULL, HEC_GEM5_DUMPS_DELTA, &out, &sum, &err) == CP_OK);
	cp_buf_release(&out);
	expect_error(text, NULL, HEC_GEM5_DUMPS_CUMULATIVE,
		     "stats.txt:13: --dumps cumulative, but the ticks say this dump "
		     "counts from a reset after the one before (a delta)", NULL);
}

/* Running totals: statistics never reset, so a dump repeats the one
 * before it (both began counting at tick 0) and is differenced; a
 * statistic missing from the dump before cannot be, and a statistic that
 * decreases is not a running total. */
static const char cumulative[] =
	BEGIN
	"simTicks 1000000 # Number of ticks simulated (Tick)\n"
	"finalTick 1000000 # Number of ticks from beginning of simulation (Tick)\n"
	"simFreq 1000000000000 # The number of ticks per simulated second ((Tick/Second))\n"
	"system.cpu.mmu.dtb.readHits 90 # read hits (Count)\n"
	"system.cpu.mmu.dtb.readMisses 10 # read misses (Count)\n"
	"system.cpu.occupancy 7 # blocks in use (Count)\n"
	END
	BEGIN
	"simTicks 2500000 # Number of ticks simulated (Tick)\n"
	"finalTick 2500000 # Number of ticks from beginning of simulation (Tick)\n"
	"simFreq 1000000000000 # The number of ticks per simulated second ((Tick/Second))\n"
	"system.cpu.mmu.dtb.readHits 240 # read hits (Count)\n"
	"system.cpu.mmu.dtb.readMisses 25 # read misses (Count)\n"
	"system.cpu.mmu.dtb_walker.walks 12 # table walks (Count)\n"
	"system.cpu.occupancy 5 # blocks in use (Count)\n"
	END
	BEGIN
	"simTicks 4000000 # Number of ticks simulated (Tick)\n"
	"finalTick 4000000 # Number of ticks from beginning of simulation (Tick)\n"
	"simFreq 1000000000000 # The number of ticks per simulated second ((Tick/Second))\n"
	"system.cpu.mmu.dtb.readHits 400 # read hits (Count)\n"
	"system.cpu.mmu.dtb.readMisses 25 # read misses (Count)\n"
	"system.cpu.mmu.dtb_walker.walks 20 # table walks (Count)\n"
	"system.cpu.occupancy 6 # blocks in use (Count)\n"
	END;

static void test_cumulative_dumps(void)
{
	struct cp_buf out;
	struct cp_error err;
	struct hec_gem5_summary sum;

	CHECK(convert(cumulative, "system.cpu.mmu.*", HEC_GEM5_DUMPS_AUTO, &out,
		      &sum, &err) == CP_OK);
	CHECK_STR(out.data, HEADER
		  "o,0,system.cpu.mmu.dtb.readHits,90,1000,1000\n"
		  "o,0,system.cpu.mmu.dtb.readMisses,10,1000,1000\n"
		  "o,0,system.cpu.mmu.dtb_walker.walks,0,1000,0\n"
		  "o,1,system.cpu.mmu.dtb.readHits,150,1500,1500\n"
		  "o,1,system.cpu.mmu.dtb.readMisses,15,1500,1500\n"
		  "o,1,system.cpu.mmu.dtb_walker.walks,0,1500,0\n"
		  "o,2,system.cpu.mmu.dtb.readHits,160,1500,1500\n"
		  "o,2,system.cpu.mmu.dtb.readMisses,0,1500,1500\n"
		  "o,2,system.cpu.mmu.dtb_walker.walks,8,1500,1500\n");
	CHECK(sum.dumps == 3 && sum.totals == 2 && sum.deltas == 0);
	CHECK(sum.missing == 1 && sum.not_counted == 2);
	cp_buf_release(&out);

	/* by default the occupancy, which falls, is left out */
	CHECK(convert(cumulative, NULL, HEC_GEM5_DUMPS_AUTO, &out, &sum, &err) ==
	      CP_OK);
	/* and simFreq, a ((Tick/Second)) */
	CHECK(sum.not_totals == 1 && sum.not_counts == 1 && sum.events == 5);
	CHECK(!has(&out, "occupancy"));
	CHECK(has(&out, "o,2,finalTick,1500000,1500,1500\n"));
	cp_buf_release(&out);
	/* kept, it is an error at the line where it falls */
	expect_error(cumulative, "system.cpu.occupancy", HEC_GEM5_DUMPS_AUTO,
		     "stats.txt:16: 'system.cpu.occupancy' decreases from 7 (line "
		     "7) to 5, but the dumps are running totals", NULL);
	expect_error(cumulative, NULL, HEC_GEM5_DUMPS_DELTA,
		     "stats.txt:9: --dumps delta, but the ticks say this dump "
		     "repeats the one before (running totals)",
		     "stats.txt:18: --dumps delta, but the ticks say this dump "
		     "repeats the one before (running totals)\n");
	CHECK(convert(cumulative, "system.cpu.mmu.*", HEC_GEM5_DUMPS_CUMULATIVE,
		      &out, &sum, &err) == CP_OK);
	cp_buf_release(&out);
}

/* A reset in the middle of a file (m5 resetstats, then dumps without
 * one): a delta, then running totals from that reset. */
static void test_mixed_dumps(void)
{
	static const char text[] =
		BEGIN
		"sim_ticks 1000 # Number of ticks simulated\n"
		"final_tick 5000 # Number of ticks from beginning of simulation\n"
		"sim_freq 1000000000 # Frequency of simulated ticks\n"
		"a 1\n"
		END BEGIN
		"sim_ticks 2000\n"
		"final_tick 8000\n"
		"sim_freq 1000000000\n"
		"a 5\n"
		END BEGIN
		"sim_ticks 3000\n"
		"final_tick 9000\n"
		"sim_freq 1000000000\n"
		"a 7\n"
		END;
	struct cp_buf out;
	struct cp_error err;
	struct hec_gem5_summary sum;

	CHECK(convert(text, "a", HEC_GEM5_DUMPS_AUTO, &out, &sum, &err) == CP_OK);
	CHECK_STR(out.data, HEADER
		  "o,0,a,1,1000,1000\n"
		  "o,1,a,5,2000,2000\n"
		  "o,2,a,2,1000,1000\n");
	CHECK(sum.deltas == 1 && sum.totals == 1);
	cp_buf_release(&out);
}

/* Without finalTick the ticks cannot tell: auto asks, an option says. */
static void test_dumps_option(void)
{
	static const char text[] =
		BEGIN
		"sim_ticks 1000\n"
		"sim_freq 1000000000\n"
		"a 4\n"
		END BEGIN
		"sim_ticks 3000\n"
		"sim_freq 1000000000\n"
		"a 10\n"
		END;
	struct cp_buf out;
	struct cp_error err;
	struct hec_gem5_summary sum;

	expect_error(text, NULL, HEC_GEM5_DUMPS_AUTO,
		     "stats.txt:6: no 'finalTick' (or 'final_tick') here or in the "
		     "dump before to tell whether the statistics were reset "
		     "between them: say which with --dumps delta or --dumps "
		     "cumulative", NULL);
	CHECK(convert(text, "a", HEC_GEM5_DUMPS_DELTA, &out, &sum, &err) == CP_OK);
	CHECK_STR(out.data, HEADER "o,0,a,4,1000,1000\no,1,a,10,3000,3000\n");
	cp_buf_release(&out);
	CHECK(convert(text, "a", HEC_GEM5_DUMPS_CUMULATIVE, &out, &sum, &err) ==
	      CP_OK);
	CHECK_STR(out.data, HEADER "o,0,a,4,1000,1000\no,1,a,6,2000,2000\n");
	cp_buf_release(&out);
	/* one dump needs no decision */
	CHECK(convert(BEGIN "sim_ticks 10\nsim_freq 1000000000\na 1\n" END, NULL,
		      HEC_GEM5_DUMPS_AUTO, &out, &sum, &err) == CP_OK);
	CHECK(sum.dumps == 1 && sum.deltas == 0 && sum.totals == 0);
	cp_buf_release(&out);
}

/* nan, inf and fractions mark ratios, averages and rates: left out
 * without --events, an error when kept.  Negative counts and counts
 * beyond 2^53 are errors either way. */
static void test_not_counts(void)
{
	static const char text[] =
		BEGIN
		"sim_ticks 1000\n"
		"sim_freq 1000000000\n"
		"system.cpu.dcache.avg_blocked_cycles::no_mshrs nan # average\n"
		"system.mem_ctrls.avgQLat inf # Average queueing delay per DRAM burst\n"
		"system.cpu.cpi 1.602000 # CPI: cycles per instruction\n"
		"system.cpu.old no_value # before 2012\n"
		"system.cpu.whole 2.000000 # an average that came out whole\n"
		"system.cpu.power_model.staticPower -0.285085 # a model, not a count\n"
		END;
	struct cp_buf out;
	struct cp_error err;
	struct hec_gem5_summary sum;

	CHECK(convert(text, NULL, HEC_GEM5_DUMPS_AUTO, &out, &sum, &err) == CP_OK);
	CHECK(sum.not_counts == 5 && sum.events == 3);
	CHECK(has(&out, "o,0,system.cpu.whole,2,1000,1000\n"));
	cp_buf_release(&out);
	expect_error(text, "system.cpu.*,*::no_mshrs,*avgQLat", HEC_GEM5_DUMPS_AUTO,
		     "stats.txt:4: 'system.cpu.dcache.avg_blocked_cycles::no_mshrs' "
		     "is nan, not a count",
		     "stats.txt:5: 'system.mem_ctrls.avgQLat' is inf, not a count\n"
		     "stats.txt:6: 'system.cpu.cpi' is 1.602000, not a count\n"
		     "stats.txt:7: 'system.cpu.old' is no_value, not a count\n"
		     "stats.txt:9: 'system.cpu.power_model.staticPower' is "
		     "-0.285085, not a count\n");
	expect_error(BEGIN "sim_ticks 1000\nsim_freq 1000000000\n"
		     "system.cpu.mmu.dtb_walker.pendingWalks::samples -3323756854\n"
		     "system.cpu.mmu.dtb_walker.pendingWalks::0 -293273662 8.82% 8.82%\n"
		     "big 9007199254740993\n"
		     "fine 9007199254740992\n" END, NULL, HEC_GEM5_DUMPS_AUTO,
		     "stats.txt:4: 'system.cpu.mmu.dtb_walker.pendingWalks::samples' "
		     "is negative (-3323756854), not a count (an overflowed counter?)",
		     "stats.txt:5: 'system.cpu.mmu.dtb_walker.pendingWalks::0' is "
		     "negative (-293273662), not a count (an overflowed counter?)\n"
		     "stats.txt:6: 'big' is 9007199254740993, beyond 2^53, more than "
		     "a dataset holds exactly\n");
	/* whole numbers whose unit is a rate, a ratio or a level: left out
	 * unless asked for */
	{
		static const char units[] =
			BEGIN "simTicks 1000 (Tick)\nsimFreq 1000000000 ((Tick/Second))\n"
			"system.mem_ctrls.bw_read::total 2124881307 # Total read "
			"bandwidth from this memory (bytes/s)\n"
			"system.cpu.ipc 1 # IPC (Ratio)\n"
			"system.cpu_voltage_domain.voltage 1 # Voltage in Volts (Volt)\n"
			"system.cpu.numCycles 57536 # Number of cpu cycles simulated "
			"(Cycle)\n"
			"final_tick 1000 # (restored from checkpoints and never reset)\n"
			END;

		CHECK(convert(units, NULL, HEC_GEM5_DUMPS_AUTO, &out, &sum, &err) ==
		      CP_OK);
		CHECK(sum.not_counts == 4 && sum.events == 3);
		CHECK(has(&out, "numCycles") && has(&out, "final_tick") &&
		      !has(&out, "bw_read") && !has(&out, "ipc"));
		cp_buf_release(&out);
		CHECK(convert(units, "*bw_read*,*ipc", HEC_GEM5_DUMPS_AUTO, &out,
			      &sum, &err) == CP_OK);
		CHECK(sum.events == 2);
		cp_buf_release(&out);
	}
	/* -0 is a count of 0 */
	CHECK(convert(BEGIN "sim_ticks 1000\nsim_freq 1000000000\nz -0\n" END, "z",
		      HEC_GEM5_DUMPS_AUTO, &out, &sum, &err) == CP_OK);
	CHECK_STR(out.data, HEADER "o,0,z,0,1000,1000\n");
	cp_buf_release(&out);
}

/* The line forms: descriptions or none, units after the description or
 * alone (gem5 21 and later), distributions' percent columns (never
 * values), CRLF, tabs. */
static void test_line_forms(void)
{
	static const char text[] =
		BEGIN
		"simTicks 1000\r\n"
		"simFreq\t1000000000\r\n"
		"plain 3\n"
		"spaces                                      4                      \n"
		"unit_only 5 (Count)\n"
		"described 6 # Number of things (Count)\n"
		"hist::samples 67 # walk service time (Tick)\n"
		"hist::mean 34025.641791 # walk service time (Tick)\n"
		"hist::0-16383 41 61.19% 61.19% # walk service time (Tick)\n"
		"hist::16384-32767 26 38.81% 100.00% # walk service time (Tick)\n"
		"hist::total 67 # walk service time (Tick)\n"
		"vec::cpu.inst 9 -4.11% # pdf only, negative\n"
		"vec::total 9\n"
		END;
	struct cp_buf out;
	struct cp_error err;
	struct hec_gem5_summary sum;

	CHECK(convert(text, "[a-z]*[!k][!s]", HEC_GEM5_DUMPS_AUTO, &out, &sum,
		      &err) == CP_EINPUT);   /* hist::mean is no count */
	cp_buf_release(&out);
	CHECK(convert(text, "plain,spaces,unit_only,described,hist::[0-9st]*,vec::*",
		      HEC_GEM5_DUMPS_AUTO, &out, &sum, &err) == CP_OK);
	CHECK_STR(out.data, HEADER
		  "o,0,plain,3,1000,1000\n"
		  "o,0,spaces,4,1000,1000\n"
		  "o,0,unit_only,5,1000,1000\n"
		  "o,0,described,6,1000,1000\n"
		  "o,0,hist::samples,67,1000,1000\n"
		  "o,0,hist::0-16383,41,1000,1000\n"
		  "o,0,hist::16384-32767,26,1000,1000\n"
		  "o,0,hist::total,67,1000,1000\n"
		  "o,0,vec::cpu.inst,9,1000,1000\n"
		  "o,0,vec::total,9,1000,1000\n");
	cp_buf_release(&out);

	expect_error(BEGIN "sim_ticks 1\nsim_freq 1\n"
		     "three 1 1.00% 2.00% 3.00%\n"
		     "word 7 hits\n"
		     "novalue\n"
		     "bad 0x10 # hex\n"
		     "# a comment\n" END, NULL, HEC_GEM5_DUMPS_AUTO,
		     "stats.txt:4: unexpected '3.00%' after the value of 'three' "
		     "(expected percent columns, '# description' or a unit)",
		     "stats.txt:5: unexpected 'hits' after the value of 'word' "
		     "(expected percent columns, '# description' or a unit)\n"
		     "stats.txt:6: no value after 'novalue'\n"
		     "stats.txt:7: value '0x10' of 'bad' is not a number\n"
		     "stats.txt:8: expected a statistic (NAME VALUE # DESCRIPTION), "
		     "found '# a comment'\n");
}

/* gem5's oneline flag prints a vector on one line, its elements
 * unnamed: left out, or an error when asked for. */
static void test_one_line_vectors(void)
{
	static const char text[] =
		BEGIN "sim_ticks 1000\nsim_freq 1000000000\na 1\n"
		"system.cpu.shader.vec |1 50.00% 50.00% |1 50.00% 100.00% # x\n"
		END;
	struct cp_buf out;
	struct cp_error err;
	struct hec_gem5_summary sum;

	CHECK(convert(text, NULL, HEC_GEM5_DUMPS_AUTO, &out, &sum, &err) == CP_OK);
	CHECK(sum.one_line == 1 && sum.events == 3);
	cp_buf_release(&out);
	expect_error(text, "a,*shader*", HEC_GEM5_DUMPS_AUTO,
		     "stats.txt:5: 'system.cpu.shader.vec' is a one-line vector, "
		     "whose elements stats.txt does not name", NULL);
}

/* Every structural error at its line, all of them, in line order. */
static void test_structure_errors(void)
{
	static const char text[] =
		"stray line\n"                       /* 1 */
		BEGIN                                /* 2 */
		"sim_ticks 100\n"                    /* 3 */
		"a 1\n"                              /* 4 */
		"a 2\n"                              /* 5 */
		END                                  /* 6 */
		END                                  /* 7 */
		BEGIN                                /* 8 */
		"sim_ticks 100\n"                    /* 9 */
		"sim_freq 1000\n"                    /* 10 */
		"final_tick 50\n"                    /* 11 */
		BEGIN                                /* 12 */
		"sim_freq 0\n";                      /* 13 */
	struct cp_buf out;
	struct cp_error err;

	expect_error(text, NULL, HEC_GEM5_DUMPS_AUTO,
		     "stats.txt:1: 'stray line' outside the dumps (gem5's stats.txt "
		     "holds only 'Begin/End Simulation Statistics' blocks)",
		     "stats.txt:2: dump has no 'simFreq' (or 'sim_freq'): its ticks "
		     "per second are unknown\n"
		     "stats.txt:5: 'a' twice in one dump (first at line 4)\n"
		     "stats.txt:7: 'End Simulation Statistics' without its 'Begin'\n"
		     "stats.txt:8: the dump's 'finalTick' (50) is before its "
		     "'simTicks' (100) began\n"
		     "stats.txt:12: 'Begin Simulation Statistics' inside the dump "
		     "begun at line 8 (no 'End' before it)\n"
		     "stats.txt:12: the dump begun here has no 'End Simulation "
		     "Statistics' (a truncated file?)\n"
		     "stats.txt:12: dump has no 'simTicks' (or 'sim_ticks'): its "
		     "length is unknown\n"
		     "stats.txt:12: 'simFreq' is 0 ticks per second\n");
	expect_error("", NULL, HEC_GEM5_DUMPS_AUTO,
		     "stats.txt:1: no 'Begin Simulation Statistics' (is this gem5's "
		     "stats.txt?)", NULL);
	expect_error("observation,interval\n", NULL, HEC_GEM5_DUMPS_AUTO,
		     "stats.txt:1: 'observation,interval' outside the dumps (gem5's "
		     "stats.txt holds only 'Begin/End Simulation Statistics' "
		     "blocks)", NULL);
	{
		static const char nul[] = BEGIN "a 1\0" END;
		struct hec_gem5_options opt = { "o", NULL, HEC_GEM5_DUMPS_AUTO, 1, NULL };

		cp_buf_init(&out);
		cp_error_clear(&err);
		CHECK(hec_gem5_convert("stats.txt", nul, sizeof nul - 1, &opt, &out,
				       NULL, &err) == CP_EINPUT);
		CHECK_STR(err.msg, "not a text file (NUL byte)");
		opt.observation = "";
		CHECK(hec_gem5_convert("stats.txt", nul, sizeof nul - 1, &opt, &out,
				       NULL, &err) == CP_EINPUT);
		CHECK_STR(err.msg, "empty observation name");
		cp_buf_release(&out);
	}
	/* a dump that began inside the previous one */
	expect_error(BEGIN "sim_ticks 100\nfinal_tick 100\nsim_freq 1\n" END
		     BEGIN "sim_ticks 150\nfinal_tick 200\nsim_freq 1\n" END, NULL,
		     HEC_GEM5_DUMPS_AUTO,
		     "stats.txt:6: the dump counts from tick 50, inside the previous "
		     "dump (ticks 0 to 100): neither a reset at that dump nor its "
		     "running totals", NULL);
	expect_error(BEGIN "sim_ticks 1.5\nsim_freq 1\n" END, NULL,
		     HEC_GEM5_DUMPS_AUTO,
		     "stats.txt:2: 'sim_ticks' (1.5) is not a number of ticks", NULL);
}

/* --events: globs, each of which must match a statistic. */
static void test_events_globs(void)
{
	static const char text[] =
		BEGIN "simTicks 1000\nsimFreq 1000000000\n"
		"system.cpu.dtb.rdAccesses 347504\nsystem.cpu.dtb.rdMisses 1581\n"
		"system.cpu.itb.rdMisses 0\n" END;
	struct cp_buf out;
	struct cp_error err;
	struct hec_gem5_summary sum;

	CHECK(convert(text, "*.dtb.*,system.cpu.itb.rdMisses", HEC_GEM5_DUMPS_AUTO,
		      &out, &sum, &err) == CP_OK);
	CHECK(sum.events == 3);
	cp_buf_release(&out);
	expect_error(text, "system.cpu.dtb.rdMises,*.walks", HEC_GEM5_DUMPS_AUTO,
		     "stats.txt: --events 'system.cpu.dtb.rdMises' matches no "
		     "statistic (did you mean 'system.cpu.dtb.rdMisses'?)",
		     "stats.txt: --events '*.walks' matches no statistic\n");
	CHECK(convert(text, "a,,b", HEC_GEM5_DUMPS_AUTO, &out, &sum, &err) ==
	      CP_EINPUT);
	CHECK_STR(err.msg, "--events 'a,,b' has an empty pattern");
	cp_buf_release(&out);
}

/* ticks * 10^9 / freq, rounded to the nearest ns; a dump shorter than
 * half a nanosecond lasts 0 ns and counts nothing. */
static void test_ticks_to_ns(void)
{
	static const char text[] =
		BEGIN "sim_ticks 2500\nfinal_tick 2500\nsim_freq 1000000000000\na 3\n"
		END BEGIN "sim_ticks 3000\nfinal_tick 5500\nsim_freq 3\na 1\n" END
		BEGIN "sim_ticks 400\nfinal_tick 5900\nsim_freq 1000000000000\na 2\n"
		END;
	struct cp_buf out;
	struct cp_error err;
	struct hec_gem5_summary sum;

	CHECK(convert(text, "a", HEC_GEM5_DUMPS_AUTO, &out, &sum, &err) == CP_OK);
	CHECK_STR(out.data, HEADER
		  "o,0,a,3,2,2\n"                       /* 2.5 ns, to even */
		  "o,1,a,1,1000000000000,1000000000000\n"
		  "o,2,a,0,0,0\n");
	CHECK(sum.short_dumps == 1 && sum.not_counted == 1 && sum.missing == 0);
	cp_buf_release(&out);
	expect_error(BEGIN "sim_ticks 9007199254740993\nsim_freq 1000000000\n" END,
		     NULL, HEC_GEM5_DUMPS_AUTO,
		     "stats.txt:1: the dump lasts 9007199254740993 ticks at "
		     "1000000000 per second, beyond 2^53 ns, more than a dataset "
		     "holds exactly",
		     "stats.txt:2: 'sim_ticks' is 9007199254740993, beyond 2^53, "
		     "more than a dataset holds exactly\n");
}

/* Import a real file; load what it wrote as a dataset. */
static struct stats_dataset *import_file(const char *path, const char *events,
					 struct hec_gem5_summary *sum)
{
	struct hec_gem5_options opt = { "run", events, HEC_GEM5_DUMPS_AUTO, 1, NULL };
	struct cp_buf out;
	struct cp_error err;
	struct stats_dataset *d = NULL;
	char line[2048];

	cp_buf_init(&out);
	cp_error_clear(&err);
	if (hec_gem5_import(path, &opt, &out, sum, &err)) {
		cp_error_format(&err, line, sizeof line);
		printf("  import %s: %s\n", path, line);
	} else if (stats_dataset_parse("out.csv", out.data, out.len, &d, NULL,
				       &err)) {
		cp_error_format(&err, line, sizeof line);
		printf("  load %s: %s\n", path, line);
	}
	cp_buf_release(&out);
	return d;
}

/* The rate (value * 1e9 / running_ns) of event in interval t of the only
 * observation, or -1. */
static double value_at(const struct stats_dataset *d, const char *event,
		       size_t t)
{
	const char *events[1] = { event };
	double *rates = NULL, v = -1;
	size_t n = 0;
	struct cp_error err;

	if (!stats_observation_rates(d, 0, events, 1, &rates, &n, &err) && t < n)
		v = rates[t];
	free(rates);
	return v;
}

static void test_real_files(void)
{
	static const struct {
		const char *file, *events;
		size_t dumps, events_kept, not_counts;
	} files[] = {
		{ "tests/data/gem5/arm-se-2015-3dumps.txt", NULL, 3, 752, 124 },
		{ "tests/data/gem5/x86-se-2017-dtb.txt", NULL, 1, 880, 188 },
		{ "tests/data/gem5/x86-se-mmu-dtb-units.txt", NULL, 1, 402, 48 },
		{ "tests/data/gem5/x86-hello-ref-nodesc.txt", NULL, 1, 398, 99 },
		{ "tests/data/gem5/arm-fs-cumulative.txt",
		  "system.cpu_cluster.cpus?.mmu.[di]tb.*", 2, 84, 0 },
		{ "tests/data/gem5/arm-fs-3dumps-gaps.txt",
		  "system.cpu_cluster.cpus?.mmu.[di]tb.*", 3, 84, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof files / sizeof *files; i++) {
		struct hec_gem5_summary sum;
		struct stats_dataset *d = import_file(files[i].file, files[i].events,
						      &sum);

		CHECKF(d != NULL, "%s", files[i].file);
		if (!d)
			continue;
		CHECKF(sum.dumps == files[i].dumps && sum.events == files[i].events_kept
		       && sum.not_counts == files[i].not_counts,
		       "%s: %zu dumps, %zu events, %zu not counts", files[i].file,
		       sum.dumps, sum.events, sum.not_counts);
		CHECK(stats_dataset_n_intervals(d, 0) == files[i].dumps);
		stats_dataset_free(d);
	}
}

/* Differenced running totals keep gem5's own identities: readAccesses
 * is the formula readHits + readMisses in every dump, so it holds for
 * the differences too; and the second dump's interval is the time
 * between the dumps. */
static void test_real_cumulative(void)
{
	struct hec_gem5_summary sum;
	struct stats_dataset *d = import_file("tests/data/gem5/arm-fs-cumulative.txt",
		"system.cpu_cluster.cpus0.mmu.dtb.read*", &sum);
	size_t t;

	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(sum.totals == 1 && sum.deltas == 0);
	/* rates: value * 1e9 / running; interval 1 lasts 211631153 ns */
	CHECK_NEAR(value_at(d, "system.cpu_cluster.cpus0.mmu.dtb.readHits", 1),
		   (827851.0 - 79670.0) * 1e9 / 211631153.0, 1e-6);
	for (t = 0; t < 2; t++)
		CHECK_NEAR(value_at(d, "system.cpu_cluster.cpus0.mmu.dtb.readAccesses", t),
			   value_at(d, "system.cpu_cluster.cpus0.mmu.dtb.readHits", t) +
			   value_at(d, "system.cpu_cluster.cpus0.mmu.dtb.readMisses", t),
			   1e-6);
	stats_dataset_free(d);
}

/* err holds what fits; messages every line: 40 bad lines here. */
static void test_every_message(void)
{
	struct hec_gem5_options opt = { "o", NULL, HEC_GEM5_DUMPS_AUTO, 1, NULL };
	struct cp_buf text, out, messages;
	struct cp_error err;
	size_t i, lines = 0;

	cp_buf_init(&text);
	cp_buf_init(&out);
	cp_buf_init(&messages);
	cp_buf_puts(&text, BEGIN "sim_ticks 1\nsim_freq 1\n");
	for (i = 0; i < 40; i++)
		cp_buf_printf(&text, "system.cpu.walker.pendingWalks::%zu -%zu\n", i,
			      i + 1);
	cp_buf_puts(&text, END);
	opt.messages = &messages;
	cp_error_clear(&err);
	CHECK(hec_gem5_convert("stats.txt", text.data, text.len, &opt, &out, NULL,
			       &err) == CP_EINPUT);
	for (i = 0; i < messages.len; i++)
		lines += messages.data[i] == '\n';
	CHECK(lines == 40);
	CHECK(has(&messages, "stats.txt:43: 'system.cpu.walker.pendingWalks::39' "
		  "is negative (-40)"));
	CHECK(strstr(err.detail, "more bad lines") != NULL);
	cp_buf_release(&text);
	cp_buf_release(&out);
	cp_buf_release(&messages);
}

static void test_allocation_failures(void)
{
	struct hec_gem5_options opt = { "o", NULL, HEC_GEM5_DUMPS_AUTO, 1, NULL };
	unsigned long nth;
	int failed = 0, ok = 0;

	for (nth = 1; nth < 2000 && !ok; nth++) {
		struct cp_buf out;
		struct cp_error err;
		int rc;

		cp_buf_init(&out);
		cp_error_clear(&err);
		cp_alloc_fail_at(nth);
		rc = hec_gem5_convert("stats.txt", cumulative, strlen(cumulative),
				      &opt, &out, NULL, &err);
		cp_alloc_fail_at(0);
		if (rc == 0)
			ok = 1;
		else if (rc != CP_ENOMEM)
			failed = 1;
		cp_buf_release(&out);
	}
	CHECK(ok);
	CHECK(!failed);
}

int main(void)
{
	check_prog = "test_gem5";
	RUN(test_delta_dumps);
	RUN(test_cumulative_dumps);
	RUN(test_mixed_dumps);
	RUN(test_dumps_option);
	RUN(test_not_counts);
	RUN(test_line_forms);
	RUN(test_one_line_vectors);
	RUN(test_structure_errors);
	RUN(test_events_globs);
	RUN(test_ticks_to_ns);
	RUN(test_real_files);
	RUN(test_real_cumulative);
	RUN(test_every_message);
	RUN(test_allocation_failures);
	return check_summary();
}
