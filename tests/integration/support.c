/*
 * Integration-test support: see support.h.
 */
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "proto/bytes.h"
#include "proto/kafka/kdesc.h"
#include "proto/msg.h"
#include "proto/msg_auth.h"
#include "proto/wire.h"
#include "shm/shm.h"
#include "tests/harness.h"
#include "tests/integration/support.h"

const char *
support_bindir(void)
{
	const char *b = getenv("FLUME_BIN");

	return b != NULL && *b != '\0' ? b : "bin";
}

long long
support_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
support_free_port(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd, port = -1;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sin, &len) == 0)
		port = ntohs(sin.sin_port);
	close(fd);
	return port;
}

static int
port_accepts(int port)
{
	struct sockaddr_in sin;
	int fd, ok;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return 0;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0;
	close(fd);
	return ok;
}

static int
write_conf(struct flumed *d)
{
	FILE *f;

	if ((f = fopen(d->conf, "w")) == NULL)
		return -1;
	fprintf(f, "listen = 127.0.0.1:%d\n", d->port);
	fprintf(f, "data_dir = %s\n", d->data);
	fprintf(f, "workers = 2\n");
	fprintf(f, "log_level = info\n");
	if (d->extra != NULL)
		fprintf(f, "%s\n", d->extra);
	return fclose(f);
}

static int use_seams;

void
support_use_seams(int on)
{
	use_seams = on;
}

static int
spawn_master(struct flumed *d)
{
	const char *build = getenv("FLUME_BUILD");
	char master[512];
	long long deadline;
	int status;

	if (use_seams)
		snprintf(master, sizeof(master), "%s/tests/flume-master-seams",
		    build != NULL && *build != '\0' ? build : "build");
	else
		snprintf(master, sizeof(master), "%s/flume-master",
		    support_bindir());
	d->pid = fork();
	if (d->pid == -1)
		return -1;
	if (d->pid == 0) {
		int fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0600);

		setpgid(0, 0);
		if (fd != -1) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		execl(master, "flume-master", "-c", d->conf, (char *)NULL);
		_exit(127);
	}
	setpgid(d->pid, d->pid);
	deadline = support_now_ms() + 10000;
	while (support_now_ms() < deadline) {
		if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
			d->pid = 0;
			return -1;
		}
		if (port_accepts(d->wait_port > 0 ? d->wait_port : d->port))
			return 0;
		usleep(10 * 1000);	/* polling a condition, bounded above */
	}
	return -1;
}

int
flumed_start(struct flumed *d, const char *extra)
{
	return flumed_start_on(d, extra, 0);
}

/* d's directory, port and paths; 0 or -1. */
static int
flumed_init(struct flumed *d, const char *extra, int wait_port)
{
	memset(d, 0, sizeof(*d));
	d->wait_port = wait_port;
	d->dir = test_mkdtemp("flumed");
	d->extra = extra != NULL ? strdup(extra) : NULL;
	d->port = support_free_port();
	if (d->dir == NULL || d->port <= 0 ||
	    (extra != NULL && d->extra == NULL))
		return -1;
	snprintf(d->broker, sizeof(d->broker), "127.0.0.1:%d", d->port);
	snprintf(d->conf, sizeof(d->conf), "%s/flume.conf", d->dir);
	snprintf(d->data, sizeof(d->data), "%s/data", d->dir);
	snprintf(d->log, sizeof(d->log), "%s/master.log", d->dir);
	return 0;
}

/* Write d's flume.conf and start it: 0, or -1 with d cleaned up. */
static int
flumed_launch(struct flumed *d, int ok)
{
	if (!ok || write_conf(d) == -1 || spawn_master(d) == -1) {
		/* CUnit skips a suite's teardown when its setup fails. */
		flumed_cleanup(d);
		return -1;
	}
	return 0;
}

int
flumed_start_on(struct flumed *d, const char *extra, int wait_port)
{
	return flumed_launch(d, flumed_init(d, extra, wait_port) == 0);
}

/* users as an auth file in d's directory, its path into path; 0 or -1. */
static int
write_users(const struct flumed *d, const char *users, char *path,
    size_t len)
{
	FILE *f;
	int rc;

	snprintf(path, len, "%s/users", d->dir);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	rc = fputs(users, f) == EOF ? -1 : 0;
	if (fclose(f) == EOF || chmod(path, 0600) == -1)
		rc = -1;
	return rc;
}

int
flumed_start_kafka(struct flumed *d, const char *users, const char *extra)
{
	char path[600], *all = NULL;
	int ok;

	ok = flumed_init(d, NULL, 0) == 0 &&
	    (d->kport = support_free_port()) > 0 && d->kport != d->port &&
	    (users == NULL || write_users(d, users, path, sizeof(path)) == 0);
	if (ok) {
		snprintf(d->kbroker, sizeof(d->kbroker), "127.0.0.1:%d",
		    d->kport);
		ok = asprintf(&all, "%s%s%skafka_listen = %s\n%s",
		    users != NULL ? "auth_file = " : "",
		    users != NULL ? path : "", users != NULL ? "\n" : "",
		    d->kbroker, extra != NULL ? extra : "") != -1;
		d->extra = ok ? all : NULL;
	}
	return flumed_launch(d, ok);
}

int
flumed_restart(struct flumed *d)
{
	long long deadline = support_now_ms() + 10000;

	/* The old listening socket may linger briefly after a kill. */
	while (port_accepts(d->port) && support_now_ms() < deadline)
		usleep(10 * 1000);
	return spawn_master(d);
}

int
flumed_stop(struct flumed *d)
{
	long long deadline;
	int status;

	if (d->pid <= 0)
		return -1;
	kill(d->pid, SIGTERM);
	deadline = support_now_ms() + 15000;
	while (support_now_ms() < deadline) {
		pid_t r = waitpid(d->pid, &status, WNOHANG);

		if (r == d->pid) {
			d->pid = 0;
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		}
		usleep(10 * 1000);
	}
	flumed_kill(d);
	return -1;
}

/*
 * Does process group pgid still have a member that is not a zombie?
 * Zombies hold no locks or sockets, and the killed master's orphans are
 * reaped by init whenever it gets round to it (seconds, in some VMs).
 */
static int
group_alive(pid_t pgid)
{
	char path[64], buf[512], *p;
	struct dirent *de;
	long pid, pgrp;
	char state;
	DIR *dir;
	FILE *f;
	size_t n;
	int alive = 0;

	if (kill(-pgid, 0) == -1)
		return 0;
	if ((dir = opendir("/proc")) == NULL)
		return 1;
	while (!alive && (de = readdir(dir)) != NULL) {
		if ((pid = strtol(de->d_name, &p, 10)) <= 0 || *p != '\0')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		/* "pid (comm) S ppid pgrp ...": after the last ')'. */
		if ((p = strrchr(buf, ')')) == NULL ||
		    sscanf(p + 1, " %c %*d %ld", &state, &pgrp) != 2)
			continue;
		if (pgrp == (long)pgid && state != 'Z' && state != 'X')
			alive = 1;
	}
	closedir(dir);
	return alive;
}

void
flumed_kill(struct flumed *d)
{
	long long deadline;

	if (d->pid <= 0)
		return;
	kill(-d->pid, SIGKILL);
	kill(d->pid, SIGKILL);
	waitpid(d->pid, NULL, 0);
	/* Children die by PR_SET_PDEATHSIG and the group kill; wait for them. */
	deadline = support_now_ms() + 5000;
	while (group_alive(d->pid) && support_now_ms() < deadline)
		usleep(10 * 1000);
	d->pid = 0;
}

void
flumed_cleanup(struct flumed *d)
{
	char name[SHM_NAME_MAX];

	if (d->pid > 0)
		flumed_kill(d);
	/* A killed master leaves its shared memory for the next start: remove it. */
	if (d->dir != NULL && shm_name_for(d->data, name, sizeof(name)) == 0)
		shm_unlink_name(name);
	if (d->dir != NULL && getenv("FLUME_KEEP_TMP") == NULL)
		test_rmtree(d->dir);
	free(d->dir);
	free(d->extra);
	d->dir = NULL;
	d->extra = NULL;
}

int
flumed_log_count(const struct flumed *d, const char *needle)
{
	char line[4096];
	FILE *f;
	int n = 0;

	if ((f = fopen(d->log, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, needle) != NULL)
			n++;
	fclose(f);
	return n;
}

int
flumed_wait_log(const struct flumed *d, const char *needle, int n, int timeout_ms)
{
	long long deadline = support_now_ms() + timeout_ms;
	int got;

	while ((got = flumed_log_count(d, needle)) < n &&
	    support_now_ms() < deadline)
		usleep(10 * 1000);	/* polling the log, bounded above */
	return got;
}

int
run_tool(const struct flumed *d, const char *input, char **out, int timeout_ms,
    const char *const argv[])
{
	int in[2], outp[2], status;
	size_t len = 0, cap = 4096, inlen = input != NULL ? strlen(input) : 0;
	size_t inoff = 0;
	char *buf, path[512];
	const char *args[64];
	long long deadline;
	pid_t pid;
	int n = 0, i;

	/* -b goes first: tools with subcommands stop parsing options there. */
	args[n++] = argv[0];
	args[n++] = "-b";
	args[n++] = d->broker;
	for (i = 1; argv[i] != NULL && n < 62; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	snprintf(path, sizeof(path), "%s/%s", support_bindir(), argv[0]);
	if (pipe(in) == -1 || pipe(outp) == -1)
		return -1;
	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(outp[1], STDOUT_FILENO);
		close(in[0]); close(in[1]); close(outp[0]); close(outp[1]);
		execv(path, (char *const *)args);
		_exit(127);
	}
	close(in[0]);
	close(outp[1]);
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	if (inlen == 0) {
		close(in[1]);
		in[1] = -1;
	}
	buf = malloc(cap);
	deadline = support_now_ms() + timeout_ms;
	for (;;) {
		struct pollfd pfd[2];
		int np = 0, left = (int)(deadline - support_now_ms());
		ssize_t r;

		if (left <= 0) {
			kill(pid, SIGKILL);
			break;
		}
		pfd[np].fd = outp[0]; pfd[np].events = POLLIN; np++;
		if (in[1] != -1) {
			pfd[np].fd = in[1]; pfd[np].events = POLLOUT; np++;
		}
		if (poll(pfd, np, left) <= 0)
			continue;
		if (np == 2 && (pfd[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			r = write(in[1], input + inoff, inlen - inoff);
			if (r > 0)
				inoff += (size_t)r;
			if (r < 0 && errno != EAGAIN) {
				close(in[1]);
				in[1] = -1;
			} else if (inoff == inlen) {
				close(in[1]);
				in[1] = -1;
			}
		}
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (len + 1024 >= cap)
				buf = realloc(buf, cap *= 2);
			r = read(outp[0], buf + len, cap - len - 1);
			if (r <= 0)
				break;
			len += (size_t)r;
		}
	}
	buf[len] = '\0';
	if (in[1] != -1)
		close(in[1]);
	close(outp[0]);
	if (waitpid(pid, &status, 0) == -1)
		status = -1;
	if (out != NULL)
		*out = buf;
	else
		free(buf);
	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

pid_t
flumed_child_pid(const struct flumed *d, const char *role, int slot)
{
	const char *argv[] = { "flume-admin", "workers", NULL };
	char *out = NULL, *line, *save = NULL;
	pid_t pid = -1;

	if (run_tool(d, NULL, &out, 10000, argv) != 0) {
		free(out);
		return -1;
	}
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		int s, p;
		char r[32];

		if (sscanf(line, "%d %31s %d", &s, r, &p) == 3 &&
		    strcmp(r, role) == 0 && (slot < 0 || s == slot)) {
			pid = p;
			break;
		}
	}
	free(out);
	return pid;
}

int
support_pid_state(pid_t pid, const char *states, int ms)
{
	long long deadline = support_now_ms() + ms;
	char path[64], buf[512], *p, state;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	for (;;) {
		state = 'X';
		if ((f = fopen(path, "r")) != NULL) {
			n = fread(buf, 1, sizeof(buf) - 1, f);
			fclose(f);
			buf[n] = '\0';
			/* "pid (comm) S ...": the state after the last ')'. */
			if ((p = strrchr(buf, ')')) != NULL && p[1] == ' ')
				state = p[2];
			else
				state = '?';
		}
		if (state != '\0' && strchr(states, state) != NULL)
			return 1;
		if (support_now_ms() > deadline)
			return 0;
		usleep(10 * 1000);	/* polling the condition, bounded */
	}
}

int
support_connect(const struct flumed *d)
{
	return support_connect_from(d->port, NULL);
}

int
support_kconnect(const struct flumed *d)
{
	return d->kport > 0 ? support_connect_from(d->kport, NULL) : -1;
}

int
support_connect_from(int port, const char *src)
{
	struct sockaddr_in sin;
	struct timeval tv = { 5, 0 };
	int fd;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	if (src != NULL && (inet_pton(AF_INET, src, &sin.sin_addr) != 1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)) {
		close(fd);
		return -1;
	}
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

int
support_closed(int fd)
{
	uint8_t *p = NULL;
	size_t n;
	uint32_t id;
	int rc = support_recv(fd, 10000, &id, &p, &n);

	free(p);
	return rc == 0;
}

int
support_kafka_send(int fd, int16_t key, int16_t ver, int32_t corr,
    const void *body, size_t blen)
{
	uint8_t buf[2048];
	size_t n = 4;

	if (blen > sizeof(buf) - 15)
		return -1;
	be16_put(buf + n, (uint16_t)key);
	be16_put(buf + n + 2, (uint16_t)ver);
	be32_put(buf + n + 4, (uint32_t)corr);
	be16_put(buf + n + 8, 1);
	buf[n + 10] = 't';
	n += 11;
	if (blen > 0)
		memcpy(buf + n, body, blen);
	n += blen;
	be32_put(buf, (uint32_t)(n - 4));
	return support_send(fd, buf, n);
}

int
support_send(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int
recv_all(int fd, void *buf, size_t len, long long deadline)
{
	uint8_t *p = buf;

	while (len > 0) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		int left = (int)(deadline - support_now_ms());
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, left) <= 0)
			return -1;
		n = recv(fd, p, len, 0);
		if (n == 0)
			return 0;
		if (n < 0)
			return errno == ECONNRESET ? 0 : -1;
		p += n;
		len -= (size_t)n;
	}
	return 1;
}

int
support_recv(int fd, int timeout_ms, uint32_t *request_id, uint8_t **payload,
    size_t *len)
{
	long long deadline = support_now_ms() + timeout_ms;
	uint8_t hdr[8];
	uint32_t size;
	int r;

	*payload = NULL;
	*len = 0;
	if ((r = recv_all(fd, hdr, sizeof(hdr), deadline)) != 1)
		return r;
	size = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 |
	    (uint32_t)hdr[2] << 8 | hdr[3];
	if (size < 4 || size > (64u << 20))
		return -1;
	*request_id = (uint32_t)hdr[4] << 24 | (uint32_t)hdr[5] << 16 |
	    (uint32_t)hdr[6] << 8 | hdr[7];
	*len = size - 4;
	if ((*payload = malloc(*len + 1)) == NULL)
		return -1;
	if ((r = recv_all(fd, *payload, *len, deadline)) != 1) {
		free(*payload);
		*payload = NULL;
		return r;
	}
	return 1;
}

int
support_request(int fd, uint16_t api, uint32_t id, const void *payload, size_t len)
{
	uint8_t hdr[10];
	uint32_t size = (uint32_t)len + 6;

	hdr[0] = (uint8_t)(size >> 24); hdr[1] = (uint8_t)(size >> 16);
	hdr[2] = (uint8_t)(size >> 8); hdr[3] = (uint8_t)size;
	hdr[4] = (uint8_t)(api >> 8); hdr[5] = (uint8_t)api;
	hdr[6] = (uint8_t)(id >> 24); hdr[7] = (uint8_t)(id >> 16);
	hdr[8] = (uint8_t)(id >> 8); hdr[9] = (uint8_t)id;
	if (support_send(fd, hdr, sizeof(hdr)) == -1)
		return -1;
	return len > 0 ? support_send(fd, payload, len) : 0;
}

int
support_auth(int fd, const char *user, const char *secret)
{
	crypto_auth_hmacsha256_state hs;
	uint8_t req[2 + AUTH_USER_MAX], mac[AUTH_MAC_LEN], *payload = NULL;
	size_t ulen = strlen(user), len = 0;
	uint32_t id = 0;
	int16_t err;

	if (ulen > AUTH_USER_MAX || sodium_init() < 0)
		return -1;
	req[0] = (uint8_t)(ulen >> 8);
	req[1] = (uint8_t)ulen;
	memcpy(req + 2, user, ulen);
	if (support_request(fd, API_AUTH_BEGIN, 0xA0, req, 2 + ulen) == -1 ||
	    support_recv(fd, 5000, &id, &payload, &len) != 1 || id != 0xA0 ||
	    len < 2) {
		free(payload);
		return -1;
	}
	err = (int16_t)(payload[0] << 8 | payload[1]);
	if (err != 0 || len != 2 + AUTH_NONCE_LEN) {
		free(payload);
		return err != 0 ? err : -1;
	}
	crypto_auth_hmacsha256_init(&hs, (const uint8_t *)secret, strlen(secret));
	crypto_auth_hmacsha256_update(&hs, payload + 2, AUTH_NONCE_LEN);
	crypto_auth_hmacsha256_final(&hs, mac);
	free(payload);
	payload = NULL;
	if (support_request(fd, API_AUTH_PROVE, 0xA1, mac, sizeof(mac)) == -1 ||
	    support_recv(fd, 5000, &id, &payload, &len) != 1 || id != 0xA1 ||
	    len != 2) {
		free(payload);
		return -1;
	}
	err = (int16_t)(payload[0] << 8 | payload[1]);
	free(payload);
	return err;
}

int
support_call(int fd, uint16_t api, uint32_t id, const struct wbuf *wb,
    int timeout_ms, uint8_t **payload, size_t *plen)
{
	uint8_t *p = NULL;
	size_t len = 0;
	uint32_t rid = 0;
	int r;

	if (support_request(fd, api, id, wb != NULL ? wb->buf : NULL,
	    wb != NULL ? wb->len : 0) == -1)
		return -1000;
	r = support_recv(fd, timeout_ms, &rid, &p, &len);
	if (r != 1 || len < 2 || rid != id) {
		free(p);
		return r == 0 ? -1000 : -2000;
	}
	r = (int16_t)((uint16_t)p[0] << 8 | p[1]);
	if (payload != NULL) {
		*payload = p;
		*plen = len;
	} else
		free(p);
	return r;
}

int
support_commit(int fd, const char *group, const char *member, int32_t gen,
    const char *topic, int32_t partition, int64_t offset)
{
	struct commit_part cp = { topic, strlen(topic), partition, offset };
	struct offset_commit_req q = { group, strlen(group), member,
	    strlen(member), gen, 1, &cp };
	struct offset_commit_resp r;
	struct arena a;
	struct wbuf wb;
	uint8_t *p = NULL;
	size_t len = 0;
	int e = -1;

	wbuf_init(&wb);
	msg_encode_offset_commit_req(&wb, &q);
	arena_init(&a, 1 << 16);
	if (support_call(fd, API_OFFSET_COMMIT, 0xC0, &wb, 10000, &p,
	    &len) > -1000 && msg_decode_offset_commit_resp(p, len, &a, &r) == 0)
		e = r.error != ERR_NONE ? r.error : r.count == 1 ? r.errors[0] : -1;
	free(p);
	arena_free(&a);
	wbuf_free(&wb);
	return e;
}

/* The sum of one counter (at off in struct shm_child) over the workers. */
static uint64_t
workers_sum(const struct flumed *d, size_t off)
{
	char name[SHM_NAME_MAX];
	struct shm s;
	uint64_t n = 0;
	uint32_t i;

	if (shm_name_for(d->data, name, sizeof(name)) == -1 ||
	    shm_attach(&s, name) == -1)
		return UINT64_MAX;
	for (i = 0; i < s.hdr->limits.child_slots; i++)
		if (s.children[i].role == ROLE_WORKER)
			n += atomic_load((_Atomic uint64_t *)
			    ((char *)&s.children[i] + off));
	shm_detach(&s);
	return n;
}

uint64_t
flumed_requests_taken(const struct flumed *d)
{
	return workers_sum(d, offsetof(struct shm_child, requests));
}

uint64_t
flumed_wait_connections(const struct flumed *d, uint64_t n, int timeout_ms)
{
	long long deadline = support_now_ms() + timeout_ms;
	uint64_t got;

	while ((got = workers_sum(d, offsetof(struct shm_child,
	    connections))) != n && support_now_ms() < deadline)
		usleep(10 * 1000);	/* polling a condition, bounded above */
	return got;
}

/*
 * The connections of one worker (pid) it has stopped reading: in the
 * interest list of its epoll descriptor (/proc/PID/fdinfo of the fd
 * that is an anon_inode:[eventpoll]), watched for EPOLLOUT without
 * EPOLLIN.  Listening sockets and eventfds are watched for EPOLLIN.
 */
static int
worker_reads_stopped(pid_t pid)
{
	char path[320], link[64], line[256];
	struct dirent *de;
	unsigned int ev;
	ssize_t n;
	int tfd, held = 0, found = 0;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/fd", (long)pid);
	if ((dir = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(dir)) != NULL) {
		snprintf(path, sizeof(path), "/proc/%ld/fd/%s", (long)pid,
		    de->d_name);
		if ((n = readlink(path, link, sizeof(link) - 1)) <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, "anon_inode:[eventpoll]") != 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/fdinfo/%s", (long)pid,
		    de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		found++;
		while (fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, "tfd: %d events: %x", &tfd, &ev) == 2 &&
			    (ev & EPOLLOUT) && !(ev & EPOLLIN))
				held++;
		fclose(f);
	}
	closedir(dir);
	return found == 1 ? held : -1;
}

int
flumed_wait_reads_stopped(const struct flumed *d, int n, int timeout_ms)
{
	long long deadline = support_now_ms() + timeout_ms;
	char name[SHM_NAME_MAX];
	struct shm s;
	pid_t pids[64];
	int got, np, i, k;

	if (shm_name_for(d->data, name, sizeof(name)) == -1 ||
	    shm_attach(&s, name) == -1)
		return -1;
	for (np = 0, i = 0; i < (int)s.hdr->limits.child_slots && np < 64; i++)
		if (s.children[i].role == ROLE_WORKER)
			pids[np++] = atomic_load(&s.children[i].pid);
	shm_detach(&s);
	for (;;) {
		for (got = 0, i = 0; i < np && got != -1; i++)
			got = (k = worker_reads_stopped(pids[i])) == -1 ? -1 :
			    got + k;
		if (got == n || support_now_ms() >= deadline)
			return got;
		usleep(10 * 1000);	/* polling a condition, bounded above */
	}
}

int
support_handshake(int fd, uint32_t id, int timeout_ms)
{
	struct handshake_req q = { 1, "tests", 5 };
	struct wbuf wb;
	int rc;

	wbuf_init(&wb);
	msg_encode_handshake_req(&wb, &q);
	rc = support_call(fd, API_HANDSHAKE, id, &wb, timeout_ms, NULL, NULL);
	wbuf_free(&wb);
	return rc;
}

int
support_connect_served(const struct flumed *d, int timeout_ms)
{
	int fd;

	if ((fd = support_connect(d)) == -1)
		return -1;
	if (support_handshake(fd, 1, timeout_ms) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A whole small file (at most 8 MiB), NUL terminated; NULL on failure. */
static char *
support_slurp(const char *path)
{
	char *buf;
	FILE *f;
	long sz;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (sz = ftell(f)) < 0 ||
	    sz > (8 << 20) || fseek(f, 0, SEEK_SET) != 0 ||
	    (buf = malloc((size_t)sz + 1)) == NULL) {
		fclose(f);
		return NULL;
	}
	if (fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		fclose(f);
		free(buf);
		return NULL;
	}
	buf[sz] = '\0';
	fclose(f);
	return buf;
}

int
support_run_cmd(const char *path, const char *const argv[], const char *input,
    char **out, char **err, int timeout_ms)
{
	char *dir, fin[600], fout[600], ferr[600];
	long long deadline;
	int status = -1, fd;
	pid_t pid, r;
	FILE *f;

	if ((dir = test_mkdtemp("cmd")) == NULL)
		return -1;
	snprintf(fin, sizeof(fin), "%s/in", dir);
	snprintf(fout, sizeof(fout), "%s/out", dir);
	snprintf(ferr, sizeof(ferr), "%s/err", dir);
	if ((f = fopen(fin, "w")) == NULL) {
		test_rmtree(dir);
		free(dir);
		return -1;
	}
	if (input != NULL)
		fputs(input, f);
	fclose(f);
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) == -1) {
		test_rmtree(dir);
		free(dir);
		return -1;
	}
	if (pid == 0) {
		if ((fd = open(fin, O_RDONLY)) != -1)
			dup2(fd, STDIN_FILENO);
		if ((fd = open(fout, O_WRONLY | O_CREAT | O_TRUNC, 0600)) != -1)
			dup2(fd, STDOUT_FILENO);
		if ((fd = open(ferr, O_WRONLY | O_CREAT | O_TRUNC, 0600)) != -1)
			dup2(fd, STDERR_FILENO);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	deadline = support_now_ms() + timeout_ms;
	for (;;) {
		if ((r = waitpid(pid, &status, WNOHANG)) == pid)
			break;
		if (r == -1 && errno != EINTR) {
			status = -1;
			break;
		}
		if (support_now_ms() >= deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			status = -1;
			break;
		}
		usleep(5 * 1000);	/* polling the child's exit, bounded */
	}
	if (out != NULL)
		*out = support_slurp(fout);
	if (err != NULL)
		*err = support_slurp(ferr);
	test_rmtree(dir);
	free(dir);
	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int
support_tool(const char *input, char **out, char **err, const char *name, ...)
{
	const char *argv[32];
	char path[600];
	va_list ap;
	int n = 1;

	snprintf(path, sizeof(path), "%s/%s", support_bindir(), name);
	argv[0] = name;
	va_start(ap, name);
	while (n < 31 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	return support_run_cmd(path, argv, input, out, err, 30000);
}

int
support_kafka_call(int fd, const struct kmsg *m, int16_t v, int32_t corr,
    const void *req, void *resp, struct arena *a, uint8_t **raw)
{
	struct kreq_hdr h;
	struct wbuf wb;
	uint8_t *p = NULL;
	size_t n = 0, skip;
	uint32_t id = 0;
	int rc;

	*raw = NULL;
	memset(&h, 0, sizeof(h));
	h.api_key = m->km_key;
	h.api_version = v;
	h.correlation_id = corr;
	h.client_id = kstr_c("test");
	wbuf_init(&wb);
	wbuf_i32(&wb, 0);
	if (kmsg_encode_req_hdr(&h, &wb) == -1 ||
	    kmsg_encode_req(m, v, req, &wb) == -1) {
		wbuf_free(&wb);
		return -1;
	}
	wbuf_put_u32_at(&wb, 0, (uint32_t)(wb.len - 4));
	rc = support_send(fd, wb.buf, wb.len);
	wbuf_free(&wb);
	if (rc == -1 || support_recv(fd, 10000, &id, &p, &n) != 1)
		return -1;
	*raw = p;
	/* Response header v1: an empty tagged field section. */
	skip = kmsg_resp_hdr_version(m->km_key, v) >= 1 ? 1 : 0;
	if (id != (uint32_t)corr || n < skip || (skip && p[0] != 0))
		return -1;
	return kmsg_decode_resp(m, v, resp, p + skip, n - skip, a);
}

int
support_ksend(int fd, const struct kmsg *m, int16_t v, int32_t corr,
    const void *q)
{
	struct kreq_hdr h;
	struct wbuf wb;
	int rc = -1;

	wbuf_init(&wb);
	wbuf_i32(&wb, 0);
	h.api_key = m->km_key;
	h.api_version = v;
	h.correlation_id = corr;
	h.client_id = kstr_c("test");
	if (kmsg_encode_req_hdr(&h, &wb) == 0 &&
	    kmsg_encode_req(m, v, q, &wb) == 0) {
		wbuf_put_u32_at(&wb, 0, (uint32_t)(wb.len - 4));
		rc = support_send(fd, wb.buf, wb.len);
	}
	wbuf_free(&wb);
	return rc;
}

int
support_krecv(int fd, const struct kmsg *m, int16_t v, int32_t corr,
    void *resp, struct arena *a)
{
	uint8_t *buf = NULL, *keep;
	uint32_t id = 0;
	size_t n = 0, off;
	int rc = -1;

	if (support_recv(fd, 20000, &id, &buf, &n) == 1 &&
	    id == (uint32_t)corr) {
		off = kmsg_resp_hdr_version(m->km_key, v) == 1 ? 1 : 0;
		if (n >= off && (keep = arena_alloc(a, n)) != NULL) {
			memcpy(keep, buf, n);
			rc = kmsg_decode_resp(m, v, resp, keep + off, n - off,
			    a);
		}
	}
	free(buf);
	return rc;
}

int
support_init_producer(int fd, int64_t *pid, int16_t *epoch)
{
	struct init_producer_req q = { -1, -1 };
	struct init_producer_resp r;
	struct wbuf wb;
	uint8_t *payload = NULL;
	size_t plen;
	int rc;

	wbuf_init(&wb);
	msg_encode_init_producer_req(&wb, &q);
	rc = support_call(fd, API_INIT_PRODUCER, 3, &wb, 10000, &payload, &plen);
	if (rc == 0 && msg_decode_init_producer_resp(payload, plen, &r) == 0) {
		*pid = r.producer_id;
		*epoch = r.producer_epoch;
	} else
		rc = -1;
	free(payload);
	wbuf_free(&wb);
	return rc;
}
