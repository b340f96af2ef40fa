/*
 * CONFIG_DESCRIBE (22) and CONFIG_ALTER (23) for the tools (in the tool
 * library, not installed and not part of flume.h): flume-admin config.
 * The answers are the protocol's own structs (proto/msg_tconf.h),
 * decoded into the caller's arena.
 */
#ifndef FLUME_CLIENTS_FLUME_CONFIG_H
#define FLUME_CLIENTS_FLUME_CONFIG_H

#include "clients/flume.h"
#include "proto/msg_tconf.h"
#include "proto/wire.h"

/*
 * A topic's (topic NULL: the broker's) settings with their sources into
 * out (strings and entries in a): 0, or -1 with flume_errstr(c) set.
 */
int	flume_tool_config_describe(struct flume_client *c, const char *topic,
	    struct arena *a, struct config_describe_resp *out);
/*
 * Apply n edits to topic's settings: all or none.  0, or -1 with
 * flume_errstr(c) set (an INVALID_CONFIG says which key).
 */
int	flume_tool_config_alter(struct flume_client *c, const char *topic,
	    const struct config_edit *edits, int32_t n);

#endif
