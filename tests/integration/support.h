/*
 * Black-box helpers for integration tests: start the real flume-master on
 * a free loopback port with a temporary data directory, run the tools
 * against it, and always clean up.  Every wait is bounded in time.
 * The daemon runs in its own process group; only that group and the pids
 * these helpers started are ever signalled.
 */
#ifndef FLUME_TESTS_SUPPORT_H
#define FLUME_TESTS_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct flumed {
	pid_t	 pid;		/* the master, leader of its process group */
	int	 port;
	char	 broker[64];	/* "127.0.0.1:PORT" for -b */
	char	*dir;		/* temp dir: flume.conf, data/, master.log */
	char	 conf[512];
	char	 data[512];
	char	 log[512];
	char	*extra;		/* config lines appended to flume.conf */
	int	 wait_port;	/* started once this accepts; 0: port */
	int	 kport;		/* flumed_start_kafka's Kafka port; 0: none */
	char	 kbroker[64];	/* "127.0.0.1:KPORT" */
};

/* Directory of the programs under test ($FLUME_BIN, else ./bin). */
const char *support_bindir(void);
int	 support_free_port(void);
/* Milliseconds on CLOCK_MONOTONIC. */
long long support_now_ms(void);
/* Poll cond every 50 ms until it holds or ms have passed (needs unistd.h). */
#define WAIT_UNTIL(cond, ms) do {					\
	long long dl_ = support_now_ms() + (ms);			\
	while (!(cond) && support_now_ms() < dl_)			\
		usleep(50 * 1000);	/* polling a condition, bounded */ \
} while (0)

/*
 * Write flume.conf (listen on a free port, data_dir in a new temp dir,
 * workers = 2, then `extra`), start flume-master -c, and wait (<= 10 s)
 * until it accepts connections.  0 or -1.
 */
int	 flumed_start(struct flumed *d, const char *extra);
/*
 * flumed_start(), but started once wait_port accepts, for a broker whose
 * extra lines turn the plaintext listener off (listen = off).
 */
int	 flumed_start_on(struct flumed *d, const char *extra, int wait_port);
/*
 * flumed_start() with a Kafka listener on a free loopback port too
 * (d->kport, d->kbroker).  users, when not NULL, is an auth file's text
 * ("name:secret:rights" lines): written to "users" in the broker's
 * directory (mode 0600) and named by auth_file.  Those lines come before
 * extra, which may open [topic] sections.  0 or -1.
 */
int	 flumed_start_kafka(struct flumed *d, const char *users,
	    const char *extra);
/*
 * Start the broker's test build (build/tests/flume-master-seams, with the
 * fault seams of master/fault.h) instead of bin/flume-master from now on
 * (on: 1), for the suites that inject faults through the environment.
 */
void	 support_use_seams(int on);
/* Start again on the same directory and port (after a stop or a kill). */
int	 flumed_restart(struct flumed *d);
/* SIGTERM the master and wait (<= 15 s); returns its exit status or -1. */
int	 flumed_stop(struct flumed *d);
/* SIGKILL the daemon's whole process group and reap the master. */
void	 flumed_kill(struct flumed *d);
/* Kill if running, remove the temp directory, free memory. */
void	 flumed_cleanup(struct flumed *d);
/* Count occurrences of a string in the master's log. */
int	 flumed_log_count(const struct flumed *d, const char *needle);
/* Wait (<= timeout_ms) until the log holds needle at least n times; the count. */
int	 flumed_wait_log(const struct flumed *d, const char *needle, int n,
	    int timeout_ms);

/*
 * Run bin/TOOL with argv (NULL-terminated, argv[0] is the tool name) and
 * -b added, feeding `input` on stdin; capture stdout (malloc'ed, NUL
 * terminated) into *out if out is not NULL.  Killed after timeout_ms.
 * Returns the exit status, or -1 if it did not exit normally in time.
 */
int	 run_tool(const struct flumed *d, const char *input, char **out,
	    int timeout_ms, const char *const argv[]);

/*
 * Run path (any program) with argv, input (may be NULL) on stdin; stdout
 * in *out and stderr in *err (malloc'ed, NUL terminated; either may be
 * NULL).  Killed after timeout_ms.  The exit status, or -1.
 */
int	 support_run_cmd(const char *path, const char *const argv[],
	    const char *input, char **out, char **err, int timeout_ms);

/*
 * bin/NAME args... NULL (no -b added), input (may be NULL) on stdin;
 * stdout and stderr as support_run_cmd; killed after 30 s.
 */
int	 support_tool(const char *input, char **out, char **err,
	    const char *name, ...);

/*
 * INIT_PRODUCER on fd (request id 3) for a new producer id: 0 with
 * *pid and *epoch, or -1.
 */
int	 support_init_producer(int fd, int64_t *pid, int16_t *epoch);

/* Pid of a worker (role "worker") or the writer in `slot`, per flume-admin workers. */
pid_t	 flumed_child_pid(const struct flumed *d, const char *role, int slot);
/*
 * Wait (<= ms) until pid's state in /proc/PID/stat is one of states
 * ("T" stopped, "ZX" exited; a pid /proc no longer has counts as X):
 * 1, or 0 when the time ran out.
 */
int	 support_pid_state(pid_t pid, const char *states, int ms);

#endif

/* Raw protocol access, for tests that must send exactly chosen bytes. */
struct wbuf;
/* Connected, blocking TCP socket to the daemon, or -1. */
int	 support_connect(const struct flumed *d);
/* The same to its Kafka listener (flumed_start_kafka), or -1. */
int	 support_kconnect(const struct flumed *d);
/*
 * Connected, blocking TCP socket to 127.0.0.1:port from the local
 * address src (another loopback address, "127.0.0.2", so the broker
 * sees another client address; NULL: any), or -1.
 */
int	 support_connect_from(int port, const char *src);
/*
 * Send one Kafka request (header v1, client id "t") with body; 0 or -1.
 * Its answer is read with support_recv (the correlation id as id).
 */
int	 support_kafka_send(int fd, int16_t key, int16_t ver, int32_t corr,
	    const void *body, size_t blen);
/*
 * One Kafka request of described message m at version v (req, its
 * request struct; header v1 or v2 as the version takes, client id
 * "test"), its answer read within 10 s and decoded into resp (the
 * response struct; arrays from a, strings into *raw, which the caller
 * frees).  0, or -1 when it could not be sent, no answer came, the
 * correlation id differs or the answer does not decode exactly.
 */
struct kmsg;
struct arena;
int	 support_kafka_call(int fd, const struct kmsg *m, int16_t v,
	    int32_t corr, const void *req, void *resp, struct arena *a,
	    uint8_t **raw);
/* 1 when the broker closes fd before another answer (within 10 s), else 0. */
int	 support_closed(int fd);
/* Write all of buf (bounded by 5 s); 0 or -1. */
int	 support_send(int fd, const void *buf, size_t len);
/*
 * Read one response frame (bounded by timeout_ms): *payload malloc'ed.
 * Returns 1 with a frame, 0 when the peer closed, -1 on timeout/error.
 */
int	 support_recv(int fd, int timeout_ms, uint32_t *request_id,
	    uint8_t **payload, size_t *len);
/* Send one request whose payload is in `payload`; 0 or -1. */
int	 support_request(int fd, uint16_t api, uint32_t id, const void *payload, size_t len);
/*
 * Send one request (payload wb, may be NULL) and read its answer within
 * timeout_ms: the answer's top-level error code; -1000 when the
 * connection was closed; -2000 when no answer with that request id came
 * in time.  With payload not NULL the answer is handed over (free it).
 */
int	 support_call(int fd, uint16_t api, uint32_t id, const struct wbuf *wb,
	    int timeout_ms, uint8_t **payload, size_t *plen);
/*
 * HANDSHAKE on fd (request id id, within timeout_ms): 0 when answered
 * without error, -1000 when the broker closed the connection, else the
 * error code or -2000 (no answer in time).
 */
int	 support_handshake(int fd, uint32_t id, int timeout_ms);
/* A connection the daemon serves (connected, handshaken): its fd, or -1. */
int	 support_connect_served(const struct flumed *d, int timeout_ms);
/*
 * OFFSET_COMMIT of topic/partition at offset for member of generation
 * gen in group, on a served connection: the request's error, else the
 * partition's; -1 when no well-formed answer came.
 */
int	 support_commit(int fd, const char *group, const char *member,
	    int32_t gen, const char *topic, int32_t partition, int64_t offset);
/* Requests the daemon's workers have taken in so far (their shm counters). */
uint64_t flumed_requests_taken(const struct flumed *d);
/*
 * Wait (<= timeout_ms) until the daemon's workers hold n connections
 * open (their shm counters); the last count, UINT64_MAX when unreadable.
 */
uint64_t flumed_wait_connections(const struct flumed *d, uint64_t n,
	    int timeout_ms);
/*
 * Wait (<= timeout_ms) until the daemon's workers have stopped reading
 * exactly n connections (each held by its output, or by the requests it
 * has in flight: the worker watches it for EPOLLOUT and not EPOLLIN);
 * the last count, -1 when a worker's epoll set cannot be read.
 */
int	 flumed_wait_reads_stopped(const struct flumed *d, int n,
	    int timeout_ms);
/*
 * Authenticate fd as user with secret (AUTH_BEGIN, AUTH_PROVE with
 * request ids 0xA0 and 0xA1): 0, the broker's error code (> 0), or -1
 * when the exchange itself failed (closed, timeout, malformed).
 */
int	 support_auth(int fd, const char *user, const char *secret);

/*
 * support_kafka_call in two steps, for a request the broker parks (a
 * JoinGroup waiting for others): send request q of (m, v) with
 * correlation id corr (client id "test"); later read the answer to corr
 * into resp, its bytes copied into the arena a (resp's strings point
 * there).  0 or -1.
 */
int	 support_ksend(int fd, const struct kmsg *m, int16_t v, int32_t corr,
	    const void *q);
int	 support_krecv(int fd, const struct kmsg *m, int16_t v, int32_t corr,
	    void *resp, struct arena *a);
