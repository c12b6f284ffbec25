/* 12_types.cu: any type, any operator, and which of them need steps 08-10 at all.
 *
 *     make step12 && ./step12 --type bf16 --op argmax
 *
 * Changed since 07: one kernel (step 07's) for every --type and --op, templated
 * on the input type and an operator: an identity (what changes nothing: 0 for a
 * sum, the lowest value for a max), what an element brings (x, x * x, or x with
 * its index), how two partial results combine, and the result. Integer sums,
 * max, min and argmax are associative and commutative bit for bit: every tree,
 * so every grid, block and GPU, gives the same bits. Float sums are not: steps
 * 08-10 exist for them alone. Max, min and argmax compare integer keys, exact on
 * floats too, with three rules (the harness checks them):
 *   - order: a float's bits, negatives flipped: -0 below +0 (numpy: equal);
 *   - NaN: any NaN makes max and min the canonical NaN (bits 0x7fc00000) and
 *     argmax the index of the first NaN, as numpy.argmax and torch.argmax do;
 *   - ties: the smallest index wins, as in numpy.argmax and torch.argmax.
 * Half and bf16 sum in float, sumsq is the sum of x * x in float (RMSNorm's
 * statistic), int32 sums in int64: exact while n < 2^32 (the harness refuses more).
 *
 * Base: steps/07_cooperative.cu
 * Changed functions: block_sum, reduce_kernel, grid_size
 */
#include <climits>
#include <type_traits>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../common/types/types.h"

namespace cg = cooperative_groups;

#define LOADS_IN_FLIGHT 4   // independent 16-byte loads per thread per round

// ---- operators --------------------------------------------------------------
// [begin operators]
// An element as its accumulator sees it: half and bf16 become floats, exactly.
template <typename T> __device__ T widen(T x) { return x; }   // float, double, int
__device__ float widen(__half x) { return __half2float(x); }
__device__ float widen(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename In, typename Acc>
struct Sum {
    using acc_t = Acc;
    using out_t = Acc;
    __device__ static Acc identity() { return 0; }
    __device__ static Acc element(In x, size_t) { return (Acc)widen(x); }
    __device__ static Acc combine(Acc a, Acc b) { return a + b; }
    __device__ static Acc result(Acc a) { return a; }
};

// x * x rounded to float on its own (__fmul_rn: never fused into the add).
template <typename In>
struct SumSq : Sum<In, float> {
    __device__ static float element(In x, size_t) { return __fmul_rn(widen(x), widen(x)); }
};

// Max and min fold keys, one integer max or min an element. A float's key is its
// bits, the magnitude bits of negatives flipped: -inf < ... < -0 < +0 < ... < +inf.
// A NaN's is past all numbers on the winning side: NaN wins, and all NaNs tie.
__device__ int flip(int b) { return b < 0 ? b ^ INT_MAX : b; }   // its own inverse
template <bool MAX> __device__ int key(float x) { return x != x ? (MAX ? INT_MAX : INT_MIN) : flip(__float_as_int(x)); }
template <bool MAX> __device__ int key(int x) { return x; }
// A key back to its value; a NaN's, the canonical NaN.
__device__ float value(int k, float) { return __int_as_float(k == INT_MAX || k == INT_MIN ? 0x7fc00000 : flip(k)); }
__device__ int value(int k, int) { return k; }

template <typename In, bool MAX>
struct Extreme {
    using acc_t = int;
    using out_t = decltype(widen(In()));
    __device__ static int identity() { return MAX ? INT_MIN : INT_MAX; }
    __device__ static int element(In x, size_t) { return key<MAX>(widen(x)); }
    __device__ static int combine(int a, int b) { return MAX ? max(a, b) : min(a, b); }
    __device__ static out_t result(int k) { return value(k, out_t()); }
};

// The first index of the largest value: a key and its index, compared by key,
// then by index; the result is the value and the index (types.h's slot).
struct keyed_t { int key; long long index; };
template <typename V> struct arg_t { V value; long long index; };

template <typename In>
struct ArgMax {
    using acc_t = keyed_t;
    using out_t = arg_t<decltype(widen(In()))>;
    __device__ static keyed_t identity() { return { INT_MIN, LLONG_MAX }; }
    __device__ static keyed_t element(In x, size_t i) { return { key<true>(widen(x)), (long long)i }; }
    __device__ static keyed_t combine(keyed_t a, keyed_t b)   // a tie: the first index
    { return a.key != b.key ? (a.key > b.key ? a : b) : (a.index < b.index ? a : b); }
    __device__ static out_t result(keyed_t a) { return { value(a.key, widen(In())), a.index }; }
};
// [end operators]

// ---- kernels ----------------------------------------------------------------
// [begin thread_fold]
// Sixteen bytes of In, one load: 8 halves or bf16s, 4 floats or int32s, 2 doubles.
template <typename In> struct alignas(16) vec16 { In x[16 / sizeof(In)]; };

// One vector (elements first, first + 1, ...) folded into acc. Argmax takes its
// largest key, as max does (a combine an element costs more than the loads leave
// time for), which wins with its first index over a smaller key or the identity.
template <typename In, typename Op>
__device__ void fold_vector(typename Op::acc_t &acc, const vec16<In> &v, size_t first)
{
    constexpr int W = 16 / sizeof(In);
    if constexpr (std::is_same_v<Op, ArgMax<In>>) {
        int keys[W], best = INT_MIN, at = 0;
        #pragma unroll
        for (int j = 0; j < W; j++)
            best = max(best, keys[j] = Op::element(v.x[j], 0).key);
        if (best > acc.key || acc.index == LLONG_MAX) {   // rare, after the first rounds
            #pragma unroll
            for (int j = W - 1; j >= 0; j--)
                at = keys[j] == best ? j : at;
            acc = { best, (long long)(first + at) };
        }
    } else
        #pragma unroll
        for (int j = 0; j < W; j++)
            acc = Op::combine(acc, Op::element(v.x[j], first + j));
}

// This thread's share of in[0..n), folded into one accumulator: the head
// (elements before the first 16-byte boundary: one each for the first
// threads), vectors rank, rank + stride, ... as in step 07, then the tail.
template <typename In, typename Op>
__device__ typename Op::acc_t thread_fold(cg::grid_group grid, const In *in, size_t n)
{
    constexpr int W = 16 / sizeof(In);
    size_t rank = grid.thread_rank(), stride = grid.num_threads();
    size_t head = min((16 - (size_t)in % 16) % 16 / sizeof(In), n);
    typename Op::acc_t acc = Op::identity();
    if (rank < head)
        acc = Op::combine(acc, Op::element(in[rank], rank));
    const vec16<In> *vecs = (const vec16<In> *)(in + head);
    size_t count = (n - head) / W, i = rank;
    for (; i + (LOADS_IN_FLIGHT - 1) * stride < count; i += LOADS_IN_FLIGHT * stride) {
        vec16<In> v[LOADS_IN_FLIGHT];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            v[k] = vecs[i + k * stride];
        #pragma unroll
        for (int k = 0; k < LOADS_IN_FLIGHT; k++)
            fold_vector<In, Op>(acc, v[k], head + (i + k * stride) * W);
    }
    for (; i < count; i += stride)                        // fewer than a round left
        fold_vector<In, Op>(acc, vecs[i], head + i * W);
    size_t tail = head + count * W;                       // the last (n - head) % W
    if (tail + rank < n)
        acc = Op::combine(acc, Op::element(in[tail + rank], tail + rank));
    return acc;
}
// [end thread_fold]

// [begin block_sum]
// One value per thread folded across the block: each 32-thread tile by a shuffle
// tree, then tile 0 folds the tiles'; valid in thread 0. Argmax's tree is three
// cg::reduce of 4-byte integers, one REDUX instruction each (sm_80 on), no shuffle.
template <typename Op>
__device__ typename Op::acc_t tile_fold(cg::thread_block_tile<32> tile, typename Op::acc_t v)
{
    if constexpr (std::is_same_v<typename Op::acc_t, keyed_t>) {
        int best = cg::reduce(tile, v.key, cg::greater<int>());
        long long i = v.key == best ? v.index : LLONG_MAX;          // smaller keys drop out
        unsigned hi = cg::reduce(tile, unsigned(i >> 32), cg::less<unsigned>());
        unsigned lo = cg::reduce(tile, unsigned(i >> 32) == hi ? unsigned(i) : UINT_MAX, cg::less<unsigned>());
        v = { best, (long long)hi << 32 | lo };
    } else
        for (unsigned offset = 16; offset > 0; offset /= 2)
            v = Op::combine(v, tile.shfl_down(v, offset));
    return v;
}

template <typename Op>
__device__ typename Op::acc_t block_sum(cg::thread_block block, typename Op::acc_t v)
{
    __shared__ typename Op::acc_t tile_accs[32];   // one per tile: at most 1024 / 32
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    v = tile_fold<Op>(tile, v);
    if (tile.thread_rank() == 0)
        tile_accs[tile.meta_group_rank()] = v;
    block.sync();                          // every tile's result is written
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < tile.meta_group_size() ? tile_accs[tile.thread_rank()] : Op::identity();
        v = tile_fold<Op>(tile, v);
    }
    return v;
}
// [end block_sum]

// [begin kernel]
// Step 07's kernel with Op's identity and combine in place of 0 and +.
template <typename In, typename Op>
__global__ void reduce_kernel(const In *in, size_t n, typename Op::acc_t *partials,
                              typename Op::out_t *out)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    typename Op::acc_t total = block_sum<Op>(block, thread_fold<In, Op>(grid, in, n));
    if (block.thread_rank() == 0)
        partials[grid.block_rank()] = total;
    grid.sync();                           // every partial is written and visible
    if (grid.block_rank() != 0)
        return;
    typename Op::acc_t v = Op::identity();
    for (unsigned i = block.thread_rank(); i < grid.num_blocks(); i += block.size())
        v = Op::combine(v, partials[i]);
    total = block_sum<Op>(block, v);
    if (block.thread_rank() == 0)
        *out = Op::result(total);
}
// [end kernel]

// ---- launcher ---------------------------------------------------------------
// [begin launcher]
template <typename In, typename Op>
static void launch(const void *d_in, types_slot_t *d_out, const types_launch_t *L, cudaStream_t stream)
{
    const In *in = (const In *)d_in;
    size_t n = L->n;
    auto *partials = (typename Op::acc_t *)L->scratch;
    auto *out = (typename Op::out_t *)d_out;
    void *args[] = { &in, &n, &partials, &out };   // the kernel's arguments, in order
    CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)reduce_kernel<In, Op>, L->grid, L->block,
                                           args, 0, stream));
}

// Every pair the step reduces: the harness refuses the others.
#define PAIR(type, op, In, ...) { type, op, (const void *)reduce_kernel<In, __VA_ARGS__>, launch<In, __VA_ARGS__> }
static const types_pair_t pairs[] = {
    PAIR(TYPE_FLOAT, OP_SUM, float, Sum<float, float>),
    PAIR(TYPE_DOUBLE, OP_SUM, double, Sum<double, double>),
    PAIR(TYPE_HALF, OP_SUM, __half, Sum<__half, float>),
    PAIR(TYPE_BF16, OP_SUM, __nv_bfloat16, Sum<__nv_bfloat16, float>),
    PAIR(TYPE_INT32, OP_SUM, int, Sum<int, long long>),
    PAIR(TYPE_FLOAT, OP_SUMSQ, float, SumSq<float>),
    PAIR(TYPE_BF16, OP_SUMSQ, __nv_bfloat16, SumSq<__nv_bfloat16>),
    PAIR(TYPE_FLOAT, OP_MAX, float, Extreme<float, true>),
    PAIR(TYPE_BF16, OP_MAX, __nv_bfloat16, Extreme<__nv_bfloat16, true>),
    PAIR(TYPE_INT32, OP_MAX, int, Extreme<int, true>),
    PAIR(TYPE_FLOAT, OP_MIN, float, Extreme<float, false>),
    PAIR(TYPE_BF16, OP_MIN, __nv_bfloat16, Extreme<__nv_bfloat16, false>),
    PAIR(TYPE_INT32, OP_MIN, int, Extreme<int, false>),
    PAIR(TYPE_FLOAT, OP_ARGMAX, float, ArgMax<float>),
    PAIR(TYPE_BF16, OP_ARGMAX, __nv_bfloat16, ArgMax<__nv_bfloat16>),
    PAIR(TYPE_INT32, OP_ARGMAX, int, ArgMax<int>),
};

// As step 07: no more blocks than run at once, nor than rounds of 16-byte loads.
// Where a thread would fold 2 to 16 rounds, at most 1536 threads a SM: there a
// fourth block of 512 adds more waiting at barriers than loads (lab/types: the grid).
static size_t grid_size(const types_launch_t *L)
{
    int cooperative = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, L->device));
    if (!cooperative)
        device_fail("this GPU does not support cooperative launches, which grid.sync() needs");
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pairs[L->pair].kernel, L->block, 0));
    size_t resident = (size_t)per_sm * L->sm_count;
    size_t needed = div_up(L->n, (size_t)L->block * LOADS_IN_FLIGHT * (16 / L->elem_bytes));
    if (resident < needed && needed < 16 * resident)
        resident = (size_t)min(per_sm, max(1, 1536 / L->block)) * L->sm_count;
    return min_size(resident, needed);
}

// One partial per block, each at most a slot's 16 bytes.
static size_t scratch_size(const types_launch_t *L) { return L->grid * sizeof(types_slot_t); }
// [end launcher]

// ---- step -------------------------------------------------------------------
static const types_step_t step = {
    .name = "12_types",
    .technique = "one cooperative kernel for every type and operator",
    .default_block = 512,
    .pairs = pairs,
    .pair_count = sizeof pairs / sizeof pairs[0],
    .grid_size = grid_size,
    .scratch_size = scratch_size,
};

int main(int argc, char **argv) { return run_types(argc, argv, &step); }
