/* util/httpd: the scrape endpoint of stat --prometheus. Addresses (loopback by default), bad
 * specs, and a request answered: /metrics with the caller's body, other paths 404, other
 * methods 405. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/error.h"
#include "util/httpd.h"
#include "util/xalloc.h"

static char *body(void *arg)
{
	return xstrdup(arg);
}

/* Sends req to the endpoint of fd and returns the answer. */
static char *roundtrip(int fd, const char *req)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	assert_int_equal(a.sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	int c = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(c, (struct sockaddr *)&a, len), 0);
	assert_int_equal(write(c, req, strlen(req)), (int)strlen(req));
	assert_int_equal(httpd_serve(fd, "text/plain; version=0.0.4", body, "lperf_event_total 1\n"), 1);
	static char buf[1024];
	ssize_t n, got = 0;
	while ((n = read(c, buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = 0;
	close(c);
	return buf;
}

static void test_serve(void **state)
{
	(void)state;
	int fd = httpd_listen("127.0.0.1:0"); /* port 0 is refused */
	assert_int_equal(fd, -1);
	assert_non_null(strstr(err_msg(), "the port must be 1..65535"));
	/* a free port: bind one, close it, reuse it */
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	assert_int_equal(bind(s, (struct sockaddr *)&a, len), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&a, &len), 0);
	close(s);
	char spec[16];
	snprintf(spec, sizeof(spec), "%d", ntohs(a.sin_port)); /* a bare port: loopback */
	fd = httpd_listen(spec);
	assert_true(fd >= 0);
	assert_int_equal(httpd_serve(fd, "x", body, ""), 0); /* nobody waiting: at once */
	char *r = roundtrip(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
	assert_non_null(strstr(r, "HTTP/1.0 200 OK\r\n"));
	assert_non_null(strstr(r, "Content-Type: text/plain; version=0.0.4\r\n"));
	assert_non_null(strstr(r, "\r\n\r\nlperf_event_total 1\n"));
	r = roundtrip(fd, "GET /etc/passwd HTTP/1.0\r\n\r\n");
	assert_non_null(strstr(r, "404 Not Found"));
	r = roundtrip(fd, "POST /metrics HTTP/1.0\r\n\r\n");
	assert_non_null(strstr(r, "405"));
	close(fd);
}

static void test_bad_specs(void **state)
{
	(void)state;
	assert_int_equal(httpd_listen("localhost:9100"), -1);
	assert_non_null(strstr(err_msg(), "not an IP address"));
	assert_int_equal(httpd_listen("127.0.0.1:70000"), -1);
	assert_int_equal(httpd_listen("[::1"), -1);
	assert_int_equal(httpd_listen("x"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_serve),
		cmocka_unit_test(test_bad_specs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
