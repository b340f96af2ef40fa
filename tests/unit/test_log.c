/*
 * Daemon logging: the exact line format on stderr, the level filter,
 * strerror for log_warn, errno left alone, long lines cut with their
 * newline kept, fatal/fatalx exiting 1 after logging, client bytes
 * escaped by log_escape, and a control character that reaches a line
 * anyway never starts another.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "tests/harness.h"

static char	*tmpdir;
static char	 lpath[4096];
static char	 out[16384];

static int
setup(void)
{
	tmpdir = test_mkdtemp("log");
	snprintf(lpath, sizeof(lpath), "%s/stderr", tmpdir);
	return 0;
}

static int
teardown(void)
{
	test_rmtree(tmpdir);
	free(tmpdir);
	return 0;
}

/* Send stderr to a fresh file until capture_end(). */
static void
capture_begin(void)
{
	CU_ASSERT_FATAL(test_capture_begin(lpath) == 0);
}

/* Restore stderr and read what was written into out; returns its length. */
static size_t
capture_end(void)
{
	long	n = test_capture_end(lpath, out, sizeof(out));

	CU_ASSERT_FATAL(n >= 0);
	return (size_t)n;
}

/* Does the whole of line match "<timestamp> <rest>" exactly? */
static int
line_is(const char *line, size_t len, const char *rest)
{
	regex_t	re;
	char	pat[1024], buf[4096];
	int	ok;

	snprintf(pat, sizeof(pat), "^[0-9]{4}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:"
	    "[0-5][0-9]:[0-6][0-9]\\.[0-9]{3} %s$", rest);
	if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) != 0)
		return 0;
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	ok = regexec(&re, buf, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

/* Split out into lines; returns the count (at most max). */
static int
split_lines(char **lines, size_t *lens, int max)
{
	char	*p = out, *nl;
	int	 n = 0;

	while (n < max && (nl = strchr(p, '\n')) != NULL) {
		lines[n] = p;
		lens[n] = (size_t)(nl - p);
		n++;
		p = nl + 1;
	}
	CU_ASSERT_EQUAL(*p, '\0');	/* every line ends with a newline */
	return n;
}

static void
test_format_and_levels(void)
{
	char	*lines[8], rest[256];
	size_t	 lens[8];
	long	 pid = (long)getpid();
	int	 n;

	capture_begin();
	log_init(0, LOG_LVL_INFO, "worker 3");
	log_info("hello %d", 42);
	log_debug("not shown %d", 1);
	log_warnx("careful");
	errno = ENOENT;
	log_warn("open %s", "x.log");
	CU_ASSERT_EQUAL(errno, ENOENT);		/* logging keeps errno */
	log_setlevel(LOG_LVL_DEBUG);
	CU_ASSERT_EQUAL(log_getlevel(), LOG_LVL_DEBUG);
	log_debug("shown %d", 2);
	log_setrole("writer");
	log_setlevel(LOG_LVL_ERROR);
	log_warnx("filtered");
	log_info("filtered");
	log_setlevel(LOG_LVL_INFO);
	log_setrole("master");
	capture_end();

	n = split_lines(lines, lens, 8);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	snprintf(rest, sizeof(rest), "INFO \\[worker 3 %ld\\] hello 42", pid);
	CU_ASSERT(line_is(lines[0], lens[0], rest));
	snprintf(rest, sizeof(rest), "WARN \\[worker 3 %ld\\] careful", pid);
	CU_ASSERT(line_is(lines[1], lens[1], rest));
	snprintf(rest, sizeof(rest), "WARN \\[worker 3 %ld\\] open x\\.log: "
	    "No such file or directory", pid);
	CU_ASSERT(line_is(lines[2], lens[2], rest));
	snprintf(rest, sizeof(rest), "DEBUG \\[worker 3 %ld\\] shown 2", pid);
	CU_ASSERT(line_is(lines[3], lens[3], rest));
}

static void
test_level_parse(void)
{
	CU_ASSERT_EQUAL(log_level_parse("error"), LOG_LVL_ERROR);
	CU_ASSERT_EQUAL(log_level_parse("warn"), LOG_LVL_WARN);
	CU_ASSERT_EQUAL(log_level_parse("warning"), LOG_LVL_WARN);
	CU_ASSERT_EQUAL(log_level_parse("INFO"), LOG_LVL_INFO);
	CU_ASSERT_EQUAL(log_level_parse("debug"), LOG_LVL_DEBUG);
	CU_ASSERT_EQUAL(log_level_parse("trace"), -1);
	CU_ASSERT_EQUAL(log_level_parse(""), -1);
	/* Out-of-range levels are clamped, not stored as is. */
	log_setlevel(99);
	CU_ASSERT_EQUAL(log_getlevel(), LOG_LVL_DEBUG);
	log_setlevel(-5);
	CU_ASSERT_EQUAL(log_getlevel(), LOG_LVL_ERROR);
	log_setlevel(LOG_LVL_INFO);
}

/* A message longer than a line is cut, and the line still ends in '\n'. */
static void
test_long_line(void)
{
	char	*big;
	size_t	 len;

	big = malloc(10000);
	CU_ASSERT_FATAL(big != NULL);
	memset(big, 'a', 9999);
	big[9999] = '\0';
	capture_begin();
	log_init(0, LOG_LVL_INFO, "master");
	log_info("%s", big);
	log_info("after");
	len = capture_end();
	free(big);
	CU_ASSERT(len > 2048 && len < 4000);
	CU_ASSERT_PTR_NOT_NULL(strchr(out, '\n'));
	CU_ASSERT_EQUAL(strchr(out, '\n')[1] != '\0', 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(strchr(out, '\n') + 1, "] after\n"));
	CU_ASSERT_EQUAL(out[len - 1], '\n');
}

/* fatal/fatalx log at ERROR level and exit 1; run in a child. */
static void
test_fatal_exits_1(void)
{
	char	*lines[4], rest[256];
	size_t	 lens[4];
	pid_t	 pid;
	int	 status, n;

	capture_begin();
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		log_init(0, LOG_LVL_INFO, "worker 0");
		errno = EACCES;
		fatal("bind %s", "x");
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		log_init(0, LOG_LVL_ERROR, "writer");
		fatalx("giving up after %d tries", 3);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	capture_end();

	n = split_lines(lines, lens, 4);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	snprintf(rest, sizeof(rest),
	    "ERROR \\[worker 0 [0-9]+\\] bind x: Permission denied");
	CU_ASSERT(line_is(lines[0], lens[0], rest));
	snprintf(rest, sizeof(rest),
	    "ERROR \\[writer [0-9]+\\] giving up after 3 tries");
	CU_ASSERT(line_is(lines[1], lens[1], rest));
}

static void
test_escape(void)
{
	static const char raw[] = "ok \\ \n\r\t\x01\x7f\xff\"";
	char buf[LOG_ESC_SIZE(sizeof(raw))], small[8];

	CU_ASSERT_STRING_EQUAL(log_escape(buf, sizeof(buf), raw,
	    sizeof(raw) - 1), "ok \\\\ \\n\\r\\t\\x01\\x7f\\xff\"");
	CU_ASSERT_STRING_EQUAL(log_escape(buf, sizeof(buf), "", 0), "");
	/* Only len bytes; a NUL inside is a byte like any other. */
	CU_ASSERT_STRING_EQUAL(log_escape(buf, sizeof(buf), "a\0b", 3),
	    "a\\x00b");
	CU_ASSERT_STRING_EQUAL(log_escape(buf, sizeof(buf), "abcdef", 2), "ab");
	/* Too long for out: cut, ending in "...", still NUL-terminated. */
	CU_ASSERT_STRING_EQUAL(log_escape(small, sizeof(small), "abcdefghij",
	    10), "abcd...");
	CU_ASSERT_STRING_EQUAL(log_escape(small, sizeof(small), "\n\n\n\n",
	    4), "\\n\\n...");
	CU_ASSERT_STRING_EQUAL(log_escape(small, 3, "abcdef", 6), "..");
	CU_ASSERT_STRING_EQUAL(log_escape(small, 1, "abcdef", 6), "");
	CU_ASSERT_STRING_EQUAL(log_escape(small, sizeof(small), "abcdefg", 7),
	    "abcdefg");
}

/* A newline that reaches the format anyway does not start a line. */
static void
test_one_line_per_call(void)
{
	char	*lines[4], rest[256];
	size_t	 lens[4];
	int	 n;

	capture_begin();
	log_init(0, LOG_LVL_INFO, "worker 1");
	log_warnx("mechanism %s is not offered", "X\n2026-01-01T00:00:00.000 "
	    "INFO [master 1] forged\r");
	capture_end();
	n = split_lines(lines, lens, 4);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	snprintf(rest, sizeof(rest), "WARN \\[worker 1 %ld\\] mechanism "
	    "X\\?2026-01-01T00:00:00\\.000 INFO \\[master 1\\] forged\\? "
	    "is not offered", (long)getpid());
	CU_ASSERT(line_is(lines[0], lens[0], rest));
}

TEST_SUITE("log", setup, teardown,
	{ "log_escape", test_escape },
	{ "one line per call", test_one_line_per_call },
	{ "format and levels", test_format_and_levels },
	{ "level names", test_level_parse },
	{ "long line", test_long_line },
	{ "fatal exits 1", test_fatal_exits_1 });
