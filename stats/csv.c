/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stats/csv.c: the text of the long CSV: fields (quotes, trimming) and
 * numbers, scanned by hand (docs/method/statistics.md, "numbers": strtoull and
 * strtod accept more than a count is, and cost more than the whole loader
 * may).  The loader's fast path (stats/dataset.c) takes plain rows itself
 * and comes here for every row it does not take, so the messages and
 * the rules live here once. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats_int.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

long stats_csv_split(const char *p, const char *end, struct stats_field *f,
		     size_t max, char *scratch)
{
	size_t n = 0;

	for (;;) {
		const char *start;
		size_t len;

		while (p < end && is_blank(*p))
			p++;
		if (p < end && *p == '"') {
			char *out = scratch;

			start = scratch;
			for (p++;; ) {
				if (p >= end)
					return STATS_CSV_UNTERMINATED;
				if (*p == '"') {
					if (p + 1 < end && p[1] == '"') {
						*out++ = '"';
						p += 2;
						continue;
					}
					p++;
					break;
				}
				*out++ = *p++;
			}
			len = (size_t)(out - scratch);
			scratch = out;
			while (p < end && is_blank(*p))
				p++;
			if (p < end && *p != ',')
				return STATS_CSV_AFTER_QUOTE;
		} else {
			const char *q;

			start = p;
			while (p < end && *p != ',')
				p++;
			for (q = p; q > start && is_blank(q[-1]); q--)
				;
			len = (size_t)(q - start);
		}
		if (n < max) {
			f[n].p = start;
			f[n].len = len;
		}
		n++;
		if (p >= end)
			break;
		p++;              /* the comma */
	}
	return (long)n;
}

static int is_digit(char c)
{
	return (unsigned)(c - '0') < 10;
}

const char *stats_csv_why(long rc)
{
	return rc == STATS_CSV_AFTER_QUOTE ? "text after the closing quote of a field"
					   : "unterminated quoted field";
}

/* 0x or 0X and hex digits only: a hexadecimal number, said as such
 * (0xzz is no number at all). */
static int is_hex(const char *p, size_t len)
{
	size_t i;

	if (len <= 2 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return 0;
	for (i = 2; i < len; i++)
		if (!is_digit(p[i]) && (unsigned)((p[i] | 0x20) - 'a') >= 6)
			return 0;
	return 1;
}

int stats_csv_u64(const char *p, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (is_hex(p, len))
		return STATS_NUM_HEX;
	if (!len)
		return STATS_NUM_SYNTAX;
	for (i = 0; i < len; i++)
		if (!is_digit(p[i]))
			return STATS_NUM_SYNTAX;
	for (i = 0; i < len; i++) {
		unsigned d = (unsigned)(p[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return STATS_NUM_ABOVE_2_64;
		v = v * 10 + d;
	}
	*out = v;
	return STATS_NUM_OK;
}

/* 10^e for 0 <= e <= 22: exact doubles. */
static const double pow10_exact[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

#define TWO_53 9007199254740992ull

/* A count: decimal notation, DIGITS[.DIGITS][(e|E)[+|-]DIGITS], at most
 * 2^53.  The limits are decided on the decimal text itself, exactly: the
 * integer part of the number against 2^53 and 2^64, a fraction counting
 * as above 2^53 only when the integer part is 2^53. */
int stats_csv_count(const char *p, size_t len, double *out)
{
	const char *end = p + len, *q = p, *ip, *ie, *fp = NULL, *fe = NULL;
	long exp10 = 0, point, ndig, i;
	uint64_t ipart = 0, mant = 0;
	int neg = 0, esign = 1, big = 0, frac = 0, mant_ok = 1;

	if (q < end && *q == '-') {
		neg = 1;
		q++;
	}
	if (is_hex(q, (size_t)(end - q)))
		return STATS_NUM_HEX;
	for (ip = q; q < end && is_digit(*q); q++)
		;
	ie = q;
	if (ie == ip)
		return STATS_NUM_SYNTAX;
	if (q < end && *q == '.') {
		for (fp = ++q; q < end && is_digit(*q); q++)
			;
		fe = q;
		if (fe == fp)
			return STATS_NUM_SYNTAX;
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		const char *es;

		q++;
		if (q < end && (*q == '+' || *q == '-'))
			esign = *q++ == '-' ? -1 : 1;
		for (es = q; q < end && is_digit(*q); q++)
			if (exp10 < 1000000)     /* beyond: astronomically big or small */
				exp10 = exp10 * 10 + (*q - '0');
		if (q == es)
			return STATS_NUM_SYNTAX;
	}
	if (q != end)
		return STATS_NUM_SYNTAX;
	exp10 *= esign;
	/* the significant digits: integer then fraction, leading zeros
	 * dropped; point = how many of them are before the decimal point */
	while (ip < ie && *ip == '0')
		ip++;
	ndig = (long)(ie - ip) + (fp ? (long)(fe - fp) : 0);
	point = (long)(ie - ip) + exp10;
	for (i = 0; i < ndig; i++) {
		char c = i < ie - ip ? ip[i] : fp[i - (ie - ip)];
		unsigned d = (unsigned)(c - '0');

		if (i < point) {
			if (ipart > (UINT64_MAX - d) / 10)
				big = 1;
			else
				ipart = ipart * 10 + d;
		} else if (d) {
			frac = 1;
		}
		if (mant_ok && mant <= (UINT64_MAX - d) / 10)
			mant = mant * 10 + d;
		else
			mant_ok = 0;
	}
	if (!big && ipart && point > ndig) {          /* trailing zeros of the exponent */
		for (i = ndig; i < point && !big; i++) {
			if (ipart > UINT64_MAX / 10)
				big = 1;
			else
				ipart *= 10;
		}
	}
	if (ipart == 0 && !frac)
		neg = 0;                     /* -0 is zero */
	if (neg)
		return STATS_NUM_NEGATIVE;
	if (big)
		return STATS_NUM_ABOVE_2_64;
	if (ipart > TWO_53 || (ipart == TWO_53 && frac))
		return STATS_NUM_ABOVE_2_53;
	/* the double: exact for integers (<= 2^53); one correctly rounded
	 * operation on exact operands (mantissa <= 2^53, 10^e exact) when the
	 * digits allow; strtod (correctly rounded) otherwise */
	if (!frac) {
		*out = (double)ipart;
		return STATS_NUM_OK;
	}
	{
		long e = point - ndig;       /* value = mant * 10^e */

		if (mant_ok && mant <= TWO_53 && e < 0 && e >= -22) {
			*out = (double)mant / pow10_exact[-e];
			return STATS_NUM_OK;
		}
	}
	{
		char buf[512], *stop;
		char *tmp = len < sizeof buf ? buf : cp_malloc(len + 1);

		if (!tmp)
			return STATS_NUM_NOMEM;
		memcpy(tmp, p, len);
		tmp[len] = '\0';
		*out = strtod(tmp, &stop);
		if (tmp != buf)
			cp_free(tmp);
	}
	return STATS_NUM_OK;
}
