/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_stats_load_threads.c: the dataset loader on threads
 * (stats/dataset.c): the lines after the header cut into ranges, parsed
 * apart and joined, must give for every text what one thread gives: the
 * same dataset and every message the same, in the same order.  Small
 * texts are cut by lowering the least range to one byte
 * (stats_dataset_read), at every place a sweep over the thread count
 * puts the cuts. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "common/cp.h"
#include "stats/region.h"
#include "check.h"
#include "dataset_same.h"

#define HEADER "observation,interval,event,value,enabled_ns,running_ns\n"
#define PATH "build/tests/test_stats_load_threads.csv"

static int write_file(const char *path, const char *text, size_t len)
{
	FILE *fp = fopen(path, "wb");
	int ok;

	if (!fp)
		return 0;
	ok = fwrite(text, 1, len, fp) == len;
	return fclose(fp) == 0 && ok;
}

/* The load on threads threads (text NULL: the file) against one. */
static void compare(const char *what, const struct load_result *one,
		    const char *text, size_t len, size_t threads,
		    size_t min_range)
{
	struct load_result many;
	const char *why;

	load_result_read(&many, PATH, text, len, threads, min_range);
	why = load_result_diff(one, &many);
	CHECKF(!why, "%s: %zu threads (%s): %s differs", what, threads,
	       text ? "text" : "file", why);
	load_result_release(&many);
}

/* text on 1 thread, then on 2, 3 and 7 from a file and in memory, and
 * when small on every count up to 24 in memory (the cuts move with it);
 * the reference is returned in *one (release it) when one is not NULL. */
static void same_on_threads(const char *what, const char *text, size_t len,
			    struct load_result *one)
{
	static const size_t counts[] = { 2, 3, 7 };
	struct load_result ref, file1;
	const char *why;
	size_t i;

	load_result_read(&ref, PATH, text, len, 1, 1);
	for (i = 0; i < sizeof counts / sizeof *counts; i++)
		compare(what, &ref, text, len, counts[i], 1);
	for (i = 2; len < 20000 && i <= 24; i++)
		compare(what, &ref, text, len, i, 1);
	CHECK(write_file(PATH, text, len));
	load_result_read(&file1, PATH, NULL, 0, 1, 1);
	why = load_result_diff(&ref, &file1);
	CHECKF(!why, "%s: file and text: %s differs", what, why);
	load_result_release(&file1);
	for (i = 0; i < sizeof counts / sizeof *counts; i++)
		compare(what, &ref, NULL, 0, counts[i], 1);
	remove(PATH);
	if (one)
		*one = ref;
	else
		load_result_release(&ref);
}

/* A dataset of every kind of row: observations one after another and
 * interleaved, plain rows and rows the slow path takes (quoted, padded),
 * blank lines, an extra column. */
static void test_large_dataset(void)
{
	struct load_result one;
	struct cp_buf b;
	size_t o, t, e;

	cp_buf_init(&b);
	cp_buf_puts(&b, "observation,interval,event,value,enabled_ns,running_ns,note\n");
	for (o = 0; o < 40; o++) {
		/* observations 8k + 6 and 8k + 7 interleaved row by row */
		size_t pair = o % 8 == 6, n_t = pair ? 120 : 60;

		if (o % 8 == 7)
			continue;
		for (t = 0; t < n_t; t++) {
			size_t obs = pair ? o + t % 2 : o, in = pair ? t / 2 : t;

			for (e = 0; e < 5; e++)
				if ((o * 60 + t) % 97 == 0 && e == 2)
					cp_buf_printf(&b, "\"obs-%zu\", %zu ,ev%zu,%zu.25,1000,900,\"a,b\"\n",
						      obs, in, e, t * e);
				else
					cp_buf_printf(&b, "obs-%zu,%zu,ev%zu,%zu,1000,%zu,\n",
						      obs, in, e, (o + t + e) % 50,
						      500 + (t * 7 + e) % 500);
			if (t % 13 == 0)
				cp_buf_puts(&b, "\n");
		}
	}
	CHECK(!b.failed);
	same_on_threads("large", b.data, b.len, &one);
	CHECK(one.rc == 0 && one.d && stats_dataset_n_observations(one.d) == 40);
	load_result_release(&one);
	cp_buf_release(&b);
}

/* perf stat -r summaries among observations of intervals, in every
 * range: their rows (runs, se_pct) kept by line across the cuts, and
 * the rule's messages (a summary of two intervals, rows without runs)
 * the same on any number of threads. */
static void test_summaries_on_threads(void)
{
	struct load_result one;
	struct cp_buf b;
	size_t o, t, e;
	int bad;

	for (bad = 0; bad < 2; bad++) {
		cp_buf_init(&b);
		cp_buf_puts(&b, "observation,interval,event,value,enabled_ns,running_ns,"
			    "runs,se_pct\n");
		for (o = 0; o < 300; o++)
			for (t = 0; t < (o % 3 ? 4u : 1u); t++)
				for (e = 0; e < 4; e++)
					if (o % 3)
						cp_buf_printf(&b, "obs-%zu,%zu,ev%zu,%zu,1000,900,,\n",
							      o, t, e, (o + t + e) % 50);
					else
						cp_buf_printf(&b, "sum-%zu,%zu,ev%zu,%zu,1000,1000,"
							      "%zu,%zu.5\n", o,
							      bad && o % 57 == 0 ? e % 2 : 0, e,
							      o + e, (size_t)(3 + (bad && o % 171 == 0 &&
										   e == 3)), e);
		CHECK(!b.failed);
		same_on_threads("summaries", b.data, b.len, &one);
		if (bad)
			CHECK(one.rc == CP_EINPUT && one.d == NULL);
		else
			CHECK(one.rc == 0 && one.d && stats_dataset_runs(one.d, 0) == 3 &&
			      stats_dataset_runs(one.d, 1) == 0 && one.d->n_sr == 400);
		load_result_release(&one);
		cp_buf_release(&b);
	}
}

/* Bad rows in every range: their messages in line order, the first in
 * the error, the detail cut at its size ("... and N more bad rows"),
 * duplicates whose rows are ranges apart among them. */
static void test_bad_rows_everywhere(void)
{
	static const char *const bad[] = {
		"o%zu,1,a,x,10,10\n", "o%zu,1,a,1,10,11\n", "o%zu,1\n",
		"o%zu,-1,a,1,10,10\n", "\"o%zu,1,a,1,10,10\n", "o%zu,1,a,0x1,10,10\n",
		"o%zu,1,a,3,10,0\n",
	};
	struct load_result one;
	struct cp_buf b;
	size_t i;

	cp_buf_init(&b);
	cp_buf_puts(&b, HEADER "d,5,a,1,10,10\n");
	for (i = 0; i < 400; i++) {
		if (i % 9 == 4)
			cp_buf_printf(&b, bad[i / 9 % 7], i);
		else
			cp_buf_printf(&b, "o%zu,%zu,a,1,10,10\n", i % 3, i);
	}
	cp_buf_puts(&b, "d,5,a,2,10,10\nd,5,b,1,10,10\nd,6,a,1,10,10\nd,5,b,1,10,10\n");
	CHECK(!b.failed);
	same_on_threads("bad rows", b.data, b.len, &one);
	CHECK(one.rc == CP_EINPUT && one.err.line == 7);
	CHECK(strstr(one.err.detail, "more bad rows\n") != NULL);
	CHECK(one.diag.data &&
	      strstr(one.diag.data, ":403: duplicate row for observation 'd', "
		     "interval 5, event 'a' (first at line 2)\n") != NULL);
	load_result_release(&one);
	cp_buf_release(&b);
}

/* A NUL byte in a middle range, bad rows before and after it: that alone
 * is said, at its line; and in the first and the last line. */
static void test_nul_byte_in_a_range(void)
{
	struct load_result one;
	struct cp_buf b;
	size_t i, at[3], k;

	cp_buf_init(&b);
	cp_buf_puts(&b, HEADER);
	for (i = 0; i < 300; i++) {
		if (i == 150)
			at[1] = b.len + 3;
		cp_buf_printf(&b, i % 20 == 3 ? "o,%zu,a,x,10,10\n" :
			      "o,%zu,a,1,10,10\n", i);
	}
	at[0] = strlen(HEADER) + 1;
	at[2] = b.len - 2;
	CHECK(!b.failed);
	for (k = 0; k < 3 && !b.failed; k++) {
		char save = b.data[at[k]];

		b.data[at[k]] = '\0';
		same_on_threads("NUL byte", b.data, b.len, &one);
		CHECK(one.rc == CP_EINPUT &&
		      one.err.line == (k == 0 ? 2 : k == 1 ? 152 : 301));
		CHECK_STR(one.err.msg, "not a text file (NUL byte)");
		CHECK(one.err.detail[0] == '\0');
		load_result_release(&one);
		b.data[at[k]] = save;
	}
	cp_buf_release(&b);
}

/* One observation's rows in one group cut wherever the ranges fall: made
 * one group again, and an event in both parts is a duplicate. */
static void test_group_across_ranges(void)
{
	static const char *const texts[] = {
		HEADER "o,1,a,1,10,10\no,1,b,1,10,10\no,1,c,1,10,10\no,1,d,1,10,10\n"
		"o,1,e,1,10,10\no,1,f,1,10,10\no,2,a,1,10,10\n",
		HEADER "o,1,a,1,10,10\no,1,b,1,10,10\no,1,c,1,10,10\no,1,a,1,10,10\n"
		"o,1,e,1,10,10\no,1,b,1,10,10\no,2,a,1,10,10\n",
		/* a blank line or a bad row between two rows of a group */
		HEADER "o,1,a,1,10,10\no,1,b,1,10,10\n\no,1,c,1,10,10\no,1,x,x,10,10\n"
		"o,1,a,1,10,10\n",
		/* groups out of order across the ranges, names first seen late */
		HEADER "p,3,a,1,10,10\nq,0,b,1,10,10\nq,1,b,1,10,10\np,0,a,1,10,10\n"
		"r,0,a,1,10,10\nq,0,b,2,10,10\np,1,c,1,10,10\nq,2,a,1,10,10\n",
		/* sorted, an event twice within the last group */
		HEADER "o,1,a,1,10,10\no,2,a,1,10,10\no,3,a,1,10,10\no,4,a,1,10,10\n"
		"o,5,a,1,10,10\no,6,a,1,10,10\no,7,a,1,10,10\no,7,b,1,10,10\no,7,a,1,10,10\n",
		/* interleaved, every row its own group */
		HEADER "o1,0,a,1,10,10\no2,0,a,9,10,10\no1,0,b,2,10,5\no2,0,b,9,10,10\n"
		"o1,1,a,3,10,10\no2,1,a,9,10,10\no1,1,b,4,10,4\no2,1,b,9,10,10\n",
	};
	struct load_result one;
	size_t t;

	for (t = 0; t < sizeof texts / sizeof *texts; t++) {
		char what[32];

		snprintf(what, sizeof what, "text %zu", t);
		same_on_threads(what, texts[t], strlen(texts[t]), &one);
		if (t == 0)
			CHECK(one.rc == 0 && one.d && one.d->n_g == 2);
		if (t == 1)
			CHECK_STR(one.diag.data,
				  PATH ":5: duplicate row for observation 'o', interval 1, event 'a' (first at line 2)\n"
				  PATH ":7: duplicate row for observation 'o', interval 1, event 'b' (first at line 3)\n");
		if (t == 3)
			CHECK_STR(one.diag.data,
				  PATH ":7: duplicate row for observation 'q', interval 0, event 'b' (first at line 3)\n");
		load_result_release(&one);
	}
}

/* CRLF line ends, a byte order mark, blank lines of spaces and carriage
 * returns, a last line without its newline. */
static void test_crlf(void)
{
#define CRLF_ROWS "\xEF\xBB\xBFobservation,interval,event,value,enabled_ns,running_ns\r\n" \
	"o1,0,a,1,10,10\r\no1,0,b,2,10,5\r\n \r\n\r\no1,1,a,3,10,10\r\no1,1,b,4,10,5\r\n"
	static const char bad[] = CRLF_ROWS "o1,1,b,x,10,5\r\n\"o2\",0,a,5,10,10\r\no2,0,b,5,10,10";
	static const char good[] = CRLF_ROWS "\"o2\",0,a,5,10,10\r\no2,0,b,5,10,10\r\n";
	struct load_result one;

	same_on_threads("CRLF", bad, sizeof bad - 1, &one);
	CHECK(one.rc == CP_EINPUT && one.err.line == 8);
	load_result_release(&one);
	same_on_threads("CRLF, good", good, sizeof good - 1, &one);
	CHECK(one.rc == 0 && one.d && stats_dataset_n_observations(one.d) == 2);
	load_result_release(&one);
}

/* Fewer lines than threads, down to none. */
static void test_short_files(void)
{
	static const char *const texts[] = {
		"", "\n", HEADER, HEADER "\n\n", "observation,interval",
		HEADER "o,0,a,1,10,10", HEADER "o,0,a,1,10,10\n",
		HEADER "o,0,a,1,10,10\no,0,a,1,10,10\n", HEADER "o,0,a,x,10,10\n",
		"observation,interval,event,value,enabled_ns\no,0,a,1,10\n",
	};
	size_t t;

	for (t = 0; t < sizeof texts / sizeof *texts; t++) {
		char what[32];

		snprintf(what, sizeof what, "short text %zu", t);
		same_on_threads(what, texts[t], strlen(texts[t]), NULL);
	}
}

/* Every file of the dataset error catalogue (tests/stats/errors/). */
static void test_error_catalogue(void)
{
	DIR *dir = opendir("tests/stats/errors");
	struct dirent *de;
	size_t n = 0;

	CHECK(dir != NULL);
	while (dir && (de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		char path[512], *text;
		FILE *fp;
		long size;

		if (len < 4 || strcmp(de->d_name + len - 4, ".csv"))
			continue;
		snprintf(path, sizeof path, "tests/stats/errors/%s", de->d_name);
		if (!(fp = fopen(path, "rb")))
			continue;
		fseek(fp, 0, SEEK_END);
		size = ftell(fp);
		rewind(fp);
		text = malloc((size_t)size + 1);
		if (text && fread(text, 1, (size_t)size, fp) == (size_t)size) {
			same_on_threads(path, text, (size_t)size, NULL);
			n++;
		}
		free(text);
		fclose(fp);
	}
	if (dir)
		closedir(dir);
	CHECK(n >= 30);
}

/* stats_dataset_load_threads itself, at its own least range, on a file
 * read in several blocks a range: a line longer than a block where a
 * range starts, a NUL byte far in. */
static void test_load_threads_file(void)
{
	struct stats_dataset *d1 = NULL, *d3 = NULL;
	struct load_result r1, r3;
	struct cp_error err;
	struct cp_buf b;
	size_t i, j;

	cp_buf_init(&b);
	cp_buf_puts(&b, "observation,interval,event,value,enabled_ns,running_ns,note\n");
	for (i = 0; i < 160000; i++) {
		cp_buf_printf(&b, "observation-%zu,%zu,event_a,%zu,1000,%zu,\n",
			      i % 7, i / 7, i * 13 % 1000, 500 + i % 500);
		if (i == 60000) {     /* a note longer than a block, over a cut */
			b.len--;
			for (j = 0; j < (3u << 20) / 8; j++)
				cp_buf_puts(&b, "longnote");
			cp_buf_puts(&b, "\n");
		}
	}
	CHECK(!b.failed && b.len > (8u << 20));
	CHECK(write_file(PATH, b.data, b.len));
	cp_error_clear(&err);
	CHECK(stats_dataset_load_threads(PATH, 1, &d1, NULL, &err) == 0);
	CHECK(stats_dataset_load_threads(PATH, 3, &d3, NULL, &err) == 0);
	CHECK(d1 && d3 && stats_dataset_n_observations(d1) == 7);
	stats_dataset_free(d1);
	stats_dataset_free(d3);
	b.data[b.len - 100] = '\0';
	CHECK(write_file(PATH, b.data, b.len));
	load_result_read(&r1, PATH, NULL, 0, 1, 0);
	load_result_read(&r3, PATH, NULL, 0, 3, 0);
	CHECK(r1.rc == CP_EINPUT && load_result_diff(&r1, &r3) == NULL);
	load_result_release(&r1);
	load_result_release(&r3);
	b.data[b.len - 100] = '1';
	CHECK(write_file(PATH, b.data, b.len));
	load_result_read(&r1, PATH, NULL, 0, 1, 0);
	for (i = 2; i <= 4; i++) {
		load_result_read(&r3, PATH, NULL, 0, i, 0);
		CHECK(r1.rc == 0 && load_result_diff(&r1, &r3) == NULL);
		load_result_release(&r3);
	}
	load_result_release(&r1);
	remove(PATH);
	cp_buf_release(&b);
}

int main(void)
{
	check_prog = "test_stats_load_threads";
	RUN(test_large_dataset);
	RUN(test_summaries_on_threads);
	RUN(test_bad_rows_everywhere);
	RUN(test_nul_byte_in_a_range);
	RUN(test_group_across_ranges);
	RUN(test_crlf);
	RUN(test_short_files);
	RUN(test_error_catalogue);
	RUN(test_load_threads_file);
	return check_summary();
}
