/*
 * Helpers shared by the flume-* tools (in libflume.a, not installed):
 * argument parsing, the -K key splitting of flume-produce, the -f format
 * of flume-consume and the uptime format of flume-admin.  Pure functions,
 * so tests/unit/test_client.c checks them exactly.
 */
#ifndef FLUME_CLIENTS_FLUME_TOOL_H
#define FLUME_CLIENTS_FLUME_TOOL_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "clients/flume.h"

/*
 * getopt_long() value of --secret-file.  flume_tool_longopts lists it and
 * --help ('h') and --version ('V'), which every tool answers.
 */
#define FLUME_TOOL_OPT_SECRET	0x100
/* --tls, --ca-file, --cert, --key: see flume_tool_tls_opt(). */
#define FLUME_TOOL_OPT_TLS	0x101
#define FLUME_TOOL_OPT_CA	0x102
#define FLUME_TOOL_OPT_CERT	0x103
#define FLUME_TOOL_OPT_KEY	0x104
extern const struct option flume_tool_longopts[];
/*
 * Take a TLS option (getopt_long value ch, its argument arg) for the next
 * flume_tool_connect(): 1 if ch was one, else 0.  Without --tls,
 * FLUME_TLS=1 (or yes) turns TLS on; FLUME_CA_FILE, FLUME_CERT_FILE and
 * FLUME_KEY_FILE stand for the files not given; a CA, certificate or key
 * file given implies --tls.
 */
int	flume_tool_tls_opt(int ch, const char *arg);
/* The usage lines of the TLS options, for the tools' --help. */
extern const char flume_tool_tls_usage[];
/* Print "prog VERSION" on stdout (-V, --version). */
void	flume_tool_version(const char *prog);
/* The secret file: opt (--secret-file) if given, else $FLUME_SECRET_FILE, else NULL. */
const char *flume_tool_secret_file(const char *opt);
/*
 * flume_connect_conf() to broker, authenticating with
 * flume_tool_secret_file(secret_opt) when there is one.
 */
struct flume_client *flume_tool_connect(const char *broker, const char *secret_opt);

/* The broker address: opt (-b) if given, else $FLUME_BROKER, else the default. */
const char *flume_tool_broker(const char *opt);

/* "0", "1", "all" or "-1" into 0, 1, -1; 0 or -1 (EINVAL). */
int	flume_tool_parse_acks(const char *s, int *acks);
/* "beginning", "end" or a non-negative offset; 0 or -1 (EINVAL). */
int	flume_tool_parse_offset(const char *s, int64_t *offset);
/*
 * A point in time into ms since the epoch: "@1764597600000" (epoch ms),
 * "@2026-12-01T14:00:00Z" or with a zone offset ("+01:00", "-0500") and
 * optional fractions of a second, or relative to now_ms: "-30s", "-15m",
 * "-1h", "-2d" (also "ms").  0, or -1 (EINVAL) for anything else.
 */
int	flume_tool_parse_time(const char *s, int64_t now_ms, int64_t *ts);
/* A decimal integer in [min, max] with nothing after it; 0 or -1 (EINVAL). */
int	flume_tool_parse_long(const char *s, long long min, long long max,
	    long long *out);

/*
 * Split line[0..len) at the first occurrence of delim (not empty): 1 with
 * key and value set, 0 when delim does not occur (then the whole line is
 * the value and *key is NULL, *key_len -1).
 */
int	flume_tool_split_key(const char *line, size_t len, const char *delim,
	    const char **key, int32_t *key_len, const char **value,
	    int32_t *value_len);

/* A growable output buffer. */
struct flume_tool_buf {
	char		*p;
	size_t		 len, cap;
};

void	flume_tool_buf_free(struct flume_tool_buf *b);
int	flume_tool_buf_add(struct flume_tool_buf *b, const void *p, size_t n);

/*
 * Check a -f format: %t %p %o %k %v %T %% and the escapes \n \t \\ (any
 * other backslash pair is kept as it is).  0, or -1 with a reason in err.
 */
int	flume_tool_format_check(const char *fmt, char *err, size_t errlen);
/* Append m rendered by fmt (checked) to b; 0 or -1 (ENOMEM). */
int	flume_tool_format(struct flume_tool_buf *b, const char *fmt,
	    const struct flume_message *m);

/* 42s, 5m03s, 1h02m03s, 2d03h04m05s. */
void	flume_tool_uptime(char *buf, size_t len, int64_t ms);

#endif
