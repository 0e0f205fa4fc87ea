/* tests/unit/test_common.c: error records, buffers, allocation failure
 * injection and atomic writes. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cp.h"
#include "check.h"

static void test_error_format(void)
{
	struct cp_error err;
	char line[2048];

	cp_error_clear(&err);
	CHECK(cp_error_at(&err, CP_EINPUT, "data.csv", 12, 0,
			  "running_ns (%d) exceeds enabled_ns (%d)", 12, 10) == CP_EINPUT);
	cp_error_format(&err, line, sizeof line);
	CHECK_STR(line, "data.csv:12: running_ns (12) exceeds enabled_ns (10)");
	cp_error_at(&err, CP_ESEMANTIC, "m.udd", 3, 9, "unknown counter 'x'");
	cp_error_format(&err, line, sizeof line);
	CHECK_STR(line, "m.udd:3:9: unknown counter 'x'");
	cp_error_set(&err, CP_ENOMEM, "out of memory");
	cp_error_format(&err, line, sizeof line);
	CHECK_STR(line, "out of memory");
	CHECK(cp_error_set(NULL, CP_EIO, "ignored") == CP_EIO);
	CHECK_STR(cp_code_str(CP_ELIMIT), "limit reached");
}

static void test_buf(void)
{
	struct cp_buf b;
	int i;

	cp_buf_init(&b);
	for (i = 0; i < 1000; i++)
		cp_buf_printf(&b, "%d,", i);
	CHECK(!b.failed);
	CHECK(b.len == 3890);
	CHECK(!strncmp(b.data, "0,1,2,", 6));
	cp_buf_release(&b);
	cp_buf_init(&b);
	cp_alloc_fail_at(1);
	cp_buf_puts(&b, "x");
	CHECK(b.failed);
	cp_buf_puts(&b, "y");
	CHECK(b.len == 0);
	cp_buf_release(&b);
	cp_alloc_fail_at(0);
}

static void test_alloc_fail(void)
{
	void *p;

	cp_alloc_fail_at(2);
	p = cp_malloc(8);
	CHECK(p != NULL);
	cp_free(p);
	CHECK(cp_malloc(8) == NULL);
	p = cp_malloc(8);
	CHECK(p != NULL);
	cp_free(p);
	CHECK(cp_reallocarray(NULL, SIZE_MAX / 2, 4) == NULL);
}

static void test_atomic_write(void)
{
	char dir[] = "/tmp/cp-test-XXXXXX";
	char path[128], got[64];
	struct cp_error err;
	FILE *f;
	size_t n;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/out.txt", dir);
	cp_error_clear(&err);
	CHECK(cp_write_file_atomic(path, "hello\n", 6, &err) == CP_OK);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (f) {
		n = fread(got, 1, sizeof got - 1, f);
		got[n] = '\0';
		fclose(f);
		CHECK_STR(got, "hello\n");
	}
	unlink(path);
	/* a missing directory fails cleanly and leaves nothing behind */
	snprintf(path, sizeof path, "%s/no/such/out.txt", dir);
	CHECK(cp_write_file_atomic(path, "x", 1, &err) == CP_EIO);
	CHECK(strstr(err.msg, "cannot create") != NULL);
	rmdir(dir);
}

static void test_gcd(void)
{
	CHECK(cp_gcd64(12, -18) == 6);
	CHECK(cp_gcd64(0, 0) == 0);
	CHECK(cp_gcd64(0, -7) == 7);
	CHECK(cp_gcd64(INT64_MAX, 1) == 1);
}

static void test_json_string(void)
{
	struct cp_buf b;

	cp_buf_init(&b);
	cp_buf_json_string(&b, "a\"b\\c\n\x01");
	CHECK_STR(b.data, "\"a\\\"b\\\\c\\n\\u0001\"");
	b.len = 0;
	/* valid UTF-8 passes; a lone byte 0xe9 (Latin-1) and an overlong
	 * encoding are escaped, so the output is valid UTF-8 */
	cp_buf_json_string(&b, "\xce\xbcop caf\xe9 \xc0\xaf");
	CHECK_STR(b.data, "\"\xce\xbcop caf\\u00e9 \\u00c0\\u00af\"");
	cp_buf_release(&b);
}

int main(void)
{
	check_prog = "common";
	RUN(test_json_string);
	RUN(test_error_format);
	RUN(test_buf);
	RUN(test_alloc_fail);
	RUN(test_atomic_write);
	RUN(test_gcd);
	return check_summary();
}
