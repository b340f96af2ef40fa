/*
 * A declarative Kafka message codec: each request and response body is
 * described once, as a table of fields (proto/kafka/kmsg_*.c), and one
 * engine (kdesc.c) decodes and encodes any description at any version.
 * Adding a version is adding lines to a description.
 *
 * A description is a struct kdesc: the C struct it fills (its size) and
 * an array of struct kfield rows in wire order.  A row names its type,
 * the versions it exists in, from which version it may be null, whether
 * it is a tagged field (KIP-482; its tag) and where it lives in the C
 * struct (offsetof).  Arrays point at the description of their element.
 * Whether a version is flexible is the message's (struct kmsg): nested
 * structs follow the top level.
 *
 * C types of the members a row points at:
 *   KT_INT8 int8_t, KT_INT16 int16_t, KT_UINT16 uint16_t, KT_INT32 and
 *   KT_VARINT int32_t, KT_UVARINT uint32_t, KT_INT64 and KT_VARLONG
 *   int64_t, KT_FLOAT64 double, KT_BOOL uint8_t (0 or 1), KT_UUID
 *   uint8_t[16], KT_STRING, KT_BYTES and KT_RECORDS struct kstr (len -1 is
 *   null), KT_ARRAY struct karray (n -1 is null), KT_STRUCT the C struct
 *   of kf_sub, embedded.
 *
 * Decoding is zero copy: strings and bytes point into the caller's
 * buffer, arrays come from the caller's arena (proto/wire.h), and nothing
 * is malloc'd.  Every length and count is checked against what is left
 * before it is used; unknown tagged fields are skipped.
 */
#ifndef FLUME_PROTO_KAFKA_KDESC_H
#define FLUME_PROTO_KAFKA_KDESC_H

#include <stddef.h>
#include <stdint.h>

#include "proto/kafka/kbuf.h"
#include "proto/wire.h"

enum ktype {
	KT_INT8 = 1,
	KT_INT16,
	KT_UINT16,
	KT_INT32,
	KT_INT64,
	KT_VARINT,
	KT_VARLONG,
	KT_UVARINT,
	KT_FLOAT64,
	KT_BOOL,
	KT_UUID,
	KT_STRING,
	KT_BYTES,
	KT_RECORDS,	/* bytes holding record batches (COMPACT_RECORDS) */
	KT_ARRAY,
	KT_STRUCT	/* a nested struct (kf_sub), or an array's element */
};

#define KV_MAX		INT16_MAX	/* "N+" in Kafka's JSON */

/* kf_flags */
#define KF_NULL		0x01	/* nullable from kf_nullmin */
#define KF_TAGGED	0x02	/* a tagged field (kf_tag), never positional */
#define KF_NOFLEX	0x04	/* never compact ("flexibleVersions": "none") */

struct kdesc;

struct kfield {
	const char		*kf_name;
	uint8_t			 kf_type;	/* enum ktype */
	uint8_t			 kf_elem;	/* KT_ARRAY: element type */
	uint8_t			 kf_flags;
	int16_t			 kf_vmin, kf_vmax;
	int16_t			 kf_nullmin;
	int32_t			 kf_tag;
	uint32_t		 kf_off;	/* offsetof in the C struct */
	int64_t			 kf_def;	/* strings, arrays: -1 null */
	const struct kdesc	*kf_sub;	/* an array's struct element */
};

struct kdesc {
	const char		*kd_name;	/* Kafka's struct name */
	size_t			 kd_size;	/* sizeof the C struct */
	const struct kfield	*kd_fields;
	size_t			 kd_nfields;
};

/* An array: n elements at v (n -1: null, v NULL). */
struct karray {
	int32_t		 n;
	void		*v;
};

/* One request and response pair. */
struct kmsg {
	int16_t			 km_key;
	const char		*km_name;
	int16_t			 km_vmin, km_vmax;
	int16_t			 km_flexmin;	/* -1: none */
	const struct kdesc	*km_req, *km_resp;
};

/* Row helpers for descriptions: type, C struct, member, versions. */
#define KF(t, st, m, lo, hi, ...)					\
	{ .kf_name = #m, .kf_type = (t), .kf_vmin = (lo),		\
	  .kf_vmax = (hi), .kf_off = offsetof(st, m), __VA_ARGS__ }
/* An array of primitives, and an array of structs. */
#define KFA(et, st, m, lo, hi, ...)					\
	KF(KT_ARRAY, st, m, lo, hi, .kf_elem = (et), __VA_ARGS__)
#define KFS(sub, st, m, lo, hi, ...)					\
	KF(KT_ARRAY, st, m, lo, hi, .kf_elem = KT_STRUCT,		\
	    .kf_sub = &(sub), __VA_ARGS__)
/* A nested struct (not an array of them). */
#define KFT(sub, st, m, lo, hi, ...)					\
	KF(KT_STRUCT, st, m, lo, hi, .kf_sub = &(sub), __VA_ARGS__)
/*
 * A nullable struct (Kafka's "type": "Cursor", "nullableVersions"), on
 * the wire an int8 marker (-1 null, 1 present) and the struct when
 * present: described as two rows, the marker's KT_INT8 (an int8_t member,
 * default -1) and then this one.  The struct is read and written only
 * when its marker is 0 or more, else it keeps its defaults.
 */
#define KFNS(sub, st, m, lo, hi)					\
	KFT(sub, st, m, lo, hi, .kf_flags = KF_NULL, .kf_nullmin = (lo))
#define KNULL(v)	.kf_flags = KF_NULL, .kf_nullmin = (v)
#define KTAG(n)		.kf_flags = KF_TAGGED, .kf_tag = (n)
#define KDESC(name, st, rows)						\
	{ name, sizeof(st), rows, sizeof(rows) / sizeof(rows[0]) }

/* The messages described, ordered by key. */
extern const struct kmsg *const kmsg_all[];
extern const size_t kmsg_count;

const struct kmsg *kmsg_lookup(int16_t key);
/*
 * For an API key, the versions described and the first flexible one
 * (-1 when none is): 0, or -1 when the key is not described.
 */
int		 kmsg_versions(int16_t key, int16_t *vmin, int16_t *vmax,
		    int16_t *flexmin);
int		 kmsg_flexible(const struct kmsg *m, int16_t version);

/*
 * Decode a body of description d at version (flexible or not) into out
 * (d->kd_size bytes, every member written), arrays from a: 0, or -1
 * when the body is malformed or not consumed exactly (out is then
 * partly written: not to be used).  out's strings point into p.
 */
int		 kdesc_decode(const struct kdesc *d, int16_t version,
		    int flexible, void *out, const uint8_t *p, size_t len,
		    struct arena *a);
/* The same from an rbuf, leaving what follows the struct unread. */
int		 kdesc_read(const struct kdesc *d, int16_t version,
		    int flexible, void *out, struct rbuf *rb, struct arena *a);
/*
 * Append the encoding of in at version to wb: 0, or -1 (errno EINVAL)
 * when a field holds what the version cannot carry (a null where none is
 * allowed, a string over the length limit) or wb ran out of memory.
 * Fields absent in the version are not written.
 */
int		 kdesc_encode(const struct kdesc *d, int16_t version,
		    int flexible, const void *in, struct wbuf *wb);
/*
 * An encoder hook for KT_RECORDS, so records need not pass through wb
 * (a Fetch answer's batches go from the segment file with sendfile):
 * with one, a records field of length > 0 gets its length prefix in wb
 * as usual, then fn(arg, s, wb) instead of a copy of the bytes.  fn
 * makes the s->len bytes follow the prefix itself (e.g. hands what wb
 * holds so far to its output and queues a file range after it) and
 * returns 0, or -1 to fail the encode (errno EIO).  s->p is the
 * caller's, never read by the encoder: it may point at anything that
 * tells fn what to send.  The caller's frame size must count the bytes
 * fn queued, since wb does not hold them.  Null and empty records are
 * written as always; records in a tagged field (Kafka has none) are
 * always copied.
 */
struct kdesc_hook {
	int	(*fn)(void *arg, const struct kstr *s, struct wbuf *wb);
	void	*arg;
};
int		 kdesc_encode_hook(const struct kdesc *d, int16_t version,
		    int flexible, const void *in, const struct kdesc_hook *h,
		    struct wbuf *wb);
/*
 * The C size of a value of type t in row f (t is f's type, or its
 * element type): what an array's elements are strided by.
 */
size_t		 kdesc_csize(const struct kfield *f, int t);
/*
 * The bytes s's strings point into moved: every string, bytes and
 * records member of s (a struct of d at version, nested structs and
 * array elements included) that points into [from, from + len) is moved
 * by delta.  For an answer built from a request whose payload was
 * copied elsewhere before the answer was sent.
 */
void		 kdesc_rebase(const struct kdesc *d, int16_t version, void *s,
		    const uint8_t *from, size_t len, ptrdiff_t delta);
/* Set every field of out to its default, arrays empty. */
void		 kdesc_defaults(const struct kdesc *d, void *out);

/* A message's request or response body: the same, flexibility from m. */
int		 kmsg_decode_req(const struct kmsg *m, int16_t version,
		    void *out, const uint8_t *p, size_t len, struct arena *a);
int		 kmsg_decode_resp(const struct kmsg *m, int16_t version,
		    void *out, const uint8_t *p, size_t len, struct arena *a);
int		 kmsg_encode_req(const struct kmsg *m, int16_t version,
		    const void *in, struct wbuf *wb);
int		 kmsg_encode_resp(const struct kmsg *m, int16_t version,
		    const void *in, struct wbuf *wb);
/* kmsg_encode_resp through a records hook (kdesc_encode_hook). */
int		 kmsg_encode_resp_hook(const struct kmsg *m, int16_t version,
		    const void *in, const struct kdesc_hook *h,
		    struct wbuf *wb);

/*
 * Headers (Kafka's RequestHeader and ResponseHeader): request header v1
 * is key, version, correlation id and a nullable client id (an i16
 * string in every version); v2 adds a tagged field section.  Response
 * header v0 is the correlation id, v1 adds a tagged field section.  A
 * flexible request version has header v2 and its response header v1,
 * except ApiVersions, whose response header is always v0 (a client must
 * read it before it knows what the broker speaks).
 */
struct kreq_hdr {
	int16_t		 api_key;
	int16_t		 api_version;
	int32_t		 correlation_id;
	struct kstr	 client_id;
};

struct kresp_hdr {
	int32_t		 correlation_id;
};

extern const struct kdesc kdesc_req_hdr, kdesc_resp_hdr;

/* The header versions for a (key, version): 1 or 2, and 0 or 1. */
int		 kmsg_req_hdr_version(int16_t key, int16_t version);
int		 kmsg_resp_hdr_version(int16_t key, int16_t version);
/*
 * Decode the request header at the start of a frame body (after the
 * size): the header version follows from the key and version it holds
 * (a key not described reads as header v1).  Sets *hlen to the header's
 * length; 0 or -1.
 */
int		 kmsg_decode_req_hdr(struct kreq_hdr *h, const uint8_t *p,
		    size_t len, size_t *hlen);
int		 kmsg_encode_req_hdr(const struct kreq_hdr *h, struct wbuf *wb);
int		 kmsg_encode_resp_hdr(int16_t key, int16_t version,
		    int32_t correlation_id, struct wbuf *wb);

#endif
