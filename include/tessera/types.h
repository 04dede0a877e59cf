/* tessera: plain value types of the public API (vectors, ids, results, definitions).
 * Everything here is passed by value; no type hides a pointer the caller must free. */
#ifndef TESSERA_TYPES_H
#define TESSERA_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Export macro for the shared library build. */
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

/* ---- math values (y up, metres, kilograms, seconds) ---- */

typedef struct ts_vec3 {
    float x, y, z;
} ts_vec3;

/* Unit quaternion, scalar last: (x, y, z) = axis * sin(angle/2), w = cos(angle/2). */
typedef struct ts_quat {
    float x, y, z, w;
} ts_quat;

typedef struct ts_transform {
    ts_vec3 p;
    ts_quat q;
} ts_transform;

#define TS_QUAT_IDENTITY ((ts_quat){0.0f, 0.0f, 0.0f, 1.0f})

/* ---- results ---- */

/* Every call that can fail returns one of these; on failure ts_last_error()
 * (thread local) says which argument was wrong and why. */
typedef enum ts_result {
    TS_OK = 0,
    TS_ERROR_NULL_POINTER,     /* a required pointer (a def, an output) was NULL */
    TS_ERROR_UNINITIALIZED_DEF, /* a def that did not come from ts_default_*_def() */
    TS_ERROR_STALE_ID,         /* the object was destroyed, or the id was never valid */
    TS_ERROR_WRONG_WORLD,      /* the id belongs to another world */
    TS_ERROR_NOT_FINITE,       /* a NaN or infinite number */
    TS_ERROR_OUT_OF_RANGE,     /* a number outside its allowed range */
    TS_ERROR_INVALID_OPERATION, /* valid arguments, but not for this object (e.g. velocity of a static body) */
    TS_ERROR_UNSUPPORTED,      /* a feature this build does not have yet */
    TS_ERROR_OUT_OF_MEMORY,    /* the allocator returned NULL; nothing was changed */
    TS_ERROR_CAPACITY,         /* a fixed limit was reached (e.g. too many worlds) */
} ts_result;

/* ---- ids: index + generation; a zeroed id is the null id ---- */

/* A world. index1 is the slot + 1, so {0} is null. */
typedef struct ts_world_id {
    uint16_t index1;
    uint16_t generation;
} ts_world_id;

/* A body. It names its world (slot and generation), so an id of a destroyed or
 * other world is detected, and its own slot + 1 and generation. */
typedef struct ts_body_id {
    int32_t index1;
    uint16_t world0;
    uint16_t world_generation;
    uint32_t generation;
} ts_body_id;

/* A shape; same layout as a body id. */
typedef struct ts_shape_id {
    int32_t index1;
    uint16_t world0;
    uint16_t world_generation;
    uint32_t generation;
} ts_shape_id;

#define TS_NULL_WORLD_ID ((ts_world_id){0, 0})
#define TS_NULL_BODY_ID ((ts_body_id){0, 0, 0, 0})
#define TS_NULL_SHAPE_ID ((ts_shape_id){0, 0, 0, 0})

static inline bool ts_world_id_is_null(ts_world_id id) { return id.index1 == 0; }
static inline bool ts_body_id_is_null(ts_body_id id) { return id.index1 == 0; }
static inline bool ts_shape_id_is_null(ts_shape_id id) { return id.index1 == 0; }

static inline bool ts_body_id_equals(ts_body_id a, ts_body_id b)
{
    return a.index1 == b.index1 && a.world0 == b.world0 && a.world_generation == b.world_generation &&
           a.generation == b.generation;
}

/* ---- allocation ---- */

/* Every byte tessera allocates for a world goes through these. alignment is a
 * power of two <= 64; size is a multiple of alignment. free receives the size
 * that was allocated. Leave both NULL to use the C library. */
typedef void *ts_alloc_fn(size_t size, size_t alignment, void *context);
typedef void ts_free_fn(void *memory, size_t size, void *context);

typedef struct ts_allocator {
    ts_alloc_fn *alloc;
    ts_free_fn *free;
    void *context;
} ts_allocator;

/* ---- world ---- */

typedef enum ts_solver_type {
    TS_SOLVER_SOFT_STEP = 0, /* soft-step sequential impulses (default) */
    /* extended position based dynamics (Müller et al. 2020): contacts and
     * joints as position constraints (joints rigid, springs compliant),
     * friction, restitution, motors and spring damping in a velocity pass */
    TS_SOLVER_XPBD = 1,
} ts_solver_type;

/* ---- task callbacks: running a step on the program's own threads ----
 * A program with its own thread pool can give tessera two callbacks instead
 * of letting it use OpenMP. For a step on N workers (ts_world_def.threads),
 * tessera calls enqueue_task N - 1 times, each with item_count 1, then works
 * as worker 0 on the calling thread, then calls finish_task on each handle
 * that enqueue_task returned (NULL handles are skipped).
 * - enqueue_task must run task(0, item_count, worker, task_context) on
 *   another thread, soon, and return a handle for finish_task; `worker` is the
 *   pool's own thread index (tessera does not use it). It must not run the
 *   task on the calling thread before returning: the task waits for work
 *   that worker 0 publishes after enqueue_task has returned.
 * - finish_task must return once that task has returned.
 * - The pool may have fewer threads than tasks: the step stays correct (the
 *   calling thread does the work of tasks that have not started) but gains
 *   less. Results are bitwise the same for any number of workers. */
typedef void ts_task_fn(int32_t start, int32_t end, uint32_t worker, void *task_context);
typedef void *ts_enqueue_task_fn(ts_task_fn *task, int32_t item_count, int32_t min_range, void *task_context,
                                 void *user_context);
typedef void ts_finish_task_fn(void *user_task, void *user_context);

typedef struct ts_world_def {
    ts_vec3 gravity;       /* m/s^2; default (0, -10, 0) */
    int substeps;          /* substeps per ts_world_step, 1..64; default 4 */
    /* Workers of a step, counting the calling thread: 0 = every core; 1..256
     * otherwise. Without task callbacks they are OpenMP threads (a build
     * without OpenMP uses one). */
    int threads;
    ts_enqueue_task_fn *enqueue_task; /* both NULL (default: OpenMP) or both set */
    ts_finish_task_fn *finish_task;
    void *user_task_context; /* passed to enqueue_task and finish_task */
    /* Lanes of the solver's SIMD kernels: 1 (scalar), 4, 8 or 16; 0 picks the
     * widest the CPU runs, unless the environment variable TESSERA_SIMD
     * (scalar, 1, 4, 8 or 16) names one. Every width gives the same bits. */
    int simd_width;
    ts_solver_type solver; /* default TS_SOLVER_SOFT_STEP */
    /* Contacts are soft constraints (Box2D v3's soft step): a spring of this
     * stiffness and damping ratio pushes overlapping shapes apart, never
     * faster than contact_push_speed. 30 Hz is stiff enough for stacks at 60 Hz
     * with 4 substeps and far below the substep rate (the step caps it at a
     * quarter of it); a damping ratio of 10 makes it critically damped with
     * room to spare, so stacks do not bounce; 3 m/s recovers overlap in a few
     * steps without launching bodies. Contacts with a static or kinematic
     * body use twice the stiffness. */
    float contact_hertz;         /* > 0; default 30 */
    float contact_damping_ratio; /* >= 0; default 10 */
    float contact_push_speed;    /* > 0, m/s; default 3 */
    /* A contact between two dynamic bodies whose masses differ more than
     * this sees the lighter body as the heavier one's mass / this ratio.
     * The soft contact's spring is the lighter body's, so without it 1000 kg
     * on 1 kg boxes rests 8 cm deep; at 100:1 it rests 8 mm deep. The price:
     * in a contact between such bodies the heavier one's velocity changes by
     * up to 1 / ratio of the closing speed more than with exact masses (1%
     * at the default). 1..1e30; 1e30 keeps exact masses. Soft step only. */
    float contact_mass_ratio; /* default 100 */
    /* Points approaching slower than this do not bounce, whatever their
     * restitution: resting contacts stay at rest. */
    float restitution_threshold; /* >= 0, m/s; default 1 */
    bool enable_warm_starting;   /* default true: start each step from the last step's impulses */
    bool enable_sleep;           /* default true: islands at rest for 0.5 s sleep (bodies may opt out) */
    /* Joints are soft too: their position error is a spring of stiffness
     * m (2 pi joint_hertz)^2, m the joint's effective mass, capped at 3/8 of
     * the substep rate. m is that of the light side, so a heavy load on
     * light links stretches them by load / (m (2 pi f)^2): 90 Hz with a
     * damping ratio of 1 (90 Hz at 60 Hz with 4 substeps) holds a 100:1 ball
     * and chain to 2.9 cm where Box2D v3's 60 Hz and 2 give 4.9 cm, and a
     * hanging chain, limits and sliders tighter too (tests/test_joints.c).
     * Soft step only: XPBD's joints are rigid (their springs keep their own
     * settings). */
    float joint_hertz;         /* > 0; default 90 */
    float joint_damping_ratio; /* >= 0; default 1 */
    int body_capacity;     /* bodies to reserve room for up front (a hint, >= 0) */
    int shape_capacity;    /* shapes to reserve room for up front (a hint, >= 0) */
    ts_allocator allocator;
    void *user_data;
    int internal_value; /* set by ts_default_world_def(); do not touch */
} ts_world_def;

/* ---- bodies ---- */

typedef enum ts_body_type {
    TS_BODY_STATIC = 0,    /* never moves, infinite mass */
    TS_BODY_KINEMATIC = 1, /* moves by its velocity, infinite mass, no gravity */
    TS_BODY_DYNAMIC = 2,   /* moved by gravity, forces and contacts */
} ts_body_type;

typedef struct ts_body_def {
    ts_body_type type;         /* default TS_BODY_STATIC */
    ts_vec3 position;          /* world position of the body origin */
    ts_quat rotation;          /* world rotation; normalised if within 1% of unit length */
    ts_vec3 linear_velocity;   /* of the centre of mass, m/s */
    ts_vec3 angular_velocity;  /* world frame, rad/s */
    float linear_damping;      /* >= 0, 1/s; v *= 1 / (1 + h * damping) per substep */
    float angular_damping;     /* >= 0, 1/s */
    float gravity_scale;       /* finite; default 1 */
    bool enable_sleep;         /* may sleep when at rest; default true (islands sleep as a whole) */
    float sleep_threshold;     /* >= 0, m/s: sleep velocity |v| + |w| extent at rest; default 0.05 */
    void *user_data;
    int internal_value; /* set by ts_default_body_def(); do not touch */
} ts_body_def;

/* Mass properties of a body, computed from its shapes. The inertia is given
 * in its principal frame: principal_rotation turns the principal axes into the
 * body frame, and principal_inertia holds the moments about them. */
typedef struct ts_mass_data {
    float mass;                 /* kg */
    ts_vec3 center;             /* centre of mass in the body frame */
    ts_vec3 principal_inertia;  /* kg m^2 about the centre of mass */
    ts_quat principal_rotation; /* body frame <- principal frame */
} ts_mass_data;

/* ---- shapes ---- */

typedef enum ts_shape_type {
    TS_SHAPE_SPHERE = 0,
    TS_SHAPE_BOX = 1,
    TS_SHAPE_CAPSULE = 2,
    TS_SHAPE_TYPE_COUNT
} ts_shape_type;

typedef struct ts_sphere {
    float radius; /* > 0 */
} ts_sphere;

typedef struct ts_box {
    ts_vec3 half_extents; /* each > 0 */
} ts_box;

/* A capsule along its local y axis: a segment from (0, -half_height, 0) to
 * (0, half_height, 0) swept by a sphere of radius. */
typedef struct ts_capsule {
    float half_height; /* >= 0 (0 makes a sphere) */
    float radius;      /* > 0 */
} ts_capsule;

/* Collision filter: shapes A and B may touch when
 * (A.category_bits & B.mask_bits) != 0 and (B.category_bits & A.mask_bits) != 0. */
typedef struct ts_filter {
    uint64_t category_bits; /* default 1 */
    uint64_t mask_bits;     /* default all ones */
} ts_filter;

typedef struct ts_shape_def {
    ts_vec3 local_position; /* shape centre in the body frame */
    ts_quat local_rotation; /* shape rotation in the body frame */
    float density;          /* kg/m^3, > 0; default 1 */
    float friction;         /* >= 0; default 0.6 */
    float restitution;      /* 0..1; default 0 */
    ts_filter filter;
    void *user_data;
    int internal_value; /* set by ts_default_shape_def(); do not touch */
} ts_shape_def;

/* ---- contacts ---- */

/* Two shapes started touching: their manifold got points (speculative
 * points, closer than 2 cm, count). shape_a's index is below shape_b's. */
typedef struct ts_contact_begin_event {
    ts_shape_id shape_a;
    ts_shape_id shape_b;
} ts_contact_begin_event;

/* Two shapes stopped touching (also when one of them was destroyed; its id
 * is then stale). */
typedef struct ts_contact_end_event {
    ts_shape_id shape_a;
    ts_shape_id shape_b;
} ts_contact_end_event;

/* The events of the last step, sorted by shape pair. The arrays belong to
 * the world and stay valid until the next step or until the world is destroyed. */
typedef struct ts_contact_events {
    const ts_contact_begin_event *begin;
    int begin_count;
    const ts_contact_end_event *end;
    int end_count;
} ts_contact_events;

typedef struct ts_contact_point {
    ts_vec3 point;          /* world, midway between the surfaces */
    float separation;       /* negative = penetration, metres */
    uint32_t feature_id;    /* which features touch; stable while they do */
    float normal_impulse;   /* accumulated by the solver, N s */
} ts_contact_point;

/* A touching contact (manifold) between two shapes. */
typedef struct ts_contact_data {
    ts_shape_id shape_a;
    ts_shape_id shape_b;
    ts_vec3 normal; /* world, from shape_a to shape_b */
    int point_count;
    ts_contact_point points[4];
} ts_contact_data;

/* ---- statistics ---- */

/* Graph colours of the contact solver (constraints of one colour share no
 * dynamic body and are solved in parallel). */
#define TS_COLOR_COUNT 24

typedef struct ts_world_counters {
    int body_count;        /* all bodies */
    int awake_body_count;  /* bodies in the awake (moving) range */
    int static_body_count; /* static bodies */
    int shape_count;
    int step_count;     /* ts_world_step calls made */
    int thread_count;   /* threads a step uses */
    int simd_width;     /* lanes of the solver kernels in use */
    int contact_count;  /* shape pairs whose fat bounds overlap */
    int touching_count; /* contacts with manifold points */
    int point_count;    /* manifold points over all contacts */
    int color_counts[TS_COLOR_COUNT]; /* touching contacts per graph colour */
    int overflow_count;   /* touching contacts that fit no colour (solved serially) */
    int island_count;       /* islands (dynamic bodies linked by touching contacts) */
    int awake_island_count; /* islands that are awake */
    int sleeping_contact_count; /* contacts of sleeping islands: no narrowphase reads them */
    int narrowphase_pairs;  /* contacts the last step's narrowphase updated (the awake ones) */
} ts_world_counters;

/* Time spent in the stages of the last step, in milliseconds. */
typedef struct ts_step_profile {
    double step;
    double update_pairs;         /* broadphase: moved proxies query the trees for new pairs */
    double narrowphase;          /* the new pairs' contacts, manifolds of every contact, events */
    double prepare;              /* body states and contact constraints */
    double integrate_velocities; /* over all substeps */
    double warm_start;
    double solve;
    double integrate_positions;
    double relax;
    double restitution;
    double store_impulses;
    double finalize;             /* write back poses, clear forces, shape bounds, broadphase moves */
    double sleep;                /* islands put to sleep, island splits */
} ts_step_profile;

#ifdef __cplusplus
}
#endif

#endif
