/* The running kernel's symbol snapshot (symbols/ksnap.h) written as /proc/kallsyms is read
 * (kstream.c), for a first report: parsing the whole text into symbols (symtab_finish) and then
 * serialising them (ksnap_build) needed about 20 MB for a moment (the text, the candidates and
 * their names, the symbols, the file's bytes), on the kernel read-ahead thread alongside the walk
 * (symbols/kahead.h). Here the text is read in 256 KB pieces, each name goes to the file's string
 * table as it is parsed (a memfd: page cache, not this process's memory) and only 16 bytes per
 * symbol stay (about 2 MB for 122,000 symbols), mapped and handed back whole.
 *
 * The snapshot answers every lookup as ksnap_build's of kallsyms_parse_text's symbols does: the
 * same symbols, sizes, names and core range, by the same rules (one symbol per address, the last
 * listed; a symbol runs to the next; the last to the end of its page and one more; names
 * demangled by symtab_final_name, modules' tagged " [module]"). Only the string table's order
 * differs (the order read; names of aliases that lose stay in it, unused), which its readers do
 * not depend on: the format version is ksnap.h's. tests/unit/test_kstream.c is the oracle. */
#ifndef LPERF_SYMBOLS_KSTREAM_H
#define LPERF_SYMBOLS_KSTREAM_H

#include "symbols/ksnap.h"

/* Reads the kallsyms file at path and writes its snapshot for key k into fd (empty, opened for
 * reading and writing; written with pwrite, its header last). 0, or -1 with err_set(): no text
 * symbols (addresses hidden, not kallsyms), an unreadable file, a failed write. */
int kstream_write(const char *path, const struct ksnap_key *k, int fd);

#endif
