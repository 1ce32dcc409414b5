/* tests/ref/ctc_ref.c -- see ctc_ref.h. */
#include "ref/ctc_ref.h"

#include <stdlib.h>
#include <string.h>

/* Does the path collapse to the label sequence? */
static int collapses_to(const int *path, int T, const int *lab, int L)
{
    int n = 0, prev = -1;
    for (int t = 0; t < T; t++) {
        int k = path[t];
        if (k != 0 && k != prev) {
            if (n >= L || lab[n] != k)
                return 0;
            n++;
        }
        prev = k;
    }
    return n == L;
}

double ctc_ref_brute(int T, int A, const double *p, const int *lab, int L, double *post)
{
    int *path = calloc((size_t)T, sizeof *path);
    double total = 0;
    if (post)
        memset(post, 0, (size_t)T * A * sizeof *post);
    for (;;) {
        if (collapses_to(path, T, lab, L)) {
            double pr = 1;
            for (int t = 0; t < T; t++)
                pr *= p[t * A + path[t]];
            total += pr;
            if (post)
                for (int t = 0; t < T; t++)
                    post[t * A + path[t]] += pr;
        }
        /* Next path, odometer style. */
        int t = T - 1;
        while (t >= 0 && ++path[t] == A)
            path[t--] = 0;
        if (t < 0)
            break;
    }
    if (post)
        for (int i = 0; i < T * A; i++)
            post[i] = total > 0 ? post[i] / total : 0;
    free(path);
    return total;
}

double ctc_ref_dp(int T, int A, const double *p, const int *lab, int L)
{
    if (L < 0 || T < 1)
        return 0;
    int S = 2 * L + 1;
    int *ext = malloc((size_t)S * sizeof *ext);
    double *a = calloc((size_t)S, sizeof *a), *b = calloc((size_t)S, sizeof *b);
    for (int s = 0; s < S; s++)
        ext[s] = s % 2 == 0 ? 0 : lab[s / 2];
    a[0] = p[0];   /* the first state is the blank */
    if (S > 1)
        a[1] = p[ext[1]];
    for (int t = 1; t < T; t++) {
        for (int s = 0; s < S; s++) {
            double v = a[s];
            if (s > 0)
                v += a[s - 1];
            if (s > 1 && ext[s] != 0 && ext[s] != ext[s - 2])
                v += a[s - 2];
            b[s] = v * p[t * A + ext[s]];
        }
        memcpy(a, b, (size_t)S * sizeof *a);
    }
    double P = a[S - 1] + (S > 1 ? a[S - 2] : 0);
    free(ext);
    free(a);
    free(b);
    return P;
}
