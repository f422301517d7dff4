#include "util/httpc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

#ifdef LPERF_HAVE_RW
/* Plain prototypes (no GCC type-check macros): libcurl's functions are called through pointers. */
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <dlfcn.h>

/* libcurl is loaded when a URL is first given, not linked: linked, it and the ~35 libraries it
 * pulls in (TLS, Kerberos, LDAP, ...) cost every lperf command 8 ms and 8 MB at start-up
 * (make bench: start-up 6 ms and 8.8 MB without it, 14 ms and 17 MB with it). */
static struct {
	void *lib;
	CURLcode (*global_init)(long);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
} C;

static int curl_load(void)
{
	if (C.lib)
		return 0;
	void *l = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!l)
		return err_set("cannot load libcurl (libcurl.so.4, Debian's libcurl4): %s", dlerror());
	static const char *const names[] = { "curl_global_init", "curl_global_cleanup", "curl_easy_init",
		"curl_easy_setopt", "curl_easy_perform", "curl_easy_getinfo", "curl_easy_cleanup",
		"curl_easy_strerror", "curl_slist_append", "curl_slist_free_all" };
	void **slots[] = { (void **)&C.global_init, (void **)&C.global_cleanup, (void **)&C.easy_init,
		(void **)&C.easy_setopt, (void **)&C.easy_perform, (void **)&C.easy_getinfo,
		(void **)&C.easy_cleanup, (void **)&C.easy_strerror, (void **)&C.slist_append,
		(void **)&C.slist_free_all };
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!(*slots[i] = dlsym(l, names[i]))) {
			dlclose(l);
			return err_set("libcurl.so.4 has no %s", names[i]);
		}
	C.lib = l;
	return 0;
}

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
	if (curl_load() < 0)
		return NULL;
	if (global_refs++ == 0 && C.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		global_refs--;
		err_set("cannot initialise libcurl");
		return NULL;
	}
	struct httpc *h = xcalloc(1, sizeof(*h));
	h->url = xstrdup(url);
	if (!(h->curl = C.easy_init())) {
		httpc_free(h);
		err_set("cannot initialise libcurl");
		return NULL;
	}
	CURL *c = h->curl;
	C.easy_setopt(c, CURLOPT_URL, h->url);
	C.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	C.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 1000L);
	C.easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
	C.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	C.easy_setopt(c, CURLOPT_WRITEDATA, h);
	C.easy_setopt(c, CURLOPT_ERRORBUFFER, h->errbuf);
	C.easy_setopt(c, CURLOPT_USERAGENT, "lperf");
	C.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	return h;
}

int httpc_post(struct httpc *h, const void *body, size_t len, const char *const *headers,
	       const char **reply)
{
	struct curl_slist *hl = NULL;
	for (; headers && *headers; headers++)
		hl = C.slist_append(hl, *headers);
	h->nreply = 0;
	h->errbuf[0] = 0;
	C.easy_setopt(h->curl, CURLOPT_HTTPHEADER, hl);
	C.easy_setopt(h->curl, CURLOPT_POSTFIELDS, body);
	C.easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	CURLcode rc = C.easy_perform(h->curl);
	C.easy_setopt(h->curl, CURLOPT_HTTPHEADER, NULL);
	C.slist_free_all(hl);
	h->reply[h->nreply < sizeof(h->reply) ? h->nreply : sizeof(h->reply) - 1] = 0;
	if (reply)
		*reply = h->reply;
	if (rc != CURLE_OK)
		return err_set("%s: %s", h->url, h->errbuf[0] ? h->errbuf : C.easy_strerror(rc));
	long status = 0;
	C.easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
	return (int)status;
}

void httpc_free(struct httpc *h)
{
	if (!h)
		return;
	if (h->curl)
		C.easy_cleanup(h->curl);
	free(h->url);
	free(h);
	if (--global_refs == 0)
		C.global_cleanup();
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
