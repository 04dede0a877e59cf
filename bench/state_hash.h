/* The world-state hash of tessera-bench and the determinism tests: FNV-1a 64
 * over every body's position, rotation, linear and angular velocity (the
 * bytes of each float as stored), in body creation order, read through the
 * public API. Two runs agree on it exactly when their states are bitwise equal.
 *
 * The core (state_hash_body) is engine-neutral; the Bullet peer uses it on
 * its own bodies (define STATE_HASH_CORE_ONLY before including to leave out
 * the tessera part). */
#ifndef BENCH_STATE_HASH_H
#define BENCH_STATE_HASH_H

#include <stdint.h>
#include <string.h>

#define STATE_HASH_SEED 0xcbf29ce484222325ull /* FNV-1a 64 offset basis */

static inline uint64_t state_hash_bytes(uint64_t hash, const void *data, size_t size)
{
    const unsigned char *bytes = (const unsigned char *)data;
    for (size_t i = 0; i < size; ++i) {
        hash ^= bytes[i];
        hash *= 0x100000001b3ull; /* FNV-1a 64 prime */
    }
    return hash;
}

/* Folds one body: position (3 floats), rotation (x, y, z, w), linear
 * velocity (3), angular velocity (3). */
static inline uint64_t state_hash_body(uint64_t hash, const float position[3], const float rotation[4],
                                       const float linear_velocity[3], const float angular_velocity[3])
{
    hash = state_hash_bytes(hash, position, 3 * sizeof(float));
    hash = state_hash_bytes(hash, rotation, 4 * sizeof(float));
    hash = state_hash_bytes(hash, linear_velocity, 3 * sizeof(float));
    return state_hash_bytes(hash, angular_velocity, 3 * sizeof(float));
}

#ifndef STATE_HASH_CORE_ONLY
#include "tessera/tessera.h"

/* The hash of count bodies (give them in creation order). A body whose state
 * cannot be read (a stale id) folds in zeros. */
static inline uint64_t state_hash_tessera(const ts_body_id *bodies, int count)
{
    uint64_t hash = STATE_HASH_SEED;
    for (int i = 0; i < count; ++i) {
        ts_transform t = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
        ts_vec3 v = {0.0f, 0.0f, 0.0f}, w = {0.0f, 0.0f, 0.0f};
        ts_body_get_transform(bodies[i], &t);
        ts_body_get_linear_velocity(bodies[i], &v);
        ts_body_get_angular_velocity(bodies[i], &w);
        float p[3] = {t.p.x, t.p.y, t.p.z}, q[4] = {t.q.x, t.q.y, t.q.z, t.q.w};
        float lv[3] = {v.x, v.y, v.z}, av[3] = {w.x, w.y, w.z};
        hash = state_hash_body(hash, p, q, lv, av);
    }
    return hash;
}
#endif

#endif
