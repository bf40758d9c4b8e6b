/*
 * rankscope.stats._tukey: the compiled inner loop of the randomized Tukey HSD test on
 * preference tensors (`rankscope.stats.multiple.preference_tukey_pvalues`).
 *
 * For each permutation i (the relabelling sigma[i, t, :] of the systems on query t) and each
 * pair (a, c) of systems (c > a when the preferences are antisymmetric, every pair
 * otherwise), it adds over the queries, in query order starting from 0.0, the cell
 * cells[t, sigma[i, t, a] * n + sigma[i, t, c], k] of each method k: the same additions in the
 * same order as the numpy code it replaces, so the same bits.  It keeps, per permutation and
 * method, the largest sum over the pairs (of |sum| when antisymmetric; NaN if any sum is
 * NaN, as numpy's max).  The division by the number of queries stays in Python.
 *
 * Cache: a tile of queries (their cells fit in L2) is run through a block of permutations
 * whose running sums fit in L3, so each tile of cells is read from memory once per block.
 * The permutations are split between threads in contiguous halves (results written by
 * permutation index: the same output whatever the number of threads), with the GIL released.
 *
 * Plain C99, the CPython API and the buffer protocol; built optional by setup.py (without
 * it numpy does the same work).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORKERS 64

/* The number of workers for `items` items: at least 1, at most the items and MAX_WORKERS. */
static int clamp_workers(int workers, Py_ssize_t items) {
    if (workers > MAX_WORKERS) workers = MAX_WORKERS;
    if (items < workers) workers = (int)items;
    return workers < 1 ? 1 : workers;
}

/* Runs fn on each of the `workers` jobs (`size` bytes apart from `jobs`, each starting with
   its int `failed`), the first on this thread and each other on a thread of its own (or on
   this one when none can be started), with the GIL released; returns the largest `failed`
   when all are done. */
static int run_parallel(void *(*fn)(void *), void *jobs, size_t size, int workers) {
    pthread_t threads[MAX_WORKERS];
    int started[MAX_WORKERS] = {0};
    char *job = (char *)jobs;
    Py_BEGIN_ALLOW_THREADS
    for (int w = 1; w < workers; w++)
        started[w] = pthread_create(&threads[w], NULL, fn, job + (size_t)w * size) == 0;
    fn(job);
    for (int w = 1; w < workers; w++) {
        if (started[w])
            pthread_join(threads[w], NULL);
        else
            fn(job + (size_t)w * size);
    }
    Py_END_ALLOW_THREADS
    int failed = 0;
    for (int w = 0; w < workers; w++) {
        int one = *(int *)(job + (size_t)w * size);
        if (one > failed) failed = one;
    }
    return failed;
}

typedef struct {
    int failed;            /* (first, as run_parallel reads it) 1: out of memory, 2: a label
                              outside [0, n) */
    const double *cells;   /* queries x n*n x methods */
    const int64_t *sigma;  /* permutations x queries x n */
    Py_ssize_t queries, n, methods, pairs;
    int antisymmetric;
    Py_ssize_t tile;       /* queries per tile */
    Py_ssize_t block;      /* permutations per block */
    double *out;           /* permutations x methods */
    Py_ssize_t first, last; /* this worker's permutations [first, last) */
} Job;

static void *run_job(void *arg) {
    Job *job = (Job *)arg;
    const Py_ssize_t q = job->queries, n = job->n, m = job->methods, tile = job->tile;
    const Py_ssize_t nn = n * n, width = job->pairs * m;
    double *sums = malloc((size_t)job->block * (size_t)width * sizeof(double));
    Py_ssize_t *columns = malloc((size_t)n * (size_t)tile * sizeof(Py_ssize_t));
    Py_ssize_t *rows = malloc((size_t)n * (size_t)tile * sizeof(Py_ssize_t));
    const double **at = malloc((size_t)tile * sizeof(double *));
    if (!sums || !columns || !rows || !at) {
        job->failed = 1;
        goto done;
    }
    for (Py_ssize_t i0 = job->first; i0 < job->last; i0 += job->block) {
        Py_ssize_t count = job->last - i0 < job->block ? job->last - i0 : job->block;
        for (Py_ssize_t j = 0; j < count * width; j++) sums[j] = 0.0;
        for (Py_ssize_t t0 = 0; t0 < q; t0 += tile) {
            Py_ssize_t span = q - t0 < tile ? q - t0 : tile;
            for (Py_ssize_t i = 0; i < count; i++) {
                double *acc = sums + i * width;
                /* row and column offsets of each system's label on each query of the tile */
                for (Py_ssize_t u = 0; u < span; u++) {
                    const int64_t *label = job->sigma + ((i0 + i) * q + t0 + u) * n;
                    for (Py_ssize_t a = 0; a < n; a++) {
                        int64_t s = label[a];
                        if (s < 0 || s >= n) {
                            job->failed = 2;
                            goto done;
                        }
                        rows[a * tile + u] = (Py_ssize_t)s * n * m;
                        columns[a * tile + u] = (Py_ssize_t)s * m;
                    }
                }
                for (Py_ssize_t a = 0; a < n; a++) {
                    for (Py_ssize_t u = 0; u < span; u++)
                        at[u] = job->cells + (t0 + u) * nn * m + rows[a * tile + u];
                    Py_ssize_t c = job->antisymmetric ? a + 1 : 0;
                    if (m == 3) { /* the default study's three RPP methods, unrolled */
                        for (; c < n; c++) {
                            const Py_ssize_t *col = columns + c * tile;
                            double s0 = acc[0], s1 = acc[1], s2 = acc[2];
                            for (Py_ssize_t u = 0; u < span; u++) {
                                const double *x = at[u] + col[u];
                                s0 += x[0];
                                s1 += x[1];
                                s2 += x[2];
                            }
                            acc[0] = s0;
                            acc[1] = s1;
                            acc[2] = s2;
                            acc += 3;
                        }
                    } else {
                        for (; c < n; c++) {
                            const Py_ssize_t *col = columns + c * tile;
                            for (Py_ssize_t k = 0; k < m; k++) {
                                double s = acc[k];
                                for (Py_ssize_t u = 0; u < span; u++) s += at[u][col[u] + k];
                                acc[k] = s;
                            }
                            acc += m;
                        }
                    }
                }
            }
        }
        for (Py_ssize_t i = 0; i < count; i++) {
            const double *acc = sums + i * width;
            double *out = job->out + (i0 + i) * m;
            for (Py_ssize_t k = 0; k < m; k++) {
                double best = -INFINITY;
                int nan = 0;
                for (Py_ssize_t p = 0; p < job->pairs; p++) {
                    double v = acc[p * m + k];
                    if (job->antisymmetric) v = fabs(v);
                    if (v != v)
                        nan = 1;
                    else if (v > best)
                        best = v;
                }
                out[k] = nan ? NAN : best;
            }
        }
    }
done:
    free(sums);
    free(columns);
    free(rows);
    free((void *)at);
    return NULL;
}

/* The order of each row of uniform draws in [0, 1): a bucket sort (bucket floor(key * n),
   monotone in the key, then insertion within a bucket; expected linear time).  Returns 0
   when two draws of a row are equal or a draw is outside [0, 1): numpy's argsort decides
   then (its order of equal keys is its own). */
typedef struct {
    int failed; /* (first, as run_parallel reads it) 1: out of memory, 2: a tie or a draw
                   outside [0, 1) */
    const double *draws;
    int64_t *sigma;
    Py_ssize_t n, first, last; /* rows [first, last) */
} Order;

static void *run_order(void *arg) {
    Order *job = (Order *)arg;
    const Py_ssize_t n = job->n;
    Py_ssize_t *start = malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    Py_ssize_t *bucket = malloc((size_t)(n + 1) * sizeof(Py_ssize_t)); /* (n may be 0) */
    if (!start || !bucket) {
        job->failed = 1;
        goto done;
    }
    for (Py_ssize_t r = job->first; r < job->last; r++) {
        const double *key = job->draws + r * n;
        int64_t *out = job->sigma + r * n;
        for (Py_ssize_t j = 0; j <= n; j++) start[j] = 0;
        for (Py_ssize_t j = 0; j < n; j++) {
            if (!(key[j] >= 0.0 && key[j] < 1.0)) {
                job->failed = 2;
                goto done;
            }
            Py_ssize_t k = (Py_ssize_t)(key[j] * (double)n);
            if (k >= n) k = n - 1;
            bucket[j] = k;
            start[k + 1]++;
        }
        for (Py_ssize_t k = 0; k < n; k++) start[k + 1] += start[k];
        for (Py_ssize_t j = 0; j < n; j++) out[start[bucket[j]]++] = (int64_t)j;
        /* start[k] is now the end of bucket k: sort each bucket by key */
        Py_ssize_t begin = 0;
        for (Py_ssize_t k = 0; k < n; k++) {
            Py_ssize_t end = start[k];
            for (Py_ssize_t i = begin + 1; i < end; i++) {
                int64_t v = out[i];
                double kv = key[v];
                Py_ssize_t h = i;
                while (h > begin && key[out[h - 1]] > kv) {
                    out[h] = out[h - 1];
                    h--;
                }
                out[h] = v;
            }
            begin = end;
        }
        for (Py_ssize_t i = 1; i < n; i++) {
            if (key[out[i - 1]] == key[out[i]]) {
                job->failed = 2;
                goto done;
            }
        }
    }
done:
    free(start);
    free(bucket);
    return NULL;
}

static int get_buffer(PyObject *obj, Py_buffer *view, int flags, Py_ssize_t ndim,
                      const char *name, const char *kind) {
    if (PyObject_GetBuffer(obj, view, flags | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int ok = view->ndim == ndim && view->itemsize == 8 &&
             (kind[0] == 'd' ? strcmp(f, "d") == 0
                             : (strcmp(f, "q") == 0 || strcmp(f, "l") == 0));
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s: a C-contiguous %zd-dimensional %s array expected",
                     name, ndim, kind[0] == 'd' ? "float64" : "int64");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *py_maxima(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *keywords[] = {"cells", "sigma", "antisymmetric", "out", "workers", "tile",
                               "block", NULL};
    PyObject *cells_obj, *sigma_obj, *out_obj;
    int antisymmetric, workers = 1;
    Py_ssize_t tile = 0, block = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOpO|inn", keywords, &cells_obj, &sigma_obj,
                                     &antisymmetric, &out_obj, &workers, &tile, &block))
        return NULL;
    Py_buffer cb, sb, ob;
    if (get_buffer(cells_obj, &cb, PyBUF_SIMPLE, 3, "cells", "d") < 0) return NULL;
    if (get_buffer(sigma_obj, &sb, PyBUF_SIMPLE, 3, "sigma", "q") < 0) {
        PyBuffer_Release(&cb);
        return NULL;
    }
    if (get_buffer(out_obj, &ob, PyBUF_WRITABLE, 2, "out", "d") < 0) {
        PyBuffer_Release(&cb);
        PyBuffer_Release(&sb);
        return NULL;
    }
    PyObject *result = NULL;
    const Py_ssize_t q = cb.shape[0], m = cb.shape[2], b = sb.shape[0], n = sb.shape[2];
    if (sb.shape[1] != q || cb.shape[1] != n * n || ob.shape[0] != b || ob.shape[1] != m ||
        m < 1 || n < 1 || (antisymmetric && n < 2)) {
        PyErr_SetString(PyExc_ValueError,
                        "shapes: cells (q, n*n, m), sigma (b, q, n), out (b, m) expected");
        goto release;
    }
    Py_ssize_t pairs = antisymmetric ? n * (n - 1) / 2 : n * n;
    if (tile < 1) { /* the tile's cells in about 768 KB */
        tile = (Py_ssize_t)((768 << 10) / ((size_t)n * n * m * sizeof(double)));
        if (tile < 1) tile = 1;
        if (tile > 64) tile = 64;
    }
    if (tile > q && q > 0) tile = q;
    if (tile < 1) tile = 1;
    if (block < 1) { /* each worker's running sums in about 2 MB */
        block = (Py_ssize_t)((2 << 20) / ((size_t)pairs * m * sizeof(double)));
        if (block < 1) block = 1;
    }
    workers = clamp_workers(workers, b);
    Job jobs[MAX_WORKERS];
    for (int w = 0; w < workers; w++) {
        jobs[w] = (Job){0, (const double *)cb.buf, (const int64_t *)sb.buf, q, n, m, pairs,
                        antisymmetric, tile, block, (double *)ob.buf, b * w / workers,
                        b * (w + 1) / workers};
    }
    int failed = run_parallel(run_job, jobs, sizeof(Job), workers);
    if (failed == 2)
        PyErr_SetString(PyExc_ValueError, "sigma: a label outside [0, n)");
    else if (failed == 1)
        PyErr_NoMemory();
    else {
        Py_INCREF(Py_None);
        result = Py_None;
    }
release:
    PyBuffer_Release(&cb);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&ob);
    return result;
}

static PyObject *py_order(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *keywords[] = {"draws", "sigma", "workers", NULL};
    PyObject *draws_obj, *sigma_obj;
    int workers = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|i", keywords, &draws_obj, &sigma_obj,
                                     &workers))
        return NULL;
    Py_buffer db, sb;
    if (get_buffer(draws_obj, &db, PyBUF_SIMPLE, 3, "draws", "d") < 0) return NULL;
    if (get_buffer(sigma_obj, &sb, PyBUF_WRITABLE, 3, "sigma", "q") < 0) {
        PyBuffer_Release(&db);
        return NULL;
    }
    PyObject *result = NULL;
    if (db.shape[0] != sb.shape[0] || db.shape[1] != sb.shape[1] || db.shape[2] != sb.shape[2]) {
        PyErr_SetString(PyExc_ValueError, "draws and sigma: the same shape expected");
        goto release;
    }
    const Py_ssize_t n = db.shape[2], rows = n > 0 ? db.len / (Py_ssize_t)sizeof(double) / n : 0;
    workers = clamp_workers(workers, rows);
    Order jobs[MAX_WORKERS];
    for (int w = 0; w < workers; w++)
        jobs[w] = (Order){0, (const double *)db.buf, (int64_t *)sb.buf, n, rows * w / workers,
                          rows * (w + 1) / workers};
    int failed = run_parallel(run_order, jobs, sizeof(Order), workers);
    if (failed == 1)
        PyErr_NoMemory();
    else
        result = PyBool_FromLong(failed == 0);
release:
    PyBuffer_Release(&db);
    PyBuffer_Release(&sb);
    return result;
}

static PyMethodDef module_methods[] = {
    {"order", (PyCFunction)(void (*)(void))py_order, METH_VARARGS | METH_KEYWORDS,
     "order(draws, sigma, workers=1) -> bool\n\n"
     "draws: float64 (permutations, queries, n) in [0, 1); sigma: int64, the same shape,\n"
     "filled with each row's argsort.  False (sigma then undefined) when a row holds two\n"
     "equal draws or a draw outside [0, 1): numpy's argsort orders those its own way."},

    {"maxima", (PyCFunction)(void (*)(void))py_maxima, METH_VARARGS | METH_KEYWORDS,
     "maxima(cells, sigma, antisymmetric, out, workers=1, tile=0, block=0) -> None\n\n"
     "cells: float64 (queries, n*n, methods); sigma: int64 (permutations, queries, n), each\n"
     "query's relabelling of the n systems; out: float64 (permutations, methods), filled with\n"
     "the largest sum over the queries (|sum| when antisymmetric) over the pairs of systems.\n"
     "tile (queries) and block (permutations) size the cache tiles (0: chosen); the result\n"
     "does not depend on them nor on workers."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_tukey",
    "Compiled randomized Tukey HSD kernel for preference tensors.", -1, module_methods,
};

PyMODINIT_FUNC PyInit__tukey(void) { return PyModule_Create(&module); }
