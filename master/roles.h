/*
 * The role table: one row per kind of child process, indexed by role
 * (proto/role.h), naming its entry point.  The supervisor starts every
 * child through it.
 */
#ifndef FLUME_MASTER_ROLES_H
#define FLUME_MASTER_ROLES_H

#include "common/child.h"
#include "proto/role.h"

extern const struct role roles[ROLE_COUNT];

#endif
