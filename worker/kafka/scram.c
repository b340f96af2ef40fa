/*
 * SCRAM server (worker/kafka/scram.h).  RFC 5802 section 3:
 *   SaltedPassword  = PBKDF2(password, salt, i)
 *   ClientKey       = HMAC(SaltedPassword, "Client Key")
 *   StoredKey       = H(ClientKey)
 *   AuthMessage     = client-first-bare "," server-first "," client-final-without-proof
 *   ClientSignature = HMAC(StoredKey, AuthMessage)
 *   ClientProof     = ClientKey XOR ClientSignature
 *   ServerSignature = HMAC(HMAC(SaltedPassword, "Server Key"), AuthMessage)
 * The server recovers ClientKey from the proof and compares its hash with
 * StoredKey in constant time.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>
#include <sodium.h>

#include "common/authfile.h"
#include "worker/kafka/scram.h"

#define SCRAM_SALT_LABEL	"flume scram salt"

static const EVP_MD *
scram_md(int mech, size_t *len)
{
	*len = mech == SCRAM_SHA512 ? 64 : 32;
	return mech == SCRAM_SHA512 ? EVP_sha512() : EVP_sha256();
}

static uint64_t scram_derived;

uint64_t
scram_derivations(void)
{
	return scram_derived;
}

void
scram_salt(const uint8_t *key, size_t keylen, const char *user, size_t len,
    uint8_t salt[SCRAM_SALT_LEN])
{
	crypto_auth_hmacsha256_state st;
	uint8_t h[crypto_auth_hmacsha256_BYTES];

	crypto_auth_hmacsha256_init(&st, key, keylen);
	crypto_auth_hmacsha256_update(&st, (const uint8_t *)SCRAM_SALT_LABEL,
	    sizeof(SCRAM_SALT_LABEL));	/* with its NUL: a separator */
	crypto_auth_hmacsha256_update(&st, (const uint8_t *)user, len);
	crypto_auth_hmacsha256_final(&st, h);
	sodium_memzero(&st, sizeof(st));
	memcpy(salt, h, SCRAM_SALT_LEN);
}

void
scram_nonce(char out[2 * SCRAM_SNONCE_LEN + 1])
{
	uint8_t r[SCRAM_SNONCE_LEN];

	randombytes_buf(r, sizeof(r));
	sodium_bin2base64(out, 2 * SCRAM_SNONCE_LEN + 1, r, sizeof(r),
	    sodium_base64_VARIANT_ORIGINAL);
}

int
scram_server_first(struct scram_server *s, int mech, const char *msg,
    size_t len, const struct ksasl_scram_first *f, const char *snonce,
    const uint8_t *salt, size_t saltlen, int iterations)
{
	char b64[sodium_base64_ENCODED_LEN(64, sodium_base64_VARIANT_ORIGINAL)];
	size_t sn = strlen(snonce);
	int n;

	memset(s, 0, sizeof(*s));
	if (saltlen > 64 || f->nonce_len + sn >= sizeof(s->nonce) ||
	    f->bare_len + 1 >= SCRAM_MSG_MAX)
		return -1;
	s->mech = mech;
	memcpy(s->gs2, msg, 3);
	memcpy(s->nonce, f->nonce, f->nonce_len);
	memcpy(s->nonce + f->nonce_len, snonce, sn);
	s->nonce_len = f->nonce_len + sn;
	sodium_bin2base64(b64, sizeof(b64), salt, saltlen,
	    sodium_base64_VARIANT_ORIGINAL);
	memcpy(s->auth, f->bare, f->bare_len);
	s->auth[f->bare_len] = ',';
	n = snprintf(s->auth + f->bare_len + 1, SCRAM_MSG_MAX,
	    "r=%.*s,s=%s,i=%d", (int)s->nonce_len, s->nonce, b64, iterations);
	if (n < 0 || n >= SCRAM_MSG_MAX)
		return -1;
	s->first_len = (size_t)n;
	s->auth_len = f->bare_len + 1 + (size_t)n;
	return 0;
}

/* HMAC(key, p1 p2 p3) with libsodium's HMAC-SHA-256 or -512. */
static void
scram_hmac(int mech, const uint8_t *key, size_t klen,
    const void *p1, size_t l1, const void *p2, size_t l2,
    const void *p3, size_t l3, uint8_t *out)
{
	crypto_auth_hmacsha512_state h5;
	crypto_auth_hmacsha256_state h2;

	if (mech == SCRAM_SHA512) {
		crypto_auth_hmacsha512_init(&h5, key, klen);
		crypto_auth_hmacsha512_update(&h5, p1, l1);
		crypto_auth_hmacsha512_update(&h5, p2, l2);
		crypto_auth_hmacsha512_update(&h5, p3, l3);
		crypto_auth_hmacsha512_final(&h5, out);
		sodium_memzero(&h5, sizeof(h5));
	} else {
		crypto_auth_hmacsha256_init(&h2, key, klen);
		crypto_auth_hmacsha256_update(&h2, p1, l1);
		crypto_auth_hmacsha256_update(&h2, p2, l2);
		crypto_auth_hmacsha256_update(&h2, p3, l3);
		crypto_auth_hmacsha256_final(&h2, out);
		sodium_memzero(&h2, sizeof(h2));
	}
}

static void
scram_hash(int mech, const uint8_t *p, size_t len, uint8_t *out)
{
	if (mech == SCRAM_SHA512)
		crypto_hash_sha512(out, p, len);
	else
		crypto_hash_sha256(out, p, len);
}

int
scram_server_final_keys(struct scram_server *s, const uint8_t *stored,
    const uint8_t *server, const struct ksasl_scram_final *f, char *out,
    size_t outlen)
{
	uint8_t ckey[SCRAM_KEY_MAX], sig[SCRAM_KEY_MAX], proof[SCRAM_KEY_MAX];
	uint8_t h[SCRAM_KEY_MAX];
	char cb[8], b64[sodium_base64_ENCODED_LEN(SCRAM_KEY_MAX,
	    sodium_base64_VARIANT_ORIGINAL)];
	size_t dlen, n, i;
	int rc = -1;

	(void)scram_md(s->mech, &dlen);
	/*
	 * The channel binding repeats our gs2 header.  The nonce must end
	 * with ours, as Kafka checks it: librdkafka sends its own part
	 * twice (client nonce, then the whole server nonce), and the proof
	 * covers what it sent.
	 */
	sodium_bin2base64(cb, sizeof(cb), (const uint8_t *)s->gs2, 3,
	    sodium_base64_VARIANT_ORIGINAL);
	if (f->cbind_len != strlen(cb) || memcmp(f->cbind, cb, f->cbind_len) ||
	    f->nonce_len < s->nonce_len || memcmp(f->nonce + f->nonce_len -
	    s->nonce_len, s->nonce, s->nonce_len) != 0)
		return -1;
	if (sodium_base642bin(proof, sizeof(proof), f->proof, f->proof_len,
	    NULL, &n, NULL, sodium_base64_VARIANT_ORIGINAL) != 0 || n != dlen)
		return -1;
	scram_hmac(s->mech, stored, dlen, s->auth, s->auth_len, ",", 1,
	    f->without_proof, f->without_proof_len, sig);
	for (i = 0; i < dlen; i++)
		ckey[i] = proof[i] ^ sig[i];
	scram_hash(s->mech, ckey, dlen, h);
	if (sodium_memcmp(h, stored, dlen) != 0)
		goto out;
	scram_hmac(s->mech, server, dlen, s->auth, s->auth_len, ",", 1,
	    f->without_proof, f->without_proof_len, sig);
	sodium_bin2base64(b64, sizeof(b64), sig, dlen,
	    sodium_base64_VARIANT_ORIGINAL);
	if ((size_t)snprintf(out, outlen, "v=%s", b64) < outlen)
		rc = 0;
out:
	sodium_memzero(ckey, sizeof(ckey));
	return rc;
}

int
scram_server_final(struct scram_server *s, const uint8_t *password,
    size_t plen, const uint8_t *salt, size_t saltlen, int iterations,
    const struct ksasl_scram_final *f, char *out, size_t outlen)
{
	uint8_t salted[SCRAM_KEY_MAX], stored[SCRAM_KEY_MAX];
	uint8_t server[SCRAM_KEY_MAX];
	const EVP_MD *md;
	size_t dlen;
	int rc = -1;

	md = scram_md(s->mech, &dlen);
	scram_derived++;
	if (PKCS5_PBKDF2_HMAC((const char *)password, (int)plen, salt,
	    (int)saltlen, iterations, md, (int)dlen, salted) != 1)
		goto out;
	auth_scram_keys(s->mech == SCRAM_SHA512 ? AUTH_SCRAM_SHA512 :
	    AUTH_SCRAM_SHA256, salted, stored, server);
	rc = scram_server_final_keys(s, stored, server, f, out, outlen);
out:
	sodium_memzero(salted, sizeof(salted));
	sodium_memzero(server, sizeof(server));
	return rc;
}
