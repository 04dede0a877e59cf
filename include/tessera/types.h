/** @file
 * Plain value types of the public API: vectors, ids, results, definitions,
 * contact data, counters.
 *
 * Everything here is passed by value; no type hides a pointer the caller
 * must free. Units: metres, kilograms, seconds, radians; y is up by default
 * (gravity is a world setting). */
#ifndef TESSERA_TYPES_H
#define TESSERA_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @def TS_API
 * Marks a function of the library's interface. Building the shared library
 * (TESSERA_BUILDING) it makes the function visible (everything else stays
 * hidden); on Windows it is dllexport / dllimport when TESSERA_SHARED is
 * defined (CMake's tessera::tessera_shared target defines it). */
#if defined(_WIN32) && defined(TESSERA_SHARED)
#if defined(TESSERA_BUILDING)
#define TS_API __declspec(dllexport)
#else
#define TS_API __declspec(dllimport)
#endif
#elif defined(TESSERA_BUILDING) && defined(__GNUC__)
#define TS_API __attribute__((visibility("default")))
#else
#define TS_API
#endif

/** @def TS_LITERAL
 * A value of struct type T from a braced list: a compound literal
 * `(T){...}` in C, `T{...}` in C++ (which has no compound literals), so
 * that the constants below compile in both, with `-pedantic`. */
#ifdef __cplusplus
#define TS_LITERAL(T) T
#else
#define TS_LITERAL(T) (T)
#endif

/* ---- math values (y up, metres, kilograms, seconds) ---- */

/** A 3D vector (a point, a direction, a velocity, ...). */
typedef struct ts_vec3 {
    float x; /**< x component */
    float y; /**< y component (up, by the default gravity) */
    float z; /**< z component */
} ts_vec3;

/** A unit quaternion, scalar last: (x, y, z) = axis * sin(angle / 2),
 * w = cos(angle / 2). Calls that take a rotation normalise one within 1% of
 * unit length and refuse one farther off (TS_ERROR_OUT_OF_RANGE). */
typedef struct ts_quat {
    float x; /**< axis x * sin(angle / 2) */
    float y; /**< axis y * sin(angle / 2) */
    float z; /**< axis z * sin(angle / 2) */
    float w; /**< cos(angle / 2) */
} ts_quat;

/** A rigid transform: rotate by q, then translate by p. */
typedef struct ts_transform {
    ts_vec3 p; /**< translation (position of the frame's origin) */
    ts_quat q; /**< rotation */
} ts_transform;

/** The identity rotation, (0, 0, 0, 1). */
#define TS_QUAT_IDENTITY (TS_LITERAL(ts_quat){0.0f, 0.0f, 0.0f, 1.0f})

/* ---- results ---- */

/** What a call that can fail returns. On failure ts_last_error() (thread
 * local) says which function failed, which argument was wrong and why, and
 * the call changed nothing. */
typedef enum ts_result {
    TS_OK = 0,                  /**< success */
    TS_ERROR_NULL_POINTER,      /**< a required pointer (a def, an output) was NULL */
    TS_ERROR_UNINITIALIZED_DEF, /**< a def that did not come from ts_default_*_def() */
    TS_ERROR_STALE_ID,          /**< the object was destroyed, or the id was never valid (a null id too) */
    TS_ERROR_WRONG_WORLD,       /**< the id belongs to another world */
    TS_ERROR_NOT_FINITE,        /**< a NaN or infinite number */
    TS_ERROR_OUT_OF_RANGE,      /**< a number outside its allowed range */
    TS_ERROR_INVALID_OPERATION, /**< valid arguments, but not for this object (e.g. velocity of a static body) */
    TS_ERROR_UNSUPPORTED,       /**< a feature this build does not have */
    TS_ERROR_OUT_OF_MEMORY,     /**< the allocator returned NULL; nothing was changed */
    TS_ERROR_CAPACITY,          /**< a fixed limit was reached (e.g. too many worlds) */
    TS_ERROR_INVALID_DATA,      /**< bytes that are no valid snapshot (truncated, corrupted, another format version) */
    TS_ERROR_IO,                /**< a file could not be opened, read or written (the message names it) */
} ts_result;

/* ---- ids: index + generation; a zeroed id is the null id ---- */

/** Names a world. A zeroed id ({0}) is the null id. */
typedef struct ts_world_id {
    uint16_t index1;     /**< the world's slot + 1 (0: the null id) */
    uint16_t generation; /**< the slot's generation when the world was made */
} ts_world_id;

/** Names a body. It carries its world's slot and generation, so an id of a
 * destroyed world, or of another world, is detected; a zeroed id is the
 * null id. Treat the fields as opaque. */
typedef struct ts_body_id {
    int32_t index1;            /**< the body's slot + 1 (0: the null id) */
    uint16_t world0;           /**< the world's slot */
    uint16_t world_generation; /**< the world's generation */
    uint32_t generation;       /**< the body slot's generation */
} ts_body_id;

/** Names a shape; the same layout as ts_body_id. */
typedef struct ts_shape_id {
    int32_t index1;            /**< the shape's slot + 1 (0: the null id) */
    uint16_t world0;           /**< the world's slot */
    uint16_t world_generation; /**< the world's generation */
    uint32_t generation;       /**< the shape slot's generation */
} ts_shape_id;

/** The null world id (what a failed ts_create_world() returns). */
#define TS_NULL_WORLD_ID (TS_LITERAL(ts_world_id){0, 0})
/** The null body id (what a failed ts_create_body() returns). */
#define TS_NULL_BODY_ID (TS_LITERAL(ts_body_id){0, 0, 0, 0})
/** The null shape id (what a failed shape creation returns). */
#define TS_NULL_SHAPE_ID (TS_LITERAL(ts_shape_id){0, 0, 0, 0})

/** True for the null world id. A non-null id may still be stale: see ts_world_is_valid(). */
static inline bool ts_world_id_is_null(ts_world_id id) { return id.index1 == 0; }
/** True for the null body id. A non-null id may still be stale: see ts_body_is_valid(). */
static inline bool ts_body_id_is_null(ts_body_id id) { return id.index1 == 0; }
/** True for the null shape id. A non-null id may still be stale: see ts_shape_is_valid(). */
static inline bool ts_shape_id_is_null(ts_shape_id id) { return id.index1 == 0; }

/** True when a and b name the same body (every field equal). */
static inline bool ts_body_id_equals(ts_body_id a, ts_body_id b)
{
    return a.index1 == b.index1 && a.world0 == b.world0 && a.world_generation == b.world_generation &&
           a.generation == b.generation;
}

/* ---- allocation ---- */

/** Allocates size bytes aligned to alignment (a power of two <= 64; size is
 * a multiple of it), or returns NULL. context is ts_allocator::context. */
typedef void *ts_alloc_fn(size_t size, size_t alignment, void *context);
/** Frees memory that ts_alloc_fn returned; size is the size that was
 * allocated. context is ts_allocator::context. */
typedef void ts_free_fn(void *memory, size_t size, void *context);

/** Where a world's memory comes from: every byte tessera allocates for a
 * world goes through these. Leave both functions NULL to use the C
 * library; set both or neither. */
typedef struct ts_allocator {
    ts_alloc_fn *alloc; /**< allocation function, or NULL */
    ts_free_fn *free;   /**< release function, or NULL */
    void *context;      /**< passed to both */
} ts_allocator;

/* ---- world ---- */

/** The solver of contacts and joints (see docs/solvers.md). */
typedef enum ts_solver_type {
    TS_SOLVER_SOFT_STEP = 0, /**< soft-step sequential impulses (Box2D v3's soft step; the default) */
    /** extended position based dynamics (Müller et al. 2020): contacts and
     * joints as position constraints (joints rigid, springs compliant);
     * friction, restitution, motors and spring damping in a velocity pass */
    TS_SOLVER_XPBD = 1,
} ts_solver_type;

/* ---- task callbacks: running a step on the program's own threads ---- */

/** A piece of a step's work that tessera hands to the program's task
 * system: run it as task(start, end, worker, task_context) with the values
 * enqueue_task received (start 0, end item_count). `worker` is the pool's
 * own thread index (tessera does not use it). */
typedef void ts_task_fn(int32_t start, int32_t end, uint32_t worker, void *task_context);

/** Runs a step's work on the program's own threads instead of OpenMP.
 *
 * For a step on N workers (ts_world_def::threads), tessera calls
 * enqueue_task N - 1 times, each with item_count 1, then works as worker 0
 * on the calling thread, then calls finish_task on each handle that
 * enqueue_task returned (NULL handles are skipped).
 * - enqueue_task must run task(0, item_count, worker, task_context) on
 *   another thread, soon, and return a handle for finish_task. It must not
 *   run the task on the calling thread before returning: the task waits for
 *   work that worker 0 publishes after enqueue_task has returned.
 * - finish_task must return once that task has returned.
 * - The pool may have fewer threads than tasks: the step stays correct (the
 *   calling thread does the work of tasks that have not started) but gains
 *   less. Results are bitwise the same for any number of workers.
 *
 * min_range is a hint for pools that split ranges (tessera passes 1).
 * user_context is ts_world_def::user_task_context. */
typedef void *ts_enqueue_task_fn(ts_task_fn *task, int32_t item_count, int32_t min_range, void *task_context,
                                 void *user_context);
/** Waits until the task behind user_task (a handle enqueue_task returned)
 * has returned. user_context is ts_world_def::user_task_context. */
typedef void ts_finish_task_fn(void *user_task, void *user_context);

/** How to make a world; start from ts_default_world_def(). */
typedef struct ts_world_def {
    ts_vec3 gravity; /**< m/s^2; default (0, -10, 0) */
    int substeps;    /**< substeps per ts_world_step(), 1..64; default 4 */
    /** Workers of a step, counting the calling thread: 0 = every core;
     * 1..256 otherwise. Without task callbacks they are OpenMP threads (a
     * build without OpenMP uses one). Default 0. */
    int threads;
    ts_enqueue_task_fn *enqueue_task; /**< both NULL (default: OpenMP) or both set */
    ts_finish_task_fn *finish_task;   /**< both NULL (default: OpenMP) or both set */
    void *user_task_context;          /**< passed to enqueue_task and finish_task */
    /** Lanes of the solver's SIMD kernels: 1 (scalar), 4, 8 or 16; 0 (the
     * default) picks the widest the CPU runs, unless the environment
     * variable TESSERA_SIMD (scalar, 1, 4, 8 or 16) names one. Every width
     * gives the same bits. */
    int simd_width;
    ts_solver_type solver; /**< default TS_SOLVER_SOFT_STEP */
    /** Contacts are soft constraints (Box2D v3's soft step): a spring of
     * this stiffness and damping ratio pushes overlapping shapes apart,
     * never faster than contact_push_speed. 30 Hz is stiff enough for
     * stacks at 60 Hz with 4 substeps and far below the substep rate (the
     * step caps it at a quarter of it). Contacts with a static or kinematic
     * body use twice the stiffness. > 0; default 30. */
    float contact_hertz;
    /** Damping ratio of the contact spring: 10 makes it critically damped
     * with room to spare, so stacks do not bounce. >= 0; default 10. */
    float contact_damping_ratio;
    /** The fastest overlap is pushed out, m/s: 3 recovers overlap in a few
     * steps without launching bodies. > 0; default 3. */
    float contact_push_speed;
    /** A contact between two dynamic bodies whose masses differ more than
     * this sees the lighter body as the heavier one's mass / this ratio.
     * The soft contact's spring is the lighter body's, so without it 1000 kg
     * on 1 kg boxes rests 8 cm deep; at 100:1 it rests 8 mm deep. The price:
     * in a contact between such bodies the heavier one's velocity changes by
     * up to 1 / ratio of the closing speed more than with exact masses (1%
     * at the default). Soft step only. 1..1e30 (1e30 keeps exact masses);
     * default 100. */
    float contact_mass_ratio;
    /** Points approaching slower than this do not bounce, whatever their
     * restitution: resting contacts stay at rest. >= 0, m/s; default 1. */
    float restitution_threshold;
    bool enable_warm_starting; /**< default true: start each step from the last step's impulses */
    bool enable_sleep;         /**< default true: islands at rest for 0.5 s sleep (bodies may opt out) */
    /** Joints are soft too (soft step only; XPBD's joints are rigid): their
     * position error is a spring of stiffness m (2 pi joint_hertz)^2, m the
     * joint's effective mass, capped at 3/8 of the substep rate. m is that
     * of the light side, so a heavy load on light links stretches them by
     * load / (m (2 pi f)^2). > 0; default 90. */
    float joint_hertz;
    float joint_damping_ratio; /**< >= 0; default 1 */
    /** A 2D world in the 3D engine: every dynamic body is kept in its x-y
     * plane, turning about z only (TS_LOCK_PLANAR, motion_locks.h), on top
     * of its own motion locks. Default false. */
    bool planar;
    /** The fastest a body moves, m/s: a step scales a faster velocity down
     * (limits.h). (0, TS_MAX_SPEED]; default 400 (TS_DEFAULT_MAX_LINEAR_SPEED). */
    float max_linear_speed;
    /** The most a body turns in a substep, rad: a step scales a faster
     * angular velocity down to max_rotation / h (limits.h).
     * (0, TS_MAX_ROTATION]; default pi / 4 (TS_DEFAULT_MAX_ROTATION). */
    float max_rotation;
    int body_capacity;         /**< bodies to reserve room for up front (a hint, >= 0) */
    int shape_capacity;        /**< shapes to reserve room for up front (a hint, >= 0) */
    ts_allocator allocator;    /**< where the world's memory comes from; default: the C library */
    void *user_data;           /**< the program's own pointer (tessera does not read it) */
    int internal_value;        /**< set by ts_default_world_def(); do not touch */
} ts_world_def;

/* ---- bodies ---- */

/** How a body moves. */
typedef enum ts_body_type {
    TS_BODY_STATIC = 0,    /**< never moves, infinite mass */
    TS_BODY_KINEMATIC = 1, /**< moves by its velocity, infinite mass, no gravity */
    TS_BODY_DYNAMIC = 2,   /**< moved by gravity, forces and contacts */
} ts_body_type;

/** How to make a body; start from ts_default_body_def(). */
typedef struct ts_body_def {
    ts_body_type type;        /**< default TS_BODY_STATIC */
    ts_vec3 position;         /**< world position of the body origin */
    ts_quat rotation;         /**< world rotation; normalised if within 1% of unit length */
    ts_vec3 linear_velocity;  /**< of the centre of mass, m/s (static bodies: zero) */
    ts_vec3 angular_velocity; /**< world frame, rad/s (static bodies: zero) */
    float linear_damping;     /**< >= 0, 1/s; v *= 1 / (1 + h * damping) per substep */
    float angular_damping;    /**< >= 0, 1/s; the same for the angular velocity */
    float gravity_scale;      /**< finite; default 1 */
    bool enable_sleep;        /**< may sleep when at rest; default true (islands sleep as a whole) */
    float sleep_threshold;    /**< >= 0, m/s: sleep when |v| + |w| extent stays below; default 0.05 */
    /** TS_LOCK_* bits (motion_locks.h): world axes the body may not move
     * along or turn about; default 0. Not for static bodies. */
    uint32_t motion_locks;
    void *user_data;          /**< the program's own pointer (tessera does not read it) */
    int internal_value;       /**< set by ts_default_body_def(); do not touch */
} ts_body_def;

/** Mass properties of a body, computed from its shapes. The inertia is
 * given in its principal frame: principal_rotation turns the principal
 * axes into the body frame, and principal_inertia holds the moments about
 * them. */
typedef struct ts_mass_data {
    float mass;                 /**< kg */
    ts_vec3 center;             /**< centre of mass in the body frame */
    ts_vec3 principal_inertia;  /**< kg m^2 about the centre of mass */
    ts_quat principal_rotation; /**< body frame <- principal frame */
} ts_mass_data;

/* ---- shapes ---- */

/** The kinds of shape. */
typedef enum ts_shape_type {
    TS_SHAPE_SPHERE = 0,  /**< ts_sphere */
    TS_SHAPE_BOX = 1,     /**< ts_box */
    TS_SHAPE_CAPSULE = 2, /**< ts_capsule */
    TS_SHAPE_HULL = 3,        /**< a convex hull (ts_hull_def, tessera/shapes.h) */
    TS_SHAPE_MESH = 4,        /**< a static triangle mesh (ts_mesh_def, tessera/shapes.h) */
    TS_SHAPE_HEIGHTFIELD = 5, /**< a grid of heights (ts_heightfield_def, tessera/shapes.h) */
    TS_SHAPE_TYPE_COUNT       /**< the number of shape types */
} ts_shape_type;

/** A sphere about the shape's origin. */
typedef struct ts_sphere {
    float radius; /**< > 0 */
} ts_sphere;

/** A box about the shape's origin, along the shape's axes. */
typedef struct ts_box {
    ts_vec3 half_extents; /**< each > 0 */
} ts_box;

/** A capsule along its local y axis: a segment from (0, -half_height, 0)
 * to (0, half_height, 0) swept by a sphere of radius. */
typedef struct ts_capsule {
    float half_height; /**< >= 0 (0 makes a sphere) */
    float radius;      /**< > 0 */
} ts_capsule;

/** Collision filter: shapes A and B may touch when
 * (A.category_bits & B.mask_bits) != 0 and (B.category_bits & A.mask_bits) != 0. */
typedef struct ts_filter {
    uint64_t category_bits; /**< what this shape is; default 1 */
    uint64_t mask_bits;     /**< what it touches; default all ones */
} ts_filter;

/** How to make a shape; start from ts_default_shape_def(). */
typedef struct ts_shape_def {
    ts_vec3 local_position; /**< shape centre in the body frame */
    ts_quat local_rotation; /**< shape rotation in the body frame */
    float density;          /**< kg/m^3, > 0; default 1 */
    float friction;         /**< >= 0; default 0.6 (a contact uses sqrt(a * b) of its two shapes') */
    float restitution;      /**< 0..1; default 0 (a contact uses the larger of its two shapes') */
    /** Rolling resistance: a torque against rolling of at most this times
     * the normal force times the rolling radius (docs/shapes.md), from 0 to
     * TS_MAX_ROLLING_RESISTANCE; default 0 (none). A contact uses the larger
     * of its two shapes' coefficients and the smaller of their radii. */
    float rolling_resistance;
    ts_filter filter;       /**< default: category 1, touches everything */
    /** A sensor: no contacts, no mass (a body's density ignores it), not
     * seen by queries; reports the shapes that begin and end overlapping it
     * (ts_world_get_sensor_events, tessera/sensor.h). Default false. */
    bool is_sensor;
    void *user_data;        /**< the program's own pointer (tessera does not read it) */
    int internal_value;     /**< set by ts_default_shape_def(); do not touch */
} ts_shape_def;

/* ---- contacts ---- */

/** Two shapes started touching: their manifold got points (speculative
 * points, closer than 2 cm, count). shape_a's index is below shape_b's. */
typedef struct ts_contact_begin_event {
    ts_shape_id shape_a; /**< the first shape */
    ts_shape_id shape_b; /**< the second shape */
} ts_contact_begin_event;

/** Two shapes stopped touching (also when one of them was destroyed; its id
 * is then stale). */
typedef struct ts_contact_end_event {
    ts_shape_id shape_a; /**< the first shape */
    ts_shape_id shape_b; /**< the second shape */
} ts_contact_end_event;

/** The events of the last step, sorted by shape pair (the two shapes'
 * slots, then their generations). The arrays belong to the world and stay
 * valid until the next step or until the world is destroyed. */
typedef struct ts_contact_events {
    const ts_contact_begin_event *begin; /**< begin_count events */
    int begin_count;                     /**< pairs that started touching */
    const ts_contact_end_event *end;     /**< end_count events */
    int end_count;                       /**< pairs that stopped touching */
} ts_contact_events;

/** One point of a contact manifold. */
typedef struct ts_contact_point {
    ts_vec3 point;        /**< world position, midway between the surfaces */
    float separation;     /**< metres; negative = penetration */
    uint32_t feature_id;  /**< which features touch; stable while they do */
    float normal_impulse; /**< accumulated by the solver in the last step, N s */
} ts_contact_point;

/** A touching contact (manifold) between two shapes. */
typedef struct ts_contact_data {
    ts_shape_id shape_a;        /**< the first shape */
    ts_shape_id shape_b;        /**< the second shape */
    ts_vec3 normal;             /**< world, from shape_a to shape_b */
    int point_count;            /**< 1..4 */
    ts_contact_point points[4]; /**< the first point_count are set */
} ts_contact_data;

/* ---- statistics ---- */

/** Graph colours of the contact solver (constraints of one colour share no
 * dynamic body and are solved in parallel). */
#define TS_COLOR_COUNT 24

/** What a world holds now (ts_world_get_counters()). */
typedef struct ts_world_counters {
    int body_count;                   /**< all bodies */
    int awake_body_count;             /**< bodies in the awake (moving) range */
    int static_body_count;            /**< static bodies */
    int shape_count;                  /**< all shapes */
    int step_count;                   /**< ts_world_step() calls made */
    int thread_count;                 /**< workers a step uses */
    int simd_width;                   /**< lanes of the solver kernels in use */
    int contact_count;                /**< shape pairs whose fat bounds overlap */
    int touching_count;               /**< contacts with manifold points */
    int point_count;                  /**< manifold points over all contacts */
    int color_counts[TS_COLOR_COUNT]; /**< touching contacts per graph colour */
    int overflow_count;               /**< touching contacts that fit no colour (solved serially) */
    int island_count;                 /**< islands (dynamic bodies linked by touching contacts and joints) */
    int awake_island_count;           /**< islands that are awake */
    int sleeping_contact_count;       /**< contacts of sleeping islands: no narrowphase reads them */
    int narrowphase_pairs;            /**< contacts the last step's narrowphase updated (the awake ones) */
} ts_world_counters;

/** Time spent in the stages of the last step, in milliseconds
 * (ts_world_get_profile()). With TS_SOLVER_XPBD: integrate_positions is
 * the prediction, solve the position pass, integrate_velocities the
 * derivation of velocities and relax the velocity pass. */
typedef struct ts_step_profile {
    double step;                 /**< the whole step */
    double update_pairs;         /**< broadphase: moved proxies query the trees for new pairs */
    double narrowphase;          /**< the new pairs' contacts, manifolds of every contact, events */
    double prepare;              /**< body states and contact constraints */
    double integrate_velocities; /**< over all substeps */
    double warm_start;           /**< applying the last step's impulses, over all substeps */
    double solve;                /**< the biased solve pass, over all substeps */
    double integrate_positions;  /**< over all substeps */
    double relax;                /**< the relax pass, over all substeps */
    double restitution;          /**< the restitution pass */
    double store_impulses;       /**< impulses kept for the next step's warm start */
    double finalize;             /**< write back poses, clear forces, shape bounds, broadphase moves */
    double sleep;                /**< islands put to sleep, island splits; the awake bodies re-ordered by place */
} ts_step_profile;

#ifdef __cplusplus
}
#endif

#endif
