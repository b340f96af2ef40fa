/*
 * Logging for the daemon (master, workers, writer): one line per event,
 * "LEVEL [role pid] message", to stderr in the foreground or syslog when
 * daemonized.  Before logging is set up, use err(3)/errx(3).
 */
#ifndef FLUME_COMMON_LOG_H
#define FLUME_COMMON_LOG_H

#include <stdarg.h>
#include <stddef.h>

enum log_level { LOG_LVL_ERROR = 0, LOG_LVL_WARN = 1, LOG_LVL_INFO = 2, LOG_LVL_DEBUG = 3 };

void	log_init(int to_syslog, int level, const char *role);
void	log_setrole(const char *role);		/* "worker 1", "writer" */
void	log_setlevel(int level);
int	log_getlevel(void);
int	log_level_parse(const char *s);	/* "error".."debug" or -1 */
void	log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));	/* appends strerror(errno) */
void	log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * Bytes a client sent (a name, a mechanism, an id), made safe for one
 * log line: printable ASCII is kept, a backslash doubles, \n \r \t
 * stay readable as such and every other byte becomes \xNN, so no client
 * can start a line or forge one.  At most len bytes of p; out is always
 * NUL-terminated and, when too small, ends in "..." instead.  Returns
 * out, to be passed to a log_ call's "%s".  LOG_ESC_SIZE(n) holds n
 * bytes escaped whole.
 */
#define LOG_ESC_SIZE(n)	(4 * (size_t)(n) + 1)
const char *log_escape(char *out, size_t outlen, const void *p, size_t len);

#endif
