/*
 * The native DELETE_RECORDS (25) and OFFSET_DELETE (26), rows of
 * worker/native/native.c's table (worker/native/records.c).
 */
#ifndef FLUME_WORKER_NATIVE_RECORDS_H
#define FLUME_WORKER_NATIVE_RECORDS_H

struct worker;
struct conn;
struct req;

int	native_delete_records_decode(struct conn *c, struct req *r);
void	native_delete_records_exec(struct worker *w, struct conn *c,
	    struct req *r);
/* A DELETE_RECORDS waiting for the writer to move the log start. */
void	native_delete_records_poll(struct worker *w, struct conn *c,
	    struct req *r);
void	native_delete_records_emit(struct worker *w, struct conn *c,
	    struct req *r);
int	native_offset_delete_decode(struct conn *c, struct req *r);
void	native_offset_delete_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	native_offset_delete_emit(struct worker *w, struct conn *c,
	    struct req *r);

#endif
