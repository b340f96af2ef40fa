/*
 * The worker process's entry point: all that the master knows of
 * worker/ (its role table, master/roles.c, starts it).
 */
#ifndef FLUME_WORKER_MAIN_H
#define FLUME_WORKER_MAIN_H

#include "common/broker.h"

/* Serve clients on b's listening sockets until told to stop; exits. */
__attribute__((noreturn)) void worker_main(struct broker *b);

#endif
