/*
 * flume-mirror's state, shared by its copy loop (flume-mirror.c) and the
 * offset map and group translation (mirror_translate.c).
 */
#ifndef FLUME_CLIENTS_TOOLS_MIRROR_H
#define FLUME_CLIENTS_TOOLS_MIRROR_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include <librdkafka/rdkafka.h>

struct mirror_topic {
	char		*name;
	int32_t		 npart;		/* the source's partition count */
	int		 create;	/* missing on the target */
};

/* Source offsets [src, src + n) went to target offsets [tgt, tgt + n). */
struct mirror_run {
	int64_t		 src;
	int64_t		 tgt;
	int64_t		 n;
};

struct mirror_part {
	struct mirror_topic *topic;
	int32_t		 partition;
	int64_t		 start;		/* this run's first source offset */
	int64_t		 end;		/* source high watermark at start */
	int64_t		 produced_next;	/* after the last record produced */
	int64_t		 acked_next;	/* after the last record acknowledged */
	int64_t		 committed;	/* the last position committed */
	int64_t		 tgt_next;	/* after the last target offset we know */
	long		 inflight;	/* produced, not yet reported */
	struct mirror_run *runs;	/* this run's deliveries, in order */
	size_t		 nruns;
	size_t		 runs_cap;
};

/* A message in flight: its delivery report says where it landed. */
struct mirror_msg {
	struct mirror_part *part;
	int64_t		 src;
};

struct mirror_prop {
	char		*key;
	char		*value;
};

struct mirror {
	const char	*source;
	const char	*target;
	const char	*group;
	const char	*groups;	/* --groups, NULL: none */
	const char	**patterns;
	size_t		 npatterns;
	regex_t		*res;
	int		 regex;
	int		 once;
	int		 quiet;
	int		 verbose;
	int		 timeout_ms;
	int		 commit_ms;	/* -c: between commits of the position */
	struct mirror_prop *props;
	size_t		 nprops;
	struct mirror_topic *topics;
	size_t		 ntopics;
	struct mirror_part *parts;
	size_t		 nparts;
	uint64_t	 delivered;
	int		 failed;
	char		 last_error[512];
	int		 progress_shown;
	uint64_t	 progress_delivered;
	int64_t		 progress_ms;
};

/* A note on stderr unless -q. */
void	mirror_note(const struct mirror *m, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* An error on stderr, always. */
void	mirror_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int64_t	mirror_now_ms(void);
/*
 * A librdkafka handle for side "source" or "target" with the -X
 * properties; a consumer gets group (never auto-committing).  NULL on error.
 */
rd_kafka_t *mirror_client(struct mirror *m, const char *side,
	    rd_kafka_type_t type, const char *group);

/* Record a delivery: source offset src is target offset tgt. */
void	mirror_map_add(struct mirror_part *mp, int64_t src, int64_t tgt);
/*
 * The target offset for source offset o: 1 with *tgt set (*same 1 when
 * it is o because source and target offsets are equal), 0 when this
 * run cannot know it, -1 on error.
 */
int	mirror_map_lookup(struct mirror *m, struct mirror_part *mp, int64_t o,
	    rd_kafka_t *gsrc, rd_kafka_t *gtgt, int64_t *tgt, int *same);
/*
 * --groups: translate each group's committed source offsets of the
 * mirrored partitions and commit them on the target.  0, or -1 when one
 * could not be translated or committed.
 */
int	mirror_translate_groups(struct mirror *m);

#endif
