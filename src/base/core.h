/* Small definitions shared by every source file: assertions, the def cookie,
 * and the one place that names compiler-specific features. */
#ifndef TS_CORE_H
#define TS_CORE_H

#include "tessera/types.h"

#include <assert.h>

/* ts_default_*_def() stamp their result with this, so that a def that was only
 * zero-filled (or never filled) is caught instead of used. */
#define TS_DEF_COOKIE 0x7E55E7A

#define TS_ASSERT(condition) assert(condition)

/* The most worker threads a world may use (ts_world_def.threads). */
#define TS_MAX_THREADS 256

/* A hint inside a spin-wait loop: lets the other hyper-thread run and saves
 * power (base/parallel.c). */
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define ts_cpu_pause() __builtin_ia32_pause()
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
#define ts_cpu_pause() __asm__ __volatile__("yield")
#elif defined(_MSC_VER)
#define ts_cpu_pause() _mm_pause()
#else
#define ts_cpu_pause() ((void)0)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ts_popcount64(x) __builtin_popcountll(x)
/* Index of the lowest set bit of x (x != 0). */
#define ts_ctz32(x) __builtin_ctz(x)
#define TS_FORCE_INLINE static inline __attribute__((always_inline))
/* A rare path kept out of its caller, whose registers it would crowd. */
#define TS_NOINLINE __attribute__((noinline))
#define TS_RESTRICT __restrict__
#define TS_THREAD_LOCAL __thread
#define TS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TS_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define TS_PREFETCH(p) __builtin_prefetch(p)
/* *p |= bits as one atomic step (relaxed order); returns the old value. */
#define ts_atomic_or16(p, bits) __atomic_fetch_or((p), (uint16_t)(bits), __ATOMIC_RELAXED)
/* *p read as one atomic step (relaxed order), beside other threads' ts_atomic_or16. */
#define ts_atomic_load16(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#elif defined(_MSC_VER)
#include <intrin.h>
#define ts_popcount64(x) ((int)__popcnt64(x))
static __forceinline int ts_ctz32(uint32_t x)
{
    unsigned long index;
    _BitScanForward(&index, x);
    return (int)index;
}
#define TS_FORCE_INLINE static __forceinline
#define TS_NOINLINE __declspec(noinline)
#define TS_RESTRICT __restrict
#define TS_THREAD_LOCAL __declspec(thread)
#define TS_UNLIKELY(x) (x)
#define TS_PRINTF_LIKE(f, a)
#define ts_atomic_or16(p, bits) ((uint16_t)_InterlockedOr16((short volatile *)(p), (short)(bits)))
#define ts_atomic_load16(p) (*(const volatile uint16_t *)(p))
#if defined(_M_X64) || defined(_M_IX86)
#define TS_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#else
#define TS_PREFETCH(p) ((void)(p))
#endif
#else
static inline int ts_ctz32(uint32_t x)
{
    int n = 0;
    for (; (x & 1u) == 0; x >>= 1) {
        ++n;
    }
    return n;
}
static inline int ts_popcount64(uint64_t x)
{
    int n = 0;
    for (; x != 0; x &= x - 1) {
        ++n;
    }
    return n;
}
#define TS_FORCE_INLINE static inline
#define TS_NOINLINE
#define TS_RESTRICT
#define TS_THREAD_LOCAL _Thread_local
#define TS_UNLIKELY(x) (x)
#define TS_PRINTF_LIKE(f, a)
#define TS_PREFETCH(p) ((void)(p))
/* Other compilers: not atomic, so their builds must step on one worker. */
static inline uint16_t ts_atomic_or16(uint16_t *p, uint16_t bits)
{
    uint16_t old = *p;
    *p = (uint16_t)(old | bits);
    return old;
}
#define ts_atomic_load16(p) (*(p))
#endif

#endif
