/*
 * Logging for every process of the broker.  A line is
 *   2024-05-01T12:00:00.123 INFO [worker 1 4242] message
 * written to stderr with one write(2), so lines of the master, the workers
 * and the writer, which share the terminal, never interleave mid-line.
 * Daemonized, the same message goes to syslog(3) as "[role] message" (syslog
 * adds its own time and pid).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <bsd/string.h>

#include "common/log.h"

#define LOG_LINE_MAX	2048

static int	log_to_syslog;
static int	log_level = LOG_LVL_INFO;
static char	log_role[48] = "master";

static const char *const log_names[] = { "ERROR", "WARN", "INFO", "DEBUG" };
static const int log_prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };

void
log_init(int to_syslog, int level, const char *role)
{
	log_to_syslog = to_syslog;
	log_setlevel(level);
	log_setrole(role);
	if (to_syslog)
		openlog("flume-master", LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void
log_setrole(const char *role)
{
	strlcpy(log_role, role != NULL ? role : "master", sizeof(log_role));
}

void
log_setlevel(int level)
{
	if (level < LOG_LVL_ERROR)
		level = LOG_LVL_ERROR;
	if (level > LOG_LVL_DEBUG)
		level = LOG_LVL_DEBUG;
	log_level = level;
}

int
log_getlevel(void)
{
	return log_level;
}

int
log_level_parse(const char *s)
{
	int	i;

	for (i = LOG_LVL_ERROR; i <= LOG_LVL_DEBUG; i++)
		if (strcasecmp(s, log_names[i]) == 0)
			return i;
	if (strcasecmp(s, "warning") == 0)
		return LOG_LVL_WARN;
	return -1;
}

const char *
log_escape(char *out, size_t outlen, const void *p, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = p;
	char e[5];
	size_t i, o = 0, n;

	if (outlen == 0)
		return out;
	for (i = 0; i < len; i++) {
		n = 0;
		if (s[i] == '\\' || s[i] == '\n' || s[i] == '\r' ||
		    s[i] == '\t') {
			e[n++] = '\\';
			e[n++] = s[i] == '\n' ? 'n' : s[i] == '\r' ? 'r' :
			    s[i] == '\t' ? 't' : '\\';
		} else if (s[i] >= 0x20 && s[i] < 0x7f)
			e[n++] = (char)s[i];
		else {
			e[n++] = '\\';
			e[n++] = 'x';
			e[n++] = hex[s[i] >> 4];
			e[n++] = hex[s[i] & 0xf];
		}
		if (o + n >= outlen) {
			/* Cut short: "..." where it fits. */
			o = outlen > 4 ? (o < outlen - 4 ? o : outlen - 4) : 0;
			n = outlen - 1 - o < 3 ? outlen - 1 - o : 3;
			memcpy(out + o, "...", n);
			out[o + n] = '\0';
			return out;
		}
		memcpy(out + o, e, n);
		o += n;
	}
	out[o] = '\0';
	return out;
}

/*
 * Format and emit one line at level; errnum >= 0 appends ": strerror".
 * Never changes errno, so callers may log and then return -1.
 */
static void
log_vemit(int level, int errnum, const char *fmt, va_list ap)
{
	char		 msg[LOG_LINE_MAX];
	char		 line[LOG_LINE_MAX + 128];
	char		*p;
	struct timespec	 ts;
	struct tm	 tm;
	size_t		 len;
	int		 n, saved = errno;
	ssize_t		 w;

	if (level > log_level)
		return;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n < 0)
		strlcpy(msg, "(log format error)", sizeof(msg));
	if (errnum >= 0) {
		len = strlen(msg);
		snprintf(msg + len, sizeof(msg) - len, ": %s", strerror(errnum));
	}
	/* One call, one line, whatever a caller forgot to log_escape(). */
	for (p = msg; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	if (log_to_syslog) {
		syslog(log_prio[level], "[%s] %s", log_role, msg);
		errno = saved;
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	len = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
	n = snprintf(line + len, sizeof(line) - len, ".%03ld %s [%s %ld] %s\n",
	    ts.tv_nsec / 1000000, log_names[level], log_role, (long)getpid(), msg);
	if (n < 0)
		n = 0;
	len += (size_t)n;
	if (len >= sizeof(line)) {
		/* Truncated: keep the newline so the next line starts clean. */
		len = sizeof(line) - 1;
		line[len - 1] = '\n';
	}
	do
		w = write(STDERR_FILENO, line, len);
	while (w < 0 && errno == EINTR);
	errno = saved;
}

void
log_warn(const char *fmt, ...)
{
	va_list	ap;
	int	e = errno;

	va_start(ap, fmt);
	log_vemit(LOG_LVL_WARN, e, fmt, ap);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vemit(LOG_LVL_WARN, -1, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vemit(LOG_LVL_INFO, -1, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vemit(LOG_LVL_DEBUG, -1, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list	ap;
	int	e = errno;

	va_start(ap, fmt);
	log_vemit(LOG_LVL_ERROR, e, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vemit(LOG_LVL_ERROR, -1, fmt, ap);
	va_end(ap);
	exit(1);
}
