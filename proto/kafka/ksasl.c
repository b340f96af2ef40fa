/*
 * The SCRAM and PLAIN messages inside Kafka's SASL exchange
 * (proto/kafka/ksasl.h).
 * Every read is checked against the given length; nothing is allocated.
 */
#include <string.h>

#include "proto/kafka/ksasl.h"

/* The next ','-separated attribute of [*pos, len): "k=value". */
static int
ksasl_attr(const char *p, size_t len, size_t *pos, char *key,
    const char **val, size_t *vlen)
{
	const char *end;
	size_t start = *pos;

	if (start + 2 > len || p[start + 1] != '=')
		return -1;
	*key = p[start];
	end = memchr(p + start + 2, ',', len - start - 2);
	*val = p + start + 2;
	*vlen = end != NULL ? (size_t)(end - *val) : len - start - 2;
	*pos = start + 2 + *vlen + (end != NULL ? 1 : 0);
	if (end != NULL && *pos == len)
		return -1;	/* a trailing comma */
	return 0;
}

/* Printable ASCII but ',' (RFC 5802's "printable" for nonces). */
static int
ksasl_printable(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] < 0x21 || p[i] > 0x7e || p[i] == ',')
			return 0;
	return 1;
}

int
ksasl_scram_first_parse(const char *p, size_t len, struct ksasl_scram_first *f)
{
	const char *v;
	size_t pos, vlen, i, n;
	char k;

	memset(f, 0, sizeof(*f));
	/*
	 * gs2 header: "n,," or "y,," (no channel binding) and no authzid:
	 * acting as another user is not offered.
	 */
	if (len < 3 || (p[0] != 'n' && p[0] != 'y') || p[1] != ',' ||
	    p[2] != ',')
		return -1;
	pos = 3;
	f->bare = p + pos;
	f->bare_len = len - pos;
	if (ksasl_attr(p, len, &pos, &k, &v, &vlen) == -1 || k != 'n' ||
	    vlen == 0)
		return -1;
	for (i = 0, n = 0; i < vlen; i++) {
		if (n >= KSASL_USER_MAX)
			return -1;
		if (v[i] == '=') {
			if (vlen - i < 3)
				return -1;
			if (v[i + 1] == '2' && v[i + 2] == 'C')
				f->user[n++] = ',';
			else if (v[i + 1] == '3' && v[i + 2] == 'D')
				f->user[n++] = '=';
			else
				return -1;
			i += 2;
		} else if (v[i] == '\0')
			return -1;
		else
			f->user[n++] = v[i];
	}
	f->user[n] = '\0';
	f->user_len = n;
	if (ksasl_attr(p, len, &pos, &k, &v, &vlen) == -1 || k != 'r' ||
	    vlen == 0 || vlen > KSASL_NONCE_MAX || !ksasl_printable(v, vlen))
		return -1;
	f->nonce = v;
	f->nonce_len = vlen;
	/* Extensions (Kafka's "tokenauth=true") may follow; they are ignored. */
	return 0;
}

int
ksasl_scram_final_parse(const char *p, size_t len, struct ksasl_scram_final *f)
{
	const char *v;
	size_t pos = 0, start, vlen;
	char k;

	memset(f, 0, sizeof(*f));
	if (ksasl_attr(p, len, &pos, &k, &v, &vlen) == -1 || k != 'c')
		return -1;
	f->cbind = v;
	f->cbind_len = vlen;
	if (ksasl_attr(p, len, &pos, &k, &v, &vlen) == -1 || k != 'r')
		return -1;
	f->nonce = v;
	f->nonce_len = vlen;
	for (;;) {
		start = pos;
		if (pos >= len || ksasl_attr(p, len, &pos, &k, &v, &vlen) == -1)
			return -1;
		if (k == 'p')
			break;
	}
	if (pos != len || start == 0 || vlen == 0)
		return -1;	/* the proof comes last */
	f->proof = v;
	f->proof_len = vlen;
	f->without_proof = p;
	f->without_proof_len = start - 1;	/* without the ',' */
	return 0;
}

int
ksasl_plain_parse(const char *p, size_t len, const char **user,
    size_t *user_len, const char **pass, size_t *pass_len)
{
	const char *a, *b;
	size_t alen;

	if ((a = memchr(p, '\0', len)) == NULL)
		return -1;
	alen = (size_t)(a - p);
	if ((b = memchr(a + 1, '\0', len - alen - 1)) == NULL)
		return -1;
	*user = a + 1;
	*user_len = (size_t)(b - *user);
	*pass = b + 1;
	*pass_len = len - (size_t)(*pass - p);
	if (*user_len == 0 || memchr(*pass, '\0', *pass_len) != NULL)
		return -1;
	/* Acting as another user is not offered. */
	if (alen != 0 && (alen != *user_len || memcmp(p, *user, alen) != 0))
		return -1;
	return 0;
}
