// SPDX-License-Identifier: MIT
/* The solver-only entry (include/tessera/solver.h).
 *
 * The key check: a world steps a scene of every kind of contact and joint
 * (a 136-box pyramid, a thrown capsule, a bouncing sphere, a compound body
 * whose centre of mass is off its origin, a kinematic paddle pushing boxes,
 * a pushed box, a chain of ball joints ending in a motorised, limited hinge,
 * a sprung prismatic, a sprung and limited distance joint, a weld); before
 * each step its bodies are read out, after it the manifolds its narrowphase
 * made and its joints, and a solver context is given exactly those. The
 * context's bodies, point impulses, friction impulses and joint reactions
 * must equal the world's bit for bit, every step, with both solvers, at
 * every SIMD width and on 1 and 2 threads: the context runs the world's own
 * solver on the same data, so any difference is a bug in what it takes or
 * keeps (colours, warm starting, the ball joints' kept state).
 *
 * Then the entry on its own: a box resting on a hand-made manifold holds
 * its weight (physics), keys carry and forget the warm start, a body that
 * would overflow is held and named, running out of memory at any
 * allocation writes nothing (and a repeated call allocates nothing), and
 * every bad argument is refused with the index named and nothing written
 * or changed. */
#include "test_common.h"

#include "world_capture.h"

enum { MAX_BODIES = 256, MAX_MANIFOLDS = 1024, MAX_JOINTS = 16, STEPS = 45 };

typedef struct scene {
    ts_world_id world;
    ts_body_id pushed; /* a box pushed by a force every step */
} scene;

static ts_body_id ball(ts_world_id world, ts_vec3 p, float radius, float restitution)
{
    ts_body_def def = ts_default_body_def();
    def.type = TS_BODY_DYNAMIC;
    def.position = p;
    ts_body_id body = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    shape.restitution = restitution;
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(body, &shape, &(ts_sphere){radius})));
    return body;
}

static void build_scene(scene *s, ts_solver_type solver, int width, int threads)
{
    ts_world_def def = ts_default_world_def();
    def.enable_sleep = false;
    def.solver = solver;
    def.simd_width = width;
    def.threads = threads;
    s->world = ts_create_world(&def);
    ts_world_id w = s->world;
    ts_body_id ground = test_box(w, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){40, 1, 40}, 1);
    const int base = 16; /* 136 boxes: above the one-thread threshold */
    for (int r = 0; r < base; ++r) {
        for (int j = r; j < base; ++j) {
            ts_vec3 p = {(float)(r + 1) * 0.5f + (float)(j - r) - (float)base * 0.5f, (float)(2 * r + 1) * 0.5f, 0};
            test_box(w, TS_BODY_DYNAMIC, p, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 10);
        }
    }
    /* a capsule thrown into the pyramid's side, a bouncing sphere */
    ts_body_def capsule_def = ts_default_body_def();
    capsule_def.type = TS_BODY_DYNAMIC;
    capsule_def.position = (ts_vec3){-10.0f, 1.5f, 0.0f};
    capsule_def.rotation = (ts_quat){0.0f, 0.0f, 0.3826834f, 0.9238795f};
    capsule_def.linear_velocity = (ts_vec3){9.0f, 1.0f, 0.0f};
    capsule_def.angular_velocity = (ts_vec3){0.0f, 2.0f, 1.0f};
    ts_body_id capsule = ts_create_body(w, &capsule_def);
    ts_shape_def shape = ts_default_shape_def();
    assert_false(ts_shape_id_is_null(ts_create_capsule_shape(capsule, &shape, &(ts_capsule){0.4f, 0.3f})));
    ball(w, (ts_vec3){12.0f, 1.2f, 3.0f}, 0.4f, 0.6f);
    /* a compound: two boxes off the origin, turned, so the centre of mass and
     * the principal axes are not the origin frame's */
    ts_body_def compound_def = ts_default_body_def();
    compound_def.type = TS_BODY_DYNAMIC;
    compound_def.position = (ts_vec3){4.0f, 0.9f, 4.0f};
    ts_body_id compound = ts_create_body(w, &compound_def);
    ts_shape_def part = ts_default_shape_def();
    part.local_position = (ts_vec3){0.5f, 0.2f, 0.1f};
    part.local_rotation = (ts_quat){0.0f, 0.2588190f, 0.0f, 0.9659258f};
    assert_false(ts_shape_id_is_null(ts_create_box_shape(compound, &part, &(ts_box){{0.6f, 0.2f, 0.3f}})));
    part.local_position = (ts_vec3){-0.3f, 0.1f, -0.2f};
    part.density = 3.0f;
    assert_false(ts_shape_id_is_null(ts_create_box_shape(compound, &part, &(ts_box){{0.2f, 0.3f, 0.2f}})));
    /* a kinematic paddle sweeping two boxes */
    ts_body_def paddle_def = ts_default_body_def();
    paddle_def.type = TS_BODY_KINEMATIC;
    paddle_def.position = (ts_vec3){-6.0f, 0.4f, 6.0f};
    paddle_def.linear_velocity = (ts_vec3){3.0f, 0.0f, 0.0f};
    paddle_def.angular_velocity = (ts_vec3){0.0f, 0.5f, 0.0f};
    ts_body_id paddle = ts_create_body(w, &paddle_def);
    assert_false(ts_shape_id_is_null(ts_create_box_shape(paddle, &shape, &(ts_box){{0.2f, 0.4f, 1.5f}})));
    test_box(w, TS_BODY_DYNAMIC, (ts_vec3){-4.5f, 0.5f, 6.0f}, TS_QUAT_IDENTITY, (ts_vec3){0.4f, 0.4f, 0.4f}, 1);
    s->pushed = test_box(w, TS_BODY_DYNAMIC, (ts_vec3){-3.0f, 0.5f, 6.3f}, TS_QUAT_IDENTITY,
                         (ts_vec3){0.4f, 0.4f, 0.4f}, 1);

    /* joints: a chain of ball joints from a static anchor, ending in a hinge
     * with motor and limit; a prismatic with spring and limit; a distance
     * joint with spring and limit; a weld that falls to the ground */
    ts_body_id anchor = test_box(w, TS_BODY_STATIC, (ts_vec3){12, 8, -4}, TS_QUAT_IDENTITY, (ts_vec3){0.2f, 0.2f, 0.2f}, 1);
    ts_body_id previous = anchor;
    for (int i = 0; i < 4; ++i) {
        /* cubes: the ball bundles of isotropic lanes keep their pose across steps */
        ts_body_id link = test_box(w, TS_BODY_DYNAMIC, (ts_vec3){12.0f + 0.8f * (float)(i + 1), 8, -4}, TS_QUAT_IDENTITY,
                                   (ts_vec3){0.15f, 0.15f, 0.15f}, 2);
        ts_ball_joint_def bd = ts_default_ball_joint_def();
        bd.base.body_a = previous;
        bd.base.body_b = link;
        bd.base.local_frame_a.p = (ts_vec3){i == 0 ? 0.0f : 0.4f, 0, 0};
        bd.base.local_frame_b.p = (ts_vec3){-0.4f, 0, 0};
        assert_false(ts_joint_id_is_null(ts_create_ball_joint(w, &bd)));
        previous = link;
    }
    ts_body_id flap = test_box(w, TS_BODY_DYNAMIC, (ts_vec3){16.4f, 8, -4}, TS_QUAT_IDENTITY, (ts_vec3){0.3f, 0.3f, 0.05f}, 2);
    ts_hinge_joint_def hd = ts_default_hinge_joint_def();
    hd.base.body_a = previous;
    hd.base.body_b = flap;
    hd.base.local_frame_a.p = (ts_vec3){0.4f, 0, 0};
    hd.base.local_frame_b.p = (ts_vec3){-0.4f, 0, 0};
    hd.enable_limit = true;
    hd.lower_angle = -0.5f;
    hd.upper_angle = 0.8f;
    hd.enable_motor = true;
    hd.motor_speed = 2.0f;
    hd.max_motor_torque = 5.0f;
    assert_false(ts_joint_id_is_null(ts_create_hinge_joint(w, &hd)));
    ts_body_id rail = test_box(w, TS_BODY_STATIC, (ts_vec3){-12, 6, -4}, TS_QUAT_IDENTITY, (ts_vec3){0.2f, 0.2f, 0.2f}, 1);
    ts_body_id slider = test_box(w, TS_BODY_DYNAMIC, (ts_vec3){-12, 4, -4}, TS_QUAT_IDENTITY, (ts_vec3){0.3f, 0.3f, 0.3f}, 1);
    ts_prismatic_joint_def pd = ts_default_prismatic_joint_def();
    pd.base.body_a = rail;
    pd.base.body_b = slider;
    pd.base.local_frame_a.q = (ts_quat){0, 0, 0.7071068f, 0.7071068f}; /* slide along y */
    pd.base.local_frame_b.p = (ts_vec3){0, 2, 0};
    pd.base.local_frame_b.q = pd.base.local_frame_a.q;
    pd.enable_spring = true;
    pd.spring_hertz = 2.0f;
    pd.spring_damping_ratio = 0.3f;
    pd.enable_limit = true;
    pd.lower_translation = -3.0f;
    pd.upper_translation = 1.0f;
    assert_false(ts_joint_id_is_null(ts_create_prismatic_joint(w, &pd)));
    ts_body_id bob = ball(w, (ts_vec3){-8, 6, -6}, 0.3f, 0.0f);
    ts_distance_joint_def dd = ts_default_distance_joint_def();
    dd.base.body_a = ground;
    dd.base.body_b = bob;
    dd.base.local_frame_a.p = (ts_vec3){-8, 9, -6};
    dd.length = 2.0f;
    dd.enable_spring = true;
    dd.spring_hertz = 3.0f;
    dd.spring_damping_ratio = 0.1f;
    dd.enable_limit = true;
    dd.min_length = 1.5f;
    dd.max_length = 3.5f;
    assert_false(ts_joint_id_is_null(ts_create_distance_joint(w, &dd)));
    ts_body_id weld_a = test_box(w, TS_BODY_DYNAMIC, (ts_vec3){8, 2, -6}, TS_QUAT_IDENTITY, (ts_vec3){0.3f, 0.3f, 0.3f}, 1);
    ts_body_id weld_b = test_box(w, TS_BODY_DYNAMIC, (ts_vec3){8.7f, 2.2f, -6}, TS_QUAT_IDENTITY, (ts_vec3){0.3f, 0.2f, 0.2f}, 1);
    ts_fixed_joint_def fd = ts_default_fixed_joint_def();
    fd.base.body_a = weld_a;
    fd.base.body_b = weld_b;
    fd.base.local_frame_a.p = (ts_vec3){0.35f, 0.1f, 0};
    fd.base.local_frame_b.p = (ts_vec3){-0.35f, -0.1f, 0};
    assert_false(ts_joint_id_is_null(ts_create_fixed_joint(w, &fd)));
}

/* The context's result against the world's store after the step. */
static void compare(ts_world_id world, int step, const ts_solver_body *bodies, int body_count,
                    const ts_solver_manifold *manifolds, const int32_t *ids, int manifold_count,
                    const ts_solver_joint *joints, int joint_count)
{
    const ts_records *r = &capture_world(world)->records;
    const ts_body_store *s = &r->store;
    for (int k = 0; k < body_count; ++k) {
        int32_t i = s->table.slot_of_id[k];
        const ts_solver_body *b = bodies + k;
        ts_vec3 p = {s->px[i], s->py[i], s->pz[i]}, v = {s->vx[i], s->vy[i], s->vz[i]}, w = {s->wx[i], s->wy[i], s->wz[i]};
        ts_quat q = {s->qx[i], s->qy[i], s->qz[i], s->qw[i]};
        if (memcmp(&p, &b->center, sizeof p) != 0 || memcmp(&q, &b->rotation, sizeof q) != 0 ||
            memcmp(&v, &b->linear_velocity, sizeof v) != 0 || memcmp(&w, &b->angular_velocity, sizeof w) != 0) {
            fail_msg("step %d: body %d differs: world p (%.9g %.9g %.9g) v (%.9g %.9g %.9g), context p (%.9g %.9g "
                     "%.9g) v (%.9g %.9g %.9g)",
                     step, k, (double)p.x, (double)p.y, (double)p.z, (double)v.x, (double)v.y, (double)v.z,
                     (double)b->center.x, (double)b->center.y, (double)b->center.z, (double)b->linear_velocity.x,
                     (double)b->linear_velocity.y, (double)b->linear_velocity.z);
        }
    }
    const ts_contact_store *cs = &r->contact_store;
    for (int k = 0; k < manifold_count; ++k) {
        const ts_solver_manifold *m = manifolds + k;
        int32_t i = cs->table.slot_of_id[ids[k]];
        for (int p = 0; p < m->point_count; ++p) {
            if (memcmp(&m->points[p].normal_impulse, &cs->normal_impulse[4 * i + p], sizeof(float)) != 0) {
                fail_msg("step %d: manifold %d point %d: impulse %.9g, the world's %.9g", step, k, p,
                         (double)m->points[p].normal_impulse, (double)cs->normal_impulse[4 * i + p]);
            }
        }
        if (m->point_count > 0 &&
            (memcmp(&m->tangent_impulse[0], &cs->friction_impulse1[i], sizeof(float)) != 0 ||
             memcmp(&m->tangent_impulse[1], &cs->friction_impulse2[i], sizeof(float)) != 0 ||
             memcmp(&m->twist_impulse, &cs->twist_impulse[i], sizeof(float)) != 0)) {
            fail_msg("step %d: manifold %d: friction impulses differ", step, k);
        }
    }
    for (int k = 0; k < joint_count; ++k) {
        ts_joint_id id = ts_joint_id_of(r, (int32_t)joints[k].key);
        ts_vec3 force, torque;
        assert_ok(ts_joint_get_reaction_force(id, &force));
        assert_ok(ts_joint_get_reaction_torque(id, &torque));
        if (memcmp(&force, &joints[k].reaction_force, sizeof force) != 0 ||
            memcmp(&torque, &joints[k].reaction_torque, sizeof torque) != 0) {
            fail_msg("step %d: joint %d: reaction (%.9g %.9g %.9g), the world's (%.9g %.9g %.9g)", step, k,
                     (double)joints[k].reaction_force.x, (double)joints[k].reaction_force.y,
                     (double)joints[k].reaction_force.z, (double)force.x, (double)force.y, (double)force.z);
        }
    }
}

typedef struct arrays {
    ts_solver_body bodies[MAX_BODIES];
    ts_solver_manifold manifolds[MAX_MANIFOLDS];
    int32_t ids[MAX_MANIFOLDS];
    int32_t order[MAX_MANIFOLDS];
    ts_solver_joint joints[MAX_JOINTS];
} arrays;

static void check_matches_world(ts_solver_type solver, int width, int threads)
{
    scene s;
    build_scene(&s, solver, width, threads);
    ts_world_def def = ts_default_world_def();
    def.solver = solver;
    def.simd_width = width;
    def.threads = threads;
    ts_solver_context_id context = ts_create_solver_context(&def);
    assert_false(ts_solver_context_id_is_null(context));
    static arrays a;
    int touching_max = 0, began = 0;
    for (int step = 1; step <= STEPS; ++step) {
        assert_ok(ts_body_apply_force(s.pushed, (ts_vec3){6.0f, 0.0f, -1.0f}, (ts_vec3){-3.0f, 0.7f, 6.3f}));
        int body_count = capture_bodies(s.world, a.bodies);
        assert_true(body_count <= MAX_BODIES);
        int order_count = capture_order(s.world, a.order);
        assert_ok(ts_world_step(s.world, 1.0f / 60.0f));
        int manifold_count = capture_manifolds(s.world, a.order, order_count, a.manifolds, a.ids);
        assert_true(manifold_count <= MAX_MANIFOLDS);
        int joint_count = capture_joints(s.world, a.joints);
        ts_solver_input input = {1.0f / 60.0f, a.bodies, body_count, a.manifolds, manifold_count, a.joints,
                                 joint_count};
        assert_ok(ts_solve_contacts(context, &input));
        compare(s.world, step, a.bodies, body_count, a.manifolds, a.ids, manifold_count, a.joints, joint_count);
        began += manifold_count - order_count > 0 ? 1 : 0;
        touching_max = manifold_count > touching_max ? manifold_count : touching_max;
    }
    /* the scene did what it is for: many contacts, joints, two workers */
    assert_true(touching_max > 200);
    assert_true(began > 0);
    ts_world_counters counters;
    assert_ok(ts_world_get_counters(s.world, &counters));
    assert_int_equal(counters.simd_width, width);
    ts_destroy_solver_context(context);
    ts_destroy_world(s.world);
}

static void check_all_widths(ts_solver_type solver)
{
    const int widths[] = {1, 4, 8, 16};
    for (int w = 0; w < 4; ++w) {
        ts_world_def probe = ts_default_world_def();
        probe.simd_width = widths[w];
        ts_world_id world = ts_create_world(&probe);
        if (ts_world_id_is_null(world)) {
            continue; /* a width this build does not have */
        }
        ts_destroy_world(world);
        for (int threads = 1; threads <= 2; ++threads) {
            check_matches_world(solver, widths[w], threads);
        }
    }
}

static void test_soft_step_matches_world(void **state)
{
    (void)state;
    check_all_widths(TS_SOLVER_SOFT_STEP);
}

static void test_xpbd_matches_world(void **state)
{
    (void)state;
    check_all_widths(TS_SOLVER_XPBD);
}

/* ---- the entry on its own ---- */

/* A 1 m box (10 kg) on a static ground, its four bottom corners as the
 * manifold's points (feature ids 0..3), the separations from its pose. */
static void resting_box(ts_solver_body bodies[2], ts_solver_manifold *m, uint64_t key)
{
    bodies[0] = ts_default_solver_body();
    bodies[0].type = TS_BODY_STATIC;
    bodies[0].mass = 0.0f;
    bodies[1] = ts_default_solver_body();
    bodies[1].center = (ts_vec3){0.0f, 0.5f, 0.0f};
    bodies[1].mass = 10.0f;
    bodies[1].inertia = (ts_vec3){10.0f / 6.0f, 10.0f / 6.0f, 10.0f / 6.0f};
    *m = ts_default_solver_manifold();
    m->key = key;
    m->body_a = 0;
    m->body_b = 1;
    m->normal = (ts_vec3){0, 1, 0};
    m->anchor_shift = (ts_vec3){-bodies[1].center.x, -bodies[1].center.y, -bodies[1].center.z}; /* ground centre 0 */
    m->point_count = 4;
    for (int p = 0; p < 4; ++p) {
        ts_vec3 corner = {p & 1 ? 0.5f : -0.5f, 0.0f, p & 2 ? 0.5f : -0.5f};
        m->points[p].anchor = corner; /* relative to the ground's centre, the origin */
        m->points[p].separation = bodies[1].center.y - 0.5f;
        m->points[p].feature_id = (uint32_t)p;
    }
}

/* Refreshes the manifold from the box's pose: the corners' heights. */
static void update_box_manifold(const ts_solver_body bodies[2], ts_solver_manifold *m)
{
    m->anchor_shift = (ts_vec3){-bodies[1].center.x, -bodies[1].center.y, -bodies[1].center.z};
    for (int p = 0; p < 4; ++p) {
        m->points[p].separation = bodies[1].center.y - 0.5f;
    }
}

/* A box at rest on the ground stays there: after 60 calls of 1/60 s it has
 * not moved more than 1 mm (the soft contact's resting depth at 30 Hz is
 * ~0.3 mm for this load) nor kept a speed above 1 mm/s, and with warm
 * starting its four points carry its weight: their impulses (each the last
 * substep's) add up to m g h, h = dt / 4 substeps, within 1%. */
static void test_box_rests_on_manifold(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    ts_solver_context_id context = ts_create_solver_context(&def);
    ts_solver_body bodies[2];
    ts_solver_manifold m;
    resting_box(bodies, &m, 42);
    for (int call = 0; call < 60; ++call) {
        update_box_manifold(bodies, &m);
        ts_solver_input input = {1.0f / 60.0f, bodies, 2, &m, 1, NULL, 0};
        assert_ok(ts_solve_contacts(context, &input));
    }
    assert_near(bodies[1].center.y, 0.5, 1e-3);
    assert_near(bodies[1].linear_velocity.y, 0.0, 1e-3);
    float total = 0.0f;
    for (int p = 0; p < 4; ++p) {
        total += m.points[p].normal_impulse;
    }
    assert_near(total, 10.0 * 10.0 / 240.0, 0.01 * 10.0 * 10.0 / 240.0);
    ts_destroy_solver_context(context);
}

/* Keys carry the warm start and a missing key forgets it: after a call
 * without the manifold, the next call equals a fresh context's first call
 * bit for bit; while the key stays, the call differs from a cold one. */
static void test_keys_carry_and_forget_warm_start(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    ts_solver_context_id warm = ts_create_solver_context(&def), cold = ts_create_solver_context(&def);
    ts_solver_body bodies[2], cold_bodies[2];
    ts_solver_manifold m, cold_m;
    resting_box(bodies, &m, 7);
    for (int call = 0; call < 10; ++call) {
        ts_solver_input input = {1.0f / 60.0f, bodies, 2, &m, 1, NULL, 0};
        update_box_manifold(bodies, &m);
        assert_ok(ts_solve_contacts(warm, &input));
    }
    /* still warm: the same call on a cold context gives other impulses */
    memcpy(cold_bodies, bodies, sizeof bodies);
    cold_m = m;
    ts_solver_input warm_input = {1.0f / 60.0f, bodies, 2, &m, 1, NULL, 0};
    ts_solver_input cold_input = {1.0f / 60.0f, cold_bodies, 2, &cold_m, 1, NULL, 0};
    assert_ok(ts_solve_contacts(warm, &warm_input));
    assert_ok(ts_solve_contacts(cold, &cold_input));
    assert_true(memcmp(&m.points, &cold_m.points, sizeof m.points) != 0);
    /* a call without the manifold forgets it */
    ts_solver_input empty = {1.0f / 60.0f, bodies, 2, NULL, 0, NULL, 0};
    assert_ok(ts_solve_contacts(warm, &empty));
    ts_solver_context_id fresh = ts_create_solver_context(&def);
    memcpy(cold_bodies, bodies, sizeof bodies);
    update_box_manifold(bodies, &m);
    cold_m = m;
    cold_input.bodies = cold_bodies;
    assert_ok(ts_solve_contacts(warm, &warm_input));
    assert_ok(ts_solve_contacts(fresh, &cold_input));
    assert_memory_equal(bodies, cold_bodies, sizeof bodies);
    assert_memory_equal(&m, &cold_m, sizeof m);
    ts_destroy_solver_context(warm);
    ts_destroy_solver_context(cold);
    ts_destroy_solver_context(fresh);
}

/* A body that would overflow is held and named; the others are written. */
static void test_overflowing_body_is_held(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    ts_solver_context_id context = ts_create_solver_context(&def);
    ts_solver_body bodies[3];
    for (int k = 0; k < 3; ++k) {
        bodies[k] = ts_default_solver_body();
        bodies[k].center = (ts_vec3){(float)k * 3.0f, 5.0f, 0.0f};
    }
    bodies[1].force = (ts_vec3){0.0f, 3.0e38f, 0.0f};
    bodies[1].mass = 1.0e-30f;
    ts_solver_input input = {1.0f / 60.0f, bodies, 3, NULL, 0, NULL, 0};
    assert_int_equal(ts_solve_contacts(context, &input), TS_ERROR_NOT_FINITE);
    assert_non_null(strstr(ts_last_error(), "bodies[1]"));
    assert_true(isfinite(bodies[1].center.y) && isfinite(bodies[1].linear_velocity.y));
    assert_true(bodies[0].linear_velocity.y < 0.0f); /* fell */
    assert_true(bodies[2].linear_velocity.y < 0.0f);
    ts_destroy_solver_context(context);
}

/* A column of `n` unit cubes (1 kg) on a static ground (body 0), each
 * resting on the one below: manifold k holds the four corners between body
 * k and body k + 1 (anchors from body k's centre); joints: a ball joint
 * and a hinge between the top two cubes. */
static void column(ts_solver_body *bodies, ts_solver_manifold *m, ts_solver_joint *j, int n)
{
    bodies[0] = ts_default_solver_body();
    bodies[0].type = TS_BODY_STATIC;
    for (int k = 1; k <= n; ++k) {
        bodies[k] = ts_default_solver_body();
        bodies[k].center = (ts_vec3){0.0f, (float)k - 0.5f, 0.0f};
        bodies[k].inertia = (ts_vec3){1.0f / 6.0f, 1.0f / 6.0f, 1.0f / 6.0f};
    }
    bodies[0].center = (ts_vec3){0.0f, -0.5f, 0.0f}; /* the ground's "centre", half a metre down */
    for (int k = 0; k < n; ++k) {
        m[k] = ts_default_solver_manifold();
        m[k].key = (uint64_t)k;
        m[k].body_a = k;
        m[k].body_b = k + 1;
        m[k].anchor_shift = (ts_vec3){0.0f, -1.0f, 0.0f};
        m[k].point_count = 4;
        for (int p = 0; p < 4; ++p) {
            m[k].points[p].anchor = (ts_vec3){p & 1 ? 0.5f : -0.5f, 0.5f, p & 2 ? 0.5f : -0.5f};
            m[k].points[p].feature_id = (uint32_t)p;
        }
    }
    j[0] = ts_default_solver_joint();
    j[0].body_a = n - 1;
    j[0].body_b = n;
    j[0].local_frame_a.p = (ts_vec3){0.5f, 0.5f, 0.0f};
    j[0].local_frame_b.p = (ts_vec3){0.5f, -0.5f, 0.0f};
    j[1] = j[0];
    j[1].key = 1;
    j[1].type = TS_JOINT_HINGE;
}

/* Out of memory, at every allocation a call makes: the call returns
 * TS_ERROR_OUT_OF_MEMORY and writes nothing into the arrays, and the
 * context works on (the same call with room succeeds). Once a call of a
 * size has run, the next of that size allocates nothing (a step's hot path
 * after warm-up). */
static void test_out_of_memory(void **state)
{
    (void)state;
    counting_allocator counter = {0, 0, 0, -1};
    ts_world_def def = ts_default_world_def();
    def.allocator = (ts_allocator){counting_alloc, counting_free, &counter};
    ts_solver_context_id context = ts_create_solver_context(&def);
    assert_false(ts_solver_context_id_is_null(context));
    enum { N = 12 };
    ts_solver_body bodies[N + 1], saved_bodies[N + 1];
    ts_solver_manifold m[N], saved_m[N];
    ts_solver_joint j[2], saved_j[2];
    column(bodies, m, j, 2);
    ts_solver_input small = {1.0f / 60.0f, bodies, 3, m, 2, j, 1};
    assert_ok(ts_solve_contacts(context, &small)); /* some room made already */
    column(bodies, m, j, N);
    ts_solver_input big = {1.0f / 60.0f, bodies, N + 1, m, N, j, 2};
    int attempts = 0;
    for (;; ++attempts) {
        assert_true(attempts < 500);
        memcpy(saved_bodies, bodies, sizeof bodies);
        memcpy(saved_m, m, sizeof m);
        memcpy(saved_j, j, sizeof j);
        counter.fail_after = counter.allocations + attempts % 4; /* the next few allocations fail in turn */
        ts_result r = ts_solve_contacts(context, &big);
        counter.fail_after = -1;
        if (r == TS_OK) {
            break;
        }
        assert_int_equal(r, TS_ERROR_OUT_OF_MEMORY);
        assert_memory_equal(bodies, saved_bodies, sizeof bodies);
        assert_memory_equal(m, saved_m, sizeof m);
        assert_memory_equal(j, saved_j, sizeof j);
    }
    assert_true(attempts > 0); /* the big call did need room */
    long before = counter.allocations;
    for (int call = 0; call < 3; ++call) {
        counter.fail_after = before;
        ts_result r = ts_solve_contacts(context, &big);
        if (r != TS_OK) fail_msg("call %d: %s", call, ts_last_error());
    }
    assert_int_equal(counter.allocations, before);
    ts_destroy_solver_context(context);
    assert_int_equal(counter.bytes_live, 0); /* everything given back */
}

/* ---- bad input ---- */

static void expect_refused(ts_solver_context_id context, ts_solver_input *input, ts_result code, const char *needle)
{
    ts_result got = ts_solve_contacts(context, input);
    if (got != code) {
        fail_msg("returned %s, expected %s (%s)", ts_result_name(got), ts_result_name(code), ts_last_error());
    }
    if (strstr(ts_last_error(), needle) == NULL) {
        fail_msg("message \"%s\" does not name \"%s\"", ts_last_error(), needle);
    }
}

/* Every bad argument is refused with its code and the array, index and
 * field named; the arrays are not written and the context not changed: a
 * good call after all of them gives the bits of a context that never saw
 * them. */
static void test_bad_input_is_refused(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    ts_solver_context_id context = ts_create_solver_context(&def), clean = ts_create_solver_context(&def);
    ts_solver_body good_bodies[3];
    ts_solver_manifold good_m[2];
    ts_solver_joint good_j[1];
    resting_box(good_bodies, &good_m[0], 1);
    good_bodies[2] = ts_default_solver_body();
    good_bodies[2].center = (ts_vec3){0.0f, 1.3f, 0.0f};
    good_m[1] = good_m[0];
    good_m[1].key = 2;
    good_m[1].body_a = 1;
    good_m[1].body_b = 2;
    good_m[1].point_count = 1;
    good_m[1].points[0].anchor = (ts_vec3){0.0f, 0.5f, 0.0f};
    good_m[1].points[0].separation = 0.3f;
    good_m[1].anchor_shift = (ts_vec3){0.0f, -0.8f, 0.0f};
    good_j[0] = ts_default_solver_joint();
    good_j[0].body_a = 1;
    good_j[0].body_b = 2;
    good_j[0].type = TS_JOINT_DISTANCE;
    good_j[0].length = 0.8f;

    ts_solver_body bodies[3];
    ts_solver_manifold m[2];
    ts_solver_joint j[1];
#define RESET()                                                                                                \
    do {                                                                                                       \
        memcpy(bodies, good_bodies, sizeof bodies);                                                            \
        memcpy(m, good_m, sizeof m);                                                                           \
        memcpy(j, good_j, sizeof j);                                                                           \
    } while (0)
#define UNCHANGED()                                                                                            \
    do {                                                                                                       \
        assert_memory_equal(m, good_m, sizeof m);                                                              \
        assert_memory_equal(j, good_j, sizeof j);                                                              \
    } while (0)
    ts_solver_input input = {1.0f / 60.0f, bodies, 3, m, 2, j, 1};
    RESET();

    expect_refused(TS_NULL_SOLVER_CONTEXT_ID, &input, TS_ERROR_STALE_ID, "null");
    ts_solver_context_id gone = ts_create_solver_context(&def);
    ts_destroy_solver_context(gone);
    expect_refused(gone, &input, TS_ERROR_STALE_ID, "stale");
    assert_int_equal(ts_destroy_solver_context(gone), TS_ERROR_STALE_ID);
    expect_refused(context, NULL, TS_ERROR_NULL_POINTER, "input");

    const float bad[3] = {NAN, INFINITY, -INFINITY};
    for (int b = 0; b < 3; ++b) {
        input.dt = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "dt");
        input.dt = 1.0f / 60.0f;
        RESET();
        bodies[1].center.y = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "bodies[1].center");
        RESET();
        bodies[2].rotation.x = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "bodies[2].rotation");
        RESET();
        bodies[1].linear_velocity.z = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "bodies[1].linear_velocity");
        RESET();
        bodies[1].angular_velocity.x = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "bodies[1].angular_velocity");
        RESET();
        bodies[2].mass = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "bodies[2].mass");
        RESET();
        bodies[2].inertia.y = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "bodies[2].inertia");
        RESET();
        bodies[2].force.x = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "bodies[2].force");
        RESET();
        bodies[2].torque.x = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "bodies[2].torque");
        RESET();
        bodies[2].gravity_scale = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "bodies[2].gravity_scale");
        RESET();
        bodies[1].local_center.z = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "bodies[1].local_center");
        RESET();
        m[1].normal.y = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "manifolds[1].normal");
        RESET();
        m[1].anchor_shift.x = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "manifolds[1].anchor_shift");
        RESET();
        m[0].points[3].separation = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "manifolds[0].points[3]");
        RESET();
        m[0].points[2].anchor.x = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "manifolds[0].points[2]");
        RESET();
        m[1].friction = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "manifolds[1].friction");
        RESET();
        j[0].local_frame_b.p.x = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "joints[0].local_frame_b.p");
        RESET();
        j[0].spring_hertz = bad[b];
        expect_refused(context, &input, TS_ERROR_NOT_FINITE, "joints[0].spring_hertz");
        RESET();
        UNCHANGED();
    }
    input.dt = 0.0f;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "dt");
    input.dt = 1.0f / 60.0f;
    input.body_count = -1;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "body_count");
    input.body_count = 3;
    input.manifolds = NULL;
    expect_refused(context, &input, TS_ERROR_NULL_POINTER, "manifolds");
    input.manifolds = m;
    input.joint_count = -2;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "joint_count");
    input.joint_count = 1;
    input.bodies = NULL;
    expect_refused(context, &input, TS_ERROR_NULL_POINTER, "bodies");
    input.bodies = bodies;

    bodies[1].type = (ts_body_type)7;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "bodies[1].type");
    RESET();
    bodies[2].rotation = (ts_quat){0.0f, 0.0f, 0.0f, 1.05f};
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "bodies[2].rotation");
    RESET();
    bodies[0].linear_velocity.x = 1.0f;
    expect_refused(context, &input, TS_ERROR_INVALID_OPERATION, "bodies[0]");
    RESET();
    bodies[1].mass = 0.0f;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "bodies[1].mass");
    RESET();
    bodies[1].inertia.z = -1.0f;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "bodies[1].inertia");
    RESET();
    bodies[1].linear_damping = -0.1f;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "bodies[1].linear_damping");
    RESET();
    bodies[2].local_rotation = (ts_quat){0, 0, 0, 0};
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "bodies[2].local_rotation");
    RESET();
    m[1].body_b = 3;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "manifolds[1]");
    RESET();
    m[1].body_a = -1;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "manifolds[1]");
    RESET();
    m[1].body_a = 2;
    expect_refused(context, &input, TS_ERROR_INVALID_OPERATION, "manifolds[1]");
    RESET();
    bodies[2].type = TS_BODY_KINEMATIC;
    bodies[1].type = TS_BODY_KINEMATIC;
    expect_refused(context, &input, TS_ERROR_INVALID_OPERATION, "manifolds[0]");
    RESET();
    m[0].point_count = 5;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "manifolds[0].point_count");
    RESET();
    m[0].normal = (ts_vec3){0.0f, 0.5f, 0.0f};
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "manifolds[0].normal");
    RESET();
    m[1].restitution = 1.5f;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "manifolds[1].restitution");
    RESET();
    m[1].friction = -0.5f;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "manifolds[1].friction");
    RESET();
    m[1].key = m[0].key;
    expect_refused(context, &input, TS_ERROR_INVALID_OPERATION, "manifolds[1].key");
    RESET();
    j[0].type = TS_JOINT_TYPE_COUNT;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "joints[0].type");
    RESET();
    j[0].body_b = 1;
    expect_refused(context, &input, TS_ERROR_INVALID_OPERATION, "joints[0]");
    RESET();
    j[0].body_a = 9;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "joints[0]");
    RESET();
    j[0].local_frame_a.q = (ts_quat){0.5f, 0.0f, 0.0f, 0.5f};
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "joints[0].local_frame_a.q");
    RESET();
    j[0].length = -1.0f;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "joints[0].length");
    RESET();
    j[0].lower = 2.0f;
    j[0].upper = 1.0f;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "joints[0].upper");
    RESET();
    j[0].type = TS_JOINT_HINGE;
    j[0].lower = -4.0f;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "joints[0].lower");
    RESET();
    j[0].max_motor_force = -1.0f;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "joints[0].max_motor_force");
    RESET();
    j[0].spring_damping_ratio = -1.0f;
    expect_refused(context, &input, TS_ERROR_OUT_OF_RANGE, "joints[0].spring_damping_ratio");
    RESET();
    UNCHANGED();
    assert_memory_equal(bodies, good_bodies, sizeof bodies);
    assert_ok(ts_solver_context_get_profile(context, &(ts_step_profile){0}));
    assert_int_equal(ts_solver_context_get_profile(context, NULL), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_solver_context_get_profile(gone, &(ts_step_profile){0}), TS_ERROR_STALE_ID);

    /* nothing stuck: the next good call equals a clean context's */
    ts_solver_body clean_bodies[3];
    ts_solver_manifold clean_m[2];
    ts_solver_joint clean_j[1];
    memcpy(clean_bodies, good_bodies, sizeof clean_bodies);
    memcpy(clean_m, good_m, sizeof clean_m);
    memcpy(clean_j, good_j, sizeof clean_j);
    ts_solver_input clean_input = {1.0f / 60.0f, clean_bodies, 3, clean_m, 2, clean_j, 1};
    assert_ok(ts_solve_contacts(context, &input));
    assert_ok(ts_solve_contacts(clean, &clean_input));
    assert_memory_equal(bodies, clean_bodies, sizeof bodies);
    assert_memory_equal(m, clean_m, sizeof m);
    assert_memory_equal(j, clean_j, sizeof j);

    /* a bad def makes no context */
    ts_world_def bad_def = ts_default_world_def();
    bad_def.substeps = 0;
    assert_true(ts_solver_context_id_is_null(ts_create_solver_context(&bad_def)));
    assert_non_null(strstr(ts_last_error(), "substeps"));
    assert_true(ts_solver_context_id_is_null(ts_create_solver_context(NULL)));
    assert_false(ts_solver_context_is_valid(gone));
    assert_true(ts_solver_context_is_valid(context));
    ts_destroy_solver_context(context);
    ts_destroy_solver_context(clean);
#undef RESET
#undef UNCHANGED
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_soft_step_matches_world),
        cmocka_unit_test(test_xpbd_matches_world),
        cmocka_unit_test(test_box_rests_on_manifold),
        cmocka_unit_test(test_keys_carry_and_forget_warm_start),
        cmocka_unit_test(test_overflowing_body_is_held),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_bad_input_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
