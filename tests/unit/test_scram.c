/*
 * SCRAM (worker/kafka/scram.c) against RFC 7677's SCRAM-SHA-256 example, and
 * the SCRAM and PLAIN message parsers (proto/kafka/ksasl.c), and the
 * SaslHandshake / SaslAuthenticate layouts through their descriptions
 * (kmsg_sasl.h), with every truncation of valid input refused.
 */
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "proto/kafka/kdesc.h"
#include "proto/kafka/kmsg_sasl.h"
#include "proto/kafka/ksasl.h"
#include "proto/wire.h"
#include "tests/harness.h"
#include "worker/kafka/scram.h"

/* RFC 7677 section 3. */
#define R_FIRST		"n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
#define R_SNONCE	"%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
#define R_SERVER_FIRST	"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0," \
			"s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
#define R_FINAL		"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0," \
			"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
#define R_SERVER_FINAL	"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="

static uint8_t rfc_salt[16];
static size_t rfc_salt_len;

static int
setup(void)
{
	if (sodium_init() < 0)
		return -1;
	return sodium_base642bin(rfc_salt, sizeof(rfc_salt),
	    "W22ZaJ0SNY7soEsUEjb6gQ==", 24, NULL, &rfc_salt_len, NULL,
	    sodium_base64_VARIANT_ORIGINAL);
}

/* The server side of the RFC's exchange, with its salt and nonce. */
static int
rfc_first(struct scram_server *s)
{
	struct ksasl_scram_first f;

	if (ksasl_scram_first_parse(R_FIRST, strlen(R_FIRST), &f) != 0)
		return -1;
	return scram_server_first(s, SCRAM_SHA256, R_FIRST, strlen(R_FIRST),
	    &f, R_SNONCE, rfc_salt, rfc_salt_len, 4096);
}

static void
test_rfc7677_sha256(void)
{
	struct scram_server s;
	struct ksasl_scram_final fin;
	char out[256];

	CU_ASSERT_EQUAL_FATAL(rfc_first(&s), 0);
	CU_ASSERT_EQUAL(s.first_len, strlen(R_SERVER_FIRST));
	CU_ASSERT_EQUAL(memcmp(s.auth + s.auth_len - s.first_len,
	    R_SERVER_FIRST, s.first_len), 0);
	CU_ASSERT_EQUAL_FATAL(ksasl_scram_final_parse(R_FINAL, strlen(R_FINAL),
	    &fin), 0);
	CU_ASSERT_EQUAL(scram_server_final(&s, (const uint8_t *)"pencil", 6,
	    rfc_salt, rfc_salt_len, 4096, &fin, out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, R_SERVER_FINAL);
}

static void
test_wrong_password_nonce_binding_refused(void)
{
	struct scram_server s;
	struct ksasl_scram_final fin;
	char out[256] = "untouched", msg[512];

	CU_ASSERT_EQUAL_FATAL(rfc_first(&s), 0);
	CU_ASSERT_EQUAL_FATAL(ksasl_scram_final_parse(R_FINAL, strlen(R_FINAL),
	    &fin), 0);
	CU_ASSERT_EQUAL(scram_server_final(&s, (const uint8_t *)"pencil!", 7,
	    rfc_salt, rfc_salt_len, 4096, &fin, out, sizeof(out)), -1);
	CU_ASSERT_STRING_EQUAL(out, "untouched");
	/* Another server nonce: the client's proof does not carry it. */
	snprintf(msg, sizeof(msg), "c=biws,r=rOprNGfwEbeRWgbNEkqOX,p=%s",
	    strrchr(R_FINAL, '=') - 43);
	CU_ASSERT_EQUAL_FATAL(ksasl_scram_final_parse(msg, strlen(msg), &fin),
	    0);
	CU_ASSERT_EQUAL(scram_server_final(&s, (const uint8_t *)"pencil", 6,
	    rfc_salt, rfc_salt_len, 4096, &fin, out, sizeof(out)), -1);
	/* Channel binding that is not our "n,,". */
	snprintf(msg, sizeof(msg), "c=eSws,r=%s%s,p=%s",
	    "rOprNGfwEbeRWgbNEkqO", R_SNONCE, strrchr(R_FINAL, '=') - 43);
	CU_ASSERT_EQUAL_FATAL(ksasl_scram_final_parse(msg, strlen(msg), &fin),
	    0);
	CU_ASSERT_EQUAL(scram_server_final(&s, (const uint8_t *)"pencil", 6,
	    rfc_salt, rfc_salt_len, 4096, &fin, out, sizeof(out)), -1);
	CU_ASSERT_STRING_EQUAL(out, "untouched");
}

static void
test_salt_is_per_user_and_stable(void)
{
	static const uint8_t k1[32] = { 1 }, k2[32] = { 2 };
	uint8_t a[SCRAM_SALT_LEN], b[SCRAM_SALT_LEN], c[SCRAM_SALT_LEN];
	uint8_t d[SCRAM_SALT_LEN];

	scram_salt(k1, sizeof(k1), "alice", 5, a);
	scram_salt(k1, sizeof(k1), "alice", 5, b);
	scram_salt(k1, sizeof(k1), "alicf", 5, c);
	/* Another broker's secret: another salt for the same name. */
	scram_salt(k2, sizeof(k2), "alice", 5, d);
	CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a, c, sizeof(a)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a, d, sizeof(a)), 0);
}

static void
test_scram_first_parse(void)
{
	struct ksasl_scram_first f;
	static const char *bad[] = { "", "n", "n,", "n,,", "p=tls,,n=u,r=x",
	    "n,a=u,n=u,r=x", "n,,r=x,n=u", "n,,n=,r=x", "n,,n=u", "n,,n=u,r=",
	    "n,,n=u,r=x,", "n,,n=a=2,r=x", "n,,n=a=4D,r=x",
	    "n,,n=u,r=a b", "n,,n=u;r=x" };
	const char *ok = "n,,n=a=2Cb=3D,r=fyko+d2lbbFgONRv9qkxdawL,tokenauth=true";
	size_t i, n;

	CU_ASSERT_EQUAL_FATAL(ksasl_scram_first_parse(ok, strlen(ok), &f), 0);
	CU_ASSERT_STRING_EQUAL(f.user, "a,b=");
	CU_ASSERT_EQUAL(f.user_len, 4);
	CU_ASSERT_EQUAL(f.nonce_len, 24);
	CU_ASSERT_EQUAL(memcmp(f.nonce, "fyko+d2lbbFgONRv9qkxdawL", 24), 0);
	CU_ASSERT_EQUAL(f.bare, ok + 3);
	CU_ASSERT_EQUAL(f.bare_len, strlen(ok) - 3);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT_EQUAL(ksasl_scram_first_parse(bad[i], strlen(bad[i]),
		    &f), -1);
	/* Every truncation of the RFC's message but at the nonce's end. */
	for (n = 0; n + 1 < strlen(R_FIRST); n++) {
		char *cp = malloc(n ? n : 1);

		memcpy(cp, R_FIRST, n);
		if (n <= strlen("n,,n=user,r="))
			CU_ASSERT_EQUAL(ksasl_scram_first_parse(cp, n, &f), -1);
		free(cp);
	}
}

static void
test_scram_final_parse(void)
{
	struct ksasl_scram_final f;
	const char *msg = R_FINAL;	/* without_proof points into it */
	static const char *bad[] = { "", "c=biws", "c=biws,r=x", "r=x,c=biws,p=a",
	    "c=biws,r=x,p=", "c=biws,r=x,p=a,e=b", "c=biws,r=x,p=a,",
	    "c=biws,p=a,r=x" };
	size_t i, n;

	CU_ASSERT_EQUAL_FATAL(ksasl_scram_final_parse(msg, strlen(msg), &f), 0);
	CU_ASSERT_EQUAL(f.cbind_len, 4);
	CU_ASSERT_EQUAL(f.proof_len, 44);
	CU_ASSERT_PTR_EQUAL(f.without_proof, msg);
	CU_ASSERT_EQUAL(f.without_proof_len, strlen(R_FINAL) - 47);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT_EQUAL(ksasl_scram_final_parse(bad[i], strlen(bad[i]),
		    &f), -1);
	/* Extensions before the proof are allowed, after it not. */
	CU_ASSERT_EQUAL(ksasl_scram_final_parse("c=biws,r=x,e=1,p=a", 18, &f),
	    0);
	CU_ASSERT_EQUAL(f.without_proof_len, 14);
	for (n = 0; n < strlen(R_FINAL) - 44; n++) {
		char *cp = malloc(n ? n : 1);

		memcpy(cp, R_FINAL, n);
		CU_ASSERT_EQUAL(ksasl_scram_final_parse(cp, n, &f), -1);
		free(cp);
	}
}

static void
test_plain_parse(void)
{
	const char *u, *p;
	size_t ul, pl;

	CU_ASSERT_EQUAL(ksasl_plain_parse("\0bob\0s3cret", 11, &u, &ul, &p,
	    &pl), 0);
	CU_ASSERT_EQUAL(ul, 3);
	CU_ASSERT_EQUAL(memcmp(u, "bob", 3), 0);
	CU_ASSERT_EQUAL(pl, 6);
	CU_ASSERT_EQUAL(memcmp(p, "s3cret", 6), 0);
	/* kafka-python sends the user as authzid too. */
	CU_ASSERT_EQUAL(ksasl_plain_parse("bob\0bob\0pw", 10, &u, &ul, &p,
	    &pl), 0);
	CU_ASSERT_EQUAL(ksasl_plain_parse("eve\0bob\0pw", 10, &u, &ul, &p,
	    &pl), -1);
	CU_ASSERT_EQUAL(ksasl_plain_parse("\0\0pw", 4, &u, &ul, &p, &pl), -1);
	CU_ASSERT_EQUAL(ksasl_plain_parse("\0bob", 4, &u, &ul, &p, &pl), -1);
	CU_ASSERT_EQUAL(ksasl_plain_parse("\0bob\0p\0w", 8, &u, &ul, &p, &pl),
	    -1);
	CU_ASSERT_EQUAL(ksasl_plain_parse("", 0, &u, &ul, &p, &pl), -1);
}

/*
 * The SaslHandshake v0 and SaslAuthenticate v0 layouts the listener reads
 * and writes, through their descriptions (kmsg_sasl.h): requests decode,
 * every truncation is refused, a null token is no SASL message, answers
 * are the exact bytes.
 */
static void
test_kafka_layouts(void)
{
	static const uint8_t hs[] = { 0, 13, 'S', 'C', 'R', 'A', 'M', '-', 'S',
	    'H', 'A', '-', '2', '5', '6' };
	static const uint8_t au[] = { 0, 0, 0, 3, 'a', 'b', 'c' };
	static const uint8_t nul[] = { 0xff, 0xff, 0xff, 0xff };
	struct kstr mechs[] = { { "PLAIN", 5 }, { "SCRAM-SHA-256", 13 } };
	struct km_sasl_handshake_req hq;
	struct km_sasl_handshake_resp hr = { 33, { 2, mechs } };
	struct km_sasl_auth_req aq;
	struct km_sasl_auth_resp ar = { 58, { "no", 2 }, { "t", 1 }, 0 };
	struct arena a;
	struct wbuf wb;
	size_t n;

	arena_init(&a, 4096);
	CU_ASSERT_EQUAL(kmsg_decode_req(&kmsg_sasl_handshake, 0, &hq, hs,
	    sizeof(hs), &a), 0);
	CU_ASSERT(kstr_eq(hq.mechanism, "SCRAM-SHA-256"));
	for (n = 0; n < sizeof(hs); n++)
		CU_ASSERT_EQUAL(kmsg_decode_req(&kmsg_sasl_handshake, 0, &hq,
		    hs, n, &a), -1);
	CU_ASSERT_EQUAL(kmsg_decode_req(&kmsg_sasl_authenticate, 0, &aq, au,
	    sizeof(au), &a), 0);
	CU_ASSERT_EQUAL(aq.auth_bytes.len, 3);
	CU_ASSERT_EQUAL(memcmp(aq.auth_bytes.p, "abc", 3), 0);
	for (n = 0; n < sizeof(au); n++)
		CU_ASSERT_EQUAL(kmsg_decode_req(&kmsg_sasl_authenticate, 0,
		    &aq, au, n, &a), -1);
	CU_ASSERT_EQUAL(kmsg_decode_req(&kmsg_sasl_authenticate, 0, &aq, nul,
	    sizeof(nul), &a), -1);
	arena_free(&a);
	wbuf_init(&wb);
	CU_ASSERT_EQUAL(kmsg_encode_resp(&kmsg_sasl_handshake, 0, &hr, &wb),
	    0);
	CU_ASSERT_EQUAL(wb.len, 2 + 4 + 2 + 5 + 2 + 13);
	CU_ASSERT_EQUAL(memcmp(wb.buf, "\0\041\0\0\0\2\0\5PLAIN\0\015SCRAM-SHA-256",
	    wb.len), 0);
	wbuf_reset(&wb);
	CU_ASSERT_EQUAL(kmsg_encode_resp(&kmsg_sasl_authenticate, 0, &ar,
	    &wb), 0);
	CU_ASSERT_EQUAL(wb.len, 2 + 2 + 2 + 4 + 1);
	CU_ASSERT_EQUAL(memcmp(wb.buf, "\0\072\0\2no\0\0\0\1t", wb.len), 0);
	wbuf_reset(&wb);
	ar = (struct km_sasl_auth_resp){ 0, { NULL, -1 }, { "", 0 }, 0 };
	CU_ASSERT_EQUAL(kmsg_encode_resp(&kmsg_sasl_authenticate, 0, &ar,
	    &wb), 0);
	CU_ASSERT_EQUAL(wb.len, 2 + 2 + 4);
	CU_ASSERT_EQUAL(memcmp(wb.buf, "\0\0\377\377\0\0\0\0", wb.len), 0);
	wbuf_free(&wb);
}

TEST_SUITE("scram", setup, NULL,
    { "RFC 7677 SCRAM-SHA-256 example", test_rfc7677_sha256 },
    { "wrong password, nonce, channel binding refused",
	test_wrong_password_nonce_binding_refused },
    { "salt per user, stable", test_salt_is_per_user_and_stable },
    { "client-first parser", test_scram_first_parse },
    { "client-final parser", test_scram_final_parse },
    { "PLAIN parser", test_plain_parse },
    { "SaslHandshake / SaslAuthenticate layouts", test_kafka_layouts });
