/*
 * rankscope.judge._join: the passes over every row of a run that `rankscope.judge.join`
 * makes when it orders a run and joins it with the judgments, each in one loop.
 *
 * numpy makes each of them in several passes over the rows, with a temporary array a pass
 * (a block of a large run: 871k rows, ~4 ms of its ~19 ms of judging).  The results are
 * the numpy code's, position for position; that code runs where this module is not built
 * (`tests/test_judge_join.py` compares the two).
 *
 * Plain C99, the CPython API and the buffer protocol; built optional by setup.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A contiguous one-dimensional buffer of `itemsize`-byte items (0: any size) of `name`. */
static int get_buffer(PyObject *obj, Py_buffer *view, int flags, Py_ssize_t itemsize,
                      const char *name) {
    if (PyObject_GetBuffer(obj, view, flags | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (view->ndim > 1 || (itemsize && view->itemsize != itemsize)) {
        PyErr_Format(PyExc_ValueError, "%s: a one-dimensional array of %zd-byte items expected",
                     name, itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* A growing array of int64 positions. */
typedef struct {
    int64_t *at;
    size_t n, cap;
} Positions;

static int push(Positions *p, int64_t v) {
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 1024;
        int64_t *grown = realloc(p->at, cap * sizeof(int64_t));
        if (!grown) return -1;
        p->at = grown;
        p->cap = cap;
    }
    p->at[p->n++] = v;
    return 0;
}

static PyObject *as_bytes(Positions *p) {
    PyObject *out = PyBytes_FromStringAndSize((const char *)p->at,
                                              (Py_ssize_t)(p->n * sizeof(int64_t)));
    free(p->at);
    p->at = NULL;
    return out;
}

/* ranked_facts(query, score) -> (starts, best_first, tied) */
static PyObject *py_ranked_facts(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *q_obj, *s_obj;
    if (!PyArg_ParseTuple(args, "OO", &q_obj, &s_obj)) return NULL;
    Py_buffer qb, sb;
    if (get_buffer(q_obj, &qb, PyBUF_SIMPLE, 4, "query") < 0) return NULL;
    if (get_buffer(s_obj, &sb, PyBUF_SIMPLE, 8, "score") < 0) {
        PyBuffer_Release(&qb);
        return NULL;
    }
    PyObject *result = NULL;
    const Py_ssize_t n = qb.len / 4;
    if (sb.len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "query and score: the same length expected");
        goto release;
    }
    const int32_t *q = (const int32_t *)qb.buf;
    const double *s = (const double *)sb.buf;
    Positions starts = {0}, tied = {0};
    int best_first = 1, failed = 0;
    Py_BEGIN_ALLOW_THREADS
    if (n > 0) failed |= push(&starts, 0);
    for (Py_ssize_t i = 1; i < n && !failed; i++) {
        if (q[i] != q[i - 1]) {
            failed |= push(&starts, i);
        } else {
            /* (a NaN on either side: not best first, as numpy's s[i] <= s[i - 1]) */
            if (!(s[i] <= s[i - 1])) best_first = 0;
            if (s[i] == s[i - 1]) failed |= push(&tied, i - 1);
        }
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        free(starts.at);
        free(tied.at);
        PyErr_NoMemory();
        goto release;
    }
    PyObject *a = as_bytes(&starts), *b = as_bytes(&tied);
    if (a && b) result = Py_BuildValue("(OOO)", a, best_first ? Py_True : Py_False, b);
    Py_XDECREF(a);
    Py_XDECREF(b);
release:
    PyBuffer_Release(&qb);
    PyBuffer_Release(&sb);
    return result;
}

/* pieces(column, starts, lengths, out) -> None */
static PyObject *py_pieces(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *c_obj, *st_obj, *len_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OOOO", &c_obj, &st_obj, &len_obj, &out_obj)) return NULL;
    Py_buffer cb, stb, lb, ob;
    PyObject *result = NULL;
    if (get_buffer(c_obj, &cb, PyBUF_SIMPLE, 0, "column") < 0) return NULL;
    if (get_buffer(st_obj, &stb, PyBUF_SIMPLE, 8, "starts") < 0) goto c;
    if (get_buffer(len_obj, &lb, PyBUF_SIMPLE, 8, "lengths") < 0) goto st;
    if (get_buffer(out_obj, &ob, PyBUF_WRITABLE, cb.itemsize, "out") < 0) goto len;
    {
    const Py_ssize_t size = cb.itemsize, n = cb.len / size, k = stb.len / 8;
    const int64_t *starts = (const int64_t *)stb.buf, *lengths = (const int64_t *)lb.buf;
    if (lb.len / 8 != k) {
        PyErr_SetString(PyExc_ValueError, "starts and lengths: the same length expected");
        goto out;
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        if (starts[i] < 0 || lengths[i] < 0 || starts[i] > n - lengths[i]) {
            PyErr_SetString(PyExc_ValueError, "a piece outside the column");
            goto out;
        }
        total += (Py_ssize_t)lengths[i];
    }
    if (total != ob.len / size) {
        PyErr_SetString(PyExc_ValueError, "out: as long as the pieces expected");
        goto out;
    }
    {
        const char *from = (const char *)cb.buf;
        char *to = (char *)ob.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < k; i++) {
            memcpy(to, from + starts[i] * size, (size_t)(lengths[i] * size));
            to += lengths[i] * size;
        }
        Py_END_ALLOW_THREADS
    }
    result = Py_NewRef(Py_None);
    }
out:
    PyBuffer_Release(&ob);
len:
    PyBuffer_Release(&lb);
st:
    PyBuffer_Release(&stb);
c:
    PyBuffer_Release(&cb);
    return result;
}

/* candidates(docs, shared, judged) -> positions */
static PyObject *py_candidates(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *d_obj, *j_obj;
    long long shared;
    if (!PyArg_ParseTuple(args, "OLO", &d_obj, &shared, &j_obj)) return NULL;
    Py_buffer db, jb;
    if (get_buffer(d_obj, &db, PyBUF_SIMPLE, 4, "docs") < 0) return NULL;
    if (get_buffer(j_obj, &jb, PyBUF_SIMPLE, 1, "judged") < 0) {
        PyBuffer_Release(&db);
        return NULL;
    }
    PyObject *result = NULL;
    if (shared < 0 || shared > jb.len) {
        PyErr_SetString(PyExc_ValueError, "judged: a flag for each shared code expected");
        goto release;
    }
    const Py_ssize_t n = db.len / 4;
    const int32_t *docs = (const int32_t *)db.buf;
    const uint8_t *judged = (const uint8_t *)jb.buf;
    Positions found = {0};
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n && !failed; i++) {
        int32_t d = docs[i];
        if (d >= 0 && d < shared && judged[d]) failed |= push(&found, i);
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        free(found.at);
        PyErr_NoMemory();
        goto release;
    }
    result = as_bytes(&found);
release:
    PyBuffer_Release(&db);
    PyBuffer_Release(&jb);
    return result;
}

/* judged_rows(query, docs, row_of_doc, query_of_row) -> rows */
static PyObject *py_judged_rows(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *q_obj, *d_obj, *r_obj, *qr_obj;
    if (!PyArg_ParseTuple(args, "OOOO", &q_obj, &d_obj, &r_obj, &qr_obj)) return NULL;
    Py_buffer qb, db, rb, qrb;
    PyObject *result = NULL;
    if (get_buffer(q_obj, &qb, PyBUF_SIMPLE, 8, "query") < 0) return NULL;
    if (get_buffer(d_obj, &db, PyBUF_SIMPLE, 4, "docs") < 0) goto q;
    if (get_buffer(r_obj, &rb, PyBUF_SIMPLE, 8, "row_of_doc") < 0) goto d;
    if (get_buffer(qr_obj, &qrb, PyBUF_SIMPLE, 4, "query_of_row") < 0) goto r;
    {
        const Py_ssize_t n = qb.len / 8, docs_known = rb.len / 8, rows_known = qrb.len / 4;
        if (db.len / 4 != n) {
            PyErr_SetString(PyExc_ValueError, "query and docs: the same length expected");
            goto out;
        }
        const int64_t *query = (const int64_t *)qb.buf, *row_of_doc = (const int64_t *)rb.buf;
        const int32_t *docs = (const int32_t *)db.buf, *query_of_row = (const int32_t *)qrb.buf;
        for (Py_ssize_t k = 0; k < n; k++) {
            if (docs[k] < 0 || docs[k] >= docs_known || row_of_doc[docs[k]] >= rows_known) {
                PyErr_SetString(PyExc_ValueError, "a document or its row outside the tables");
                goto out;
            }
        }
        result = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(n * 8));
        if (!result) goto out;
        int64_t *rows = (int64_t *)PyByteArray_AS_STRING(result);
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t k = 0; k < n; k++) {
            int64_t r = row_of_doc[docs[k]];
            rows[k] = r < 0 ? -2 : (query_of_row[r] == query[k] ? r : -1);
        }
        Py_END_ALLOW_THREADS
    }
out:
    PyBuffer_Release(&qrb);
r:
    PyBuffer_Release(&rb);
d:
    PyBuffer_Release(&db);
q:
    PyBuffer_Release(&qb);
    return result;
}

static PyMethodDef module_methods[] = {
    {"ranked_facts", py_ranked_facts, METH_VARARGS,
     "ranked_facts(query, score) -> (starts, best_first, tied)\n\n"
     "query: int32, score: float64, one per row.  starts: int64 bytes, the rows where the\n"
     "query changes (row 0 first); best_first: every row's score at most the row before's\n"
     "within a query (not when a NaN is compared); tied: int64 bytes, the rows i whose\n"
     "query and score are row i + 1's."},
    {"pieces", py_pieces, METH_VARARGS,
     "pieces(column, starts, lengths, out) -> None\n\n"
     "Copies column[starts[k] : starts[k] + lengths[k]] for each k, one after the other,\n"
     "into out (int64 starts and lengths; out as long as the pieces, of column's items)."},
    {"candidates", py_candidates, METH_VARARGS,
     "candidates(docs, shared, judged) -> positions\n\n"
     "docs: int32 codes; judged: one bool per code (at least `shared`).  int64 bytes: the\n"
     "positions i with 0 <= docs[i] < shared and judged[docs[i]]."},
    {"judged_rows", py_judged_rows, METH_VARARGS,
     "judged_rows(query, docs, row_of_doc, query_of_row) -> rows\n\n"
     "query: int64 and docs: int32 codes, one pair per candidate; row_of_doc: int64, the row\n"
     "of each document's judgment when one query judges it (< 0 otherwise); query_of_row:\n"
     "int32, each row's query.  int64 (a bytearray): the row where it is the pair's query's,\n"
     "-1 where it is another's, -2 where the document has no row of its own (left to numpy)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_join",
    "Compiled passes over a run's rows for rankscope.judge.join.", -1, module_methods,
};

PyMODINIT_FUNC PyInit__join(void) { return PyModule_Create(&module); }
