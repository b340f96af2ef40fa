/*
 * Logging for the daemon (master, workers, writer): one line per event,
 * "LEVEL [role pid] message", to stderr in the foreground or syslog when
 * daemonized.  Before logging is set up, use err(3)/errx(3).
 */
#ifndef FLUME_COMMON_LOG_H
#define FLUME_COMMON_LOG_H

#include <stdarg.h>

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

#endif
