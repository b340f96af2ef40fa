/*
 * main() for every test binary: runs the one suite the binary was linked
 * with and reports "RESULT name passed failed" (counted per test case).
 */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/batch.h"
#include "proto/bytes.h"
#include "proto/crc32c.h"
#include "proto/ctrl.h"
#include "tests/harness.h"

static uint64_t rand_state = 0x9e3779b97f4a7c15ULL;

uint64_t
test_rand(void)
{
	uint64_t x = rand_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rand_state = x;
}

void
test_fill_random(void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len > 0) {
		uint64_t r = test_rand();
		size_t n = len < sizeof(r) ? len : sizeof(r);

		memcpy(p, &r, n);
		p += n;
		len -= n;
	}
}

char *
test_mkdtemp(const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	char *path;

	if (tmp == NULL || *tmp == '\0')
		tmp = "/tmp";
	if (asprintf(&path, "%s/flume-test-%s-XXXXXX", tmp, tag) == -1)
		abort();
	if (mkdtemp(path) == NULL) {
		perror("mkdtemp");
		abort();
	}
	return path;
}

static int
rmtree_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(path);
}

void
test_rmtree(const char *path)
{
	if (path != NULL)
		nftw(path, rmtree_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *
test_srcdir(const char *file, const char *rel)
{
	static char dir[1024];
	const char *env = getenv("FLUME_SRCDIR");
	size_t n = strlen(file), t = strlen(rel);

	if (env != NULL && *env != '\0')
		snprintf(dir, sizeof(dir), "%s", env);
	else if (n > t && strcmp(file + n - t, rel) == 0)
		snprintf(dir, sizeof(dir), "%.*s", (int)(n - t), file);
	else
		snprintf(dir, sizeof(dir), ".");
	return dir;
}

uint8_t *
test_slurp(const char *path, size_t *len)
{
	uint8_t *buf = NULL;
	FILE *f;
	long sz;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) > 0 &&
	    sz <= (1 << 20) && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)sz)) != NULL) {
		if (fread(buf, 1, (size_t)sz, f) == (size_t)sz)
			*len = (size_t)sz;
		else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

int
main(int argc, char **argv)
{
	const struct test_case *tc;
	CU_pSuite s;
	unsigned run, failed;
	const char *only = argc > 1 ? argv[1] : NULL;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite(test_suite.name, test_suite.setup, test_suite.teardown);
	if (s == NULL)
		return 2;
	for (tc = test_suite.cases; tc->name != NULL; tc++) {
		if (only != NULL && strcmp(only, tc->name) != 0)
			continue;
		if (CU_add_test(s, tc->name, tc->fn) == NULL)
			return 2;
	}
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	run = CU_get_number_of_tests_run();
	failed = CU_get_number_of_tests_failed();
	if (CU_get_number_of_suites_failed() > 0)
		failed += 1;
	printf("RESULT %s %u %u\n", test_suite.name,
	    run >= failed ? run - failed : 0, failed);
	CU_cleanup_registry();
	return failed == 0 ? 0 : 1;
}

static int test_saved_stderr = -1;

int
test_capture_begin(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd == -1)
		return -1;
	fflush(stderr);
	if ((test_saved_stderr = dup(STDERR_FILENO)) == -1 ||
	    dup2(fd, STDERR_FILENO) != STDERR_FILENO) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

long
test_capture_end(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (test_saved_stderr == -1 ||
	    dup2(test_saved_stderr, STDERR_FILENO) != STDERR_FILENO)
		return -1;
	close(test_saved_stderr);
	test_saved_stderr = -1;
	if ((fd = open(path, O_RDONLY)) == -1)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (long)n;
}

void
test_batch_set_transactional(uint8_t *b, size_t len)
{
	be16_put(b + BATCH_OFF_ATTRIBUTES, (uint16_t)(be16_get(b +
	    BATCH_OFF_ATTRIBUTES) | BATCH_ATTR_TRANSACTIONAL));
	be32_put(b + BATCH_OFF_CRC, crc32c(0, b + BATCH_CRC_START,
	    len - BATCH_CRC_START));
}
