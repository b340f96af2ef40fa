/*
 * Kafka's ACL and SCRAM credential APIs, rows of the Kafka table
 * (worker/kafka/kafka.c): DescribeAcls, CreateAcls, DeleteAcls in
 * worker/kafka/acl.c, DescribeUserScramCredentials and
 * AlterUserScramCredentials in worker/kafka/scram_admin.c.
 */
#ifndef FLUME_WORKER_KAFKA_ACL_H
#define FLUME_WORKER_KAFKA_ACL_H

#include "worker/op/op.h"

struct worker;
struct conn;
struct req;

void	kafka_describe_acls_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_describe_acls_emit(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_create_acls_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_create_acls_emit(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_delete_acls_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_delete_acls_emit(struct worker *w, struct conn *c,
	    struct req *r);
/* The wait of CreateAcls and DeleteAcls (the change in force). */
void	kafka_acls_change_poll(struct worker *w, struct conn *c,
	    struct req *r);
/* The message of op_auth_admin()'s refusal e (NULL: none). */
const char *kafka_auth_gate_message(enum op_err e);
/* A parked change of the auth_file (worker/op/acl.h): r's state after it. */
struct op_auth_change;
void	kafka_auth_change_poll(struct conn *c, struct req *r,
	    struct op_auth_change *ch);

void	kafka_describe_scram_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_describe_scram_emit(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_alter_scram_exec(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_alter_scram_poll(struct worker *w, struct conn *c,
	    struct req *r);
void	kafka_alter_scram_emit(struct worker *w, struct conn *c,
	    struct req *r);

#endif
