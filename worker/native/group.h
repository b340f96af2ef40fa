/*
 * The native consumer-group APIs (JOIN_GROUP .. DESCRIBE_GROUP,
 * GROUP_RESET, GROUP_DELETE), rows of worker/native/native.c's table:
 * each decodes its request, calls its operation (worker/op/group*.h)
 * and encodes its answer.  An error answer is native_emit()'s (the
 * error code alone).
 */
#ifndef FLUME_WORKER_NATIVE_GROUP_H
#define FLUME_WORKER_NATIVE_GROUP_H

struct worker;
struct conn;
struct req;

int	native_join_decode(struct conn *c, struct req *r);
void	native_join_exec(struct worker *w, struct conn *c, struct req *r);
/* A parked JOIN_GROUP: answered once the rebalance completed. */
void	native_join_poll(struct worker *w, struct conn *c, struct req *r);
void	native_join_emit(struct worker *w, struct conn *c, struct req *r);
int	native_heartbeat_decode(struct conn *c, struct req *r);
void	native_heartbeat_exec(struct worker *w, struct conn *c, struct req *r);
int	native_leave_decode(struct conn *c, struct req *r);
void	native_leave_exec(struct worker *w, struct conn *c, struct req *r);
/* HEARTBEAT, LEAVE_GROUP and GROUP_DELETE: [error i16] alone. */
void	native_group_ok_emit(struct worker *w, struct conn *c, struct req *r);
int	native_commit_decode(struct conn *c, struct req *r);
void	native_commit_exec(struct worker *w, struct conn *c, struct req *r);
void	native_commit_emit(struct worker *w, struct conn *c, struct req *r);
int	native_offset_fetch_decode(struct conn *c, struct req *r);
void	native_offset_fetch_exec(struct worker *w, struct conn *c, struct req *r);
void	native_offset_fetch_emit(struct worker *w, struct conn *c, struct req *r);
int	native_list_groups_decode(struct conn *c, struct req *r);
void	native_list_groups_exec(struct worker *w, struct conn *c, struct req *r);
void	native_list_groups_emit(struct worker *w, struct conn *c, struct req *r);
/* DESCRIBE_GROUP and GROUP_DELETE: [group str]. */
int	native_group_name_decode(struct conn *c, struct req *r);
void	native_describe_exec(struct worker *w, struct conn *c, struct req *r);
void	native_describe_emit(struct worker *w, struct conn *c, struct req *r);
int	native_reset_decode(struct conn *c, struct req *r);
void	native_reset_exec(struct worker *w, struct conn *c, struct req *r);
void	native_reset_emit(struct worker *w, struct conn *c, struct req *r);
void	native_group_delete_exec(struct worker *w, struct conn *c,
	    struct req *r);

#endif
