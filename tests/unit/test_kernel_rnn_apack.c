/*
 * Pieces of a packed GEMM A written in place (rnn/rnn_apack.h), as backward data's column
 * blocks write the recurrent gradients: for row counts around the kernels' MR (1, 4, 14, 32,
 * 33, 45), depths below, at and across the k block (9, 256, 300, 2048), the columns put in
 * pieces that cross k blocks, some rows put as zeros and then overwritten, the buffer must
 * equal hd_sgemm_pb_pack_a's bitwise (padding rows included).  Each ISA cap (scalar, avx2,
 * avx512) runs in a child, as the kernel (its MR) the GEMM picks depends on it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "core/cpu.h"
#include "kernels/gemm/gemm.h"
#include "rnn/rnn_apack.h"

static unsigned rng = 7;
static float rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)((rng >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

/* Number of mismatching cases for M rows, depth K, pieces of width W. */
static int one(size_t m, size_t k, size_t w)
{
    const size_t n = 40;
    float *B = malloc(k * n * sizeof *B), *A = malloc(m * k * sizeof *A);
    for (size_t i = 0; i < k * n; i++)
        B[i] = rnd();
    for (size_t i = 0; i < m * k; i++)
        A[i] = rnd();
    hd_gemm_packed_b pb;
    hd_sgemm_pack_b(&pb, 1, 'N', n, k, B, n);
    int bad = 0;
    if (pb.data) {
        size_t na = hd_sgemm_pb_a_elems(&pb, m);
        float *ref = malloc(na * sizeof *ref), *got = calloc(na, sizeof *got);
        /* the packing leaves nothing of the buffer unwritten that the put leaves zero */
        memset(ref, 0, na * sizeof *ref);
        hd_sgemm_pb_pack_a(&pb, 'N', m, A, k, ref);
        hd_rnn_apack lay;
        if (!hd_rnn_apack_init(&lay, &pb, m)) {
            fprintf(stderr, "m %zu k %zu: kernel %s has panels wider than %d rows\n", m, k,
                    hd_gemm_kernel_name(4, hd_cpu_isa()), HD_RNN_APACK_MAX_MR);
            bad = 1;
        }
        /* column pieces of W, each over row groups of 1, 5 and the rest (crossing panels);
           some groups first put as zeros (NULL rows), then with their values */
        const float **src = malloc(m * sizeof *src);
        for (size_t c = 0; bad == 0 && c < k; c += w) {
            size_t len = k - c < w ? k - c : w;
            for (size_t r0 = 0; r0 < m;) {
                size_t cnt = r0 == 0 ? 1 : r0 == 1 ? 5 : m - r0;
                if (cnt > m - r0)
                    cnt = m - r0;
                for (size_t i = 0; i < cnt; i++)
                    src[i] = (r0 + i + c / w) % 3 == 0 ? NULL : A + (r0 + i) * k + c;
                hd_rnn_apack_put_f32(&lay, r0, cnt, c, len, src, got);
                if ((r0 + c / w) % 2)
                    hd_rnn_apack_put_ld_f32(&lay, r0, cnt, c, len, A + r0 * k + c, k, got);
                else {
                    for (size_t i = 0; i < cnt; i++)
                        src[i] = A + (r0 + i) * k + c;
                    hd_rnn_apack_put_f32(&lay, r0, cnt, c, len, src, got);
                }
                r0 += cnt;
            }
        }
        free(src);
        if (!bad && memcmp(ref, got, na * sizeof *ref) != 0) {
            fprintf(stderr, "m %zu k %zu w %zu (%s): differs from hd_sgemm_pb_pack_a\n", m, k, w,
                    hd_gemm_kernel_name(4, hd_cpu_isa()));
            bad = 1;
        }
        /* zeros put over every value give zeros everywhere */
        const float *none[1] = { NULL };
        for (size_t r = 0; r < m; r++)
            hd_rnn_apack_put_f32(&lay, r, 1, 0, k, none, got);
        for (size_t i = 0; i < na; i++)
            if (got[i] != 0) {
                bad = 1;
                break;
            }
        free(ref);
        free(got);
    }
    hd_gemm_pb_free(&pb);
    free(A);
    free(B);
    return bad;
}

static int all_cases(void)
{
    static const size_t ms[] = { 1, 4, 14, 32, 33, 45 }, ks[] = { 9, 256, 300, 2048 }, ws[] = { 1, 7, 32, 128 };
    int bad = 0;
    for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
            for (size_t wi = 0; wi < sizeof ws / sizeof ws[0]; wi++)
                bad += one(ms[mi], ks[ki], ws[wi]);
    return bad;
}

int main(void)
{
    static const char *caps[] = { "scalar", "avx2", "avx512" };
    for (int i = 0; i < 3; i++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            setenv("HOSTDNN_MAX_ISA", caps[i], 1);
            printf("cap %s: kernel %s\n", caps[i], hd_gemm_kernel_name(4, hd_cpu_isa()));
            fflush(stdout);
            _exit(all_cases() ? 1 : 0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "cap %s: packed pieces differ", caps[i]);
    }
    return hd_test_finish();
}
