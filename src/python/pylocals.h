/* A frame's local variables, read from a running CPython 2.7 or 3.6-3.13 from outside (lperf dump
 * --locals, py-spy's dump --locals): the names from the code object (co_varnames, co_cellvars and
 * co_freevars up to 3.10; co_localsplusnames and its kinds from 3.11), the values from the frame
 * (PyFrameObject.f_localsplus up to 3.10; _PyInterpreterFrame.localsplus from 3.11), arguments
 * first. Each value is read as what its type is (python/ reads; output/ writes the repr): None,
 * bool, int (up to PYVAL_INT_DIGITS digits of 30 bits), float, str and bytes (their first
 * PYVAL_STR_MAX characters), the sizes of lists, tuples, dicts and sets, and the type's name and
 * address of anything else. Every read is bounded and checked: the process is untrusted and may
 * change under a read that does not pause it. */
#ifndef LPERF_PYTHON_PYLOCALS_H
#define LPERF_PYTHON_PYLOCALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pyread;

#define PYVAL_INT_DIGITS 8     /* 240 bits: larger ints are shown by type and address */
#define PYVAL_STR_MAX 128      /* characters (str) or bytes (bytes) read of a value */
#define PYLOCALS_MAX 256       /* locals read of one frame */

enum pyval_kind {
	PYVAL_UNREADABLE = 0,  /* the object or its type could not be read */
	PYVAL_NONE,
	PYVAL_BOOL,            /* truth */
	PYVAL_INT,             /* neg, digits */
	PYVAL_FLOAT,           /* f */
	PYVAL_STR,             /* data (UTF-8), len, cut */
	PYVAL_BYTES,           /* data, len, cut; b_prefix: 3.x bytes (2.7's str has none) */
	PYVAL_LIST,            /* count */
	PYVAL_TUPLE,
	PYVAL_DICT,
	PYVAL_SET,             /* set or frozenset (type says which) */
	PYVAL_OTHER,           /* type and addr only */
};

struct pyvalue {
	enum pyval_kind kind;
	char type[48];            /* the type's tp_name ("" when unreadable) */
	uint64_t addr;            /* the object's address */
	bool truth;               /* PYVAL_BOOL */
	bool neg;                 /* PYVAL_INT: negative */
	bool b_prefix;            /* PYVAL_BYTES: a 3.x bytes object (b'...') */
	bool cut;                 /* PYVAL_STR, PYVAL_BYTES: longer than data */
	unsigned ndigits;         /* PYVAL_INT: base 2**30 digits, least significant first */
	uint32_t digits[PYVAL_INT_DIGITS];
	double f;                 /* PYVAL_FLOAT */
	char *data;               /* PYVAL_STR, PYVAL_BYTES (NUL-terminated, len bytes) */
	size_t len;
	int64_t count;            /* PYVAL_LIST, _TUPLE, _DICT, _SET: the number of items */
};

struct pylocal {
	char *name;
	bool arg;                 /* an argument of the function (they come first) */
	struct pyvalue v;
};

/* The reader's cache of type names (types are few and shared by many values). */
struct pylocals {
	struct pyread *r;
	struct { uint64_t addr; char name[48]; } types[64];
	size_t ntypes;
};

void pylocals_init(struct pylocals *pl, struct pyread *r);
/* The bound locals of the frame at address frame running code object code, arguments first
 * (unbound ones and empty cells are left out; a cell's content is shown); *out is allocated
 * (NULL when there are none). Returns how many; 0 when the code or frame cannot be read. */
size_t pylocals_read(struct pylocals *pl, uint64_t frame, uint64_t code, struct pylocal **out);
/* The object at addr, as a value. */
void pylocals_value(struct pylocals *pl, uint64_t addr, struct pyvalue *v);
void pylocals_free(struct pylocal *l, size_t n);

#endif
