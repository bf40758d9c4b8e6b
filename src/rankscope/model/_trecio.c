/*
 * rankscope._trecio: the compiled TREC reader and string interner.
 *
 * It accepts and rejects exactly what the pure-Python reader in read/trec.py does; on bad
 * input it returns an error description and Python formats the message, so both readers
 * say the same thing.  Ids are interned into dense int32 codes with an open-addressing hash
 * table over a byte arena; Python strings are only made on request.
 *
 * Grammar (the one of read/fields.py, which every reader of numbers follows):
 *   line    := blank | comment | fields        (lines end at '\n'; whitespace = C isspace)
 *              a line holding a NUL byte, comment or not, is an error ("nul")
 *   comment := first non-blank character is '#'
 *   qrels   := exactly 4 fields: qid iter docno grade      grade := [+-]?[0-9]{1,18}
 *   run     := at least 6 fields: qid iter docno rank score tag [ignored ...]
 *   score   := [+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?   (finite)
 *              | [+-]?(inf|infinity|nan) (any case) -> rejected as not finite
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <unistd.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__) || defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || \
    defined(__OpenBSD__)
#define HAVE_STRTOD_L 1
#include <locale.h>
#ifdef __APPLE__
#include <xlocale.h>
#endif
#endif
#ifdef __linux__
#include <sys/mman.h>
#endif
#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Large zeroed blocks.  On Linux they are mapped with transparent huge pages: touching a
   few hundred MB of fresh 4 KB pages costs more page faults than the parsing itself. */
typedef struct {
    void *p;
    size_t size;
    int mapped;
} Block;

#ifdef TRECIO_PLAIN_MALLOC
/* every block from malloc, where AddressSanitizer watches its bounds (.ci/sanitize) */
#define HUGE_THRESHOLD SIZE_MAX
#else
#define HUGE_THRESHOLD (4u << 20)
#endif

static void block_advise(void *p, size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    uintptr_t start = ((uintptr_t)p + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1);
    uintptr_t end = ((uintptr_t)p + size) & ~(uintptr_t)((2u << 20) - 1);
    if (end > start) madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)p; (void)size;
#endif
}

static int block_alloc(Block *b, size_t size) {
    b->size = size;
    b->mapped = 0;
#ifdef __linux__
    if (size >= HUGE_THRESHOLD) {
        void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            block_advise(p, size);
            b->p = p;
            b->mapped = 1;
            return 0;
        }
    }
#endif
    b->p = calloc(1, size ? size : 1);
    return b->p ? 0 : -1;
}

static void block_free(Block *b) {
    if (!b->p) return;
#ifdef __linux__
    if (b->mapped) { munmap(b->p, b->size); b->p = NULL; return; }
#endif
    free(b->p);
    b->p = NULL;
}

/* Grow to `size` bytes keeping the content (size only grows). */
static int block_grow(Block *b, size_t size) {
    if (size <= b->size) return 0;
#ifdef __linux__
    if (b->mapped) {
        void *p = mremap(b->p, b->size, size, MREMAP_MAYMOVE);
        if (p != MAP_FAILED) {
            block_advise(p, size);
            b->p = p;
            b->size = size;
            return 0;
        }
        /* (a block whose size is no multiple of 2 MB is two mappings once advised, huge
           pages and the rest, which mremap refuses to move as one: copied instead) */
        Block nb;
        if (block_alloc(&nb, size) < 0) return -1;
        memcpy(nb.p, b->p, b->size);
        block_free(b);
        *b = nb;
        return 0;
    }
    if (size >= HUGE_THRESHOLD) {
        Block nb;
        if (block_alloc(&nb, size) < 0) return -1;
        if (b->p) memcpy(nb.p, b->p, b->size); /* an empty block has no memory yet */
        free(b->p);
        *b = nb;
        return 0;
    }
#endif
    void *p = realloc(b->p, size);
    if (!p) return -1;
    memset((char *)p + b->size, 0, size - b->size);
    b->p = p;
    b->size = size;
    return 0;
}

/* ------------------------------------------------------------------------------------- */
/* Interner                                                                               */

/* A table slot: the hash's high 32 bits, the code + 1 (0 = empty), and where the string
   is (arena offset in the low 40 bits, length in the high 24), so that a probe compares
   without touching the per-code arrays.  An id of LONG_ID bytes or more (16 MB) has
   LONG_ID as its length there, and its length is read from `offsets`. */
typedef struct {
    uint32_t tag;
    uint32_t code1;
    uint64_t where;
} Slot;

#define LONG_ID ((1u << 24) - 1)
#define WHERE(off, len) \
    ((uint64_t)(off) | ((uint64_t)((len) < LONG_ID ? (len) : LONG_ID) << 40))
#define WHERE_OFF(w) ((w) & 0xFFFFFFFFFFULL)
#define WHERE_LEN(w) ((size_t)((w) >> 40))

/* A per-query interner's table and filter, lent to its copies (see Interner_copy): never
   written again; freed by the last of them to let go (`refs`, atomic: without the GIL). */
typedef struct {
    Block slots;
    uint64_t *filter;
    int refs;
} Lent;

typedef struct {
    PyObject_HEAD
    Slot *slots;         /* = slot_block.p, or lent->slots.p */
    Block slot_block;    /* (empty while the table is lent) */
    Lent *lent;          /* the table and filter it reads, shared and read-only; NULL: its own */
    size_t mask;         /* capacity - 1 (power of two) */
    char *arena;         /* = arena_block.p */
    Block arena_block;
    size_t arena_len;
    int64_t *offsets;    /* start of each string in arena; offsets[n] = arena_len */
    Block offsets_block; /* (offsets = offsets_block.p) */
    Py_ssize_t n, ncap;
    PyObject *strings;   /* list of str for codes [0, len(strings)), made on demand */
    int busy;            /* parsers feeding it without the GIL (see wait_idle) */
    size_t indexed;      /* codes in the table: n, but for a per-query interner's */
    int per_query;       /* a parser numbers the ids it lacks query by query (see
                            Interner_per_query): those are in the arena, not the table */
    uint64_t *filter;    /* a per-query interner's: two bits set per id of the table */
    size_t filter_mask;  /* bits - 1 */
} Interner;

static int interner_own(Interner *self);

/* The length of the id in `slot`. */
static inline size_t slot_len(const Interner *self, const Slot *slot) {
    size_t len = WHERE_LEN(slot->where);
    if (len < LONG_ID) return len;
    int64_t c = (int64_t)slot->code1 - 1;
    return (size_t)(self->offsets[c + 1] - self->offsets[c]);
}

/* The hash of the `len` bytes at s; `limit`: where the memory readable after them ends
   (s + len at least), so that the last 0-7 bytes may be read as one word when 8 bytes are
   there to read (the rest of a line's fields follow a document id). */
static inline uint64_t hash_bytes_within(const char *s, size_t len, const char *limit) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)len;
    size_t i = 0;
    while (i + 8 <= len) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h ^= w;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
        i += 8;
    }
    uint64_t w = 0;  /* the last 0-7 bytes, as memcpy would load them on little-endian
                        machines, without a call for a run-time length */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (len > i && (size_t)(limit - (s + i)) >= 8) {  /* one load, the bytes after masked */
        memcpy(&w, s + i, 8);
        w &= ~(uint64_t)0 >> (8 * (8 - (len - i)));
    } else
#endif
    {
        (void)limit;
        for (size_t j = 0; i + j < len; j++) w |= (uint64_t)(unsigned char)s[i + j] << (8 * j);
    }
    h ^= w;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 29;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
    return h;
}

static uint64_t hash_bytes(const char *s, size_t len) { return hash_bytes_within(s, len, s + len); }

/* Resize the table to hold at least `entries` ids at load <= 3/4; -1 when memory runs out
   (no exception set: this runs without the GIL too). */
static int interner_reserve(Interner *self, size_t entries) {
    size_t cap = self->mask + 1;
    while (cap * 3 < 4 * entries + 4) cap *= 2;
    if (cap == self->mask + 1) return 0;
    if (interner_own(self) < 0) return -1;
    Block block;
    if (block_alloc(&block, cap * sizeof(Slot)) < 0) return -1;
    Slot *slots = block.p;
    /* the table's own entries moved (not every code: a per-query interner's codes beyond
       its table are not looked up) */
    for (size_t k = 0; k <= self->mask; k++) {
        const Slot *old = &self->slots[k];
        if (!old->code1) continue;
        uint64_t h = hash_bytes(self->arena + WHERE_OFF(old->where), slot_len(self, old));
        size_t i = (size_t)h & (cap - 1);
        while (slots[i].code1) i = (i + 1) & (cap - 1);
        slots[i] = *old;
    }
    block_free(&self->slot_block);
    self->slot_block = block;
    self->slots = slots;
    self->mask = cap - 1;
    return 0;
}

/* The tables and the arenas of the last two large interners freed, kept (under the GIL)
   for the next interners that need one as large: a run read block by block copies the
   judged documents' interner for each block, and fresh memory each time had the kernel
   fault in and zero pages that the copy and the block's ids then overwrite (a table is
   copied over whole, an arena is read only up to its length: neither needs zeroing).  Two:
   a block's interner lives on while the next block is read (rankscope.table.many parses a
   block while the one before is evaluated).  Only blocks from SPARE_MIN to SPARE_MAX bytes
   are kept (see spare_recs). */
#define SPARES 2
static Block spare_slots[SPARES], spare_arena[SPARES], spare_offsets[SPARES];
#define SPARE_MIN ((size_t)4 << 20)
#define SPARE_MAX ((size_t)256 << 20)
/* The spares (these two and spare_recs) are taken and given back under this lock: a parser
   interning without the GIL may grow an arena while another thread frees an interner. */
static pthread_mutex_t spare_mu = PTHREAD_MUTEX_INITIALIZER;

/* One of the `n` spares `spares` whose size `fits` says will do, taken (its memory now the
   caller's); else an empty block. */
static Block spare_take(Block *spares, int n, int (*fits)(size_t size, size_t want),
                        size_t want) {
    Block out = {0};
    pthread_mutex_lock(&spare_mu);
    for (int i = 0; i < n; i++) {
        if (spares[i].p && fits(spares[i].size, want)) {
            out = spares[i];
            spares[i].p = NULL;
            spares[i].size = 0;
            break;
        }
    }
    pthread_mutex_unlock(&spare_mu);
    return out;
}

/* (not an arena much larger than asked: the interner may live long) */
static int arena_fits(size_t size, size_t want) { return size >= want && size / 2 <= want; }

/* `b` at least `size` bytes, its first `keep` bytes kept: one of the `spares` that fits
   (arena_fits), else `b` grown; -1 when memory runs out (no exception set). */
static int block_reserve(Block *b, size_t size, size_t keep, Block *spares) {
    if (size <= b->size) return 0;
    Block spare = spare_take(spares, SPARES, arena_fits, size);
    if (!spare.p) return block_grow(b, size);
    if (keep) memcpy(spare.p, b->p, keep);
    block_free(b);
    *b = spare;
    return 0;
}

/* Room for `more` further bytes of ids in the arena; -1 when memory runs out (no exception
   set: this runs without the GIL too). */
static int interner_reserve_arena(Interner *self, size_t more) {
    size_t need = self->arena_len + more;
    if (need <= self->arena_block.size) return 0;
    size_t cap = self->arena_block.size ? self->arena_block.size : 1 << 16;
    while (cap < need) cap *= 2;
    if (block_reserve(&self->arena_block, cap, self->arena_len, spare_arena) < 0) return -1;
    self->arena = self->arena_block.p;
    return 0;
}

/* First-stage prefetch: the slot where a probe for hash h starts. */
static inline void interner_prefetch(const Interner *self, uint64_t h) {
    __builtin_prefetch(&self->slots[(size_t)h & self->mask]);
}

/* Second-stage prefetch: the strings of slots whose tag matches (call once the slots are
   in cache). */
static inline void interner_prefetch_strings(const Interner *self, uint64_t h) {
    size_t i = (size_t)h & self->mask;
    uint32_t tag = (uint32_t)(h >> 32);
    for (;;) {
        const Slot *slot = &self->slots[i];
        if (!slot->code1) return;
        if (slot->tag == tag) __builtin_prefetch(self->arena + WHERE_OFF(slot->where));
        i = (i + 1) & self->mask;
    }
}

/* The two bits of a per-query interner's filter for hash h: both from the tag (the hash's
   high 32 bits), which the table keeps, so that the filter is made from the table alone. */
static inline size_t filter_bit1(const Interner *self, uint64_t h) {
    return (size_t)(h >> 32) & self->filter_mask;
}
static inline size_t filter_bit2(const Interner *self, uint64_t h) {
    return (size_t)(((h >> 32) * 0x9E3779B1u) >> 7) & self->filter_mask;
}
static inline void filter_add(Interner *self, uint64_t h) {
    size_t a = filter_bit1(self, h), b = filter_bit2(self, h);
    self->filter[a >> 6] |= (uint64_t)1 << (a & 63);
    self->filter[b >> 6] |= (uint64_t)1 << (b & 63);
}
/* 0: the table has no id of hash h (a per-query interner's lookups skip the table, far
   larger than the filter, for the many ids it lacks); 1: it may have one. */
static inline int filter_may_have(const Interner *self, uint64_t h) {
    size_t a = filter_bit1(self, h), b = filter_bit2(self, h);
    return (int)((self->filter[a >> 6] >> (a & 63)) & (self->filter[b >> 6] >> (b & 63)) & 1);
}
static inline void filter_prefetch(const Interner *self, uint64_t h) {
    /* (as __builtin_prefetch, GCC 12 at -O2 emitted no instruction for these two) */
    const char *bits = (const char *)self->filter;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __asm__ volatile("prefetcht0 %0" : : "m"(bits[filter_bit1(self, h) >> 3]));
    __asm__ volatile("prefetcht0 %0" : : "m"(bits[filter_bit2(self, h) >> 3]));
#else
    __builtin_prefetch(bits + (filter_bit1(self, h) >> 3));
    __builtin_prefetch(bits + (filter_bit2(self, h) >> 3));
#endif
}

/* The filter made from the table: 16 bits per id or more; -1 when memory runs out. */
static int filter_make(Interner *self) {
    size_t bits = (size_t)1 << 16;
    while (bits < 16 * self->indexed) bits *= 2;
    if (interner_own(self) < 0) return -1;
    uint64_t *filter = calloc(bits / 64, sizeof(uint64_t));
    if (!filter) return -1;
    free(self->filter);
    self->filter = filter;
    self->filter_mask = bits - 1;
    for (size_t k = 0; k <= self->mask; k++)
        if (self->slots[k].code1) filter_add(self, (uint64_t)self->slots[k].tag << 32);
    return 0;
}

/* name(a, b, n): whether the first and the last sizeof(T) bytes of the n at a and at b are
   equal (sizeof(T) <= n <= 2 sizeof(T): all n of them), each read as one T. */
#define ENDS_EQUAL(name, T)                                            \
    static inline int name(const char *a, const char *b, size_t n) { \
        T x, y, u, v;                                                  \
        memcpy(&x, a, sizeof x);                                       \
        memcpy(&y, b, sizeof y);                                       \
        memcpy(&u, a + n - sizeof u, sizeof u);                        \
        memcpy(&v, b + n - sizeof v, sizeof v);                        \
        return ((x ^ y) | (u ^ v)) == 0;                               \
    }
ENDS_EQUAL(ends_equal8, uint64_t)
ENDS_EQUAL(ends_equal4, uint32_t)

/* Whether n bytes at a and b are equal: ids are short, and a call to memcmp per probe
   cost more than comparing them here, two words (overlapping) at a time where the loop
   compared byte by byte (the query and the tag of every line). */
static inline int same_bytes(const char *a, const char *b, size_t n) {
    if (n > 16) return memcmp(a, b, n) == 0;
    if (n >= 8) return ends_equal8(a, b, n);
    if (n >= 4) return ends_equal4(a, b, n);
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

#define NO_MEMORY (-2)
#define TOO_MANY_IDS (-3)

/* Room for `more` further codes in `offsets` (kept memory, as the arena's: each block of
   a run grew its interner's offsets into fresh pages, ~7 MB a block); -1 when memory runs
   out. */
static int interner_reserve_codes(Interner *self, size_t more) {
    if ((size_t)self->n + more < (size_t)self->ncap) return 0;
    Py_ssize_t cap = self->ncap ? self->ncap : 1024;
    while ((size_t)cap <= (size_t)self->n + more) cap *= 2;
    if (block_reserve(&self->offsets_block, (size_t)(cap + 1) * sizeof(int64_t),
                      (size_t)(self->n + 1) * sizeof(int64_t), spare_offsets) < 0)
        return -1;
    self->offsets = self->offsets_block.p;
    self->ncap = cap;
    return 0;
}

/* The byte string s given the next code, in the arena but not in the table (the caller
   enters it there, or keeps it out: see Interner_per_query); NO_MEMORY or TOO_MANY_IDS on
   error (no exception set). */
static int64_t interner_append(Interner *self, const char *s, size_t len) {
    if (self->n >= INT32_MAX - 1) return TOO_MANY_IDS;
    if (interner_reserve_arena(self, len) < 0 || interner_reserve_codes(self, 1) < 0)
        return NO_MEMORY;
    Py_ssize_t c = self->n;
    memcpy(self->arena + self->arena_len, s, len);
    self->offsets[c] = (int64_t)self->arena_len;
    self->arena_len += len;
    self->offsets[c + 1] = (int64_t)self->arena_len;
    self->n++;
    return c;
}

/* Code of the byte string with hash h, adding it when `add`; -1 when absent and not
   added; NO_MEMORY or TOO_MANY_IDS on error, with no exception set (this runs without the
   GIL too: `raised` sets it). */
static int64_t interner_get_hashed(Interner *self, const char *s, size_t len, uint64_t h, int add) {
    size_t i = (size_t)h & self->mask;
    uint32_t tag = (uint32_t)(h >> 32);
    for (;;) {
        Slot *slot = &self->slots[i];
        if (!slot->code1) break;
        if (slot->tag == tag && slot_len(self, slot) == len &&
            same_bytes(self->arena + WHERE_OFF(slot->where), s, len))
            return (int64_t)slot->code1 - 1;
        i = (i + 1) & self->mask;
    }
    if (!add) return -1;
    if (interner_own(self) < 0) return NO_MEMORY;  /* (the same table: i stays right) */
    size_t at = self->arena_len;
    int64_t c = interner_append(self, s, len);
    if (c < 0) return c;
    self->slots[i].tag = tag;
    self->slots[i].code1 = (uint32_t)(c + 1);
    self->slots[i].where = WHERE(at, len);
    self->indexed++;
    if (self->filter) filter_add(self, h);
    if (self->indexed * 4 > (self->mask + 1) * 3) {
        if (interner_reserve(self, self->indexed * 2) < 0) return NO_MEMORY;
    }
    return c;
}

static int64_t interner_get(Interner *self, const char *s, size_t len, int add) {
    return interner_get_hashed(self, s, len, hash_bytes(s, len), add);
}

/* The exception of an interner's error code (NO_MEMORY, TOO_MANY_IDS) set, under the GIL;
   -2. */
static int64_t raised(int64_t code) {
    if (code == TOO_MANY_IDS) PyErr_SetString(PyExc_OverflowError, "more than 2^31 distinct ids");
    else PyErr_NoMemory();
    return -2;
}

/* Wait, letting other threads run, until no parser feeds the owners of `a`, `b` and `c`
   without the GIL (their busy counts, only written under the GIL: a feed marks its parser
   and interners before it lets the GIL go, and clears them once it has it back).  All
   three at once: waiting for one lets the GIL go, and another may have started meanwhile.
   Two threads reading into the same ids take turns, as they did when every feed held the
   GIL. */
static void wait_idle3(const int *a, const int *b, const int *c) {
    while (*(const volatile int *)a || *(const volatile int *)b || *(const volatile int *)c) {
        Py_BEGIN_ALLOW_THREADS
        usleep(100);
        Py_END_ALLOW_THREADS
    }
}
#define wait_idle(busy) wait_idle3((busy), (busy), (busy))

static int Interner_init(Interner *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "", kwlist)) return -1;
    self->mask = 1023;
    if (block_alloc(&self->slot_block, (self->mask + 1) * sizeof(Slot)) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    self->slots = self->slot_block.p;
    self->ncap = 1024;
    if (block_alloc(&self->offsets_block, (size_t)(self->ncap + 1) * sizeof(int64_t)) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    self->offsets = self->offsets_block.p;
    self->offsets[0] = 0;
    self->strings = PyList_New(0);
    return self->strings ? 0 : -1;
}

/* `b`, emptied, kept among the SPARES spares `spares` (in a free place, else in the place
   of the one kept longest, which is freed) when it is from SPARE_MIN to SPARE_MAX bytes,
   else freed. */
static void block_keep(Block *b, Block *spares) {
    if (b->size >= SPARE_MIN && b->size <= SPARE_MAX) {
        Block old = {0};
        pthread_mutex_lock(&spare_mu);
        int i = 0;
        while (i < SPARES && spares[i].p) i++;
        if (i == SPARES) {  /* none free: the oldest (first) goes */
            old = spares[0];
            memmove(spares, spares + 1, (SPARES - 1) * sizeof(Block));
            i = SPARES - 1;
        }
        spares[i] = *b;
        pthread_mutex_unlock(&spare_mu);
        block_free(&old);
        b->p = NULL;
        b->size = 0;
    }
    block_free(b);
}

/* One interner fewer reading `l`: freed (its table kept as a spare) by the last. */
static void lent_release(Lent *l) {
    if (__atomic_sub_fetch(&l->refs, 1, __ATOMIC_ACQ_REL)) return;
    block_keep(&l->slots, spare_slots);
    free(l->filter);
    free(l);
}

/* The interner's table and filter made its own (copied) if they are lent, before it
   writes them; -1 when memory runs out (no exception set: this runs without the GIL too). */
static int interner_own(Interner *self) {
    Lent *l = self->lent;
    if (!l) return 0;
    size_t size = (self->mask + 1) * sizeof(Slot);
    Block slots;
    if (block_alloc(&slots, size) < 0) return -1;
    uint64_t *filter = NULL;
    if (l->filter) {
        filter = malloc((self->filter_mask + 1) / 8);
        if (!filter) {
            block_free(&slots);
            return -1;
        }
        memcpy(filter, l->filter, (self->filter_mask + 1) / 8);
    }
    memcpy(slots.p, self->slots, size);
    self->slot_block = slots;
    self->slots = slots.p;
    self->filter = filter;
    self->lent = NULL;
    lent_release(l);
    return 0;
}

static void Interner_dealloc(Interner *self) {
    if (self->lent) {
        lent_release(self->lent);
        self->filter = NULL;
    }
    block_keep(&self->slot_block, spare_slots);
    block_keep(&self->arena_block, spare_arena);
    block_keep(&self->offsets_block, spare_offsets);
    free(self->filter);
    Py_XDECREF(self->strings);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t Interner_len(Interner *self) {
    wait_idle(&self->busy);
    return self->n;
}

static PyObject *decode(Interner *self, Py_ssize_t c) {
    int64_t a = self->offsets[c], b = self->offsets[c + 1];
    return PyUnicode_DecodeUTF8(self->arena + a, (Py_ssize_t)(b - a), "surrogateescape");
}

static int as_utf8(PyObject *s, const char **buf, Py_ssize_t *len, PyObject **owner) {
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "ids must be str, not %.100s", Py_TYPE(s)->tp_name);
        return -1;
    }
    *owner = PyUnicode_AsEncodedString(s, "utf-8", "surrogateescape");
    if (!*owner) return -1;
    *buf = PyBytes_AS_STRING(*owner);
    *len = PyBytes_GET_SIZE(*owner);
    return 0;
}

/* The code of the id s (a str): added when add, else -1 if absent; -2 with the exception
   set when s is not a str or memory runs out. */
static int64_t code_of(Interner *self, PyObject *s, int add) {
    const char *buf;
    Py_ssize_t len;
    PyObject *owner;
    if (as_utf8(s, &buf, &len, &owner) < 0) return -2;
    int64_t c = interner_get(self, buf, (size_t)len, add);
    Py_DECREF(owner);
    return c < -1 ? raised(c) : c;
}

static PyObject *codes_of(Interner *self, PyObject *iterable, int add) {
    wait_idle(&self->busy);
    PyObject *seq = PySequence_Fast(iterable, "expected a sequence of str");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int32_t));
    if (!out) { Py_DECREF(seq); return NULL; }
    int32_t *codes = (int32_t *)PyBytes_AS_STRING(out);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t c = code_of(self, items[i], add);
        if (c == -2) goto fail;
        codes[i] = (int32_t)c;
    }
    Py_DECREF(seq);
    return out;
fail:
    Py_DECREF(seq);
    Py_DECREF(out);
    return NULL;
}

static PyObject *Interner_intern_many(Interner *self, PyObject *arg) { return codes_of(self, arg, 1); }
static PyObject *Interner_lookup_many(Interner *self, PyObject *arg) { return codes_of(self, arg, 0); }

static PyObject *code_as_int(Interner *self, PyObject *arg, int add) {
    wait_idle(&self->busy);
    int64_t c = code_of(self, arg, add);
    return c == -2 ? NULL : PyLong_FromLongLong(c);
}

static PyObject *Interner_intern(Interner *self, PyObject *arg) { return code_as_int(self, arg, 1); }
static PyObject *Interner_lookup(Interner *self, PyObject *arg) { return code_as_int(self, arg, 0); }

static PyObject *Interner_strings(Interner *self, PyObject *Py_UNUSED(ignored)) {
    wait_idle(&self->busy);
    for (Py_ssize_t c = PyList_GET_SIZE(self->strings); c < self->n; c++) {
        PyObject *s = decode(self, c);
        if (!s || PyList_Append(self->strings, s) < 0) { Py_XDECREF(s); return NULL; }
        Py_DECREF(s);
    }
    Py_INCREF(self->strings);
    return self->strings;
}

/* The int32 codes of `arg` (a buffer, held in `view`: the caller releases it), `n` of
   them, each checked to be one of this interner's; NULL with an exception set. */
static const int32_t *codes_in(Interner *self, PyObject *arg, Py_buffer *view, Py_ssize_t *n) {
    wait_idle(&self->busy);
    if (PyObject_GetBuffer(arg, view, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    *n = view->len / (Py_ssize_t)sizeof(int32_t);
    const int32_t *codes = view->buf;
    for (Py_ssize_t i = 0; i < *n; i++) {
        if (codes[i] < 0 || codes[i] >= self->n) {
            PyErr_SetString(PyExc_IndexError, "code out of range");
            PyBuffer_Release(view);
            return NULL;
        }
    }
    return codes;
}

static PyObject *Interner_strings_of(Interner *self, PyObject *arg) {
    Py_buffer view;
    Py_ssize_t n;
    const int32_t *codes = codes_in(self, arg, &view, &n);
    if (!codes) return NULL;
    PyObject *out = PyList_New(n);
    if (!out) { PyBuffer_Release(&view); return NULL; }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = decode(self, codes[i]);
        if (!s) goto fail;
        PyList_SET_ITEM(out, i, s);
    }
    PyBuffer_Release(&view);
    return out;
fail:
    PyBuffer_Release(&view);
    Py_DECREF(out);
    return NULL;
}

/* An id to order (see Interner_order_of): its bytes and its position among the codes. */
typedef struct {
    const char *s;
    size_t len;
    Py_ssize_t at;
} Keyed;

/* By bytes, a shorter id first where one begins the other, then by position (stable). */
static int keyed_cmp(const void *pa, const void *pb) {
    const Keyed *a = pa, *b = pb;
    int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
    if (c) return c;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    return (a->at > b->at) - (a->at < b->at);
}

/* order_of(codes): the positions of the int32 `codes` in the order of their ids, equal ids
   in their order, as int64 bytes: what numpy's stable argsort of strings_of(codes) gives,
   without a Python string per id (the ties of a run's block: ~5,500 ids, 10 ms of each
   block's judging); None when an id is not ASCII (bytes order is then not the order of
   the Python strings, which may hold escaped bytes). */
static PyObject *Interner_order_of(Interner *self, PyObject *arg) {
    Py_buffer view;
    Py_ssize_t n;
    const int32_t *codes = codes_in(self, arg, &view, &n);
    if (!codes) return NULL;
    PyObject *out = NULL;
    Keyed *keys = malloc((size_t)(n ? n : 1) * sizeof(Keyed));
    if (!keys) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t a = self->offsets[codes[i]], b = self->offsets[codes[i] + 1];
        keys[i].s = self->arena + a;
        keys[i].len = (size_t)(b - a);
        keys[i].at = i;
        for (size_t k = 0; k < keys[i].len; k++) {
            if ((unsigned char)keys[i].s[k] >= 0x80) {
                out = Py_NewRef(Py_None);
                goto done;
            }
        }
    }
    qsort(keys, (size_t)n, sizeof(Keyed), keyed_cmp);
    out = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    if (!out) goto done;
    int64_t *positions = (int64_t *)PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++) positions[i] = keys[i].at;
done:
    free(keys);
    PyBuffer_Release(&view);
    return out;
}

static PyTypeObject InternerType;

static PyObject *Interner_translate(Interner *self, PyObject *arg) {
    if (!PyObject_TypeCheck(arg, &InternerType)) {
        PyErr_SetString(PyExc_TypeError, "translate expects an Interner");
        return NULL;
    }
    Interner *other = (Interner *)arg;
    wait_idle3(&self->busy, &other->busy, &other->busy);
    PyObject *out = PyBytes_FromStringAndSize(NULL, other->n * (Py_ssize_t)sizeof(int32_t));
    if (!out) return NULL;
    int32_t *codes = (int32_t *)PyBytes_AS_STRING(out);
    for (Py_ssize_t c = 0; c < other->n; c++) {
        int64_t a = other->offsets[c], b = other->offsets[c + 1];
        codes[c] = (int32_t)interner_get(self, other->arena + a, (size_t)(b - a), 0);
    }
    return out;
}

/* copy(): a new interner holding the same ids under the same codes (a memcpy of the table,
   the arena and the offsets, where interning every id again would hash each).  A
   per-query interner's copy (see Interner_per_query: a block of a large run read into a
   copy of the judged documents' one) shares its table and filter, which neither writes
   (their ids are added to the arena only; an interner that is to write them copies them
   first, interner_own), where a copy for every block cost a memcpy of the table (8 MB,
   ~2.5 ms for 207k judged documents) and the memory it went to. */
static int slots_fit(size_t size, size_t want) { return size == want; } /* overwritten whole */

static PyObject *Interner_copy(Interner *self, PyObject *Py_UNUSED(ignored)) {
    wait_idle(&self->busy);
    Interner *out = (Interner *)PyObject_CallNoArgs((PyObject *)Py_TYPE(self));
    if (!out) return NULL;
    size_t cap = self->mask + 1;
    if (self->per_query) {
        if (!self->lent) {  /* its table lent from now on (this interner reads it too) */
            Lent *l = malloc(sizeof(Lent));
            if (!l) goto nomemory;
            l->slots = self->slot_block;
            l->filter = self->filter;
            l->refs = 1;
            self->lent = l;
            self->slot_block = (Block){0};
        }
        __atomic_add_fetch(&self->lent->refs, 1, __ATOMIC_ACQ_REL);
        block_free(&out->slot_block);
        out->lent = self->lent;
        out->slots = self->slots;
        out->filter = self->filter;
        out->filter_mask = self->filter_mask;
    } else {
        Block slots = spare_take(spare_slots, SPARES, slots_fit, cap * sizeof(Slot));
        if (!slots.p && block_alloc(&slots, cap * sizeof(Slot)) < 0) goto nomemory;
        memcpy(slots.p, self->slots, cap * sizeof(Slot));
        block_free(&out->slot_block);
        out->slot_block = slots;
        out->slots = slots.p;
        if (self->filter) {
            out->filter = malloc((self->filter_mask + 1) / 8);
            if (!out->filter) goto nomemory;
            memcpy(out->filter, self->filter, (self->filter_mask + 1) / 8);
            out->filter_mask = self->filter_mask;
        }
    }
    out->mask = self->mask;
    if (self->arena_len) {
        if (interner_reserve_arena(out, self->arena_len) < 0) goto nomemory;
        memcpy(out->arena, self->arena, self->arena_len);
    }
    out->arena_len = self->arena_len;
    if (block_reserve(&out->offsets_block, (size_t)(self->ncap + 1) * sizeof(int64_t), 0,
                      spare_offsets) < 0)
        goto nomemory;
    out->offsets = out->offsets_block.p;
    memcpy(out->offsets, self->offsets, (size_t)(self->n + 1) * sizeof(int64_t));
    out->ncap = self->ncap;
    out->n = self->n;
    out->indexed = self->indexed;
    out->per_query = self->per_query;
    return (PyObject *)out;
nomemory:
    PyErr_NoMemory();
    Py_DECREF(out);
    return NULL;
}

static PyObject *Interner_reserve(Interner *self, PyObject *arg) {
    Py_ssize_t more = PyLong_AsSsize_t(arg);
    if (more == -1 && PyErr_Occurred()) return NULL;
    if (more < 0) {
        PyErr_SetString(PyExc_ValueError, "negative reservation");
        return NULL;
    }
    wait_idle(&self->busy);
    if (interner_reserve(self, self->indexed + (size_t)more) < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* per_query(): from now on a parser reading into this interner looks each id up, and gives
   one it lacks a code of its own for the query whose line holds it, in the arena and never
   in the table: the same id in two queries gets two codes.  What a block of a large run is
   read into (rankscope.table.many): a measure needs of a document only its judgment, found
   in the table, and, to break ties and find a document listed twice for a query, its id
   within its query; interning every document of the run probed a table far larger than
   the caches at random.  intern() and lookup() use the table as before. */
static PyObject *Interner_per_query(Interner *self, PyObject *Py_UNUSED(ignored)) {
    wait_idle(&self->busy);
    if (!self->per_query && filter_make(self) < 0) return PyErr_NoMemory();
    self->per_query = 1;
    Py_RETURN_NONE;
}

static PyMethodDef Interner_methods[] = {
    {"intern", (PyCFunction)Interner_intern, METH_O, "code of a str, added if new"},
    {"lookup", (PyCFunction)Interner_lookup, METH_O, "code of a str, -1 if absent"},
    {"intern_many", (PyCFunction)Interner_intern_many, METH_O, "int32 codes (bytes), adding new ids"},
    {"lookup_many", (PyCFunction)Interner_lookup_many, METH_O, "int32 codes (bytes), -1 if absent"},
    {"strings", (PyCFunction)Interner_strings, METH_NOARGS, "list of every id, by code"},
    {"copy", (PyCFunction)Interner_copy, METH_NOARGS, "a new interner with the same ids and codes"},
    {"reserve", (PyCFunction)Interner_reserve, METH_O,
     "reserve(more): size the table once for that many more ids"},
    {"per_query", (PyCFunction)Interner_per_query, METH_NOARGS,
     "a parser then gives the ids this lacks codes query by query, outside the table"},
    {"strings_of", (PyCFunction)Interner_strings_of, METH_O, "ids of int32 codes"},
    {"order_of", (PyCFunction)Interner_order_of, METH_O,
     "positions of int32 codes ordered by their ids (stable), int64 bytes; None: not ASCII"},
    {"translate", (PyCFunction)Interner_translate, METH_O,
     "for each code of another Interner, this one's code for the same id (-1 if absent)"},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods Interner_as_sequence = {.sq_length = (lenfunc)Interner_len};

static PyTypeObject InternerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_as_sequence = &Interner_as_sequence,
};  /* the fields every type of the module has are filled by add_type */

/* ------------------------------------------------------------------------------------- */
/* Parsing                                                                                */

static inline int is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Byte classes for the scanner's walk over a line: a field's byte, a blank within the line
   (C isspace but '\n'), the newline.  One table lookup per byte where is_space compared
   six times. */
enum { BYTE_FIELD = 0, BYTE_BLANK = 1, BYTE_NEWLINE = 2 };
static const unsigned char BYTE_CLASS[256] = {
    ['\t'] = BYTE_BLANK, ['\n'] = BYTE_NEWLINE, ['\v'] = BYTE_BLANK, ['\f'] = BYTE_BLANK,
    ['\r'] = BYTE_BLANK, [' '] = BYTE_BLANK,
};
#define CLASS_OF(c) BYTE_CLASS[(unsigned char)(c)]

#define MAX_FIELDS 8

typedef struct {
    const char *start[MAX_FIELDS];
    size_t len[MAX_FIELDS];
    int count; /* number of fields on the line (may exceed MAX_FIELDS) */
} Fields;

/* The fields of the line starting at `p` (its leading blanks skipped), which ends at a
   newline that must exist: the walk needs no bound.  Returns the newline. */
static const char *split_line(const char *p, Fields *f) {
    f->count = 0;
    while (CLASS_OF(*p) == BYTE_BLANK) p++;
    while (CLASS_OF(*p) != BYTE_NEWLINE) {
        const char *s = p;
        while (CLASS_OF(*p) == BYTE_FIELD) p++;
        if (f->count < MAX_FIELDS) {
            f->start[f->count] = s;
            f->len[f->count] = (size_t)(p - s);
        }
        f->count++;
        while (CLASS_OF(*p) == BYTE_BLANK) p++;
    }
    return p;
}

#if defined(__SSE2__) && defined(__GNUC__)
/* The bits of the 16 bytes at p that are a blank or the newline (the bytes split_line's
   walk stops a field at: ' ' and '\t' to '\r'), and those that are the newline. */
static inline void split_masks16(const char *p, uint32_t *sep, uint32_t *nl) {
    __m128i x = _mm_loadu_si128((const __m128i *)p);
    __m128i low = _mm_sub_epi8(x, _mm_set1_epi8('\t'));  /* '\t'..'\r' -> 0..4 */
    __m128i ctl = _mm_cmpeq_epi8(_mm_subs_epu8(low, _mm_set1_epi8(4)), _mm_setzero_si128());
    __m128i blank = _mm_or_si128(ctl, _mm_cmpeq_epi8(x, _mm_set1_epi8(' ')));
    *sep = (uint32_t)_mm_movemask_epi8(blank);
    *nl = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('\n')));
}

/* split_line for a line that ends within the 64 bytes at p (which must be readable): the
   fields found from bit masks of its blanks and its newline, where the walk looked each
   byte's class up; NULL when the line is longer (split_line then walks it). */
static inline const char *split_line64(const char *p, Fields *f) {
    uint64_t sep = 0, nl = 0;
    for (int k = 0; k < 4; k++) {
        uint32_t a, b;
        split_masks16(p + 16 * k, &a, &b);
        sep |= (uint64_t)a << (16 * k);
        nl |= (uint64_t)b << (16 * k);
    }
    if (!nl) return NULL;
    int end = __builtin_ctzll(nl);
    uint64_t within = ((uint64_t)1 << end) - 1;  /* (end <= 63) */
    uint64_t field = ~sep & within;               /* the fields' bytes */
    uint64_t starts = field & ~(field << 1);      /* a field's first byte */
    uint64_t ends = field & ~(field >> 1);        /* a field's last byte */
    int count = 0;
    while (starts) {
        int a = __builtin_ctzll(starts), b = __builtin_ctzll(ends);
        if (count < MAX_FIELDS) {
            f->start[count] = p + a;
            f->len[count] = (size_t)(b - a + 1);
        }
        count++;
        starts &= starts - 1;
        ends &= ends - 1;
    }
    f->count = count;
    return p + end;
}
#endif

/* The newlines in [p, end), and (`nul`) the first NUL byte there or NULL: 16 bytes at a
   time where SSE2 is there (every x86-64), at the speed of memory, where a memchr per line
   paid a call per line (and the NUL byte, looked for by a memchr over the text, a second
   pass over it). */
static size_t count_newlines(const char *p, const char *end, const char **nul) {
    size_t count = 0;
    const char *from = p;
    int nuls = 0;
#ifdef __SSE2__
    /* per byte lane, 0 - (newlines seen) in up to 255 chunks, then summed */
    const __m128i newline = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
    __m128i any_nul = zero;
    while (end - p >= 16) {
        __m128i lanes = zero;
        for (int k = 0; k < 255 && end - p >= 16; k++, p += 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)p);
            lanes = _mm_add_epi8(lanes, _mm_cmpeq_epi8(x, newline));
            any_nul = _mm_or_si128(any_nul, _mm_cmpeq_epi8(x, zero));
        }
        __m128i sums = _mm_sad_epu8(_mm_sub_epi8(zero, lanes), zero);
        count += (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_extract_epi16(sums, 4);
    }
    nuls = _mm_movemask_epi8(any_nul) != 0;
#endif
    for (const char *q = p; q < end; q++) {
        count += *q == '\n';
        nuls |= *q == '\0';
    }
    /* (where there is one: found again, from the start) */
    *nul = nuls ? memchr(from, '\0', (size_t)(end - from)) : NULL;
    return count;
}

/* Split [p, end) into fields; returns the count. */
static void split_fields(const char *p, const char *end, Fields *f) {
    f->count = 0;
    while (p < end) {
        while (p < end && is_space(*p)) p++;
        if (p >= end) break;
        const char *s = p;
        while (p < end && !is_space(*p)) p++;
        if (f->count < MAX_FIELDS) {
            f->start[f->count] = s;
            f->len[f->count] = (size_t)(p - s);
        }
        f->count++;
    }
}

static int lower_eq(const char *s, size_t n, const char *word) {
    size_t m = strlen(word);
    if (n != m) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != word[i]) return 0;
    }
    return 1;
}

static const double POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Clinger's fast path for a validated decimal: when the digits form an integer below 2^53
   and the power of ten is at most 22, one multiplication or division of two exact doubles
   rounds correctly, giving strtod's result bit for bit.  Returns 0 when it does not apply. */
static int fast_decimal(const char *s, size_t n, double *value) {
    size_t i = 0;
    int neg = 0;
    if (s[0] == '+' || s[0] == '-') { neg = s[0] == '-'; i++; }
    uint64_t m = 0;
    int digits = 0, frac = 0, seen_dot = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '.') { seen_dot = 1; continue; }
        if (c == 'e' || c == 'E') break;
        if (m == 0 && c == '0') { if (seen_dot) frac++; continue; }
        if (++digits > 15) return 0;
        m = m * 10 + (uint64_t)(c - '0');
        if (seen_dot) frac++;
    }
    long exp10 = 0;
    if (i < n) {
        i++;
        int eneg = 0;
        if (s[i] == '+' || s[i] == '-') { eneg = s[i] == '-'; i++; }
        for (; i < n; i++) {
            exp10 = exp10 * 10 + (s[i] - '0');
            if (exp10 > 400) return 0;
        }
        if (eneg) exp10 = -exp10;
    }
    exp10 -= frac;
    if (exp10 < -22 || exp10 > 22) return 0;
    double v = (double)m;
    v = exp10 < 0 ? v / POW10[-exp10] : v * POW10[exp10];
    *value = neg ? -v : v;
    return 1;
}

/* The "C" locale, made once: numbers are read with a decimal point whatever locale the
   program has set (strtod follows LC_NUMERIC: under de_DE it read "2.5e30" as 2). */
#ifdef HAVE_STRTOD_L
static locale_t c_locale;
static double c_strtod(const char *s) { return strtod_l(s, NULL, c_locale); }
#else
static double c_strtod(const char *s) { return strtod(s, NULL); }
#endif

/* 0 = finite number (value set), 1 = not a number, 2 = not finite */
static int parse_score(const char *s, size_t n, double *value) {
    size_t i = 0;
    if (n == 0) return 1;
    {
        /* The usual score, [+-]?[0-9]*[.]?[0-9]* with a digit and at most 15 significant
           digits, 22 after the point: checked and read in one pass, as fast_decimal reads
           it (every other text goes the long way below). */
        int neg = 0;
        uint64_t m = 0;
        size_t j = 0, digits, frac = 0;
        if (s[0] == '+' || s[0] == '-') { neg = s[0] == '-'; j++; }
        size_t from = j;
        for (; j < n && (unsigned)(s[j] - '0') < 10; j++) m = m * 10 + (unsigned)(s[j] - '0');
        digits = j - from;
        if (j < n && s[j] == '.') {
            from = ++j;
            for (; j < n && (unsigned)(s[j] - '0') < 10; j++) m = m * 10 + (unsigned)(s[j] - '0');
            frac = j - from;
            digits += frac;
        }
        /* at most 19 digits: m did not overflow, and m < 10^15 is "at most 15 significant
           digits" (leading zeros add nothing to m) */
        if (j == n && digits && digits <= 19 && m < 1000000000000000ULL && frac <= 22) {
            double v = frac ? (double)m / POW10[frac] : (double)m;
            *value = neg ? -v : v;
            return 0;
        }
    }
    if (s[0] == '+' || s[0] == '-') i++;
    if (lower_eq(s + i, n - i, "inf") || lower_eq(s + i, n - i, "infinity") ||
        lower_eq(s + i, n - i, "nan"))
        return 2;
    size_t digits = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') { i++; digits++; }
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') { i++; digits++; }
    }
    if (digits == 0) return 1;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        size_t exp_digits = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') { i++; exp_digits++; }
        if (exp_digits == 0) return 1;
    }
    if (i != n) return 1;
    if (fast_decimal(s, n, value)) return 0;
    char buf[128];
    char *copy = n < sizeof(buf) ? buf : malloc(n + 1);
    if (!copy) return 1;
    memcpy(copy, s, n);
    copy[n] = '\0';
    double v = c_strtod(copy);
    if (copy != buf) free(copy);
    if (v == HUGE_VAL || v == -HUGE_VAL) return 2;
    *value = v;
    return 0;
}

/* 0 = integer (value set), 1 = not an integer, 3 = out of range */
static int parse_grade(const char *s, size_t n, int64_t *value) {
    size_t i = 0;
    int neg = 0;
    if (n && (s[0] == '+' || s[0] == '-')) { neg = s[0] == '-'; i++; }
    if (i == n) return 1;
    for (size_t j = i; j < n; j++)
        if (s[j] < '0' || s[j] > '9') return 1;
    if (n - i > 18) return 3;
    int64_t v = 0;
    for (; i < n; i++) v = v * 10 + (s[i] - '0');
    *value = neg ? -v : v;
    return 0;
}

/* Column memory kept from freed columns for the next parser's (under spare_mu): a run read
   block by block made five new columns a block, and fresh memory each time had the kernel
   fault in and zero 24 MB a block (5.8k page faults, as many as the rest of a block).  At
   most POOL_BLOCKS blocks of POOL_MIN to POOL_MAX bytes, POOL_BYTES in all: a default
   block's columns, the next block's and a spare set, never those of a large file read
   whole. */
#define POOL_BLOCKS 16
#define POOL_MIN ((size_t)1 << 20)
#define POOL_MAX ((size_t)32 << 20)
#define POOL_BYTES ((size_t)128 << 20)
static Block pool[POOL_BLOCKS];
static size_t pooled;  /* bytes in the pool */

/* `b` kept in the pool when it fits there, else freed; `b` is emptied. */
static void pool_put(Block *b) {
    Block drop = *b;
    if (b->size >= POOL_MIN && b->size <= POOL_MAX) {
        pthread_mutex_lock(&spare_mu);
        for (int i = 0; i < POOL_BLOCKS && pooled + b->size <= POOL_BYTES; i++) {
            if (!pool[i].p) {
                pool[i] = *b;
                pooled += b->size;
                drop.p = NULL;
                break;
            }
        }
        pthread_mutex_unlock(&spare_mu);
    }
    block_free(&drop);
    b->p = NULL;
    b->size = 0;
}

/* A pooled block of at least `size` bytes (and at most twice that), the smallest; an empty
   block when none is. */
static Block pool_take(size_t size) {
    Block out = {0};
    pthread_mutex_lock(&spare_mu);
    int best = -1;
    for (int i = 0; i < POOL_BLOCKS; i++)
        if (pool[i].p && pool[i].size >= size && pool[i].size / 2 <= size &&
            (best < 0 || pool[i].size < pool[best].size))
            best = i;
    if (best >= 0) {
        out = pool[best];
        pooled -= out.size;
        pool[best].p = NULL;
        pool[best].size = 0;
    }
    pthread_mutex_unlock(&spare_mu);
    return out;
}

/* A finished column: its memory exposed read-only through the buffer protocol (numpy reads
   it with frombuffer, as it read bytes objects before), back to the pool once freed. */
typedef struct {
    PyObject_HEAD
    Block block;
    Py_ssize_t len;
} Buffer;

static int Buffer_getbuffer(Buffer *self, Py_buffer *view, int flags) {
    return PyBuffer_FillInfo(view, (PyObject *)self, self->block.p, self->len, 1, flags);
}

static void Buffer_dealloc(Buffer *self) {
    pool_put(&self->block);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyBufferProcs Buffer_as_buffer = {.bf_getbuffer = (getbufferproc)Buffer_getbuffer};
static PyTypeObject BufferType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_as_buffer = &Buffer_as_buffer,
};  /* filled by add_type */

/* An output column written straight into memory that grows as lines are fed, handed over
   as a Buffer at the end. */
typedef struct {
    Block mem;
    char *data;
    size_t len, cap, item;
} Column;

static int column_reserve(Column *c, size_t rows) {
    if (c->mem.p && rows <= c->cap) return 0;
    size_t cap = c->cap ? c->cap * 2 : 1024;
    if (cap < rows) cap = rows;
    size_t size = cap * c->item;
    if (!c->mem.p) {
        c->mem = pool_take(size);
        /* (an eighth more: the next block's columns, a little longer, fit in these) */
        if (!c->mem.p && block_alloc(&c->mem, size + size / 8) < 0) {
            PyErr_NoMemory();
            return -1;
        }
    } else if (block_grow(&c->mem, size) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    c->data = c->mem.p;
    c->cap = c->mem.size / c->item;
    return 0;
}

/* The column's Buffer (a new reference) of its length; the column is emptied.  A column
   using less than half its memory (grown by doubling) is copied to memory its size. */
static PyObject *column_take(Column *c) {
    if (!c->mem.p && column_reserve(c, 1) < 0) return NULL;
    size_t size = c->len * c->item;
    if (size < c->mem.size / 2) {
        Block fit = pool_take(size);
        if (!fit.p && block_alloc(&fit, size ? size : 1) < 0) return PyErr_NoMemory();
        memcpy(fit.p, c->mem.p, size);
        pool_put(&c->mem);
        c->mem = fit;
    }
    Buffer *b = PyObject_New(Buffer, &BufferType);
    if (!b) return NULL;
    b->block = c->mem;
    b->len = (Py_ssize_t)size;
    c->mem.p = NULL;
    c->mem.size = 0;
    c->data = NULL;
    c->cap = c->len = 0;
    return (PyObject *)b;
}

/* error tuple: (None, line_number, kind, detail bytes) */
static PyObject *error_tuple(long long line, const char *kind, const char *s, size_t n) {
    return Py_BuildValue("(OLsy#)", Py_None, line, kind, s, (Py_ssize_t)n);
}

typedef struct {
    const char *q, *d;
    uint64_t qh, dh;
    union { double score; int64_t grade; } v;
    double rank; /* a run's rank column; NaN when it is not a number */
    size_t qlen, dlen;
    int32_t line;
    int32_t same_query; /* the query of the line before in the piece (the scanner compared) */
} Pending;

/* A run's lines counted by their number of fields, NFIELDS - 1 standing for that many or
   more: evidence for the suspicious-input warnings (a document id holding a space). */
#define NFIELDS 17

/* The ids a parser gives codes query by query (see Interner_per_query): a small table of
   the current query's (the judged ones too, under their codes), emptied at each new query
   by moving on its stamp; an id found there again is a document listed twice for the
   query, the first such pair of rows kept. */
typedef struct {
    uint64_t hash;
    uint32_t stamp;  /* the query's stamp (0: never used) */
    int32_t code;
    int64_t row;     /* the row of the id's first line in the query */
} LocalSlot;

typedef struct {
    LocalSlot *slots;
    size_t mask, count;  /* capacity - 1; ids of the current query */
    uint32_t stamp;
    int repeated;              /* a document listed twice for a query was found: */
    int64_t first, again;      /* the rows of its first and second lines (the first pair) */
} Local;

/* A new query: its table empty. */
static void local_next(Local *loc) {
    loc->count = 0;
    if (++loc->stamp == 0) {  /* stamps wrapped: every slot freed once */
        if (loc->slots) memset(loc->slots, 0, (loc->mask + 1) * sizeof(LocalSlot));
        loc->stamp = 1;
    }
}

/* The table doubled (or made), the current query's ids kept; -1 when memory runs out. */
static int local_grow(Local *loc) {
    size_t cap = loc->slots ? 2 * (loc->mask + 1) : 1024;
    LocalSlot *slots = calloc(cap, sizeof(LocalSlot));
    if (!slots) return -1;
    for (size_t k = 0; loc->slots && k <= loc->mask; k++) {
        const LocalSlot *old = &loc->slots[k];
        if (old->stamp != loc->stamp) continue;
        size_t i = (size_t)old->hash & (cap - 1);
        while (slots[i].stamp == loc->stamp) i = (i + 1) & (cap - 1);
        slots[i] = *old;
    }
    free(loc->slots);
    loc->slots = slots;
    loc->mask = cap - 1;
    return 0;
}

/* The code within the current query of the id s (hash h) on row `row`: the one it was
   given at its first line in this query (a repeat, noted), else `judged` (its code in the
   judged ids; -1: none) or a new one (in the arena only); NO_MEMORY or TOO_MANY_IDS on
   error (no exception set: runs without the GIL). */
static int64_t local_code(Local *loc, Interner *docs, const char *s, size_t len, uint64_t h,
                          int64_t judged, int64_t row) {
    if (!loc->slots || (loc->count + 1) * 4 > (loc->mask + 1) * 3) {
        if (local_grow(loc) < 0) return NO_MEMORY;
    }
    size_t i = (size_t)h & loc->mask;
    for (;;) {
        const LocalSlot *slot = &loc->slots[i];
        if (slot->stamp != loc->stamp) break;
        if (slot->hash == h) {
            int64_t a = docs->offsets[slot->code], b = docs->offsets[slot->code + 1];
            if ((size_t)(b - a) == len && same_bytes(docs->arena + a, s, len)) {
                if (!loc->repeated) {
                    loc->repeated = 1;
                    loc->first = slot->row;
                    loc->again = row;
                }
                return slot->code;
            }
        }
        i = (i + 1) & loc->mask;
    }
    int64_t c = judged >= 0 ? judged : interner_append(docs, s, len);
    if (c < 0) return c;
    loc->slots[i].hash = h;
    loc->slots[i].stamp = loc->stamp;
    loc->slots[i].code = (int32_t)c;
    loc->slots[i].row = row;
    loc->count++;
    return c;
}

/* What rankscope.read.trec.suspicions works out of a run's rows listed as runs are
   written (each query's rows together, its ranks never falling), gathered row by row as
   they are interned (where numpy made some twenty passes over the block's columns, 8 ms
   for 830k rows, and one more pass read 21 MB back from memory): the first row of the
   query tied on one score whose first line comes first (`tied`, -1: none) and that line,
   the row whose step to the next up the ranks raises the score at the first line (`rise`,
   -1: none), whether such a step lowers it, the queries with a step up the ranks.  `on`
   drops to 0 (suspicions then asks numpy) where a query's rows come in two places, the
   ranks fall within a query, or a rank is not a number. */
typedef struct {
    int on, started, has_step, falling;
    unsigned char *seen;  /* the queries met (by code) */
    size_t seen_cap;
    int64_t rows, head, lowest, tied, lowest_tied, rise, rise_line, stepped;
    double smin, smax, rmin, rmax, last_r, last_s;
    int32_t last_q;
} Steps;

/* The current query's rows end. */
static void steps_close(Steps *st) {
    if (st->smax == st->smin && st->rmax > st->rmin &&
        (st->tied < 0 || st->lowest < st->lowest_tied)) {
        st->tied = st->head;
        st->lowest_tied = st->lowest;
    }
    st->stepped += st->has_step;
}

/* The next row: its query's code, rank, score and line. */
static inline void steps_row(Steps *st, int32_t q, double r, double s, int32_t line) {
    int64_t row = st->rows++;
    if (!st->on) return;
    if (r != r || s != s || q < 0) { st->on = 0; return; }
    if (!st->started || q != st->last_q) {
        if (st->started) steps_close(st);
        if ((size_t)q >= st->seen_cap) {
            size_t cap = st->seen_cap ? st->seen_cap : 1024;
            while (cap <= (size_t)q) cap *= 2;
            unsigned char *seen = realloc(st->seen, cap);
            if (!seen) { st->on = 0; return; }  /* (numpy's turn) */
            memset(seen + st->seen_cap, 0, cap - st->seen_cap);
            st->seen = seen;
            st->seen_cap = cap;
        }
        if (st->seen[q]) { st->on = 0; return; }  /* the query's rows in two places */
        st->seen[q] = 1;
        st->started = 1;
        st->head = row;
        st->smin = st->smax = s;
        st->rmin = st->rmax = r;
        st->lowest = line;
        st->has_step = 0;
    } else {
        if (r < st->last_r) { st->on = 0; return; }  /* ranks falling within the query */
        if (s < st->smin) st->smin = s;
        if (s > st->smax) st->smax = s;
        if (r < st->rmin) st->rmin = r;
        if (r > st->rmax) st->rmax = r;
        if (line < st->lowest) st->lowest = line;
        if (r > st->last_r) {  /* a step up the ranks */
            st->has_step = 1;
            if (s > st->last_s && (st->rise < 0 || line < st->rise_line)) {
                st->rise = row - 1;
                st->rise_line = line;
            }
            st->falling |= s < st->last_s;
        }
    }
    st->last_q = q;
    st->last_r = r;
    st->last_s = s;
}

/* Intern records [from, to) of the ring `recs` (record k at k & mask; `ready` of them are
   scanned): 0, or an interner's error code (NO_MEMORY, TOO_MANY_IDS; runs without the
   GIL).  Memory latency dominates, so the loop prefetches ahead: the table slots of the
   record 16 places on, and the strings of those slots (or, per query, the filter's words
   and the query's table) for the record 8 places on. */
static int intern_records(Pending *recs, size_t mask, size_t from, size_t to, size_t ready,
                          Interner *queries, Interner *docs, Column *qc, Column *dc, Column *vc,
                          Column *lc, Column *rc, Local *loc, Steps *steps) {
    for (size_t k = from; k < to; k++) {
        if (loc) {  /* the filter, then the table only where the filter may find an id */
            if (k + 16 < ready) filter_prefetch(docs, recs[(k + 16) & mask].dh);
            if (k + 8 < ready && filter_may_have(docs, recs[(k + 8) & mask].dh))
                interner_prefetch(docs, recs[(k + 8) & mask].dh);
        } else {
            if (k + 16 < ready) {
                interner_prefetch(queries, recs[(k + 16) & mask].qh);
                interner_prefetch(docs, recs[(k + 16) & mask].dh);
            }
            if (k + 8 < ready) interner_prefetch_strings(docs, recs[(k + 8) & mask].dh);
        }
        if (loc && loc->slots && k + 8 < ready)  /* (the table of the query's ids) */
            __builtin_prefetch(&loc->slots[(size_t)recs[(k + 8) & mask].dh & loc->mask]);
        const Pending *r = &recs[k & mask];
        /* a query's lines come together: the query of the line before, found again */
        int64_t qcode = r->same_query ? ((int32_t *)qc->data)[qc->len - 1]
                                      : interner_get_hashed(queries, r->q, r->qlen, r->qh, 1);
        if (qcode < -1) return (int)qcode;
        int64_t dcode;
        if (loc) {  /* per query (see Interner_per_query) */
            if (!qc->len || qcode != ((int32_t *)qc->data)[qc->len - 1]) local_next(loc);
            int64_t judged = filter_may_have(docs, r->dh)
                                 ? interner_get_hashed(docs, r->d, r->dlen, r->dh, 0)
                                 : -1;
            dcode = local_code(loc, docs, r->d, r->dlen, r->dh, judged, (int64_t)qc->len);
        } else {
            dcode = interner_get_hashed(docs, r->d, r->dlen, r->dh, 1);
        }
        if (dcode < -1) return (int)dcode;
        /* typed stores (a memcpy of the column's run-time item size was a call) */
        ((int32_t *)qc->data)[qc->len++] = (int32_t)qcode;
        ((int32_t *)dc->data)[dc->len++] = (int32_t)dcode;
        memcpy(vc->data + vc->len++ * 8, &r->v, 8);
        ((int32_t *)lc->data)[lc->len++] = r->line;
        if (rc) {
            memcpy(rc->data + rc->len++ * sizeof(double), &r->rank, sizeof(double));
            steps_row(steps, (int32_t)qcode, r->rank, r->v.score, r->line);
        }
    }
    return 0;
}

/* Parser: fed the input in pieces (whole lines at a time), it accumulates the columns.
   Parser(queries, docs, is_run); feed(buffer, final) -> bytes consumed, or an error tuple
   (None, line, kind, detail); result() -> (query, doc, value, line[, tag, rank, fields,
   tags, steps]) as read-only Buffers (see Parser_result for a run's evidence). */
typedef struct {
    PyObject_HEAD
    Interner *queries, *docs;
    int is_run;
    Column qc, dc, vc, lc, rc;
    long long line;
    long long newlines; /* in the text fed so far */
    PyObject *tag;
    /* a run's evidence for the suspicious-input warnings: its lines by field count (how
       many, the first), its first tag, and the first line tagged otherwise (0: none) */
    long long fields[NFIELDS], fields_first[NFIELDS];
    PyObject *tag0, *other_tag;
    int tag0_count;
    long long other_line;
    Block recs_block; /* scan ring (Pending records), reused from one piece to the next */
    int busy;         /* being fed without the GIL (see wait_idle) */
    int serial;       /* scan, then intern, in the feeding thread (see Parser_serial) */
    Local local;      /* the current query's ids, when docs is per query */
    Steps steps;      /* a run's steps up the ranks, gathered as its rows are interned */
} Parser;

static int Parser_init(Parser *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"queries", "docs", "is_run", NULL};
    Interner *queries, *docs;
    int is_run;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!p", kwlist, &InternerType, &queries,
                                     &InternerType, &docs, &is_run))
        return -1;
    Py_INCREF(queries);
    Py_INCREF(docs);
    Py_XSETREF(self->queries, queries);
    Py_XSETREF(self->docs, docs);
    self->is_run = is_run;
    free(self->steps.seen);
    memset(&self->steps, 0, sizeof self->steps);
    self->steps.on = is_run;
    self->steps.tied = self->steps.rise = -1;
    self->qc.item = sizeof(int32_t);
    self->dc.item = sizeof(int32_t);
    self->vc.item = 8;
    self->lc.item = sizeof(int32_t);
    self->rc.item = sizeof(double);
    self->line = 0;
    self->newlines = 0;
    Py_XSETREF(self->tag, PyBytes_FromStringAndSize("", 0));
    return self->tag ? 0 : -1;
}

/* One scan ring kept from a parser that is done for the next one (under the GIL): a run
   read block by block makes a parser per block, and each needs a ring (RING_MAX records,
   see Scan). */
static Block spare_recs;

static void recs_release(Block *b) {
    if (!b->p) return;
    Block old = *b;  /* freed: the block, or the spare it replaces */
    pthread_mutex_lock(&spare_mu);
    if (b->size <= SPARE_MAX && b->size > spare_recs.size) {
        old = spare_recs;
        spare_recs = *b;
    }
    pthread_mutex_unlock(&spare_mu);
    b->p = NULL;
    b->size = 0;
    block_free(&old);
}

static int recs_fit(size_t size, size_t want) { return size >= want; }

/* `b` at least `size` bytes (its content not kept): the spare ring when it is large
   enough, else a new one (of the size asked: a ring holds a power of two of records, the
   next parser asks as much or less). */
static int recs_reserve(Block *b, size_t size) {
    if (b->p && b->size >= size) return 0;
    recs_release(b);
    *b = spare_take(&spare_recs, 1, recs_fit, size);
    return b->p ? 0 : block_alloc(b, size);
}

static void Parser_dealloc(Parser *self) {
    recs_release(&self->recs_block);
    free(self->local.slots);
    free(self->steps.seen);
    Py_XDECREF(self->queries);
    Py_XDECREF(self->docs);
    pool_put(&self->qc.mem);
    pool_put(&self->dc.mem);
    pool_put(&self->vc.mem);
    pool_put(&self->lc.mem);
    pool_put(&self->rc.mem);
    Py_XDECREF(self->tag);
    Py_XDECREF(self->tag0);
    Py_XDECREF(self->other_tag);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Scanning (splitting lines into fields, parsing numbers, hashing ids) runs in a worker
   thread while the calling thread interns what has been scanned: the two halves of the work
   overlap on two cores.  The worker touches no Python object.  The scanned records pass
   through a ring of RING_MAX records at most (record k at k & mask, 288 KB): the scanner
   waits while the ring is full, so that the records stay in the cache between the two
   threads, where a buffer of one record per line of the piece (72 bytes a line, 60 MB for
   a 32 MB block) was written to memory, read back and, fresh, zeroed by the kernel first
   (a 7M-line run: system time 0.43 -> 0.29 s; 2^14 or 2^16 records were no faster). */
#define RING_MAX ((size_t)1 << 12)
/* the scanner publishes its records every RING_PUBLISH of them (and when it waits) */
#define RING_PUBLISH ((size_t)1 << 10)
/* the interner hands back the ring's room after at most RING_BATCH records */
#define RING_BATCH ((size_t)1 << 10)

typedef struct {
    const char *p, *end;
    long long line0;
    int is_run;
    Pending *recs;    /* the ring */
    size_t mask;      /* its capacity - 1 */
    size_t produced;  /* records ready (atomic) */
    size_t consumed;  /* records interned (atomic): their slots are free */
    int done;         /* worker finished (atomic) */
    int stop;         /* the interner failed: the scanner stops (atomic) */
    int waiting;      /* the scanner waits for room (atomic) */
    int serial;       /* no worker: scan_lines returns when the ring is full */
    /* where the scan is: resumed there (serial) */
    int begun;
    const char *at, *nul, *guard;
    long long at_line;
    size_t n;
    long long err_line;
    char err_kind[32];
    const char *err_s;
    size_t err_n;
    const char *tag;
    size_t tag_len;
    long long *fields, *fields_first;  /* the parser's counts, written by the worker */
    const char *tag0, *other;         /* the run's first tag (its line's here, when new) */
    size_t tag0_len, other_len;       /* and the first other tag of this piece */
    int tag0_new, *tag0_count;
    long long other_line;
    long long last_line;
    pthread_mutex_t mu;
    pthread_cond_t cv;    /* records produced (or the scan done) */
    pthread_cond_t room;  /* records consumed (or the scan to stop) */
} Scan;

static void scan_publish(Scan *sc, size_t n, int done) {
    pthread_mutex_lock(&sc->mu);
    __atomic_store_n(&sc->produced, n, __ATOMIC_RELEASE);
    if (done) __atomic_store_n(&sc->done, 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&sc->cv);
    pthread_mutex_unlock(&sc->mu);
}

/* Whether record n may be written: the ring keeps the records not yet interned. */
static inline int ring_has_room(Scan *sc, size_t n) {
    return n < __atomic_load_n(&sc->consumed, __ATOMIC_SEQ_CST) + sc->mask + 1;
}

/* The scanner, its ring full: 1 when record n may be written, 0 when it is to stop (the
   interner failed) or, serial, to return (the caller interns, then calls again). */
static int ring_wait(Scan *sc, size_t n) {
    if (sc->serial) return 0;
    scan_publish(sc, n, 0);
    pthread_mutex_lock(&sc->mu);
    __atomic_store_n(&sc->waiting, 1, __ATOMIC_SEQ_CST);
    while (!ring_has_room(sc, n) && !__atomic_load_n(&sc->stop, __ATOMIC_SEQ_CST))
        pthread_cond_wait(&sc->room, &sc->mu);
    __atomic_store_n(&sc->waiting, 0, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&sc->mu);
    return !__atomic_load_n(&sc->stop, __ATOMIC_SEQ_CST);
}

/* The interner: records up to `used` interned, their room handed back (the scanner woken
   if it waits for it); `stop`: no more wanted. */
static void ring_consumed(Scan *sc, size_t used, int stop) {
    __atomic_store_n(&sc->consumed, used, __ATOMIC_SEQ_CST);
    if (stop) __atomic_store_n(&sc->stop, 1, __ATOMIC_SEQ_CST);
    if (stop || __atomic_load_n(&sc->waiting, __ATOMIC_SEQ_CST)) {
        pthread_mutex_lock(&sc->mu);
        pthread_cond_signal(&sc->room);
        pthread_mutex_unlock(&sc->mu);
    }
}

/* Record the first bad line and stop scanning. */
static void scan_error(Scan *sc, long long line, const char *kind, const char *s, size_t n) {
    snprintf(sc->err_kind, sizeof sc->err_kind, "%s", kind);
    sc->err_line = line;
    sc->err_s = s;
    sc->err_n = n;
}

/* A run line's rank field as a number (NaN when it is not one): the usual rank, up to 9
   digits, read here; anything else as a score is (the same double either way). */
static inline double parse_rank(const char *s, size_t n) {
    if (n - 1 < 9) {
        uint32_t m = 0;
        size_t i = 0;
        for (; i < n && (unsigned)(s[i] - '0') < 10; i++) m = m * 10 + (unsigned)(s[i] - '0');
        if (i == n) return (double)m;
    }
    double v;
    return parse_score(s, n, &v) ? NAN : v;
}

/* The scan (the worker's function; or, serial, called in turn with the interning until it
   is done): the piece's lines into records of the ring. */
static void *scan_lines(void *arg) {
    Scan *sc = arg;
    const char *p = sc->at, *end = sc->end;
    long long line = sc->at_line;
    size_t n = sc->n;
    const size_t mask = sc->mask;
    Fields f;
    f.count = 0;
    if (!sc->begun) {
        sc->begun = 1;
        /* lines up to the last newline are walked without bounds (each ends at its
           newline); a last line without one, the rest, is split as bounded */
        sc->guard = end;
        while (sc->guard > p && sc->guard[-1] != '\n') sc->guard--;
    }
    const char *nul = sc->nul, *guard = sc->guard;
    int finished = 1;
    size_t limit = 0;  /* records below it may be written (the ring's room last seen) */
    while (p < end) {
        if (n >= limit) {
            if (!ring_has_room(sc, n) && !ring_wait(sc, n)) {
                finished = sc->serial && !__atomic_load_n(&sc->stop, __ATOMIC_SEQ_CST) ? 0 : 1;
                break;
            }
            limit = __atomic_load_n(&sc->consumed, __ATOMIC_SEQ_CST) + mask + 1;
        }
        const char *stop, *q = p;
        line++;
        if (p < guard) {
            while (CLASS_OF(*q) == BYTE_BLANK) q++;
            if (*q == '\n') stop = q;
            else if (*q == '#') stop = memchr(q, '\n', (size_t)(guard - q));
            else {
#if defined(__SSE2__) && defined(__GNUC__)
                /* (64 bytes read from q: within the text) */
                stop = end - q >= 64 ? split_line64(q, &f) : NULL;
                if (!stop) stop = split_line(q, &f);
#else
                stop = split_line(q, &f);
#endif
            }
        } else {
            stop = end;
            while (q < stop && is_space(*q)) q++;
            if (q != stop && *q != '#') split_fields(q, stop, &f);
        }
        const char *next = stop < end ? stop + 1 : end;
        if (nul && nul < stop) {
            scan_error(sc, line, "nul", p, (size_t)(stop - p));
            break;
        }
        if (q == stop || *q == '#') { p = next; continue; }
        if (sc->is_run ? f.count < 6 : f.count != 4) {
            const char *e = stop;
            while (e > q && is_space(e[-1])) e--;
            char kind[32];
            snprintf(kind, sizeof kind, "fields:%d", f.count);
            scan_error(sc, line, kind, q, (size_t)(e - q));
            break;
        }
        Pending *pd = &sc->recs[n & mask];
        /* the value: a run line's score (field 5), a qrels line's grade (field 4); the kind
           of error when it is not a number (rc 1) or out of range */
        int run = sc->is_run ? 1 : 0, at = run ? 4 : 3;
        int rc = run ? parse_score(f.start[at], f.len[at], &pd->v.score)
                     : parse_grade(f.start[at], f.len[at], &pd->v.grade);
        if (rc) {
            static const char *const kinds[2][2] = {{"grade", "grade_range"}, {"score", "score_inf"}};
            scan_error(sc, line, kinds[run][rc != 1], f.start[at], f.len[at]);
            break;
        }
        if (run) {
            sc->tag = f.start[5];
            sc->tag_len = f.len[5];
            int c = f.count < NFIELDS ? f.count : NFIELDS - 1;
            if (!sc->fields[c]) sc->fields_first[c] = line;
            sc->fields[c]++;
            /* tags are compared between lines of the first line's field count (a line
               with a field more has another field in the tag's place) */
            if (!sc->tag0) {
                sc->tag0 = f.start[5];
                sc->tag0_len = f.len[5];
                sc->tag0_new = 1;
                *sc->tag0_count = f.count;
            } else if (!sc->other_line && f.count == *sc->tag0_count &&  /* (same_bytes: */
                       (f.len[5] != sc->tag0_len ||                 /* a memcmp call per */
                        !same_bytes(f.start[5], sc->tag0, f.len[5]))) {  /* line cost) */
                sc->other_line = line;
                sc->other = f.start[5];
                sc->other_len = f.len[5];
            }
            pd->rank = parse_rank(f.start[3], f.len[3]);
        }
        pd->q = f.start[0];
        pd->qlen = f.len[0];
        pd->d = f.start[2];
        pd->dlen = f.len[2];
        /* the same query as the record before (still in the ring): its hash again, and
           its code (the interner told so) */
        const Pending *before = n ? &sc->recs[(n - 1) & mask] : NULL;
        pd->same_query = before && before->qlen == pd->qlen &&
                         same_bytes(before->q, pd->q, pd->qlen);
        pd->qh = pd->same_query ? before->qh : hash_bytes(pd->q, pd->qlen);
        pd->dh = hash_bytes_within(pd->d, pd->dlen, end);
        pd->line = (int32_t)line;
        n++;
        if ((n & (RING_PUBLISH - 1)) == 0) scan_publish(sc, n, 0);
        p = next;
    }
    sc->at = p;
    sc->at_line = line;
    sc->n = n;
    if (!finished) {  /* (serial, the ring full: resumed after the interning) */
        __atomic_store_n(&sc->produced, n, __ATOMIC_RELEASE);
        return NULL;
    }
    sc->last_line = line;
    scan_publish(sc, n, 1);
    return NULL;
}

static PyObject *Parser_feed(Parser *self, PyObject *args) {
    Py_buffer data;
    int final;
    if (!PyArg_ParseTuple(args, "y*p", &data, &final)) return NULL;
    Interner *queries = self->queries, *docs = self->docs;
    wait_idle3(&self->busy, &queries->busy, &docs->busy);
    const char *begin = data.buf, *p = begin, *end = p + data.len;
    if (!final) {
        /* only whole lines: stop after the last newline */
        while (end > p && end[-1] != '\n') end--;
    }
    PyObject *result = NULL;
    Scan sc;
    memset(&sc, 0, sizeof sc);

    /* Room for one row per line of this piece: its newlines counted, and its first NUL
       byte found (the line holding it is an error when reached), without the GIL (a pass
       over the text, ~10 ms for 32 MB, that held back the thread judging the block
       before), the parser and its interners marked busy meanwhile (see wait_idle). */
    const char *nul;
    size_t newlines;
    self->busy++;
    queries->busy++;
    docs->busy++;
    Py_BEGIN_ALLOW_THREADS
    newlines = count_newlines(p, end, &nul);
    Py_END_ALLOW_THREADS
    self->busy--;
    queries->busy--;
    docs->busy--;
    size_t lines = newlines + 1;
    if (self->line + (long long)lines > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "more than 2^31 lines");
        goto done;
    }
    /* (a per-query interner's table takes no id: its codes and arena grow instead) */
    if ((docs->per_query ? interner_reserve_codes(docs, lines)
                         : interner_reserve(docs, docs->indexed + lines / 3)) < 0 ||
        interner_reserve_arena(docs, (size_t)(end - p)) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    size_t rows = self->qc.len + lines;
    if (column_reserve(&self->qc, rows) < 0 || column_reserve(&self->dc, rows) < 0 ||
        column_reserve(&self->vc, rows) < 0 || column_reserve(&self->lc, rows) < 0 ||
        (self->is_run && column_reserve(&self->rc, rows) < 0))
        goto done;
    /* the ring: room for every line of a short piece (no wait), else RING_MAX records */
    size_t ring = 32;
    while (ring < RING_MAX && ring < lines + 2) ring <<= 1;
    if (recs_reserve(&self->recs_block, ring * sizeof(Pending)) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    sc.recs = self->recs_block.p;
    sc.mask = ring - 1;
    sc.p = p;
    sc.end = end;
    sc.line0 = self->line;
    sc.at = p;
    sc.nul = nul;
    sc.at_line = self->line;
    sc.is_run = self->is_run;
    sc.serial = self->serial;
    sc.fields = self->fields;
    sc.fields_first = self->fields_first;
    sc.tag0_count = &self->tag0_count;
    if (self->tag0) {
        sc.tag0 = PyBytes_AS_STRING(self->tag0);
        sc.tag0_len = (size_t)PyBytes_GET_SIZE(self->tag0);
    }
    sc.other_line = self->other_line;
    pthread_mutex_init(&sc.mu, NULL);
    pthread_cond_init(&sc.cv, NULL);
    pthread_cond_init(&sc.room, NULL);
    /* Scanning and interning touch no Python object: the GIL is let go meanwhile, so that
       another thread (`rankscope.table.many` evaluating the block before) runs on.  The
       parser and its interners are marked busy till then (see wait_idle). */
    int failed = 0;
    self->busy++;
    queries->busy++;
    docs->busy++;
    Py_BEGIN_ALLOW_THREADS
    int started = 0;
    pthread_t worker;
    if (!sc.serial && pthread_create(&worker, NULL, scan_lines, &sc) == 0)
        started = 1;
    else
        sc.serial = 1; /* no thread: scan here, in turn with the interning */
    size_t used = 0;
    for (;;) {
        if (sc.serial && !sc.done) scan_lines(&sc); /* (till the ring is full) */
        int finished = __atomic_load_n(&sc.done, __ATOMIC_ACQUIRE);
        size_t ready = __atomic_load_n(&sc.produced, __ATOMIC_ACQUIRE);
        if (ready > used) {
            /* keep a prefetch distance behind the scanner unless it has paused or finished;
               hand the ring's room back a batch at a time */
            size_t upto = finished || sc.serial ? ready : (ready > used + 16 ? ready - 16 : used);
            if (upto > used + RING_BATCH) upto = used + RING_BATCH;
            if (upto > used) {
                failed = intern_records(sc.recs, sc.mask, used, upto, ready, queries, docs,
                                        &self->qc, &self->dc, &self->vc, &self->lc,
                                        self->is_run ? &self->rc : NULL,
                                        docs->per_query ? &self->local : NULL, &self->steps);
                if (failed) {
                    ring_consumed(&sc, used, 1); /* (the scanner stops) */
                    break;
                }
                used = upto;
                ring_consumed(&sc, used, 0);
                continue;
            }
        }
        if (finished) break;
        if (sc.serial) continue;
        /* wait for records beyond the prefetch distance (waiting only for any record, this
           thread spun on the lock, slowing the scanner, while the last 16 were held back) */
        pthread_mutex_lock(&sc.mu);
        while (__atomic_load_n(&sc.produced, __ATOMIC_ACQUIRE) <= used + 16 &&
               !__atomic_load_n(&sc.done, __ATOMIC_ACQUIRE))
            pthread_cond_wait(&sc.cv, &sc.mu);
        pthread_mutex_unlock(&sc.mu);
    }
    if (started) pthread_join(worker, NULL);
    Py_END_ALLOW_THREADS
    self->busy--;
    queries->busy--;
    docs->busy--;
    if (failed) {
        raised(failed);
        goto done;
    }
    self->line = sc.last_line;
    self->newlines += (long long)newlines;
    if (sc.err_line) {
        result = error_tuple(sc.err_line, sc.err_kind, sc.err_s, sc.err_n);
        goto done;
    }
    if (sc.tag) {
        PyObject *t = PyBytes_FromStringAndSize(sc.tag, (Py_ssize_t)sc.tag_len);
        if (!t) goto done;
        Py_XSETREF(self->tag, t);
    }
    if (sc.tag0_new) {
        PyObject *t = PyBytes_FromStringAndSize(sc.tag0, (Py_ssize_t)sc.tag0_len);
        if (!t) goto done;
        Py_XSETREF(self->tag0, t);
    }
    if (sc.other_line && !self->other_line) {
        PyObject *t = PyBytes_FromStringAndSize(sc.other, (Py_ssize_t)sc.other_len);
        if (!t) goto done;
        Py_XSETREF(self->other_tag, t);
        self->other_line = sc.other_line;
    }
    result = PyLong_FromSsize_t((Py_ssize_t)(end - begin));
done:
    if (sc.recs) {
        pthread_mutex_destroy(&sc.mu);
        pthread_cond_destroy(&sc.cv);
        pthread_cond_destroy(&sc.room);
    }
    /* the last piece: its scan ring given back now for the next parser, not when this
       one is freed (a block's parser lives on while the next block is read) */
    if (final) recs_release(&self->recs_block);
    PyBuffer_Release(&data);
    return result;
}

static PyObject *Parser_result(Parser *self, PyObject *Py_UNUSED(ignored)) {
    wait_idle(&self->busy);
    PyObject *qb = column_take(&self->qc), *db = column_take(&self->dc);
    PyObject *vb = column_take(&self->vc), *lb = column_take(&self->lc);
    if (!qb || !db || !vb || !lb) {
        Py_XDECREF(qb); Py_XDECREF(db); Py_XDECREF(vb); Py_XDECREF(lb);
        return NULL;
    }
    if (!self->is_run) return Py_BuildValue("(NNNN)", qb, db, vb, lb);
    /* a run's evidence: its rank column (float64, NaN where not a number), {field count:
       (lines, first line)} (NFIELDS - 1: that many or more), (first tag, first line
       with another tag or 0, that tag), and its steps up the ranks (tied, its first line,
       rise, falling, stepped: see Steps), None where not gathered or fewer than two rows */
    Steps st = self->steps;
    if (st.on && st.started) steps_close(&st);
    PyObject *steps = st.on && st.rows >= 2
        ? Py_BuildValue("(LLLOL)", (long long)st.tied, (long long)st.lowest_tied,
                        (long long)st.rise, st.falling ? Py_True : Py_False,
                        (long long)st.stepped)
        : Py_NewRef(Py_None);
    PyObject *rb = column_take(&self->rc), *fields = PyDict_New();
    int ok = rb && fields && steps;
    for (int c = 0; ok && c < NFIELDS; c++) {
        if (!self->fields[c]) continue;
        PyObject *k = PyLong_FromLong(c);
        PyObject *v = Py_BuildValue("(LL)", self->fields[c], self->fields_first[c]);
        ok = k && v && PyDict_SetItem(fields, k, v) == 0;
        Py_XDECREF(k);
        Py_XDECREF(v);
    }
    PyObject *empty = PyBytes_FromStringAndSize("", 0);
    if (!ok || !empty) {
        Py_XDECREF(qb); Py_XDECREF(db); Py_XDECREF(vb); Py_XDECREF(lb);
        Py_XDECREF(rb); Py_XDECREF(fields); Py_XDECREF(empty); Py_XDECREF(steps);
        return NULL;
    }
    PyObject *out = Py_BuildValue(
        "(NNNNONN(OLO)N)", qb, db, vb, lb, self->tag, rb, fields,
        self->tag0 ? self->tag0 : empty, self->other_line,
        self->other_tag ? self->other_tag : empty, steps);
    Py_DECREF(empty);
    return out;
}

/* reserve(rows, ids): room for `rows` more rows and `ids` more distinct documents, so that
   a large input grows its columns and table once rather than by doubling. */
static PyObject *Parser_reserve(Parser *self, PyObject *args) {
    Py_ssize_t rows, ids;
    if (!PyArg_ParseTuple(args, "nn", &rows, &ids)) return NULL;
    if (rows < 0 || ids < 0) {
        PyErr_SetString(PyExc_ValueError, "negative reservation");
        return NULL;
    }
    wait_idle3(&self->busy, &self->docs->busy, &self->docs->busy);
    size_t need = self->qc.len + (size_t)rows;
    if (interner_reserve(self->docs, self->docs->indexed + (size_t)ids) < 0)
        return PyErr_NoMemory();
    if (column_reserve(&self->qc, need) < 0 || column_reserve(&self->dc, need) < 0 ||
        column_reserve(&self->vc, need) < 0 || column_reserve(&self->lc, need) < 0 ||
        (self->is_run && column_reserve(&self->rc, need) < 0))
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Parser_rows(Parser *self, PyObject *Py_UNUSED(ignored)) {
    wait_idle(&self->busy);
    return PyLong_FromSize_t(self->qc.len);
}

/* repeated(): the rows (first, second) of the first document listed twice for a query, as
   rankscope.read.duplicates.first_repeated finds them when each query's lines come together
   (the caller checks that they do); () when none; None when not tracked (docs is not per
   query). */
static PyObject *Parser_repeated(Parser *self, PyObject *Py_UNUSED(ignored)) {
    wait_idle(&self->busy);
    if (!self->docs->per_query) Py_RETURN_NONE;
    if (!self->local.repeated) return PyTuple_New(0);
    return Py_BuildValue("(LL)", (long long)self->local.first, (long long)self->local.again);
}

static PyObject *Parser_newlines(Parser *self, PyObject *Py_UNUSED(ignored)) {
    wait_idle(&self->busy);
    return PyLong_FromLongLong(self->newlines);
}

/* serial(): every later feed scans its text and then interns it in the feeding thread,
   without a scanner thread of its own: for a parse that runs beside other work on as many
   cores as threads (`rankscope.read.ahead`, beside the imports), where a second thread
   would take a core from that work.  The rows are the same. */
static PyObject *Parser_serial(Parser *self, PyObject *Py_UNUSED(ignored)) {
    self->serial = 1;
    Py_RETURN_NONE;
}

static PyMethodDef Parser_methods[] = {
    {"rows", (PyCFunction)Parser_rows, METH_NOARGS, "number of rows parsed so far"},
    {"serial", (PyCFunction)Parser_serial, METH_NOARGS,
     "scan and intern in the feeding thread, one after the other (no scanner thread)"},
    {"repeated", (PyCFunction)Parser_repeated, METH_NOARGS,
     "rows (first, second) of the first document listed twice for a query, () when none, "
     "None when not tracked (docs not per query)"},
    {"newlines", (PyCFunction)Parser_newlines, METH_NOARGS,
     "number of newlines in the text fed so far (counted once, as the rows are reserved)"},
    {"reserve", (PyCFunction)Parser_reserve, METH_VARARGS,
     "reserve(rows, ids): make room for that many more rows and distinct documents"},
    {"feed", (PyCFunction)Parser_feed, METH_VARARGS,
     "feed(buffer, final) -> bytes consumed (whole lines unless final), or "
     "(None, line, kind, detail) on bad input"},
    {"result", (PyCFunction)Parser_result, METH_NOARGS,
     "(query, doc, value, line[, tag, rank, fields, tags]) as read-only Buffers: int32, "
     "int32, float64 or int64, int32 (a run: its tag, float64 ranks, {field count: (lines, "
     "first line)}, "
     "(first tag, first line of another tag or 0, that tag))"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ParserType = {PyVarObject_HEAD_INIT(NULL, 0)};  /* filled by add_type */

/* The per-document stamps of first_duplicate, kept from one call to the next (under the
   GIL) up to STAMPS_KEPT documents: a run read block by block checks every block, and fresh
   stamps each time had the kernel fault in and zero them (3k page faults a block, most of
   the check's time). */
static int32_t *kept_stamps;
static size_t kept_stamps_len;
#define STAMPS_KEPT ((size_t)16 << 20)

/* first_duplicate(query, doc, num_queries, num_docs): the first row j (in input order)
   whose (query, doc) pair already appeared at an earlier row i, as (i, j); None if every
   pair is unique.  O(rows + docs): rows are visited query by query (a counting sort keeps
   input order within a query) with a per-document stamp. */
static PyObject *py_first_duplicate(PyObject *self, PyObject *args) {
    Py_buffer qb, db;
    Py_ssize_t nq, nd;
    if (!PyArg_ParseTuple(args, "y*y*nn", &qb, &db, &nq, &nd)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = qb.len / (Py_ssize_t)sizeof(int32_t);
    const int32_t *q = qb.buf, *d = db.buf;
    int64_t *start = calloc((size_t)nq + 1, sizeof(int64_t));
    int64_t *rows = NULL, *where = NULL;  /* (only where the rows are not grouped) */
    size_t want = (size_t)(nd ? nd : 1);
    if (kept_stamps && kept_stamps_len < want) {
        free(kept_stamps);
        kept_stamps = NULL;
    }
    if (!kept_stamps) {
        kept_stamps = malloc(want * sizeof(int32_t));
        kept_stamps_len = kept_stamps ? want : 0;
    }
    int32_t *stamp = kept_stamps;
    int64_t best_i = -1, best_j = -1;
    if (!start || !stamp) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < n; k++) {
        if (q[k] < 0 || q[k] >= nq || d[k] < 0 || d[k] >= nd) {
            PyErr_SetString(PyExc_IndexError, "code out of range");
            goto done;
        }
        start[q[k] + 1]++;
    }
    /* The usual run lists each query's rows together: one pass in input order, stamping
       documents with the query's stretch, finds the first repeated row j itself (and the
       earlier row i of its pair), with no counting sort.  start[] holds each query's rows
       here: a stretch shorter than its query's rows means it comes back later. */
    {
        int grouped = 1;
        for (Py_ssize_t k = 0; k < n && grouped; ) {
            Py_ssize_t a = k;
            while (k < n && q[k] == q[a]) k++;
            grouped = (int64_t)(k - a) == start[q[a] + 1];
        }
        if (grouped) {
            for (Py_ssize_t c = 0; c < nd; c++) stamp[c] = -1;
            int32_t stretch = 0;
            Py_ssize_t head = 0;  /* the first row of the stretch */
            for (Py_ssize_t k = 0; k < n; k++) {
                if (k && q[k] != q[k - 1]) { stretch++; head = k; }
                int32_t doc = d[k];
                if (stamp[doc] == stretch) {  /* the earlier row: found again in the stretch */
                    Py_ssize_t i = head;
                    while (d[i] != doc) i++;
                    best_i = i;
                    best_j = k;
                    break;
                }
                stamp[doc] = stretch;
            }
            goto found;
        }
    }
    rows = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    where = malloc(want * sizeof(int64_t));
    if (!rows || !where) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t c = 0; c < nq; c++) start[c + 1] += start[c];
    {
        int64_t *fill = malloc((size_t)(nq ? nq : 1) * sizeof(int64_t));
        if (!fill) { PyErr_NoMemory(); goto done; }
        memcpy(fill, start, (size_t)nq * sizeof(int64_t));
        for (Py_ssize_t k = 0; k < n; k++) rows[fill[q[k]]++] = k;
        free(fill);
    }
    for (Py_ssize_t c = 0; c < nd; c++) stamp[c] = -1;
    for (Py_ssize_t c = 0; c < nq; c++) {
        for (int64_t t = start[c]; t < start[c + 1]; t++) {
            int64_t k = rows[t];
            int32_t doc = d[k];
            if (stamp[doc] == c) {
                if (best_j < 0 || k < best_j) { best_i = where[doc]; best_j = k; }
                break; /* later duplicates of this query come after k */
            }
            stamp[doc] = (int32_t)c;
            where[doc] = k;
        }
    }
found:
    if (best_j < 0) {
        Py_INCREF(Py_None);
        result = Py_None;
    } else {
        result = Py_BuildValue("(LL)", (long long)best_i, (long long)best_j);
    }
done:
    free(start);
    free(rows);
    free(where);
    if (kept_stamps_len > STAMPS_KEPT) {  /* (a run read whole: not kept) */
        free(kept_stamps);
        kept_stamps = NULL;
        kept_stamps_len = 0;
    }
    PyBuffer_Release(&qb);
    PyBuffer_Release(&db);
    return result;
}

/* zeroed_buffer(n): a bytearray of n zero bytes, its pages written without the GIL: what
   `rankscope.read.ahead` makes, beside the imports, for the texts of a run's next blocks
   (Python's bytearray(n) writes its zeros holding the GIL, and the kernel's first touch of
   36 MB, ~20 ms, would otherwise fall on the thread that reads the blocks). */
static PyObject *py_zeroed_buffer(PyObject *self, PyObject *arg) {
    (void)self;
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a negative length");
        return NULL;
    }
    PyObject *out = PyByteArray_FromStringAndSize(NULL, n);
    if (!out) return NULL;
    char *at = PyByteArray_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS
    memset(at, 0, (size_t)n);
    Py_END_ALLOW_THREADS
    return out;
}

/* release_memory(): the memory kept for the next parser (the spare tables, arenas, offsets
   and scan ring, the column pool, first_duplicate's stamps) freed, then the free memory the C
   allocator keeps given back to the system (glibc's malloc_trim: whole free pages of every
   arena); returns the bytes of the first.  For a caller reading many runs one at a time and
   keeping a little of each (glibc keeps freed memory where it was, between the blocks still
   in use, and each thread's in its arena), or that has freed much memory. */
static PyObject *py_release_memory(PyObject *self, PyObject *Py_UNUSED(ignored)) {
    Block gone[3 * SPARES + 1 + POOL_BLOCKS];
    int count = 0;
    pthread_mutex_lock(&spare_mu);
    for (int i = 0; i < SPARES; i++) {
        gone[count++] = spare_slots[i];
        gone[count++] = spare_arena[i];
        gone[count++] = spare_offsets[i];
        spare_slots[i] = (Block){0};
        spare_arena[i] = (Block){0};
        spare_offsets[i] = (Block){0};
    }
    gone[count++] = spare_recs;
    spare_recs = (Block){0};
    for (int i = 0; i < POOL_BLOCKS; i++) {
        gone[count++] = pool[i];
        pool[i] = (Block){0};
    }
    pooled = 0;
    pthread_mutex_unlock(&spare_mu);
    size_t bytes = kept_stamps_len * sizeof(*kept_stamps);
    free(kept_stamps);
    kept_stamps = NULL;
    kept_stamps_len = 0;
    for (int i = 0; i < count; i++) {
        if (gone[i].p) bytes += gone[i].size;
        block_free(&gone[i]);
    }
#ifdef __GLIBC__
    Py_BEGIN_ALLOW_THREADS
    malloc_trim(0);
    Py_END_ALLOW_THREADS
#endif
    return PyLong_FromSize_t(bytes);
}

static PyMethodDef module_methods[] = {
    {"first_duplicate", py_first_duplicate, METH_VARARGS,
     "first_duplicate(query, doc, num_queries, num_docs) -> (i, j) or None"},
    {"zeroed_buffer", py_zeroed_buffer, METH_O,
     "zeroed_buffer(n) -> a bytearray of n zero bytes, written without the GIL"},
    {"release_memory", py_release_memory, METH_NOARGS,
     "release_memory() -> bytes freed of the memory kept for the next parser (the\n"
     "allocator's free pages then given back to the system)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_trecio", "Compiled TREC reader and string interner.", -1,
    module_methods,
};

/* Fills in the fields every type of the module shares (its qualified name, size,
   constructor, destructor, methods and doc; a plain, non-subclassable type made by
   PyType_GenericNew), readies it and adds it to module m under its short name; -1 with the
   exception set on failure. */
static int add_type(PyObject *m, PyTypeObject *type, const char *name, Py_ssize_t size,
                    initproc init, destructor dealloc, PyMethodDef *methods, const char *doc) {
    type->tp_name = name;
    type->tp_basicsize = size;
    type->tp_flags = Py_TPFLAGS_DEFAULT;
    type->tp_new = PyType_GenericNew;
    type->tp_init = init;
    type->tp_dealloc = dealloc;
    type->tp_methods = methods;
    type->tp_doc = doc;
    if (PyType_Ready(type) < 0) return -1;
    Py_INCREF(type);
    if (PyModule_AddObject(m, strrchr(name, '.') + 1, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__trecio(void) {
#ifdef HAVE_STRTOD_L
    if (!c_locale) {
        c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
        if (!c_locale) return PyErr_SetFromErrno(PyExc_OSError);
    }
#endif
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (add_type(m, &InternerType, "rankscope.model._trecio.Interner", sizeof(Interner),
                 (initproc)Interner_init, (destructor)Interner_dealloc, Interner_methods,
                 "Interns byte-string ids into dense int32 codes.") < 0 ||
        add_type(m, &ParserType, "rankscope.model._trecio.Parser", sizeof(Parser),
                 (initproc)Parser_init, (destructor)Parser_dealloc, Parser_methods,
                 "Incremental TREC qrels/run parser into interned columns.") < 0 ||
        add_type(m, &BufferType, "rankscope.model._trecio.Buffer", sizeof(Buffer), NULL,
                 (destructor)Buffer_dealloc, NULL,
                 "A parsed column's memory, read-only (numpy.frombuffer reads it).") < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
