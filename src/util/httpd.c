#include "util/httpd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/error.h"
#include "util/parse.h"
#include "util/xalloc.h"

int httpd_listen(const char *spec)
{
	char *host = NULL;
	const char *port = spec;
	const char *colon = strrchr(spec, ':');
	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');
		if (!end || end[1] != ':')
			return err_set("'%s' is not [IPv6]:PORT", spec);
		host = xstrndup(spec + 1, (size_t)(end - spec - 1));
		port = end + 2;
	} else if (colon) {
		host = colon == spec ? NULL : xstrndup(spec, (size_t)(colon - spec));
		port = colon + 1;
	}
	int p;
	if (parse_int(port, &p) < 0 || p < 1 || p > 65535) {
		free(host);
		return err_set("'%s': the port must be 1..65535", spec);
	}
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	socklen_t len;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, host ? host : "127.0.0.1", &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)p);
		len = sizeof(*a4);
	} else if (host && inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)p);
		len = sizeof(*a6);
	} else {
		err_set("'%s' is not an IP address (127.0.0.1, 0.0.0.0, [::1])", host);
		free(host);
		return -1;
	}
	free(host);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 16) < 0) {
		err_set("cannot listen on %s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void send_all(int c, const char *s, size_t n)
{
	while (n) {
		ssize_t w = send(c, s, n, MSG_NOSIGNAL);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void answer(int c, const char *status, const char *type, const char *body)
{
	char head[256];
	int n = snprintf(head, sizeof(head), "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n\r\n", status, type, strlen(body));
	send_all(c, head, (size_t)n);
	send_all(c, body, strlen(body));
}

/* One connection: its request line (the headers are read and ignored), then the answer. */
static void serve_one(int c, const char *content_type, char *(*body)(void *arg), void *arg)
{
	char req[4096];
	size_t n = 0;
	struct pollfd p = { c, POLLIN, 0 };
	/* A whole request within 1 s: a client that sends a byte now and then cannot hold up the
	 * counting loop this runs in. */
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (n < sizeof(req) - 1 && poll(&p, 1, 200) > 0) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > 1000)
			break;
		ssize_t r = recv(c, req + n, sizeof(req) - 1 - n, 0);
		if (r <= 0)
			break;
		n += (size_t)r;
		req[n] = 0;
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			break;
	}
	req[n] = 0;
	char method[16] = "", path[1024] = "";
	if (sscanf(req, "%15s %1023s", method, path) != 2) {
		answer(c, "400 Bad Request", "text/plain", "bad request\n");
		return;
	}
	char *q = strchr(path, '?');
	if (q)
		*q = 0;
	if (strcmp(method, "GET"))
		answer(c, "405 Method Not Allowed", "text/plain", "only GET\n");
	else if (strcmp(path, "/metrics"))
		answer(c, "404 Not Found", "text/plain", "only /metrics is served here\n");
	else {
		char *text = body(arg);
		answer(c, "200 OK", content_type, text);
		free(text);
	}
}

int httpd_serve(int fd, const char *content_type, char *(*body)(void *arg), void *arg)
{
	int served = 0;
	for (;;) {
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			return served;
		serve_one(c, content_type, body, arg);
		close(c);
		served++;
	}
}
