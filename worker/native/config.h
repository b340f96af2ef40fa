/*
 * The native CONFIG_DESCRIBE (22) and CONFIG_ALTER (23) rows of the
 * native table (worker/native/native.c), over the topic settings
 * operations (worker/op/tconf.h); the wire form is proto/msg_tconf.h.
 */
#ifndef FLUME_WORKER_NATIVE_CONFIG_H
#define FLUME_WORKER_NATIVE_CONFIG_H

struct worker;
struct conn;
struct req;

int	native_config_describe_decode(struct conn *c, struct req *r);
void	native_config_describe_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	native_config_describe_emit(struct worker *w, struct conn *c,
	    struct req *r);
int	native_config_alter_decode(struct conn *c, struct req *r);
void	native_config_alter_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	native_config_alter_poll(struct worker *w, struct conn *c,
	    struct req *r);
void	native_config_alter_emit(struct worker *w, struct conn *c,
	    struct req *r);

#endif
