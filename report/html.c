/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report/html.c: the page around the sections: one inline style sheet, a
 * Content-Security-Policy that lets the browser fetch nothing (no script,
 * no font, no image from elsewhere), and HTML escaping. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "report/report_int.h"

/* The only style of the page.  Plots carry their colours as SVG
 * attributes too, so an SVG copied out of the page looks the same. */
static const char page_style[] =
	"body{font-family:sans-serif;margin:2em;max-width:1150px;color:#222;"
	"background:#fff}\n"
	"h1{font-size:1.4em;overflow-wrap:anywhere}h2{font-size:1.2em;"
	"margin-top:1.6em}\n"
	"table{border-collapse:collapse;margin:.6em 0}\n"
	"td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left;"
	"vertical-align:top}\n"
	"th{background:#eee}\n"
	"code{font-size:.95em;overflow-wrap:anywhere}\n"
	".feasible{color:#1a6b1a}.infeasible{color:#b01c1c}"
	".unusable,.undecided{color:#777}\n"
	".verdict{font-size:1.15em}\n"
	"figure{margin:.5em 0}figcaption{font-size:.9em;color:#444;"
	"max-width:760px}\n"
	".note{color:#555;font-size:.9em}\n"
	"details{margin:.3em 0}summary{cursor:pointer}\n"
	".each>details{border-top:1px solid #ddd;padding:.2em 0}\n"
	"table.mx{font-size:.85em}\n"
	".mx td{text-align:right;min-width:2.5em}\n"
	".mx td:first-child{width:18em;overflow-wrap:anywhere;text-align:left}\n"
	".m1{background:#fee5d9}.m2{background:#fcbba1}.m3{background:#fc9272}"
	".m4{background:#fb6a4a}.m5{background:#de2d26;color:#fff}"
	".m6{background:#a50f15;color:#fff}\n"
	".feasible-list a,.unusable-list a{white-space:nowrap}\n"
	".search svg{max-width:100%;height:auto}\n"
	"table.models{table-layout:fixed;width:100%;font-size:.9em}\n"
	".models td{overflow-wrap:anywhere}\n"
	".models col.n{width:3em}.models col.f{width:17%}.models col.v{width:5.5em}"
	".models col.i{width:5.5em}.models col.s{width:6em}.models col.o{width:8.5em}"
	".models col.r{width:11%}\n"
	".conclusion{font-size:1.1em}\n";

void report_html_text(struct cp_buf *b, const char *s)
{
	const char *p, *run = s;

	if (!s)
		return;
	for (p = s; *p; p++) {
		const char *rep;

		switch (*p) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default: continue;
		}
		cp_buf_append(b, run, (size_t)(p - run));
		cp_buf_puts(b, rep);
		run = p + 1;
	}
	cp_buf_append(b, run, (size_t)(p - run));
}

void report_page_begin(struct cp_buf *b, const char *title)
{
	cp_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		    "<meta charset=\"utf-8\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\""
		    "default-src 'none'; style-src 'unsafe-inline'\">\n"
		    "<meta name=\"generator\" content=\"counterpoint ");
	report_html_text(b, cp_version());
	cp_buf_puts(b, "\">\n<title>");
	report_html_text(b, title);
	cp_buf_puts(b, "</title>\n<style>\n");
	cp_buf_puts(b, page_style);
	cp_buf_puts(b, "</style>\n</head>\n<body>\n<h1>");
	report_html_text(b, title);
	cp_buf_puts(b, "</h1>\n");
}

void report_page_end(struct cp_buf *b)
{
	cp_buf_puts(b, "<p class=\"note\">Written by counterpoint ");
	report_html_text(b, cp_version());
	cp_buf_puts(b, "; a self-contained page (no script, nothing fetched).</p>\n"
		    "</body>\n</html>\n");
}

void report_number_str(char *out, size_t n, double v)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(out, n, "undefined");
	else if (isinf(v))
		snprintf(out, n, v > 0 ? "inf" : "-inf");
	else if (a < 0.005)
		snprintf(out, n, "0");
	else if (a < 999.5)
		snprintf(out, n, "%.3g", v);
	else if (a < 1e6)
		snprintf(out, n, "%.0f", v);
	else
		snprintf(out, n, "%.3g", v);
}

void report_number(struct cp_buf *b, double v)
{
	char t[32];

	report_number_str(t, sizeof t, v);
	cp_buf_puts(b, t);
}
