/*
 * Helpers of the flume-* tools: argument parsing, key splitting, the
 * consumer's output format and the uptime format.  See flume_tool.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clients/flume_tool.h"
#include "proto/version.h"

const char *
flume_tool_broker(const char *opt)
{
	const char *env;

	if (opt != NULL && *opt != '\0')
		return opt;
	if ((env = getenv("FLUME_BROKER")) != NULL && *env != '\0')
		return env;
	return FLUME_DEFAULT_BROKER;
}

int
flume_tool_parse_long(const char *s, long long min, long long max,
    long long *out)
{
	char *end;
	long long v;

	if (s == NULL || *s == '\0') {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max) {
		errno = EINVAL;
		return -1;
	}
	*out = v;
	return 0;
}

int
flume_tool_parse_acks(const char *s, int *acks)
{
	if (strcmp(s, "0") == 0)
		*acks = 0;
	else if (strcmp(s, "1") == 0)
		*acks = 1;
	else if (strcmp(s, "all") == 0 || strcmp(s, "-1") == 0)
		*acks = -1;
	else {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
flume_tool_parse_offset(const char *s, int64_t *offset)
{
	long long v;

	if (strcmp(s, "beginning") == 0)
		*offset = FLUME_OFFSET_BEGINNING;
	else if (strcmp(s, "end") == 0)
		*offset = FLUME_OFFSET_END;
	else if (flume_tool_parse_long(s, 0, INT64_MAX, &v) == 0)
		*offset = v;
	else
		return -1;
	return 0;
}

/* n decimal digits at *p into *v, advancing *p; 0 or -1. */
static int
digits(const char **p, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return -1;
		*v = *v * 10 + (**p - '0');
	}
	return 0;
}

/* ISO 8601 date and time with a zone into ms since the epoch; 0 or -1. */
static int
parse_iso8601(const char *s, int64_t *ts)
{
	struct tm tm;
	const char *p = s;
	int y, mo, d, h, mi, sec = 0, zh = 0, zm = 0, ms = 0, sign = 0, n;
	time_t t;

	if (digits(&p, 4, &y) == -1 || *p++ != '-' ||
	    digits(&p, 2, &mo) == -1 || *p++ != '-' ||
	    digits(&p, 2, &d) == -1 || (*p != 'T' && *p != 't') ||
	    (p++, digits(&p, 2, &h)) == -1 || *p++ != ':' ||
	    digits(&p, 2, &mi) == -1)
		return -1;
	if (*p == ':') {
		p++;
		if (digits(&p, 2, &sec) == -1)
			return -1;
		if (*p == '.' || *p == ',') {
			/* Milliseconds: the first three digits count. */
			for (p++, n = 0; *p >= '0' && *p <= '9'; p++, n++)
				if (n < 3)
					ms = ms * 10 + (*p - '0');
			if (n == 0)
				return -1;
			for (; n < 3; n++)
				ms *= 10;
		}
	}
	if (*p == 'Z' || *p == 'z')
		p++;
	else if (*p == '+' || *p == '-') {
		sign = *p++ == '-' ? -1 : 1;
		if (digits(&p, 2, &zh) == -1)
			return -1;
		if (*p == ':')
			p++;
		if (digits(&p, 2, &zm) == -1)
			return -1;
	} else
		return -1;	/* a zone is required: whose 14:00? */
	if (*p != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 60 || zh > 23 || zm > 59)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	if ((t = timegm(&tm)) == (time_t)-1 || tm.tm_mday != d)
		return -1;	/* also 2026-02-30, which timegm moves on */
	t -= (time_t)sign * (zh * 3600 + zm * 60);
	if (t < 0)
		return -1;
	*ts = (int64_t)t * 1000 + ms;
	return 0;
}

int
flume_tool_parse_time(const char *s, int64_t now_ms, int64_t *ts)
{
	static const struct { const char *unit; int64_t ms; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
		{ "d", 86400000 },
	};
	const char *p;
	long long v;
	size_t i;
	char *end;

	errno = 0;
	if (s[0] == '@') {
		if (strchr(s, '-') == NULL && strchr(s, 'T') == NULL)
			return flume_tool_parse_long(s + 1, 0, INT64_MAX, &v) ==
			    -1 ? -1 : (*ts = v, 0);
		if (parse_iso8601(s + 1, ts) == 0)
			return 0;
		errno = EINVAL;
		return -1;
	}
	if (s[0] == '-' && s[1] >= '0' && s[1] <= '9') {
		v = strtoll(s + 1, &end, 10);
		p = end;
		for (i = 0; errno == 0 && i < sizeof(units) / sizeof(units[0]);
		    i++) {
			if (strcmp(p, units[i].unit) != 0)
				continue;
			if (v > now_ms / units[i].ms)
				break;		/* before the epoch */
			*ts = now_ms - (int64_t)v * units[i].ms;
			return 0;
		}
	}
	errno = EINVAL;
	return -1;
}

int
flume_tool_split_key(const char *line, size_t len, const char *delim,
    const char **key, int32_t *key_len, const char **value, int32_t *value_len)
{
	const char *hit;
	size_t dl = strlen(delim);

	hit = dl > 0 ? memmem(line, len, delim, dl) : NULL;
	if (hit == NULL) {
		*key = NULL;
		*key_len = -1;
		*value = line;
		*value_len = (int32_t)len;
		return 0;
	}
	*key = line;
	*key_len = (int32_t)(hit - line);
	*value = hit + dl;
	*value_len = (int32_t)(len - (size_t)(hit - line) - dl);
	return 1;
}

void
flume_tool_buf_free(struct flume_tool_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

int
flume_tool_buf_add(struct flume_tool_buf *b, const void *p, size_t n)
{
	char *np;
	size_t ncap;

	if (n > b->cap - b->len) {
		ncap = b->cap ? b->cap : 256;
		while (ncap - b->len < n) {
			if (ncap > SIZE_MAX / 2) {
				errno = ENOMEM;
				return -1;
			}
			ncap *= 2;
		}
		if ((np = realloc(b->p, ncap)) == NULL)
			return -1;
		b->p = np;
		b->cap = ncap;
	}
	if (n > 0)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

int
flume_tool_format_check(const char *fmt, char *err, size_t errlen)
{
	const char *s;

	for (s = fmt; *s != '\0'; s++) {
		if (*s == '\\' && s[1] != '\0') {
			s++;
			continue;
		}
		if (*s != '%')
			continue;
		if (s[1] == '\0') {
			snprintf(err, errlen, "format ends with a lone %%");
			return -1;
		}
		if (strchr("tpokvT%", s[1]) == NULL) {
			snprintf(err, errlen, "unknown format directive %%%c "
			    "(use %%t %%p %%o %%k %%v %%T or %%%%)", s[1]);
			return -1;
		}
		s++;
	}
	return 0;
}

/* Append a decimal number. */
static int
tool_add_num(struct flume_tool_buf *b, long long v)
{
	char num[24];
	int n;

	n = snprintf(num, sizeof(num), "%lld", v);
	return flume_tool_buf_add(b, num, (size_t)n);
}

int
flume_tool_format(struct flume_tool_buf *b, const char *fmt,
    const struct flume_message *m)
{
	const char *s, *lit;
	int rc = 0;

	for (s = fmt; *s != '\0' && rc == 0; s++) {
		/* Copy a literal run in one go. */
		for (lit = s; *s != '\0' && *s != '%' && *s != '\\'; s++)
			;
		if (s > lit && flume_tool_buf_add(b, lit, (size_t)(s - lit)) == -1)
			return -1;
		if (*s == '\0')
			break;
		if (*s == '\\') {
			switch (s[1]) {
			case 'n':
				rc = flume_tool_buf_add(b, "\n", 1);
				break;
			case 't':
				rc = flume_tool_buf_add(b, "\t", 1);
				break;
			case '\\':
				rc = flume_tool_buf_add(b, "\\", 1);
				break;
			case '\0':
				rc = flume_tool_buf_add(b, "\\", 1);
				continue;	/* s[1] is the end */
			default:
				rc = flume_tool_buf_add(b, s, 2);
				break;
			}
			s++;
			continue;
		}
		switch (s[1]) {
		case 't':
			rc = flume_tool_buf_add(b, m->topic, strlen(m->topic));
			break;
		case 'p':
			rc = tool_add_num(b, m->partition);
			break;
		case 'o':
			rc = tool_add_num(b, m->offset);
			break;
		case 'T':
			rc = tool_add_num(b, m->timestamp);
			break;
		case 'k':
			if (m->key_len > 0)
				rc = flume_tool_buf_add(b, m->key, (size_t)m->key_len);
			break;
		case 'v':
			if (m->value_len > 0)
				rc = flume_tool_buf_add(b, m->value,
				    (size_t)m->value_len);
			break;
		case '%':
			rc = flume_tool_buf_add(b, "%", 1);
			break;
		case '\0':
			rc = flume_tool_buf_add(b, "%", 1);
			continue;
		default:
			rc = flume_tool_buf_add(b, s, 2);
			break;
		}
		s++;
	}
	return rc;
}

void
flume_tool_uptime(char *buf, size_t len, int64_t ms)
{
	int64_t t = ms < 0 ? 0 : ms / 1000;
	int64_t d = t / 86400, h = t / 3600 % 24, m = t / 60 % 60, s = t % 60;

	if (d > 0)
		snprintf(buf, len, "%" PRId64 "d%02" PRId64 "h%02" PRId64 "m%02"
		    PRId64 "s", d, h, m, s);
	else if (h > 0)
		snprintf(buf, len, "%" PRId64 "h%02" PRId64 "m%02" PRId64 "s",
		    h, m, s);
	else if (m > 0)
		snprintf(buf, len, "%" PRId64 "m%02" PRId64 "s", m, s);
	else
		snprintf(buf, len, "%" PRId64 "s", s);
}

/* ---- connecting, for every tool ---- */

const struct option flume_tool_longopts[] = {
	{ "secret-file", required_argument, NULL, FLUME_TOOL_OPT_SECRET },
	{ "tls", no_argument, NULL, FLUME_TOOL_OPT_TLS },
	{ "ca-file", required_argument, NULL, FLUME_TOOL_OPT_CA },
	{ "cert", required_argument, NULL, FLUME_TOOL_OPT_CERT },
	{ "key", required_argument, NULL, FLUME_TOOL_OPT_KEY },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

const char *
flume_tool_secret_file(const char *opt)
{
	const char *env;

	if (opt != NULL && *opt != '\0')
		return opt;
	if ((env = getenv("FLUME_SECRET_FILE")) != NULL && *env != '\0')
		return env;
	return NULL;
}

const char flume_tool_tls_usage[] =
    "  --tls                TLS to the broker's listen_tls (env FLUME_TLS=1)\n"
    "  --ca-file file       trust the CAs in file (FLUME_CA_FILE; default: "
    "the system's)\n"
    "  --cert file --key file  client certificate for mutual TLS "
    "(FLUME_CERT_FILE,\n"
    "                       FLUME_KEY_FILE)\n";

/* The TLS options seen so far; the environment fills the rest. */
static struct {
	int		 on;
	const char	*ca, *cert, *key;
} tool_tls;

int
flume_tool_tls_opt(int ch, const char *arg)
{
	switch (ch) {
	case FLUME_TOOL_OPT_TLS:
		tool_tls.on = 1;
		return 1;
	case FLUME_TOOL_OPT_CA:
		tool_tls.ca = arg;
		tool_tls.on = 1;
		return 1;
	case FLUME_TOOL_OPT_CERT:
		tool_tls.cert = arg;
		tool_tls.on = 1;
		return 1;
	case FLUME_TOOL_OPT_KEY:
		tool_tls.key = arg;
		tool_tls.on = 1;
		return 1;
	}
	return 0;
}

static const char *
tool_env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

struct flume_client *
flume_tool_connect(const char *broker, const char *secret_opt)
{
	struct flume_client_conf conf;
	struct flume_tls_conf tls;
	const char *on = tool_env("FLUME_TLS");

	flume_client_conf_init(&conf);
	conf.secret_file = flume_tool_secret_file(secret_opt);
	if (!tool_tls.on && (on == NULL || (strcmp(on, "1") != 0 &&
	    strcmp(on, "yes") != 0)))
		return flume_connect_conf(broker, &conf);
	flume_tls_conf_init(&tls);
	tls.ca_file = tool_tls.ca != NULL ? tool_tls.ca : tool_env("FLUME_CA_FILE");
	tls.cert_file = tool_tls.cert != NULL ? tool_tls.cert :
	    tool_env("FLUME_CERT_FILE");
	tls.key_file = tool_tls.key != NULL ? tool_tls.key :
	    tool_env("FLUME_KEY_FILE");
	return flume_connect_tls(broker, &conf, &tls);
}

void
flume_tool_version(const char *prog)
{
	printf("%s %s\n", prog, FLUME_VERSION);
}
