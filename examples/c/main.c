/*
 * Every function of the spblas C library, checked against plain loops, and its error
 * paths. Plain C99; CI builds it against the static and the shared library and runs it:
 *
 *   cargo build -p spblas-capi --profile capi
 *   cc -std=c99 -Wall -Wextra -Werror -I capi/include examples/c/main.c \
 *      target/capi/libspblas.a -lpthread -ldl -lm -o spblas_c && ./spblas_c
 *
 * Against a library built without its `std` feature (`--no-default-features`), compile
 * with -DSPBLAS_NO_PLAN (the plan functions allocate, so that build has none) and link
 * without -lpthread -ldl.
 *
 * Exit status 0 when every check passes; each failure prints its line.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spblas.h"

static int failures = 0;

#define CHECK(cond)                                                   \
    do {                                                              \
        if (!(cond)) {                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,    \
                    __LINE__, #cond);                                 \
            failures++;                                               \
        }                                                             \
    } while (0)

#define CHECK_STATUS(call, expected)                                        \
    do {                                                                    \
        int32_t s_ = (call);                                                \
        if (s_ != (expected)) {                                             \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d\n",    \
                    __FILE__, __LINE__, #call, (int)s_,                     \
                    spblas_status_message(s_), (int)(expected));            \
            failures++;                                                     \
        }                                                                   \
    } while (0)

/* A deterministic sparse matrix: a band of width 3 plus every 7th column of each 5th
 * row, so rows differ in length (1 to 40 entries) and some rows are long. */
static size_t build_csr(size_t n, uint32_t *row_ptr, uint32_t *col_idx, double *vals) {
    size_t k = 0;
    row_ptr[0] = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            int band = (j + 1 >= i) && (j <= i + 1);
            int extra = (i % 5 == 0) && (j % 7 == 3) && !band;
            if (band || extra) {
                if (col_idx) {
                    col_idx[k] = (uint32_t)j;
                    vals[k] = 1.0 + (double)((i * 31 + j * 17) % 13) * 0.25;
                }
                k++;
            }
        }
        row_ptr[i + 1] = (uint32_t)k;
    }
    return k;
}

/* y = alpha * A x + beta * y, the reference loop. */
static void ref_spmv(size_t n, const uint32_t *rp, const uint32_t *ci, const double *v,
                     double alpha, const double *x, double beta, double *y) {
    for (size_t i = 0; i < n; i++) {
        double s = 0.0;
        for (uint32_t k = rp[i]; k < rp[i + 1]; k++) s += v[k] * x[ci[k]];
        y[i] = alpha * s + beta * y[i];
    }
}

static int close_to(const double *a, const double *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        double tol = 1e-12 * (1.0 + fabs(a[i]) + fabs(b[i]));
        if (fabs(a[i] - b[i]) > tol) {
            fprintf(stderr, "  entry %zu: %.17g vs %.17g\n", i, a[i], b[i]);
            return 0;
        }
    }
    return 1;
}

int main(void) {
    const size_t n = 300;
    uint32_t *rp = malloc((n + 1) * sizeof *rp);
    size_t nnz = build_csr(n, rp, NULL, NULL);
    uint32_t *ci = malloc(nnz * sizeof *ci);
    double *v = malloc(nnz * sizeof *v);
    build_csr(n, rp, ci, v);
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *want = malloc(n * sizeof *want);
    for (size_t j = 0; j < n; j++) x[j] = 1.0 + (double)(j % 9) * 0.5;
    const double alpha = 1.5, beta = -0.5;

    printf("spblas on %s; matrix %zu x %zu, %zu entries\n", spblas_isa_name(), n, n, nnz);

    /* --- CSR SpMV ------------------------------------------------------------------ */
    for (size_t i = 0; i < n; i++) y[i] = want[i] = (double)i;
    ref_spmv(n, rp, ci, v, alpha, x, beta, want);
    CHECK_STATUS(spblas_csr_spmv_f64_u32(n, n, rp, ci, v, alpha, x, beta, y), SPBLAS_OK);
    CHECK(close_to(y, want, n));

    /* Error paths: each leaves y untouched. */
    memcpy(want, y, n * sizeof *y);
    CHECK_STATUS(spblas_csr_spmv_f64_u32(n, n, NULL, ci, v, alpha, x, beta, y), SPBLAS_ERR_NULL_POINTER);
    CHECK_STATUS(spblas_csr_spmv_f64_u32(n, n, rp, ci, v, alpha, NULL, beta, y), SPBLAS_ERR_NULL_POINTER);
    CHECK_STATUS(spblas_csr_spmv_f64_u32(n, n, rp, ci, v, alpha, x, beta, NULL), SPBLAS_ERR_NULL_POINTER);
    CHECK_STATUS(spblas_csr_spmv_f64_u32(n, n, rp, ci, v, alpha, (const double *)((const char *)x + 1), beta, y),
                 SPBLAS_ERR_MISALIGNED);
    CHECK_STATUS(spblas_csr_spmv_f64_u32(SIZE_MAX, n, rp, ci, v, alpha, x, beta, y), SPBLAS_ERR_TOO_LARGE);
    CHECK_STATUS(spblas_csr_spmv_f64_u32(n, 2, rp, ci, v, alpha, x, beta, y), SPBLAS_ERR_INVALID_MATRIX);
    uint32_t saved = rp[7];
    rp[7] = rp[6] - 1; /* row_ptr decreasing */
    CHECK_STATUS(spblas_csr_spmv_f64_u32(n, n, rp, ci, v, alpha, x, beta, y), SPBLAS_ERR_INVALID_MATRIX);
    rp[7] = saved;
    CHECK(memcmp(want, y, n * sizeof *y) == 0);

    /* The empty matrix: NULL arrays of length 0 are fine. */
    uint32_t rp0[1] = {0};
    CHECK_STATUS(spblas_csr_spmv_f64_u32(0, 0, rp0, NULL, NULL, 1.0, NULL, 0.0, NULL), SPBLAS_OK);

    /* --- Plan (not in a library built without its `std` feature) --------------------- */
#ifndef SPBLAS_NO_PLAN
    spblas_plan_f64_u32 *plan = NULL;
    CHECK_STATUS(spblas_plan_f64_u32_create(n, n, rp, ci, v, &plan), SPBLAS_OK);
    CHECK(plan != NULL);
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < n; i++) y[i] = want[i] = (double)(i % 4);
        ref_spmv(n, rp, ci, v, alpha, x, beta, want);
        CHECK_STATUS(spblas_plan_f64_u32_spmv(plan, alpha, x, beta, y), SPBLAS_OK);
        CHECK(close_to(y, want, n));
    }
    CHECK_STATUS(spblas_plan_f64_u32_spmv(NULL, alpha, x, beta, y), SPBLAS_ERR_NULL_POINTER);
    CHECK_STATUS(spblas_plan_f64_u32_spmv(plan, alpha, NULL, beta, y), SPBLAS_ERR_NULL_POINTER);
    spblas_plan_f64_u32_destroy(plan);
    spblas_plan_f64_u32_destroy(NULL);
    spblas_plan_f64_u32 *bad = (spblas_plan_f64_u32 *)&failures; /* must stay untouched */
    spblas_plan_f64_u32 *keep = bad;
    CHECK_STATUS(spblas_plan_f64_u32_create(n, 2, rp, ci, v, &bad), SPBLAS_ERR_INVALID_MATRIX);
    CHECK(bad == keep);
    CHECK_STATUS(spblas_plan_f64_u32_create(n, n, rp, ci, v, NULL), SPBLAS_ERR_NULL_POINTER);
#endif

    /* --- CSR5 into caller buffers -------------------------------------------------- */
    spblas_csr_f64_u32 a = {n, n, rp, ci, v};
    spblas_csr5_layout layout;
    CHECK_STATUS(spblas_csr5_layout_f64_u32(&a, &layout), SPBLAS_OK);
    CHECK(layout.nnz == nnz);
    spblas_csr5_f64_u32 m;
    memset(&m, 0, sizeof m);
    m.col_idx = malloc(layout.nnz * sizeof(uint32_t) + 1);
    m.vals = malloc(layout.nnz * sizeof(double) + 1);
    m.tile_ptr = malloc(layout.tile_ptr_len * sizeof(uint32_t) + 1);
    m.tile_desc = malloc(layout.tile_desc_len * sizeof(uint32_t) + 1);
    m.empty_offset_ptr = malloc(layout.tile_ptr_len * sizeof(uint32_t) + 1);
    m.empty_offset = malloc(layout.empty_offset_len * sizeof(uint32_t) + 1);
    spblas_csr5_layout wrong = layout;
    wrong.sigma += 1;
    CHECK_STATUS(spblas_csr5_build_f64_u32(&a, &wrong, &m), SPBLAS_ERR_INVALID_ARGUMENT);
    CHECK(m.nrows == 0 && m.row_ptr == NULL);
    CHECK_STATUS(spblas_csr5_build_f64_u32(&a, &layout, &m), SPBLAS_OK);
    CHECK(m.nrows == n && m.ncols == n && m.row_ptr == rp);
    for (size_t i = 0; i < n; i++) y[i] = want[i] = 2.0;
    ref_spmv(n, rp, ci, v, alpha, x, beta, want);
    CHECK_STATUS(spblas_csr5_spmv_f64_u32(&m, alpha, x, beta, y), SPBLAS_OK);
    CHECK(close_to(y, want, n));
    /* A corrupted CSR5 array (a column out of bounds) is refused, y untouched. */
    memcpy(want, y, n * sizeof *y);
    uint32_t c0 = m.col_idx[0];
    m.col_idx[0] = (uint32_t)n + 5;
    CHECK_STATUS(spblas_csr5_spmv_f64_u32(&m, alpha, x, beta, y), SPBLAS_ERR_INVALID_MATRIX);
    m.col_idx[0] = c0;
    CHECK(memcmp(want, y, n * sizeof *y) == 0);
    CHECK_STATUS(spblas_csr5_spmv_f64_u32(NULL, alpha, x, beta, y), SPBLAS_ERR_NULL_POINTER);

    /* --- SpGEMM C = A * A into caller buffers ------------------------------------- */
    size_t widx = 0, wval = 0, cnnz = 0;
    CHECK_STATUS(spblas_spgemm_workspace_f64_u32(&a, &a, &widx, &wval), SPBLAS_OK);
    uint32_t *ws_i = malloc(widx * sizeof *ws_i + 1);
    double *ws_v = malloc(wval * sizeof *ws_v + 1);
    uint32_t *crp = malloc((n + 1) * sizeof *crp);
    CHECK_STATUS(spblas_spgemm_symbolic_f64_u32(&a, &a, crp, ws_i, widx, &cnnz), SPBLAS_OK);
    CHECK(cnnz == crp[n]);
    uint32_t *cci = malloc(cnnz * sizeof *cci + 1);
    double *cv = malloc(cnnz * sizeof *cv + 1);
    CHECK_STATUS(spblas_spgemm_numeric_f64_u32(&a, &a, crp, cci, cv, ws_i, widx, ws_v, wval), SPBLAS_OK);
    /* Check C x = A (A x). */
    double *ax = malloc(n * sizeof *ax), *aax = malloc(n * sizeof *aax), *cx = malloc(n * sizeof *cx);
    ref_spmv(n, rp, ci, v, 1.0, x, 0.0, ax);
    ref_spmv(n, rp, ci, v, 1.0, ax, 0.0, aax);
    ref_spmv(n, crp, cci, cv, 1.0, x, 0.0, cx);
    CHECK(close_to(cx, aax, n));
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = crp[i] + 1; k < crp[i + 1]; k++) CHECK(cci[k - 1] < cci[k]);
    /* Error paths. */
    spblas_csr_f64_u32 wide = {n, 2 * n, rp, ci, v}; /* n x 2n: wide * a does not agree */
    CHECK_STATUS(spblas_spgemm_workspace_f64_u32(&wide, &a, &widx, &wval), SPBLAS_ERR_DIMENSION);
    CHECK_STATUS(spblas_spgemm_symbolic_f64_u32(&a, &a, crp, ws_i, 0, &cnnz), SPBLAS_ERR_BUFFER_TOO_SMALL);
    CHECK_STATUS(spblas_spgemm_workspace_f64_u32(&a, NULL, &widx, &wval), SPBLAS_ERR_NULL_POINTER);

    /* --- The other type pairs, once each ----------------------------------------- */
    {
        float xf[3] = {1, 2, 3}, yf[2] = {0, 0}, vf[3] = {1, 2, 3};
        uint64_t rp64[3] = {0, 2, 3}, ci64[3] = {0, 2, 1};
        uint32_t rp32[3] = {0, 2, 3}, ci32[3] = {0, 2, 1};
        double vd[3] = {1, 2, 3}, xd[3] = {1, 2, 3}, yd[2] = {0, 0};
        CHECK_STATUS(spblas_csr_spmv_f32_u32(2, 3, rp32, ci32, vf, 1.0f, xf, 0.0f, yf), SPBLAS_OK);
        CHECK(yf[0] == 7.0f && yf[1] == 6.0f);
        yf[0] = yf[1] = 0;
        CHECK_STATUS(spblas_csr_spmv_f32_u64(2, 3, rp64, ci64, vf, 1.0f, xf, 0.0f, yf), SPBLAS_OK);
        CHECK(yf[0] == 7.0f && yf[1] == 6.0f);
        CHECK_STATUS(spblas_csr_spmv_f64_u64(2, 3, rp64, ci64, vd, 1.0, xd, 0.0, yd), SPBLAS_OK);
        CHECK(yd[0] == 7.0 && yd[1] == 6.0);
#ifndef SPBLAS_NO_PLAN
        spblas_plan_f32_u64 *p = NULL;
        CHECK_STATUS(spblas_plan_f32_u64_create(2, 3, rp64, ci64, vf, &p), SPBLAS_OK);
        yf[0] = yf[1] = 1;
        CHECK_STATUS(spblas_plan_f32_u64_spmv(p, 2.0f, xf, 1.0f, yf), SPBLAS_OK);
        CHECK(yf[0] == 15.0f && yf[1] == 13.0f);
        spblas_plan_f32_u64_destroy(p);
#endif
    }

    /* --- Signed indices (MKL_INT, SciPy, CSparse arrays), borrowed as they are ------ */
    {
        int32_t rp[3] = {0, 2, 3}, ci[3] = {0, 2, 1}, bad[3] = {0, -1, 1};
        int64_t rp64[3] = {0, 2, 3}, ci64[3] = {0, 2, 1};
        double v[3] = {1, 2, 3}, x3[3] = {1, 2, 3}, y2[2] = {0, 0};
        float vf[3] = {1, 2, 3}, xf[3] = {1, 2, 3}, yf[2] = {0, 0};
        CHECK_STATUS(spblas_csr_spmv_f64_i32(2, 3, rp, ci, v, 1.0, x3, 0.0, y2), SPBLAS_OK);
        CHECK(y2[0] == 7.0 && y2[1] == 6.0);
        CHECK_STATUS(spblas_csr_spmv_f32_i64(2, 3, rp64, ci64, vf, 1.0f, xf, 0.0f, yf), SPBLAS_OK);
        CHECK(yf[0] == 7.0f && yf[1] == 6.0f);
        /* A negative index is an invalid matrix, and y stays as it was. */
        y2[0] = y2[1] = -5.0;
        CHECK_STATUS(spblas_csr_spmv_f64_i32(2, 3, rp, bad, v, 1.0, x3, 0.0, y2), SPBLAS_ERR_INVALID_MATRIX);
        CHECK(y2[0] == -5.0 && y2[1] == -5.0);
        /* S * S for the 3 x 3 matrix S = [[1, 2, 0], [0, 0, 3], [4, 0, 0]] with int32_t indices. */
        int32_t srp[4] = {0, 2, 3, 4}, sci[4] = {0, 1, 2, 0}, crp3[4], cci3[9], wsi[64];
        double sv[4] = {1, 2, 3, 4}, cv3[9], wsv[64], dense[9] = {0};
        spblas_csr_f64_i32 s3 = {3, 3, srp, sci, sv};
        size_t wi = 0, wv = 0, nnz = 0;
        CHECK_STATUS(spblas_spgemm_workspace_f64_i32(&s3, &s3, &wi, &wv), SPBLAS_OK);
        CHECK(wi <= 64 && wv <= 64);
        CHECK_STATUS(spblas_spgemm_symbolic_f64_i32(&s3, &s3, crp3, wsi, wi, &nnz), SPBLAS_OK);
        CHECK(nnz <= 9);
        CHECK_STATUS(spblas_spgemm_numeric_f64_i32(&s3, &s3, crp3, cci3, cv3, wsi, wi, wsv, wv), SPBLAS_OK);
        for (int32_t i = 0; i < 3; i++)
            for (int32_t k = crp3[i]; k < crp3[i + 1]; k++) dense[3 * i + cci3[k]] += cv3[k];
        /* S^2 = [[1, 2, 6], [12, 0, 0], [4, 8, 0]]. */
        const double want2[9] = {1, 2, 6, 12, 0, 0, 4, 8, 0};
        CHECK(memcmp(dense, want2, sizeof dense) == 0);
    }

    /* --- Status messages ---------------------------------------------------------- */
    for (int32_t s = 0; s <= 9; s++) CHECK(spblas_status_message(s) != NULL && strlen(spblas_status_message(s)) > 0);
    CHECK(strcmp(spblas_status_message(12345), "unknown status") == 0);

    free(rp), free(ci), free(v), free(x), free(y), free(want);
    free(m.col_idx), free(m.vals), free(m.tile_ptr), free(m.tile_desc), free(m.empty_offset_ptr), free(m.empty_offset);
    free(ws_i), free(ws_v), free(crp), free(cci), free(cv), free(ax), free(aax), free(cx);
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}
