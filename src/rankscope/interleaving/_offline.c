/* Team-draft offline interleaving, compiled: the dynamic programme of
 * rankscope.interleaving.kernels (`_TeamDraft.run`) for every pair of a batch in one call,
 * the GIL released.
 *
 * The numpy programme advances all pairs one round per step; this one does the same, pair
 * by pair within a round, so that every value is the numpy programme's to the last bit:
 *   - within a round a pair's amounts are added in the programme's calls, in its order
 *     (the ended states' tails; the lone ranking's first and second picks; the plain
 *     rounds; the split states' first and second picks), each call's amounts summed from
 *     0.0 in the order of the pair's states before being added to the pair's value (as
 *     numpy's bincount sums them);
 *   - a pair's states keep the programme's order: [ended none; lone, done after one pick;
 *     lone, after two; plain; split, ended after one pick; split, after two], the split
 *     states with a taking first before those with b first;
 *   - merges happen at the programme's rounds (when the states of the whole batch have
 *     grown by a quarter since the last), sort a pair's states by (i, j, difference),
 *     stably, and sum equal states' probabilities as numpy's add.reduceat does (the first,
 *     plus the pairwise sum of the others);
 *   - arithmetic in the programme's order and precision (no contraction into fused
 *     multiply-adds: setup.py compiles with -ffp-contract=off).
 * The numpy programme parks pairs for quiet rounds; parking changes no value (its module
 * says why), so this one simply plays every round.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t pair, i, j, diff, n, placed;
    double prob;
} State;

typedef struct {
    const int64_t *docs, *length, *rank, *column, *first, *second, *depth, *total_relevant;
    const uint8_t *relevant;
    const double *base, *cumulative;
    int64_t width, columns, absent_row, nbase, truncate;
} Batch;

/* p(k) of pair p, k 1-based: base[k - 1] / C(K) within the depth, 0 beyond (the extended
 * base's last entry is 0). */
static inline double weight(const Batch *b, int64_t p, int64_t k) {
    int64_t at = k <= b->depth[p] ? k - 1 : b->nbase - 1;
    return b->base[at] / b->cumulative[b->depth[p]];
}

static inline double tail(const Batch *b, int64_t p, int64_t n) {
    int64_t depth = b->depth[p];
    double hi = b->cumulative[depth];
    double lo = b->cumulative[n < depth ? n : depth];
    return (hi - lo) / b->cumulative[depth];
}

static inline int64_t sign(int64_t x) { return (x > 0) - (x < 0); }

static inline int64_t doc_a(const Batch *b, const State *s) {
    return b->docs[b->first[s->pair] * b->width + s->i];
}

static inline int64_t doc_b(const Batch *b, const State *s) {
    return b->docs[b->second[s->pair] * b->width + s->j];
}

static inline int64_t rank_in(const Batch *b, int64_t doc, int64_t column) {
    int64_t row = doc < b->absent_row ? doc : b->absent_row;
    return b->rank[row * b->columns + column];
}

/* Both pointers past documents already in the list. */
static void normalise(const Batch *b, State *s) {
    int64_t col_a = b->column[b->first[s->pair]], col_b = b->column[b->second[s->pair]];
    for (;;) {
        int move_a = rank_in(b, doc_a(b, s), col_b) < s->j;
        s->i += move_a;
        int move_b = rank_in(b, doc_b(b, s), col_a) < s->i;
        s->j += move_b;
        if (!move_a && !move_b) return;
    }
}

/* The team of the state (a when side_a) takes its next document; returns the amount. */
static double pick(const Batch *b, State *s, int side_a) {
    int64_t doc = side_a ? doc_a(b, s) : doc_b(b, s);
    int64_t gain = b->relevant[doc] ? 1 : 0;
    int64_t credit = side_a ? gain : -gain;
    int64_t k = s->n + 1;
    double amount = s->prob * weight(b, s->pair, k) * (double)sign(s->diff + credit);
    s->i += side_a;
    s->j += !side_a;
    normalise(b, s);
    s->diff += credit;
    s->placed += gain;
    s->n = k;
    return amount;
}

/* numpy's pairwise summation of doubles (its reductions' inner loop). */
static double pairwise_sum(const double *a, int64_t n) {
    if (n < 8) {
        double res = 0.;
        for (int64_t i = 0; i < n; i++) res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8], res;
        int64_t i;
        for (int k = 0; k < 8; k++) r[k] = a[k];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int k = 0; k < 8; k++) r[k] += a[i + k];
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    int64_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

static inline int before(const State *x, const State *y) {
    if (x->i != y->i) return x->i < y->i;
    if (x->j != y->j) return x->j < y->j;
    return x->diff < y->diff;
}

/* Stable merge sort of s[0..n) by (i, j, difference), through tmp (n states). */
static void sort_states(State *s, State *tmp, int64_t n) {
    if (n < 2) return;
    int sorted = 1;
    for (int64_t k = 1; k < n; k++)
        if (before(&s[k], &s[k - 1])) { sorted = 0; break; }
    if (sorted) return;
    for (int64_t run = 1; run < n; run *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * run) {
            int64_t mid = lo + run < n ? lo + run : n;
            int64_t hi = lo + 2 * run < n ? lo + 2 * run : n;
            int64_t x = lo, y = mid, o = lo;
            while (x < mid && y < hi) tmp[o++] = before(&s[y], &s[x]) ? s[y++] : s[x++];
            while (x < mid) tmp[o++] = s[x++];
            while (y < hi) tmp[o++] = s[y++];
        }
        memcpy(s, tmp, (size_t)n * sizeof(State));
    }
}

/* One state per (i, j, difference) of the pair's states s[0..n) (sorted in place, then
 * compacted); returns how many remain. */
static int64_t merge_pair(State *s, State *tmp, double *probs, int64_t n) {
    sort_states(s, tmp, n);
    int64_t out = 0;
    for (int64_t start = 0; start < n;) {
        int64_t stop = start + 1;
        while (stop < n && s[stop].i == s[start].i && s[stop].j == s[start].j &&
               s[stop].diff == s[start].diff)
            stop++;
        State kept = s[start];
        if (stop - start > 1) {
            for (int64_t k = start + 1; k < stop; k++) probs[k - start - 1] = s[k].prob;
            kept.prob = s[start].prob + pairwise_sum(probs, stop - start - 1);
        }
        s[out++] = kept;
        start = stop;
    }
    return out;
}

/* Room for a round: the states it makes (two per state at most) and its scratch. */
typedef struct {
    State *states;
    int64_t size, capacity;
} Buffer;

static int reserve(Buffer *buf, int64_t more) {
    if (buf->size + more <= buf->capacity) return 0;
    int64_t capacity = buf->capacity ? buf->capacity : 1024;
    while (capacity < buf->size + more) capacity *= 2;
    State *states = realloc(buf->states, (size_t)capacity * sizeof(State));
    if (!states) return -1;
    buf->states = states;
    buf->capacity = capacity;
    return 0;
}

typedef struct {
    State *states;   /* 2 × count: the first picks of a round */
    uint8_t *side;   /* 2 × count: each first pick's side (1: a) */
    uint8_t *kind;   /* count: ENDED, ALONE, PLAIN, SPLIT */
    double *probs;   /* count: a merge's probabilities */
    int64_t capacity;
} Scratch;

static int scratch_for(Scratch *w, int64_t count) {
    if (count <= w->capacity) return 0;
    int64_t capacity = w->capacity ? w->capacity : 64;
    while (capacity < count) capacity *= 2;
    State *states = realloc(w->states, (size_t)(2 * capacity) * sizeof(State));
    if (!states) return -1;
    w->states = states;
    uint8_t *side = realloc(w->side, (size_t)(2 * capacity));
    if (!side) return -1;
    w->side = side;
    uint8_t *kind = realloc(w->kind, (size_t)capacity);
    if (!kind) return -1;
    w->kind = kind;
    double *probs = realloc(w->probs, (size_t)capacity * sizeof(double));
    if (!probs) return -1;
    w->probs = probs;
    w->capacity = capacity;
    return 0;
}

enum { ENDED, ALONE, PLAIN, SPLIT };

/* After the first picks w->states[0..m) (w->side: which ranking took): those with no second
 * pick appended to out[o..] in order, then the others after taking it, in order (the same
 * ranking again when `again`, a lone ranking going on; else the other, after a coin's
 * first pick); their amounts summed and added to *value.  Returns the new end of out. */
static int64_t second_picks(const Batch *b, const Scratch *w, int64_t m, int64_t na,
                            int64_t nb, int again, State *out, int64_t o, double *value) {
    int any = 0;
    for (int64_t k = 0; k < m; k++) {
        const State *x = &w->states[k];
        int on = again ? (w->side[k] ? x->i < na : x->j < nb) : (x->i < na && x->j < nb);
        if (on) {
            any = 1;
        } else {
            out[o++] = *x;
        }
    }
    if (!any) return o;
    double t = 0.0;
    for (int64_t k = 0; k < m; k++) {
        State x = w->states[k];
        int on = again ? (w->side[k] ? x.i < na : x.j < nb) : (x.i < na && x.j < nb);
        if (!on) continue;
        t += pick(b, &x, again ? w->side[k] : !w->side[k]);
        out[o++] = x;
    }
    *value += t;
    return o;
}

/* One round of pair p's states s[0..count) (every state of the pair, in order), appended
 * to out (room for 2 × count); returns how many states it made. */
static int64_t round_pair(const Batch *b, const State *s, int64_t count, double *value,
                          State *out, Scratch *w) {
    int64_t p = s[0].pair;
    int64_t na = b->length[b->first[p]], nb = b->length[b->second[p]];
    int64_t depth = b->depth[p], total = b->total_relevant[p];
    uint8_t *kind = w->kind;
    int any_ended = 0, any_alone = 0, any_plain = 0, any_split = 0;
    double t = 0.0;
    for (int64_t k = 0; k < count; k++) {
        const State *x = &s[k];
        int has_a = x->i < na, has_b = x->j < nb, both = has_a && has_b;
        if (x->placed >= total || x->n >= depth || !(has_a || has_b) ||
            (b->truncate && !both)) {
            kind[k] = ENDED;
            t += x->prob * tail(b, p, x->n) * (double)sign(x->diff);
            any_ended = 1;
        } else if (!both) {
            kind[k] = ALONE;
            any_alone = 1;
        } else {
            int split = doc_a(b, x) == doc_b(b, x);
            if (b->truncate) {
                /* a ranking running out after the first pick ends a truncated list in
                 * mid-round, so the two orders differ */
                State after_a = *x, after_b = *x;
                after_a.i += 1;
                after_b.j += 1;
                normalise(b, &after_a);
                normalise(b, &after_b);
                split |= after_a.i >= na || after_b.j >= nb;
            }
            kind[k] = split ? SPLIT : PLAIN;
            any_plain |= !split;
            any_split |= split;
        }
    }
    if (any_ended) *value += t;
    int64_t o = 0, m = 0;
    if (any_alone) {
        /* the ranking with documents left takes one, and a second if it has one more */
        t = 0.0;
        for (int64_t k = 0; k < count; k++) {
            if (kind[k] != ALONE) continue;
            State x = s[k];
            int side = x.i < na;
            t += pick(b, &x, side);
            w->states[m] = x;
            w->side[m++] = (uint8_t)side;
        }
        *value += t;
        o = second_picks(b, w, m, na, nb, 1, out, o, value);
    }
    if (any_plain) {
        t = 0.0;
        for (int64_t k = 0; k < count; k++) {
            if (kind[k] != PLAIN) continue;
            State x = s[k];
            int64_t ga = b->relevant[doc_a(b, &x)] ? 1 : 0;
            int64_t gb = b->relevant[doc_b(b, &x)] ? 1 : 0;
            int64_t d = x.diff;
            double w1 = weight(b, p, x.n + 1), w2 = weight(b, p, x.n + 2);
            t += x.prob * (0.5 * w1 * (double)(sign(d + ga) + sign(d - gb)) +
                           w2 * (double)sign(d + ga - gb));
            x.i += 1;
            x.j += 1;
            normalise(b, &x);
            x.diff += ga - gb;
            x.placed += ga + gb;
            x.n += 2;
            out[o++] = x;
        }
        *value += t;
    }
    if (any_split) {
        /* the coin: a first for every split state, then b first for every one; those whose
         * list has no round left after one pick end there, the others take the second */
        m = 0;
        t = 0.0;
        for (int side = 1; side >= 0; side--) {
            for (int64_t k = 0; k < count; k++) {
                if (kind[k] != SPLIT) continue;
                State x = s[k];
                x.prob *= 0.5;
                t += pick(b, &x, side);
                w->states[m] = x;
                w->side[m++] = (uint8_t)side;
            }
        }
        *value += t;
        o = second_picks(b, w, m, na, nb, 0, out, o, value);
    }
    return o;
}

/* Quiet rounds ahead of a ranking's pointer at i (the ranking's documents docs, its
 * length n, its marks) against a ranking in column other: rounds whose document is neither
 * relevant nor held by the other ranking, nor the next one held by it (the other's pointer
 * would not skip it).  The marks jump over the documents no other ranking holds. */
static int64_t quiet_ahead(const Batch *b, const int64_t *docs, const int32_t *mark,
                           int64_t i, int64_t n, int64_t other, int64_t other_length,
                           int64_t limit) {
    int64_t k = i;
    for (;;) {
        k = mark[k];
        if (k - i > limit) return limit;  /* ranks i..k - 1 quiet: limit rounds at least */
        if (k >= n || b->relevant[docs[k]] || rank_in(b, docs[k], other) < other_length) break;
        k++;
    }
    int held = k < n && rank_in(b, docs[k], other) < other_length;
    return k - i - held;
}

/* Parking pays when few documents can end a quiet stretch: at most this share of the
 * rankings' documents relevant or held by two rankings (runs pooled from one track share
 * most of theirs: every round of theirs would look for quiet rounds and find none). */
#define LOUD 0.25

/* mark[s · width + k]: the first rank >= k of ranking s whose document is relevant or held
 * by another ranking, or its length when none is (k itself from there on); *loud: more of
 * the documents than LOUD are. */
static int32_t *marks(const Batch *b, int64_t slots, int *loud) {
    int32_t *mark = malloc((size_t)(slots * b->width) * sizeof(int32_t));
    if (!mark) return NULL;
    int64_t held = 0, stops = 0;
    for (int64_t s = 0; s < slots; s++) {
        const int64_t *docs = b->docs + s * b->width;
        int32_t *row = mark + s * b->width;
        int64_t n = b->length[s];
        for (int64_t k = n; k < b->width; k++) row[k] = (int32_t)k;
        int32_t next = (int32_t)n;
        for (int64_t k = n - 1; k >= 0; k--) {
            if (b->relevant[docs[k]] || docs[k] < b->absent_row) {
                next = (int32_t)k;
                stops++;
            }
            row[k] = next;
        }
        held += n;
    }
    *loud = (double)stops > LOUD * (double)(held ? held : 1);
    return mark;
}

/* Quiet rounds every state of pair p's s[0..count) has ahead (0 when some state has none
 * or when parking could change the order of a later sum): both rankings' next documents
 * neither relevant nor held by the other, nor their documents after, within the depth.
 * The states must be distinct and, three or more, sorted (by i, j, difference), so that a
 * merge meanwhile would leave them as they are (two states added in either order give the
 * same sum). */
static int64_t quiet(const Batch *b, const int32_t *mark, const State *s, int64_t count) {
    int64_t p = s[0].pair;
    int64_t slot_a = b->first[p], slot_b = b->second[p];
    int64_t na = b->length[slot_a], nb = b->length[slot_b];
    int64_t col_a = b->column[slot_a], col_b = b->column[slot_b];
    const int64_t *docs_a = b->docs + slot_a * b->width, *docs_b = b->docs + slot_b * b->width;
    const int32_t *mark_a = mark + slot_a * b->width, *mark_b = mark + slot_b * b->width;
    int64_t ahead = INT64_MAX;
    /* with several states, each first asked for two quiet rounds only (scans as long as
     * the limit), so that a pair kept in the rounds by one state costs little */
    for (int64_t limit = count > 1 ? 2 : INT64_MAX; limit; limit = limit == 2 ? INT64_MAX : 0) {
        for (int64_t k = 0; k < count; k++) {
            const State *x = &s[k];
            if (k && !(count == 2 ? (x->i != s[0].i || x->j != s[0].j || x->diff != s[0].diff)
                                  : before(&s[k - 1], x)))
                return 0;
            if (x->placed >= b->total_relevant[p] || x->n >= b->depth[p]) return 0;
            int64_t most = (b->depth[p] - x->n) / 2;
            if (most < ahead) ahead = most;
            int64_t upto = limit < ahead ? limit : ahead;
            int64_t a = quiet_ahead(b, docs_a, mark_a, x->i, na, col_b, nb, upto);
            if (a < ahead) ahead = a;
            upto = limit < ahead ? limit : ahead;
            int64_t c = quiet_ahead(b, docs_b, mark_b, x->j, nb, col_a, na, upto);
            if (c < ahead) ahead = c;
            if (ahead < 2) return 0;
        }
        if (limit == 2) ahead = INT64_MAX;  /* every state has two: now how many */
    }
    return ahead;
}

/* Park pair p's states s[0..count) for `ahead` quiet rounds: each round's amount (their
 * amounts summed in their order) added `ahead` times, the states moved as many rounds on
 * into `to`. */
static int park(const Batch *b, const State *s, int64_t count, int64_t ahead, double *value,
                Buffer *to) {
    int64_t p = s[0].pair;
    double drift = 0.0;
    for (int64_t k = 0; k < count; k++) {
        int64_t d = s[k].diff;
        double w1 = weight(b, p, s[k].n + 1), w2 = weight(b, p, s[k].n + 2);
        drift += s[k].prob * (0.5 * w1 * (double)(sign(d) + sign(d)) + w2 * (double)sign(d));
    }
    if (drift != 0.0)  /* adding 0 changes no value (none is -0: it starts at +0) */
        for (int64_t k = 0; k < ahead; k++) *value += drift;
    if (reserve(to, count)) return -1;
    for (int64_t k = 0; k < count; k++) {
        State x = s[k];
        x.i += ahead;
        x.j += ahead;
        x.n += 2 * ahead;
        to->states[to->size++] = x;
    }
    return 0;
}

/* Merge the states of each pair of buf (grouped by pair) in place. */
static int merge_all(Buffer *buf, Buffer *tmp, Scratch *w) {
    tmp->size = 0;
    if (reserve(tmp, buf->size)) return -1;
    int64_t kept = 0;
    for (int64_t start = 0; start < buf->size;) {
        int64_t p = buf->states[start].pair, stop = start + 1;
        while (stop < buf->size && buf->states[stop].pair == p) stop++;
        if (scratch_for(w, stop - start)) return -1;
        int64_t left = merge_pair(buf->states + start, tmp->states, w->probs, stop - start);
        memmove(buf->states + kept, buf->states + start, (size_t)left * sizeof(State));
        kept += left;
        start = stop;
    }
    buf->size = kept;
    return 0;
}

/* Append buf's groups of states to cur, each sorted when a merge happened since it left
 * (stamp) and it has several. */
static int rejoin(Buffer *cur, Buffer *buf, const int64_t *stamp, int64_t merges,
                  Scratch *w) {
    if (reserve(cur, buf->size)) return -1;
    for (int64_t start = 0; start < buf->size;) {
        int64_t p = buf->states[start].pair, stop = start + 1;
        while (stop < buf->size && buf->states[stop].pair == p) stop++;
        int64_t count = stop - start;
        memcpy(cur->states + cur->size, buf->states + start, (size_t)count * sizeof(State));
        if (stamp && stamp[p] != merges && count > 1) {
            if (scratch_for(w, count)) return -1;
            sort_states(cur->states + cur->size, w->states, count);
        }
        cur->size += count;
        start = stop;
    }
    buf->size = 0;
    return 0;
}

/* Has round r more states (those of the lone pairs, of the pairs entering next, and of
 * the pairs that split played so far) than a merge waits for? */
static inline int merges_at(int64_t r, const int64_t *count_at, const int64_t *single,
                            const Buffer *enter, int64_t npairs) {
    return (double)(single[r] + enter[r + 1].size + count_at[r]) > 1.25 * (double)npairs;
}

/* The pairs that split, each played alone from the round it splits at to its end, as if
 * no merge ever happened (its states then evolve whatever the others do), counting the
 * states of every round; returns 1 when indeed no round has a quarter more states than
 * the batch has pairs (then no merge happens: the values are final), 0 when one has (then
 * the values, expanded states and given-up marks of those pairs are as they were, for
 * the rounds played together: known as soon as a round's count reaches it, since counts
 * only grow as pairs are played), -1 when memory ran out. */
static int solo(const Batch *b, int64_t npairs, int64_t max_states, int parking,
                const int32_t *mark, int64_t rounds, const Buffer *enter,
                const int64_t *single, int64_t *expanded, uint8_t *given_up, double *value,
                Scratch *w) {
    Buffer cur = {0}, next = {0}, one = {0};
    int64_t *count_at = calloc((size_t)(rounds + 1), sizeof(int64_t));
    double *saved = NULL;
    int64_t *saved_expanded = NULL, *saved_pair = NULL, splits = 0, at = 0;
    int status = -1;
    for (int64_t r = 0; r <= rounds; r++) splits += enter[r].size;
    saved = malloc((size_t)(splits ? splits : 1) * sizeof(double));
    saved_expanded = malloc((size_t)(splits ? splits : 1) * sizeof(int64_t));
    saved_pair = malloc((size_t)(splits ? splits : 1) * sizeof(int64_t));
    if (!count_at || !saved || !saved_expanded || !saved_pair) goto out;
    for (int64_t entry = 0; entry <= rounds; entry++) {
        const Buffer *in = &enter[entry];
        for (int64_t start = 0; start < in->size;) {
            int64_t p = in->states[start].pair, stop = start + 1;
            while (stop < in->size && in->states[stop].pair == p) stop++;
            saved_pair[at] = p;
            saved[at] = value[p];
            saved_expanded[at++] = expanded[p];
            cur.size = 0;
            if (reserve(&cur, stop - start)) goto out;
            memcpy(cur.states, in->states + start, (size_t)(stop - start) * sizeof(State));
            cur.size = stop - start;
            start = stop;
            for (int64_t r = entry; cur.size && r < rounds;) {
                int64_t count = cur.size;
                if (max_states >= 0) {
                    expanded[p] += count;
                    if (expanded[p] > max_states) {
                        given_up[p] = 1;
                        break;
                    }
                }
                int64_t ahead = parking ? quiet(b, mark, cur.states, count) : 0;
                if (ahead >= 2 && max_states >= 0) {
                    int64_t most = (max_states - expanded[p]) / count + 1;
                    if (most < ahead) ahead = most;
                }
                if (ahead >= 2 && r + ahead < rounds) {
                    one.size = 0;
                    if (park(b, cur.states, count, ahead, &value[p], &one)) goto out;
                    Buffer swap = cur;
                    cur = one;
                    one = swap;
                    if (max_states >= 0) expanded[p] += count * (ahead - 1);
                    for (int64_t k = 0; k < ahead; k++) {
                        count_at[r + k] += count;
                        if (merges_at(r + k, count_at, single, enter, npairs)) goto merging;
                    }
                    r += ahead;
                    continue;
                }
                next.size = 0;
                if (reserve(&next, 2 * count) || scratch_for(w, count)) goto out;
                next.size = round_pair(b, cur.states, count, &value[p], next.states, w);
                count_at[r] += next.size;
                if (merges_at(r, count_at, single, enter, npairs)) goto merging;
                Buffer swap = cur;
                cur = next;
                next = swap;
                r++;
            }
        }
    }
    status = 1;
    goto out;
merging:  /* a merge happens (the counts only grow): the rounds played together decide */
    status = 0;
    for (int64_t k = 0; k < at; k++) {
        int64_t p = saved_pair[k];
        value[p] = saved[k];
        expanded[p] = saved_expanded[k];
        given_up[p] = 0;
    }
out:
    free(cur.states);
    free(next.states);
    free(one.states);
    free(count_at);
    free(saved);
    free(saved_expanded);
    free(saved_pair);
    return status;
}

/* The programme: returns 0, or -1 when memory ran out.
 *
 * Most pairs never split: their one state evolves whatever the others do (a merge leaves
 * one state as it is), so each such pair is played alone, start to end, while its data is
 * in the cache; a pair enters the rounds played for all pairs together only when a round
 * splits its state, with the states that round made.  The rounds together then take the
 * lone pairs' states into account (one per pair and round until it ends or splits) when
 * they decide to merge, as the numpy programme counts them.
 *
 * With a constant browsing model and lists not truncated, a pair all of whose states have
 * L >= 2 quiet rounds ahead (`quiet`) is parked: each of those rounds would add the same
 * amount (its states' amounts summed in their order), which is added L times at once, its
 * states move L rounds ahead, and they come back into the programme L rounds later (sorted
 * when a merge happened meanwhile, as it would have sorted them); meanwhile they count
 * among the states that decide when to merge, and against max_states, as if they ran. */
static int run(const Batch *b, int64_t slots, int64_t npairs, int64_t max_states,
               int parking, double *value) {
    Buffer cur = {0}, next = {0};
    Scratch w = {0};
    /* a state lives fewer rounds than its list has positions, and a list fewer than both
     * rankings' lengths; a pair is parked fewer rounds than its rankings' length */
    int64_t rounds = 2 * b->width + 4, ring = b->width + 2;
    Buffer *parked = calloc((size_t)ring, sizeof(Buffer));
    Buffer *enter = calloc((size_t)(rounds + 1), sizeof(Buffer));
    int64_t *single = calloc((size_t)(rounds + 1), sizeof(int64_t));
    int64_t *expanded = calloc((size_t)(npairs ? npairs : 1), sizeof(int64_t));
    int64_t *stamp = calloc((size_t)(npairs ? npairs : 1), sizeof(int64_t));
    uint8_t *given_up = calloc((size_t)(npairs ? npairs : 1), 1);
    parking = parking && b->width < INT32_MAX;  /* the marks are 32-bit ranks */
    int loud = 0;
    int32_t *mark = parking ? marks(b, slots, &loud) : NULL;
    int status = -1;
    if (!parked || !enter || !single || !expanded || !stamp || !given_up ||
        (parking && !mark) || scratch_for(&w, 1))
        goto out;
    parking = parking && !loud;
    /* each pair alone while it has one state: single[r], how many of them after round r */
    int64_t last = 0;  /* the round after the last at which a pair enters */
    for (int64_t p = 0; p < npairs; p++) {
        State x = {p, 0, 0, 0, 0, 0, 1.0}, made[2];
        value[p] = 0.0;
        normalise(b, &x);
        int64_t r = 0;
        for (;;) {
            if (max_states >= 0 && r + 1 > max_states) {
                given_up[p] = 1;
                break;
            }
            int64_t ahead = parking ? quiet(b, mark, &x, 1) : 0;
            if (ahead >= 2 && max_states >= 0 && max_states - r < ahead) ahead = max_states - r;
            if (ahead >= 2) {
                Buffer one = {made, 0, 1};
                park(b, &x, 1, ahead, &value[p], &one);
                x = made[0];
                r += ahead;
                continue;
            }
            int64_t count = round_pair(b, &x, 1, &value[p], made, &w);
            if (count == 1) {
                x = made[0];
                r++;
                continue;
            }
            if (count > 1) {  /* split: the pair goes on with the others from round r + 1 */
                Buffer *to = &enter[r + 1];
                if (reserve(to, count)) goto out;
                memcpy(to->states + to->size, made, (size_t)count * sizeof(State));
                to->size += count;
                expanded[p] = r + 1;
                if (r + 2 > last) last = r + 2;
            }
            break;
        }
        single[0] += 1;
        single[r] -= 1;
    }
    for (int64_t r = 1; r <= rounds; r++) single[r] += single[r - 1];
    int solved = solo(b, npairs, max_states, parking, mark, rounds, enter, single, expanded,
                      given_up, value, &w);
    if (solved < 0) goto out;
    if (solved) last = 0;  /* no merge: the pairs that split are done too */
    int64_t merged = npairs, merges = 0, waiting = 0;
    for (int64_t step = 0; step < rounds && (cur.size || waiting || step < last); step++) {
        Buffer *back = &parked[step % ring];
        waiting -= back->size;
        if (rejoin(&cur, back, stamp, merges, &w) || rejoin(&cur, &enter[step], NULL, 0, &w))
            goto out;
        next.size = 0;
        for (int64_t start = 0; start < cur.size;) {
            int64_t p = cur.states[start].pair, stop = start + 1;
            while (stop < cur.size && cur.states[stop].pair == p) stop++;
            int64_t count = stop - start;
            const State *s = cur.states + start;
            start = stop;
            if (max_states >= 0) {
                expanded[p] += count;
                if (expanded[p] > max_states) given_up[p] = 1;
            }
            if (given_up[p]) continue;
            int64_t ahead = parking ? quiet(b, mark, s, count) : 0;
            if (ahead >= 2 && max_states >= 0) {
                int64_t most = (max_states - expanded[p]) / count + 1;
                if (most < ahead) ahead = most;
            }
            if (ahead >= 2) {
                if (park(b, s, count, ahead, &value[p], &parked[(step + ahead) % ring]))
                    goto out;
                if (max_states >= 0) expanded[p] += count * (ahead - 1);
                stamp[p] = merges;
                waiting += count;
                continue;
            }
            if (reserve(&next, 2 * count) || scratch_for(&w, count)) goto out;
            next.size += round_pair(b, s, count, &value[p], next.states + next.size, &w);
        }
        Buffer swap = cur;
        cur = next;
        next = swap;
        /* merging waits until the splits have added a quarter more states (the lone
         * pairs' and those entering next round count) */
        Buffer *coming = &enter[step + 1];
        if ((double)(cur.size + waiting + single[step] + coming->size) > 1.25 * (double)merged) {
            if (merge_all(&cur, &next, &w) || merge_all(coming, &next, &w)) goto out;
            merged = cur.size + waiting + single[step] + coming->size;
            merges++;
        }
    }
    for (int64_t p = 0; p < npairs; p++)
        if (given_up[p]) value[p] = Py_NAN;
    status = 0;
out:
    free(cur.states);
    free(next.states);
    free(w.states);
    free(w.side);
    free(w.kind);
    free(w.probs);
    if (parked)
        for (int64_t k = 0; k < ring; k++) free(parked[k].states);
    if (enter)
        for (int64_t k = 0; k <= rounds; k++) free(enter[k].states);
    free(parked);
    free(enter);
    free(single);
    free(mark);
    free(expanded);
    free(stamp);
    free(given_up);
    return status;
}

/* ------------------------------------------------------------------------------------ */

static int view(PyObject *obj, Py_buffer *buf, Py_ssize_t itemsize, const char *name,
                int writable) {
    if (PyObject_GetBuffer(obj, buf, (writable ? PyBUF_WRITABLE : 0) | PyBUF_C_CONTIGUOUS |
                                         PyBUF_FORMAT) < 0)
        return -1;
    if (buf->itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "%s: items of %zd bytes expected", name, itemsize);
        PyBuffer_Release(buf);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(team_draft_doc,
"team_draft(docs, width, length, rank, columns, column, relevant, first, second, depth,\n"
"           base, cumulative, total_relevant, truncate, max_states, parking, value)\n"
"\n"
"Team-draft I(a, b) of every pair into value (float64, one per pair; NaN beyond\n"
"max_states, -1 for no limit; parking: quiet rounds skipped, for a constant browsing\n"
"model only): the arrays of a rankscope.interleaving.kernels.Batch,\n"
"flat and C-contiguous (int64; relevant as uint8; base with a 0 appended and cumulative,\n"
"float64, as kernels._Browsing keeps them).");

static PyObject *team_draft(PyObject *self, PyObject *args) {
    PyObject *objs[13], *value_obj;
    Py_ssize_t width, columns, max_states;
    int truncate, parking;
    if (!PyArg_ParseTuple(args, "OnOOnOOOOOOOOpnpO", &objs[0], &width, &objs[1], &objs[2],
                          &columns, &objs[3], &objs[4], &objs[5], &objs[6], &objs[7],
                          &objs[8], &objs[9], &objs[10], &truncate, &max_states, &parking,
                          &value_obj))
        return NULL;
    static const char *names[] = {"docs", "length", "rank", "column", "relevant", "first",
                                  "second", "depth", "base", "cumulative", "total_relevant"};
    static const Py_ssize_t sizes[] = {8, 8, 8, 8, 1, 8, 8, 8, 8, 8, 8};
    Py_buffer bufs[12];
    int got = 0;
    PyObject *result = NULL;
    for (; got < 11; got++)
        if (view(objs[got], &bufs[got], sizes[got], names[got], 0) < 0) goto out;
    if (view(value_obj, &bufs[11], 8, "value", 1) < 0) goto out;
    got = 12;
    Py_ssize_t slots = bufs[1].len / 8, npairs = bufs[5].len / 8;
    Py_ssize_t rows = columns > 0 ? bufs[2].len / 8 / columns : 0;
    if (width < 1 || columns < 1 || rows < 1 || bufs[0].len / 8 != slots * width ||
        bufs[3].len / 8 != slots || bufs[6].len / 8 != npairs || bufs[7].len / 8 != npairs ||
        bufs[10].len / 8 != npairs || bufs[11].len / 8 != npairs || bufs[8].len < 8 ||
        bufs[9].len / 8 != bufs[8].len / 8) {
        PyErr_SetString(PyExc_ValueError, "team_draft: arrays of inconsistent sizes");
        goto out;
    }
    Batch b = {
        .docs = bufs[0].buf, .length = bufs[1].buf, .rank = bufs[2].buf,
        .column = bufs[3].buf, .relevant = bufs[4].buf, .first = bufs[5].buf,
        .second = bufs[6].buf, .depth = bufs[7].buf, .base = bufs[8].buf,
        .cumulative = bufs[9].buf, .total_relevant = bufs[10].buf,
        .width = width, .columns = columns, .absent_row = rows - 1,
        .nbase = bufs[8].len / 8, .truncate = truncate,
    };
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = run(&b, slots, npairs, max_states, parking && !truncate, bufs[11].buf);
    Py_END_ALLOW_THREADS
    if (status < 0) {
        PyErr_NoMemory();
        goto out;
    }
    result = Py_NewRef(Py_None);
out:
    for (int k = 0; k < got; k++) PyBuffer_Release(&bufs[k]);
    return result;
}

PyDoc_STRVAR(pairwise_doc,
"pairwise_sum(values) -> float: numpy's pairwise summation of float64 values (its\n"
"reductions'), which merges sum probabilities with; exposed for the tests.");

static PyObject *pairwise(PyObject *self, PyObject *arg) {
    Py_buffer buf;
    if (view(arg, &buf, 8, "values", 0) < 0) return NULL;
    double sum = pairwise_sum(buf.buf, buf.len / 8);
    PyBuffer_Release(&buf);
    return PyFloat_FromDouble(sum);
}

static PyMethodDef methods[] = {
    {"team_draft", team_draft, METH_VARARGS, team_draft_doc},
    {"pairwise_sum", pairwise, METH_O, pairwise_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_offline",
    "Team-draft offline interleaving for every pair of a batch, compiled "
    "(rankscope.interleaving.kernels).", -1, methods,
};

PyMODINIT_FUNC PyInit__offline(void) { return PyModule_Create(&module); }
