/* The world: definitions' defaults, the table of world slots, creation and
 * destruction. Its settings and the entry to a step are in
 * world_settings.c, what it reports in world_read.c. */
#include "api/world.h"
#include "api/sensor.h"

#include "base/alloc.h"
#include "base/array.h"
#include "base/bounds.h"
#include "collide/contact.h"
#include "islands/sleep.h"
#include "tessera/tessera.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- defaults ---- */

ts_world_def ts_default_world_def(void)
{
    return (ts_world_def){
        .gravity = {0.0f, -10.0f, 0.0f},
        .substeps = 4,
        .threads = 0,
        .solver = TS_SOLVER_SOFT_STEP,
        .contact_hertz = 30.0f,
        .contact_damping_ratio = 10.0f,
        .contact_push_speed = 3.0f,
        .contact_mass_ratio = 100.0f,
        .restitution_threshold = 1.0f,
        .enable_warm_starting = true,
        .enable_sleep = true,
        .joint_hertz = 90.0f,
        .joint_damping_ratio = 1.0f,
        .max_linear_speed = TS_DEFAULT_MAX_LINEAR_SPEED,
        .max_rotation = TS_DEFAULT_MAX_ROTATION,
        .internal_value = TS_DEF_COOKIE,
    };
}

ts_body_def ts_default_body_def(void)
{
    return (ts_body_def){
        .type = TS_BODY_STATIC,
        .rotation = TS_QUAT_IDENTITY,
        .gravity_scale = 1.0f,
        .enable_sleep = true,
        .sleep_threshold = TS_SLEEP_THRESHOLD,
        .internal_value = TS_DEF_COOKIE,
    };
}

ts_shape_def ts_default_shape_def(void)
{
    return (ts_shape_def){
        .local_rotation = TS_QUAT_IDENTITY,
        .density = 1.0f,
        .friction = 0.6f,
        .restitution = 0.0f,
        .filter = {1u, ~(uint64_t)0},
        .internal_value = TS_DEF_COOKIE,
    };
}

/* ---- the world slot table ----
 * Besides the error string, the library's only global state: it lets an id
 * of a destroyed world be detected (its slot's generation has moved on).
 * Creation and destruction take a spin lock; lookups read without it (using a
 * world while another thread destroys it is outside the threading rules). */

static ts_world *world_slots[TS_MAX_WORLDS];
static uint16_t slot_generations[TS_MAX_WORLDS];
static atomic_flag slot_lock = ATOMIC_FLAG_INIT;

static void lock_slots(void)
{
    while (atomic_flag_test_and_set_explicit(&slot_lock, memory_order_acquire)) {
    }
}

static void unlock_slots(void) { atomic_flag_clear_explicit(&slot_lock, memory_order_release); }

ts_world *ts_world_lookup_slot(uint16_t world0, uint16_t world_generation, const char *function)
{
    ts_world *world = world0 < TS_MAX_WORLDS ? world_slots[world0] : NULL;
    if (world == NULL || world->records.world_generation != world_generation) {
        if (function != NULL) {
            ts_fail(TS_ERROR_STALE_ID, function, "the id's world (slot %u, generation %u) was destroyed or never existed",
                    (unsigned)world0, (unsigned)world_generation);
        }
        return NULL;
    }
    return world;
}

ts_world *ts_world_lookup(ts_world_id id, const char *function)
{
    if (id.index1 == 0) {
        if (function != NULL) {
            ts_fail(TS_ERROR_STALE_ID, function, "world id is null");
        }
        return NULL;
    }
    return ts_world_lookup_slot((uint16_t)(id.index1 - 1), id.generation, function);
}

bool ts_world_is_valid(ts_world_id id) { return ts_world_lookup(id, NULL) != NULL; }

/* ---- create / destroy ---- */

int ts_available_threads(void)
{
#ifdef _OPENMP
    int cores = omp_get_num_procs();
    return cores < TS_MAX_THREADS ? cores : TS_MAX_THREADS;
#else
    return 1;
#endif
}

static ts_result check_world_def(const ts_world_def *def, const char *fn)
{
    TS_CHECK_NOT_NULL(def, fn);
    if (def->internal_value != TS_DEF_COOKIE) {
        return ts_fail(TS_ERROR_UNINITIALIZED_DEF, fn, "def was not initialised with ts_default_world_def()");
    }
    TS_TRY(ts_check_gravity(def->gravity, fn, "def->gravity"));
    TS_TRY(ts_check_speed_limits(def->max_linear_speed, def->max_rotation, fn, "def->max_linear_speed",
                                 "def->max_rotation"));
    if (def->substeps < 1 || def->substeps > 64) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "def->substeps is %d (must be 1..64)", def->substeps);
    }
    TS_TRY(ts_check_positive(def->contact_hertz, fn, "def->contact_hertz"));
    TS_TRY(ts_check_non_negative(def->contact_damping_ratio, fn, "def->contact_damping_ratio"));
    TS_TRY(ts_check_positive_within(def->contact_push_speed, TS_MAX_SPEED, "TS_MAX_SPEED", fn,
                                    "def->contact_push_speed"));
    if (!(def->contact_mass_ratio >= 1.0f && def->contact_mass_ratio <= 1.0e30f)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "def->contact_mass_ratio is %g (must be 1..1e30)",
                       (double)def->contact_mass_ratio);
    }
    TS_TRY(ts_check_non_negative(def->restitution_threshold, fn, "def->restitution_threshold"));
    TS_TRY(ts_check_positive(def->joint_hertz, fn, "def->joint_hertz"));
    TS_TRY(ts_check_non_negative(def->joint_damping_ratio, fn, "def->joint_damping_ratio"));
    if (def->threads < 0 || def->threads > TS_MAX_THREADS) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "def->threads is %d (must be 0..%d; 0 = every core)", def->threads,
                       TS_MAX_THREADS);
    }
    if (def->simd_width != 0 && !ts_simd_width_is_built(def->simd_width)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "def->simd_width is %d (must be 0, 1, 4, 8 or 16, and built)",
                       def->simd_width);
    }
    if (def->solver != TS_SOLVER_SOFT_STEP && def->solver != TS_SOLVER_XPBD) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "def->solver is %d (not a ts_solver_type)", (int)def->solver);
    }
    if (def->body_capacity < 0 || def->shape_capacity < 0 || def->body_capacity > TS_MAX_OBJECTS ||
        def->shape_capacity > TS_MAX_OBJECTS) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn,
                       "def->body_capacity (%d) and def->shape_capacity (%d) must be in 0..%d", def->body_capacity,
                       def->shape_capacity, TS_MAX_OBJECTS);
    }
    if ((def->allocator.alloc == NULL) != (def->allocator.free == NULL)) {
        return ts_fail(TS_ERROR_NULL_POINTER, fn, "def->allocator needs both alloc and free, or neither");
    }
    if ((def->enqueue_task == NULL) != (def->finish_task == NULL)) {
        return ts_fail(TS_ERROR_NULL_POINTER, fn, "def->enqueue_task and def->finish_task must both be set, or neither");
    }
    return TS_OK;
}

/* Up-front room for the capacity hints, so that building a scene of known
 * size does not regrow the arrays. */
static bool reserve_capacity(ts_world *world, int bodies, int shapes)
{
    const ts_allocator *a = &world->records.allocator;
    if (bodies > 0) {
        world->records.bodies = ts_alloc(a, (size_t)bodies * sizeof(ts_body));
        if (world->records.bodies == NULL) {
            return false;
        }
        world->records.body_capacity = bodies;
        if (!ts_id_pool_reserve(&world->records.body_ids, a, bodies) ||
            !ts_body_store_reserve(&world->records.store, a, bodies, bodies) ||
            !ts_island_reserve(&world->islands, a, bodies)) {
            return false;
        }
    }
    if (shapes > 0) {
        world->records.shapes = ts_alloc(a, (size_t)shapes * sizeof(ts_shape));
        if (world->records.shapes == NULL) {
            return false;
        }
        world->records.shape_capacity = shapes;
        return ts_id_pool_reserve(&world->records.shape_ids, a, shapes);
    }
    return true;
}

void ts_world_free_bodies_and_shapes(ts_world *world)
{
    const ts_allocator *a = &world->records.allocator;
    ts_free(a, world->records.bodies, (size_t)world->records.body_capacity * sizeof(ts_body));
    ts_free(a, world->records.shapes, (size_t)world->records.shape_capacity * sizeof(ts_shape));
    ts_id_pool_destroy(&world->records.body_ids, a);
    ts_id_pool_destroy(&world->records.shape_ids, a);
    ts_body_store_destroy(&world->records.store, a);
    ts_broadphase_destroy(&world->collision.broadphase, a);
    ts_geometry_store_destroy(&world->collision.geometry, a);
    ts_contacts_free(&world->records, &world->collision);
    ts_graph_destroy(&world->graph, a);
    ts_island_set_destroy(&world->islands, a);
    ts_free(a, world->records.joints, (size_t)world->records.joint_capacity * sizeof(ts_joint));
    ts_id_pool_destroy(&world->records.joint_ids, a);
    ts_joint_scratch_free(&world->solver.joint_scratch, a);
    ts_solver_scratch_free(&world->solver.scratch, a);
    ts_array_free(a, (void **)&world->solver.report.entries, &world->solver.report.capacity,
                  sizeof(ts_contact_report_entry));
    ts_parallel_destroy(&world->parallel, a);
    ts_body_order_destroy(&world->body_order, a);
    ts_ray_bvh_free(&world->ray_bvh, a);
    ts_sensor_free(world);
    ts_array_free(a, (void **)&world->moves.events, &world->moves.capacity, sizeof(ts_body_move_event));
    world->records.bodies = NULL;
    world->records.shapes = NULL;
    world->records.joints = NULL;
    world->records.body_capacity = 0;
    world->records.shape_capacity = 0;
    world->records.joint_capacity = 0;
}

/* def->simd_width, else TESSERA_SIMD, else the widest the CPU runs; 0 with
 * an error recorded when TESSERA_SIMD names no built width. */
static int choose_simd_width(int requested, const char *fn)
{
    if (requested != 0) {
        return requested;
    }
    const char *env = getenv("TESSERA_SIMD");
    if (env == NULL || env[0] == '\0') {
        return ts_detect_simd_width();
    }
    int width = strcmp(env, "scalar") == 0 ? 1 : atoi(env);
    if (!ts_simd_width_is_built(width)) {
        ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "TESSERA_SIMD is '%s' (must be scalar, 1, 4, 8 or 16, and built)", env);
        return 0;
    }
    return width;
}

ts_world_id ts_create_world(const ts_world_def *def)
{
    if (check_world_def(def, __func__) != TS_OK) {
        return TS_NULL_WORLD_ID;
    }
    int simd_width = choose_simd_width(def->simd_width, __func__);
    if (simd_width == 0) {
        return TS_NULL_WORLD_ID;
    }
    ts_allocator allocator = def->allocator.alloc != NULL ? def->allocator : ts_default_allocator();
    ts_world *world = ts_alloc(&allocator, sizeof(ts_world));
    if (world == NULL) {
        ts_fail(TS_ERROR_OUT_OF_MEMORY, __func__, "the allocator returned NULL");
        return TS_NULL_WORLD_ID;
    }
    memset(world, 0, sizeof *world);
    ts_body_order_init(&world->body_order);
    ts_body_store_init(&world->records.store);
    ts_contact_store_init(&world->records.contact_store);
    world->records.allocator = allocator;
    world->solver.gravity = def->gravity;
    world->solver.substeps = def->substeps;
    world->thread_count = def->threads == 0 ? ts_available_threads() : def->threads;
    world->solver.simd_width = simd_width;
    world->solver.type = def->solver;
    world->user_data = def->user_data;
    world->solver.contact_hertz = def->contact_hertz;
    world->solver.contact_damping_ratio = def->contact_damping_ratio;
    world->solver.contact_push_speed = def->contact_push_speed;
    world->solver.contact_mass_ratio = def->contact_mass_ratio;
    world->solver.restitution_threshold = def->restitution_threshold;
    world->solver.enable_warm_starting = def->enable_warm_starting;
    world->enable_sleep = def->enable_sleep;
    world->planar = def->planar;
    world->solver.joint_hertz = def->joint_hertz;
    world->solver.joint_damping_ratio = def->joint_damping_ratio;
    world->solver.max_linear_speed = def->max_linear_speed;
    world->solver.max_rotation = def->max_rotation;
    if (!ts_parallel_init(&world->parallel, &world->records.allocator) ||
        !ts_broadphase_init(&world->collision.broadphase, &world->records.allocator, def->shape_capacity) ||
        !reserve_capacity(world, def->body_capacity, def->shape_capacity)) {
        ts_world_free_bodies_and_shapes(world);
        ts_free(&allocator, world, sizeof(ts_world));
        ts_fail(TS_ERROR_OUT_OF_MEMORY, __func__, "the allocator returned NULL");
        return TS_NULL_WORLD_ID;
    }
    world->parallel.enqueue_task = def->enqueue_task; /* ts_parallel_init zeroed them */
    world->parallel.finish_task = def->finish_task;
    world->parallel.user_task_context = def->user_task_context;

    lock_slots();
    int slot = 0;
    while (slot < TS_MAX_WORLDS && world_slots[slot] != NULL) {
        ++slot;
    }
    if (slot < TS_MAX_WORLDS) {
        slot_generations[slot] += 1; /* never 0, so a zeroed id of slot 0 is never valid */
        if (slot_generations[slot] == 0) {
            slot_generations[slot] = 1;
        }
        world->records.world_index = (uint16_t)slot;
        world->records.world_generation = slot_generations[slot];
        world_slots[slot] = world;
    }
    unlock_slots();
    if (slot == TS_MAX_WORLDS) {
        ts_world_free_bodies_and_shapes(world);
        ts_free(&allocator, world, sizeof(ts_world));
        ts_fail(TS_ERROR_CAPACITY, __func__, "%d worlds exist already (TS_MAX_WORLDS)", TS_MAX_WORLDS);
        return TS_NULL_WORLD_ID;
    }
    return ts_world_id_of(world);
}

ts_result ts_destroy_world(ts_world_id id)
{
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    lock_slots();
    world_slots[world->records.world_index] = NULL;
    unlock_slots();
    ts_allocator allocator = world->records.allocator;
    ts_world_free_bodies_and_shapes(world);
    ts_free(&allocator, world, sizeof(ts_world));
    return TS_OK;
}

/* ---- for the solver-only entry (api/solver_context.c) ---- */

ts_result ts_world_def_check(const ts_world_def *def, const char *function) { return check_world_def(def, function); }

int ts_world_def_simd_width(int requested, const char *function) { return choose_simd_width(requested, function); }
