/* A minimal HTTP/1.0 endpoint for a scrape (lperf stat --prometheus): it listens on one address
 * (loopback unless told otherwise), serves GET /metrics with the body its caller builds, answers
 * 404 to any other path and 405 to any other method, one request per connection. Polled from the
 * caller's loop: it never blocks for long (a slow client gets 200 ms). */
#ifndef LPERF_UTIL_HTTPD_H
#define LPERF_UTIL_HTTPD_H

/* "ADDR:PORT", ":PORT" or "PORT" (ADDR then 127.0.0.1); IPv4 addresses, or [IPv6]:PORT. The
 * listening socket (non-blocking), -1 with err_set. */
int httpd_listen(const char *spec);
/* Serves the connections waiting (none: returns at once). body(arg) builds /metrics' text (freed
 * here). The number of requests answered. */
int httpd_serve(int fd, const char *content_type, char *(*body)(void *arg), void *arg);

#endif
