/*
 * The console's write actions (master/console.h): a native-protocol
 * session to the broker's own plaintext listener, authenticated as the
 * console's user with that user's secret, so the workers carry the action
 * out (and check the user's permissions) exactly as for flume-admin.
 * The metrics child thus never writes a log file or a group itself, and
 * master/ uses only proto/ for it (DESIGN.md section 6: master may not
 * include worker/ or clients/).
 *
 * Blocking calls, each bounded by CADMIN_TIMEOUT_MS; 0, or -1 with a
 * message in err.  A broker's refusal is not -1: it is *error (ERR_*).
 */
#ifndef FLUME_MASTER_CONSOLE_ADMIN_H
#define FLUME_MASTER_CONSOLE_ADMIN_H

#include <stddef.h>
#include <stdint.h>

#include "common/config.h"
#include "proto/msg.h"

#define CADMIN_TIMEOUT_MS	5000
#define CADMIN_RESULTS_MAX	64	/* partitions a reset answers in detail */

struct cadmin;

int	cadmin_open(struct cadmin **cp, const struct config *conf,
	    const char *user, const uint8_t *secret, size_t slen, char *err,
	    size_t errlen);
void	cadmin_close(struct cadmin *c);
int	cadmin_create_topic(struct cadmin *c, const char *topic,
	    int32_t partitions, int16_t *error, int32_t *made, char *err,
	    size_t errlen);
/* One record (key/value NULL: null), acks=1; its offset in *offset. */
int	cadmin_produce(struct cadmin *c, const char *topic, int32_t partition,
	    const char *key, const char *value, int16_t *error, int64_t *offset,
	    char *err, size_t errlen);
/*
 * CONFIG_ALTER of one key of topic: value NULL deletes it (back to what
 * flume.conf says).  The broker's message, if any, into msg.
 */
int	cadmin_config_set(struct cadmin *c, const char *topic, const char *key,
	    const char *value, int16_t *error, char *msg, size_t msglen,
	    char *err, size_t errlen);
/* GROUP_RESET; up to CADMIN_RESULTS_MAX results into res, their count in *n. */
int	cadmin_group_reset(struct cadmin *c, const struct group_reset_req *q,
	    int16_t *error, struct group_reset_result *res, int32_t *n,
	    char *err, size_t errlen);

#endif
