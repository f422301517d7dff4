#include "util/httpc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

#ifdef LPERF_HAVE_RW
#include <curl/curl.h>

struct httpc {
	CURL *curl;
	char *url;
	char reply[201];
	size_t nreply;
	char errbuf[CURL_ERROR_SIZE];
};

/* Keeps the body's first line (a server's reason for a 4xx/5xx). */
static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct httpc *h = arg;
	size_t len = size * n;
	for (size_t i = 0; i < len && h->nreply < sizeof(h->reply) - 1; i++) {
		if (p[i] == '\n' || p[i] == '\r') {
			h->nreply = sizeof(h->reply) - 1; /* the first line only */
			break;
		}
		h->reply[h->nreply++] = p[i];
	}
	return len;
}

static int global_refs;

struct httpc *httpc_new(const char *url)
{
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		err_set("'%s' is not an http:// or https:// URL", url);
		return NULL;
	}
	if (global_refs++ == 0 && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		global_refs--;
		err_set("cannot initialise libcurl");
		return NULL;
	}
	struct httpc *h = xcalloc(1, sizeof(*h));
	h->url = xstrdup(url);
	if (!(h->curl = curl_easy_init())) {
		httpc_free(h);
		err_set("cannot initialise libcurl");
		return NULL;
	}
	CURL *c = h->curl;
	curl_easy_setopt(c, CURLOPT_URL, h->url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 1000L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, h);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, h->errbuf);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "lperf");
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	return h;
}

int httpc_post(struct httpc *h, const void *body, size_t len, const char *const *headers,
	       const char **reply)
{
	struct curl_slist *hl = NULL;
	for (; headers && *headers; headers++)
		hl = curl_slist_append(hl, *headers);
	h->nreply = 0;
	h->errbuf[0] = 0;
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	CURLcode rc = curl_easy_perform(h->curl);
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(hl);
	h->reply[h->nreply < sizeof(h->reply) ? h->nreply : sizeof(h->reply) - 1] = 0;
	if (reply)
		*reply = h->reply;
	if (rc != CURLE_OK)
		return err_set("%s: %s", h->url, h->errbuf[0] ? h->errbuf : curl_easy_strerror(rc));
	long status = 0;
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
	return (int)status;
}

void httpc_free(struct httpc *h)
{
	if (!h)
		return;
	if (h->curl)
		curl_easy_cleanup(h->curl);
	free(h->url);
	free(h);
	if (--global_refs == 0)
		curl_global_cleanup();
}

#else /* built without libcurl (the arm64 cross build) */

struct httpc *httpc_new(const char *url)
{
	(void)url;
	err_set("this lperf was built without libcurl, libsnappy and libprotobuf-c (no remote write)");
	return NULL;
}

int httpc_post(struct httpc *h, const void *body, size_t len, const char *const *headers,
	       const char **reply)
{
	(void)h, (void)body, (void)len, (void)headers, (void)reply;
	return err_set("no HTTP client in this build");
}

void httpc_free(struct httpc *h)
{
	(void)h;
}
#endif
