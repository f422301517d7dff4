/* A streaming JSON writer: correct escaping and commas, optional pretty indentation. Keys are
 * given for object members and NULL for array elements. */
#ifndef LPERF_OUTPUT_JSON_H
#define LPERF_OUTPUT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json {
	FILE *f;
	int depth;
	bool pretty;
	bool need_comma[64];
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_begin_object(struct json *j, const char *key);
void json_end_object(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);
void json_str(struct json *j, const char *key, const char *val); /* NULL val writes null */
void json_u64(struct json *j, const char *key, uint64_t val);
void json_i64(struct json *j, const char *key, int64_t val);
/* Non-finite values (n/a metrics) are written as null. */
void json_double(struct json *j, const char *key, double val);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
/* Ends the document with a newline. */
void json_finish(struct json *j);

#endif
