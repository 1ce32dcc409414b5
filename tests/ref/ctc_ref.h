/*
 * tests/ref/ctc_ref.h -- float64 references for CTC loss, independent of src/.
 *
 * Probabilities are one sample's T x A matrix p[t*A + k] (rows need not sum to 1); label 0
 * is the blank.  Both return P = the total probability of all alignments of LAB.
 */
#ifndef HD_TEST_CTC_REF_H
#define HD_TEST_CTC_REF_H

/* Enumerate all A^T paths (keep A^T small); collapse repeats, drop blanks, compare with
 * LAB.  When POST is not NULL it receives the posterior T x A occupancy: the probability
 * mass of matching paths through symbol k at step t, divided by P (zeros when P == 0). */
double ctc_ref_brute(int T, int A, const double *p, const int *lab, int L, double *post);

/* The textbook alpha recursion in probability space (no logs), for moderate T. */
double ctc_ref_dp(int T, int A, const double *p, const int *lab, int L);

#endif
