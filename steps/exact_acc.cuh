/* exact_acc.cuh: step 10's exact accumulator, as functions that run on the
 * GPU and, for the tests, on the CPU (tests/exact_acc_test.cu runs them on
 * every kind of input and checks each sum against an independent oracle).
 *
 * Included by steps/10_exact.cu after its harness header; chapter 10
 * explains it. Three files, read in this order:
 *
 *   exact_digits.cuh  1. every float is an integer number of units of 2^-149
 *                     2. a thread's accumulator: ten digits of 32 bits, carry-save
 *   exact_group.cuh   3. a group of 32 elements: summed exactly in one go when it can be
 *                     4. a thread's share of the array, group by group
 *   exact_meet.cuh    5. blocks meet: their words added as integers that count the blocks
 *                     6. the one rounding
 *                     7. a block's words from its threads' digits (on the GPU only)
 *                     8. one warp meets the other blocks and rounds (on the GPU only)
 *
 * Built with -DEXACT_NO_FP64, a group is summed with 64-bit integers instead
 * of doubles (for GPUs with slow FP64, such as most GeForce cards); both give
 * the same bits. The exact build (-DREDUCE_EXACT) sums 32-bit integers
 * through the same accumulator and keeps the sum modulo 2^32.
 */
#ifndef EXACT_ACC_CUH
#define EXACT_ACC_CUH

#include <math.h>
#include <string.h>
#ifdef __CUDACC__
#include <cuda/atomic>            // reading a grid word until it is whole (exact_meet.cuh)
#endif

#define HOST_DEVICE __host__ __device__ __forceinline__

// #pragma unroll where it matters, on the GPU; the host compiler does not know it.
#ifdef __CUDA_ARCH__
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

#include "exact_digits.cuh"
#include "exact_group.cuh"
#include "exact_meet.cuh"

#endif
