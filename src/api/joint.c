/* Joints: the public functions (create, destroy, limits, motor, spring,
 * readouts) and what a body's destruction or type change does to its joints
 * (see joint.h). The joint lists of bodies are in soa/joint_edges.c, the
 * joints' colours in islands/joint_graph.c. */
#include "api/joint.h"

#include "api/body_mass.h"
#include "api/contacts.h"
#include "api/lookup.h"
#include "base/alloc.h"
#include "base/array.h"
#include "base/bounds.h"
#include "collide/broadphase.h"
#include "islands/joint_graph.h"
#include "islands/sleep.h"
#include "soa/joint_edges.h"
#include "tessera/tessera.h"

#include <stdio.h>

/* Distance joints' default upper length: far beyond any scene. */
#define TS_JOINT_HUGE 1.0e5f

/* ---- defaults ---- */

static ts_joint_def default_base(void)
{
    return (ts_joint_def){
        .local_frame_a = {{0, 0, 0}, TS_QUAT_IDENTITY},
        .local_frame_b = {{0, 0, 0}, TS_QUAT_IDENTITY},
    };
}

ts_ball_joint_def ts_default_ball_joint_def(void)
{
    return (ts_ball_joint_def){.base = default_base(), .internal_value = TS_DEF_COOKIE};
}

ts_hinge_joint_def ts_default_hinge_joint_def(void)
{
    return (ts_hinge_joint_def){.base = default_base(), .internal_value = TS_DEF_COOKIE};
}

ts_prismatic_joint_def ts_default_prismatic_joint_def(void)
{
    return (ts_prismatic_joint_def){.base = default_base(), .internal_value = TS_DEF_COOKIE};
}

ts_distance_joint_def ts_default_distance_joint_def(void)
{
    return (ts_distance_joint_def){
        .base = default_base(), .length = 1.0f, .max_length = TS_JOINT_HUGE, .internal_value = TS_DEF_COOKIE};
}

ts_fixed_joint_def ts_default_fixed_joint_def(void)
{
    return (ts_fixed_joint_def){.base = default_base(), .internal_value = TS_DEF_COOKIE};
}

/* ---- lookup ---- */

#define JOINT_LOOKUP(id, world, joint)                                                                         \
    ts_world *world;                                                                                           \
    ts_joint *joint = ts_joint_lookup(id, &world, __func__);                                                   \
    if (joint == NULL) {                                                                                       \
        return TS_ERROR_STALE_ID;                                                                              \
    }

/* ---- checks ---- */

/* The names come whole (no formatting on the success path: making a joint
 * is cheap, and a grid makes tens of thousands). */
static ts_result check_frame(ts_transform frame, ts_transform *normalised, const char *fn, const char *position_name,
                             const char *rotation_name)
{
    TS_TRY(ts_check_components(frame.p, TS_MAX_OFFSET, "TS_MAX_OFFSET", fn, position_name));
    normalised->p = frame.p;
    return ts_check_rotation(frame.q, &normalised->q, fn, rotation_name);
}

/* Finite and within TS_MAX_JOINT_VALUE (a distance joint 1e30 m long
 * made an XPBD correction of 1e30 m, whose square overflowed into NaN
 * that spread through a pile within one step). */
static ts_result check_finite(float value, const char *fn, const char *name)
{
    if (!ts_is_finite(value)) {
        return ts_fail(TS_ERROR_NOT_FINITE, fn, "%s is %g (must be finite)", name, (double)value);
    }
    if (value > TS_MAX_JOINT_VALUE || value < -TS_MAX_JOINT_VALUE) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "%s is %g, beyond TS_MAX_JOINT_VALUE (%g)", name, (double)value,
                       (double)TS_MAX_JOINT_VALUE);
    }
    return TS_OK;
}

/* Limits of a joint type: finite, lower <= upper; hinge angles within
 * [-pi, pi] (the angle is measured in (-pi, pi]); lengths >= 0. */
static ts_result check_limits(ts_joint_type type, float lower, float upper, const char *fn)
{
    TS_TRY(check_finite(lower, fn, "lower limit"));
    TS_TRY(check_finite(upper, fn, "upper limit"));
    if (lower > upper) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "the limits are inverted: lower %g > upper %g", (double)lower,
                       (double)upper);
    }
    if (type == TS_JOINT_HINGE && (lower < -TS_PI || upper > TS_PI)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "hinge limits [%g, %g] leave [-pi, pi]", (double)lower,
                       (double)upper);
    }
    if (type == TS_JOINT_DISTANCE && lower < 0.0f) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "the lower length %g is negative", (double)lower);
    }
    return TS_OK;
}

static ts_result check_motor(float speed, float max_force, const char *fn)
{
    TS_TRY(check_finite(speed, fn, "motor speed"));
    TS_TRY(ts_check_non_negative(max_force, fn, "max motor force (torque)"));
    if (max_force > TS_MAX_FORCE) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "max motor force (torque) %g is beyond TS_MAX_FORCE (%g)",
                       (double)max_force, (double)TS_MAX_FORCE);
    }
    return TS_OK;
}

static ts_result check_spring(float hertz, float damping_ratio, float target, const char *fn)
{
    TS_TRY(ts_check_non_negative(hertz, fn, "spring hertz"));
    TS_TRY(ts_check_non_negative(damping_ratio, fn, "spring damping ratio"));
    if (hertz > TS_MAX_SPRING_HERTZ || damping_ratio > TS_MAX_SPRING_DAMPING_RATIO) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn,
                       "spring hertz %g or damping ratio %g is beyond TS_MAX_SPRING_HERTZ (%g) or "
                       "TS_MAX_SPRING_DAMPING_RATIO (%g)",
                       (double)hertz, (double)damping_ratio, (double)TS_MAX_SPRING_HERTZ,
                       (double)TS_MAX_SPRING_DAMPING_RATIO);
    }
    return check_finite(target, fn, "spring target");
}

static ts_result check_axis(ts_joint_type type, const ts_joint_axis_settings *axis, const char *fn)
{
    TS_TRY(check_limits(type, axis->lower, axis->upper, fn));
    TS_TRY(check_motor(axis->motor_speed, axis->max_motor_force, fn));
    return check_spring(axis->spring_hertz, axis->spring_damping_ratio, axis->target, fn);
}

/* ---- colours ---- */

/* Takes a joint out of its colour; the solver's kept ball bundles give their
 * impulses back first, while their joints are still those of their layout. */
static void uncolor_joint(ts_world *world, int32_t index)
{
    if (world->records.joints[index].color >= 0) {
        ts_joint_flush_impulses(&world->solver.joint_scratch, &world->records);
    }
    ts_joint_uncolor(&world->records, &world->graph, index);
}

/* ---- create and destroy ---- */

static bool reserve_joint(ts_world *world)
{
    ts_records *r = &world->records;
    int32_t index = ts_id_pool_peek(&r->joint_ids);
    if (index >= r->joint_capacity) {
        int32_t capacity = r->joint_capacity < 64 ? 64 : 2 * r->joint_capacity;
        ts_joint *grown = ts_realloc(&r->allocator, r->joints, (size_t)r->joint_capacity * sizeof(ts_joint),
                                     (size_t)capacity * sizeof(ts_joint));
        if (grown == NULL) {
            return false;
        }
        r->joints = grown;
        r->joint_capacity = capacity;
    }
    return ts_id_pool_reserve(&r->joint_ids, &r->allocator, ts_id_pool_live_count(&r->joint_ids) + 1);
}

ts_joint_id ts_joint_create(ts_world_id world_id, const ts_joint_def *def, ts_joint_type type,
                            const ts_joint_axis_settings *axis, float length, const ts_joint_custom *custom,
                            const char *fn)
{
    ts_world *world = ts_world_lookup(world_id, fn);
    if (world == NULL) {
        return TS_NULL_JOINT_ID;
    }
    ts_world *world_a, *world_b;
    ts_body *a = ts_body_lookup(def->body_a, &world_a, fn);
    if (a == NULL) {
        return TS_NULL_JOINT_ID;
    }
    /* a custom constraint without body_b is on one body: it takes body A twice */
    bool single = custom != NULL && ts_body_id_is_null(def->body_b);
    ts_body *b = single ? a : ts_body_lookup(def->body_b, &world_b, fn);
    if (b == NULL) {
        return TS_NULL_JOINT_ID;
    }
    world_b = single ? world_a : world_b;
    if (world_a != world || world_b != world) {
        ts_fail(TS_ERROR_WRONG_WORLD, fn, "def->body_%c belongs to another world", world_a != world ? 'a' : 'b');
        return TS_NULL_JOINT_ID;
    }
    if (a == b && !single) {
        ts_fail(TS_ERROR_INVALID_OPERATION, fn, "def->body_a and def->body_b are the same body (a joint needs two)");
        return TS_NULL_JOINT_ID;
    }
    if (a->faulted || b->faulted) {
        ts_fail(TS_ERROR_INVALID_OPERATION, fn, "def->body_%c was taken out after its state overflowed "
                "(ts_world_get_body_faults)", a->faulted ? 'a' : 'b');
        return TS_NULL_JOINT_ID;
    }
    if (a->type != TS_BODY_DYNAMIC && b->type != TS_BODY_DYNAMIC) {
        ts_fail(TS_ERROR_INVALID_OPERATION, fn, "neither body is dynamic (a joint between two %s bodies moves nothing)",
                a->type == TS_BODY_STATIC && b->type == TS_BODY_STATIC ? "static" : "static or kinematic");
        return TS_NULL_JOINT_ID;
    }
    ts_transform frame_a, frame_b;
    if (check_frame(def->local_frame_a, &frame_a, fn, "def->local_frame_a.p", "def->local_frame_a.q") != TS_OK ||
        check_frame(def->local_frame_b, &frame_b, fn, "def->local_frame_b.p", "def->local_frame_b.q") != TS_OK ||
        check_axis(type, axis, fn) != TS_OK) {
        return TS_NULL_JOINT_ID;
    }
    if (type == TS_JOINT_DISTANCE &&
        (ts_check_non_negative(length, fn, "def->length") != TS_OK || check_finite(length, fn, "def->length") != TS_OK)) {
        return TS_NULL_JOINT_ID;
    }
    if (ts_id_pool_peek(&world->records.joint_ids) >= TS_MAX_OBJECTS) {
        ts_fail(TS_ERROR_CAPACITY, fn, "the world holds %d joints already (TS_MAX_OBJECTS)", TS_MAX_OBJECTS);
        return TS_NULL_JOINT_ID;
    }
    if (!reserve_joint(world)) {
        ts_fail(TS_ERROR_OUT_OF_MEMORY, fn, "the allocator returned NULL");
        return TS_NULL_JOINT_ID;
    }
    /* A joint wakes both bodies and joins their islands (they sleep together). */
    int32_t body_a = (int32_t)(a - world->records.bodies), body_b = (int32_t)(b - world->records.bodies);
    if (ts_link_constraint(&world->records, &world->islands, &world->graph, body_a, body_b, fn) != TS_OK) {
        return TS_NULL_JOINT_ID;
    }
    bool fresh = world->records.joint_ids.free_count == 0;
    int32_t index = ts_id_pool_take(&world->records.joint_ids);
    ts_joint *j = world->records.joints + index;
    uint32_t generation = fresh ? 0u : j->generation;
    *j = (ts_joint){
        .generation = generation,
        .alive = true,
        .type = type,
        .edges = {{(int32_t)(a - world->records.bodies), -1, -1}, {(int32_t)(b - world->records.bodies), -1, -1}},
        .local_frame = {frame_a, frame_b},
        .length = length,
        .collide_connected = def->collide_connected,
        .user_data = def->user_data,
        .color = -1,
        .color_index = -1,
        .graph_body = {-1, -1},
    };
    if (custom != NULL) {
        j->custom = *custom;
    } else {
        j->axis = *axis;
    }
    if (!ts_joint_color(&world->records, &world->graph, index)) {
        j->alive = false;
        ts_id_pool_release(&world->records.joint_ids, index);
        ts_fail(TS_ERROR_OUT_OF_MEMORY, fn, "the allocator returned NULL");
        return TS_NULL_JOINT_ID;
    }
    ts_joint_link_edge(&world->records, index, 0);
    if (!single) {
        ts_joint_link_edge(&world->records, index, 1);
    }
    if (!def->collide_connected && !single) {
        ts_contacts_destroy_between(world, j->edges[0].body, j->edges[1].body);
    }
    return ts_joint_id_of(&world->records, index);
}

static ts_joint_axis_settings no_axis(void) { return (ts_joint_axis_settings){0}; }

#define CHECK_DEF(def, fn)                                                                                     \
    do {                                                                                                       \
        if ((def) == NULL) {                                                                                   \
            ts_fail(TS_ERROR_NULL_POINTER, fn, "def is NULL");                                                 \
            return TS_NULL_JOINT_ID;                                                                           \
        }                                                                                                      \
        if ((def)->internal_value != TS_DEF_COOKIE) {                                                          \
            ts_fail(TS_ERROR_UNINITIALIZED_DEF, fn, "def was not initialised with its ts_default_*_joint_def()"); \
            return TS_NULL_JOINT_ID;                                                                           \
        }                                                                                                      \
    } while (0)

ts_joint_id ts_create_ball_joint(ts_world_id world, const ts_ball_joint_def *def)
{
    CHECK_DEF(def, __func__);
    ts_joint_axis_settings axis = no_axis();
    return ts_joint_create(world, &def->base, TS_JOINT_BALL, &axis, 0.0f, NULL, __func__);
}

ts_joint_id ts_create_fixed_joint(ts_world_id world, const ts_fixed_joint_def *def)
{
    CHECK_DEF(def, __func__);
    ts_joint_axis_settings axis = no_axis();
    return ts_joint_create(world, &def->base, TS_JOINT_FIXED, &axis, 0.0f, NULL, __func__);
}

ts_joint_id ts_create_hinge_joint(ts_world_id world, const ts_hinge_joint_def *def)
{
    CHECK_DEF(def, __func__);
    ts_joint_axis_settings axis = {def->enable_limit, def->lower_angle, def->upper_angle, def->enable_motor,
                                   def->motor_speed, def->max_motor_torque, def->enable_spring, def->spring_hertz,
                                   def->spring_damping_ratio, def->target_angle};
    return ts_joint_create(world, &def->base, TS_JOINT_HINGE, &axis, 0.0f, NULL, __func__);
}

ts_joint_id ts_create_prismatic_joint(ts_world_id world, const ts_prismatic_joint_def *def)
{
    CHECK_DEF(def, __func__);
    ts_joint_axis_settings axis = {def->enable_limit, def->lower_translation, def->upper_translation,
                                   def->enable_motor, def->motor_speed, def->max_motor_force, def->enable_spring,
                                   def->spring_hertz, def->spring_damping_ratio, def->target_translation};
    return ts_joint_create(world, &def->base, TS_JOINT_PRISMATIC, &axis, 0.0f, NULL, __func__);
}

ts_joint_id ts_create_distance_joint(ts_world_id world, const ts_distance_joint_def *def)
{
    CHECK_DEF(def, __func__);
    ts_joint_axis_settings axis = {def->enable_limit, def->min_length, def->max_length, false, 0.0f, 0.0f,
                                   def->enable_spring, def->spring_hertz, def->spring_damping_ratio, def->length};
    return ts_joint_create(world, &def->base, TS_JOINT_DISTANCE, &axis, def->length, NULL, __func__);
}

static void destroy_joint(ts_world *world, int32_t index, bool refresh_pairs)
{
    ts_joint *j = world->records.joints + index;
    /* Wakes both bodies; their island may split when it next wants to sleep.
     * Waking only fails for want of memory, and then the bodies stay as they are. */
    (void)ts_unlink_constraint(&world->records, &world->islands, &world->graph, j->edges[0].body, j->edges[1].body,
                               "ts_destroy_joint");
    uncolor_joint(world, index);
    ts_joint_unlink_edge(&world->records, index, 0);
    if (j->edges[1].body != j->edges[0].body) { /* a one-body custom constraint is in one list */
        ts_joint_unlink_edge(&world->records, index, 1);
    }
    if (refresh_pairs && !j->collide_connected) {
        /* The bodies may touch now: let the broadphase look at their shapes again. */
        for (int side = 0; side < 2; ++side) {
            const ts_shape *shapes = world->records.shapes;
            for (int32_t s = world->records.bodies[j->edges[side].body].first_shape; s != -1; s = shapes[s].next) {
                if (shapes[s].proxy >= 0) {
                    /* out of memory: the pair is found later */
                    (void)ts_shape_buffer_move(&world->records, &world->collision.broadphase, s, "ts_destroy_joint");
                }
            }
        }
    }
    j->alive = false;
    j->generation += 1;
    ts_id_pool_release(&world->records.joint_ids, index);
}

ts_result ts_destroy_joint(ts_joint_id id)
{
    JOINT_LOOKUP(id, world, j);
    destroy_joint(world, (int32_t)(j - world->records.joints), true);
    return TS_OK;
}

void ts_body_destroy_joints(ts_world *world, int32_t body)
{
    while (world->records.bodies[body].joint_head != -1) {
        destroy_joint(world, world->records.bodies[body].joint_head >> 1, false);
    }
}

ts_result ts_body_relink_joints(ts_world *world, int32_t body, const char *function)
{
    for (int32_t key = world->records.bodies[body].joint_head; key != -1;) {
        int32_t index = key >> 1;
        const ts_joint *j = world->records.joints + index;
        int32_t next = j->edges[key & 1].next_key;
        uncolor_joint(world, index);
        if (!ts_joint_color(&world->records, &world->graph, index)) {
            return ts_fail(TS_ERROR_OUT_OF_MEMORY, function, "the allocator returned NULL (joint colours)");
        }
        TS_TRY(ts_link_constraint(&world->records, &world->islands, &world->graph, j->edges[0].body, j->edges[1].body,
                                  function));
        key = next;
    }
    return TS_OK;
}

bool ts_joint_is_valid(ts_joint_id id)
{
    ts_world *world = ts_world_lookup_slot(id.world0, id.world_generation, NULL);
    if (world == NULL) {
        return false;
    }
    int32_t index = id.index1 > 0 ? id.index1 - 1 : -1;
    return index >= 0 && index < world->records.joint_ids.next_index && world->records.joints[index].alive &&
           world->records.joints[index].generation == id.generation;
}

/* ---- plain accessors ---- */

ts_result ts_joint_get_type(ts_joint_id id, ts_joint_type *type)
{
    TS_CHECK_NOT_NULL(type, __func__);
    JOINT_LOOKUP(id, world, j);
    *type = j->type;
    return TS_OK;
}

ts_result ts_joint_get_bodies(ts_joint_id id, ts_body_id *body_a, ts_body_id *body_b)
{
    TS_CHECK_NOT_NULL(body_a, __func__);
    TS_CHECK_NOT_NULL(body_b, __func__);
    JOINT_LOOKUP(id, world, j);
    *body_a = ts_body_id_of(&world->records, j->edges[0].body);
    *body_b = ts_body_id_of(&world->records, j->edges[1].body);
    return TS_OK;
}

ts_result ts_joint_set_user_data(ts_joint_id id, void *user_data)
{
    JOINT_LOOKUP(id, world, j);
    j->user_data = user_data;
    return TS_OK;
}

void *ts_joint_get_user_data(ts_joint_id id)
{
    ts_world *world;
    ts_joint *j = ts_joint_lookup(id, &world, __func__);
    return j == NULL ? NULL : j->user_data;
}

/* ---- limits, motor, spring ---- */

static ts_result require_type(const ts_joint *j, unsigned types, const char *what, const char *fn)
{
    static const char *names[TS_JOINT_TYPE_COUNT] = {"ball", "hinge", "prismatic", "distance", "fixed", "custom"};
    if ((types >> j->type & 1u) == 0) {
        return ts_fail(TS_ERROR_INVALID_OPERATION, fn, "a %s joint has no %s", names[j->type], what);
    }
    return TS_OK;
}

#define HINGE (1u << TS_JOINT_HINGE)
#define PRISMATIC (1u << TS_JOINT_PRISMATIC)
#define DISTANCE (1u << TS_JOINT_DISTANCE)

ts_result ts_joint_set_limits(ts_joint_id id, bool enable, float lower, float upper)
{
    JOINT_LOOKUP(id, world, j);
    TS_TRY(require_type(j, HINGE | PRISMATIC | DISTANCE, "limits", __func__));
    TS_TRY(check_limits(j->type, lower, upper, __func__));
    j->axis.enable_limit = enable;
    j->axis.lower = lower;
    j->axis.upper = upper;
    return ts_wake_pair(&world->records, &world->islands, &world->graph, j->edges[0].body, j->edges[1].body, __func__);
}

ts_result ts_joint_get_limits(ts_joint_id id, bool *enable, float *lower, float *upper)
{
    TS_CHECK_NOT_NULL(enable, __func__);
    TS_CHECK_NOT_NULL(lower, __func__);
    TS_CHECK_NOT_NULL(upper, __func__);
    JOINT_LOOKUP(id, world, j);
    TS_TRY(require_type(j, HINGE | PRISMATIC | DISTANCE, "limits", __func__));
    *enable = j->axis.enable_limit;
    *lower = j->axis.lower;
    *upper = j->axis.upper;
    return TS_OK;
}

ts_result ts_joint_set_motor(ts_joint_id id, bool enable, float speed, float max_force)
{
    JOINT_LOOKUP(id, world, j);
    TS_TRY(require_type(j, HINGE | PRISMATIC, "motor", __func__));
    TS_TRY(check_motor(speed, max_force, __func__));
    j->axis.enable_motor = enable;
    j->axis.motor_speed = speed;
    j->axis.max_motor_force = max_force;
    return ts_wake_pair(&world->records, &world->islands, &world->graph, j->edges[0].body, j->edges[1].body, __func__);
}

ts_result ts_joint_get_motor(ts_joint_id id, bool *enable, float *speed, float *max_force)
{
    TS_CHECK_NOT_NULL(enable, __func__);
    TS_CHECK_NOT_NULL(speed, __func__);
    TS_CHECK_NOT_NULL(max_force, __func__);
    JOINT_LOOKUP(id, world, j);
    TS_TRY(require_type(j, HINGE | PRISMATIC, "motor", __func__));
    *enable = j->axis.enable_motor;
    *speed = j->axis.motor_speed;
    *max_force = j->axis.max_motor_force;
    return TS_OK;
}

ts_result ts_joint_set_spring(ts_joint_id id, bool enable, float hertz, float damping_ratio, float target)
{
    JOINT_LOOKUP(id, world, j);
    TS_TRY(require_type(j, HINGE | PRISMATIC | DISTANCE, "spring", __func__));
    TS_TRY(check_spring(hertz, damping_ratio, target, __func__));
    j->axis.enable_spring = enable;
    j->axis.spring_hertz = hertz;
    j->axis.spring_damping_ratio = damping_ratio;
    if (j->type != TS_JOINT_DISTANCE) {
        j->axis.target = target;
    }
    return ts_wake_pair(&world->records, &world->islands, &world->graph, j->edges[0].body, j->edges[1].body, __func__);
}

ts_result ts_joint_get_spring(ts_joint_id id, bool *enable, float *hertz, float *damping_ratio, float *target)
{
    TS_CHECK_NOT_NULL(enable, __func__);
    TS_CHECK_NOT_NULL(hertz, __func__);
    TS_CHECK_NOT_NULL(damping_ratio, __func__);
    TS_CHECK_NOT_NULL(target, __func__);
    JOINT_LOOKUP(id, world, j);
    TS_TRY(require_type(j, HINGE | PRISMATIC | DISTANCE, "spring", __func__));
    *enable = j->axis.enable_spring;
    *hertz = j->axis.spring_hertz;
    *damping_ratio = j->axis.spring_damping_ratio;
    *target = j->axis.target;
    return TS_OK;
}

ts_result ts_joint_set_length(ts_joint_id id, float length)
{
    JOINT_LOOKUP(id, world, j);
    TS_TRY(require_type(j, DISTANCE, "length", __func__));
    TS_TRY(ts_check_non_negative(length, __func__, "length"));
    TS_TRY(check_finite(length, __func__, "length"));
    j->length = length;
    j->axis.target = length;
    return ts_wake_pair(&world->records, &world->islands, &world->graph, j->edges[0].body, j->edges[1].body, __func__);
}

/* ---- readouts ---- */

/* The joint frames in the world now. */
static void world_frames(const ts_world *world, const ts_joint *j, ts_transform *frame_a, ts_transform *frame_b)
{
    *frame_a = ts_transform_mul(ts_body_origin_transform(world, j->edges[0].body), j->local_frame[0]);
    *frame_b = ts_transform_mul(ts_body_origin_transform(world, j->edges[1].body), j->local_frame[1]);
}

ts_result ts_joint_get_world_anchors(ts_joint_id id, ts_vec3 *anchor_a, ts_vec3 *anchor_b)
{
    TS_CHECK_NOT_NULL(anchor_a, __func__);
    TS_CHECK_NOT_NULL(anchor_b, __func__);
    JOINT_LOOKUP(id, world, j);
    ts_transform fa, fb;
    world_frames(world, j, &fa, &fb);
    *anchor_a = fa.p;
    *anchor_b = fb.p;
    return TS_OK;
}

ts_result ts_joint_get_position(ts_joint_id id, float *position)
{
    TS_CHECK_NOT_NULL(position, __func__);
    JOINT_LOOKUP(id, world, j);
    TS_TRY(require_type(j, HINGE | PRISMATIC | DISTANCE, "scalar position", __func__));
    ts_transform fa, fb;
    world_frames(world, j, &fa, &fb);
    ts_vec3 d = ts_sub(fb.p, fa.p);
    if (j->type == TS_JOINT_HINGE) {
        ts_quat r = ts_quat_mul(ts_quat_conj(fa.q), fb.q);
        float sign = r.w < 0.0f ? -1.0f : 1.0f; /* q and -q are one rotation: take w >= 0 */
        *position = 2.0f * atan2f(sign * r.z, sign * r.w);
    } else if (j->type == TS_JOINT_PRISMATIC) {
        *position = ts_dot(ts_rotate(fa.q, ts_v3(1, 0, 0)), d);
    } else {
        *position = ts_length(d);
    }
    return TS_OK;
}

ts_result ts_joint_get_reaction_force(ts_joint_id id, ts_vec3 *force)
{
    TS_CHECK_NOT_NULL(force, __func__);
    JOINT_LOOKUP(id, world, j);
    ts_joint_flush_impulses(&world->solver.joint_scratch, &world->records);
    *force = j->reaction_force;
    return TS_OK;
}

ts_result ts_joint_get_reaction_torque(ts_joint_id id, ts_vec3 *torque)
{
    TS_CHECK_NOT_NULL(torque, __func__);
    JOINT_LOOKUP(id, world, j);
    ts_joint_flush_impulses(&world->solver.joint_scratch, &world->records);
    *torque = j->reaction_torque;
    return TS_OK;
}
