/* A minimal HTTP client for pushes (stat --remote-write): POSTs a body to one URL with Debian's
 * libcurl, keeping the connection between posts. Bounded waits (1 s to connect, 5 s in all), so
 * a hung server holds up the caller's loop for at most that long. */
#ifndef LPERF_UTIL_HTTPC_H
#define LPERF_UTIL_HTTPC_H

#include <stddef.h>

struct httpc;

/* A client for url (http:// or https://). NULL with err_set for another scheme, or when lperf
 * was built without libcurl. */
struct httpc *httpc_new(const char *url);
/* POSTs len bytes with the given header lines (NULL-terminated). Returns the HTTP status, or -1
 * with err_set when no answer came (refused, timed out, reset). *reply: the answer body's first
 * line (up to 200 bytes; owned by h, valid until the next post). */
int httpc_post(struct httpc *h, const void *body, size_t len, const char *const *headers,
	       const char **reply);
void httpc_free(struct httpc *h);

#endif
