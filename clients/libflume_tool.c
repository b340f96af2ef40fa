/*
 * Helpers of the flume-* tools: argument parsing, key splitting, the
 * consumer's output format and the uptime format.  See flume_tool.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
