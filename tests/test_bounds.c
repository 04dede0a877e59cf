/* The bounds update after each step (collide/broadphase_bounds.c): every shape's
 * fat box holds the shape, the tree holds the fat boxes, and the store's
 * bounds columns (the fast paths of bodies whose only shape is a centred
 * sphere, or a centred box in the simulation frame's axes) follow every
 * change of a body's shapes, pose and type. */
#include "test_common.h"

#include "api/world.h"
#include "base/aabb.h"
#include "collide/broadphase.h"

static ts_shape_id add_sphere(ts_body_id body, ts_vec3 at, float radius)
{
    ts_shape_def def = ts_default_shape_def();
    def.local_position = at;
    ts_sphere sphere = {radius};
    ts_shape_id id = ts_create_sphere_shape(body, &def, &sphere);
    assert_false(ts_shape_id_is_null(id));
    return id;
}

static ts_shape_id add_box(ts_body_id body, ts_vec3 at, ts_vec3 half)
{
    ts_shape_def def = ts_default_shape_def();
    def.local_position = at;
    ts_box box = {half};
    ts_shape_id id = ts_create_box_shape(body, &def, &box);
    assert_false(ts_shape_id_is_null(id));
    return id;
}

static ts_shape_id add_capsule(ts_body_id body, ts_vec3 at, float radius, float half_height)
{
    ts_shape_def def = ts_default_shape_def();
    def.local_position = at;
    ts_capsule capsule = {radius, half_height};
    ts_shape_id id = ts_create_capsule_shape(body, &def, &capsule);
    assert_false(ts_shape_id_is_null(id));
    return id;
}

static bool same_box(ts_aabb a, ts_aabb b) { return memcmp(&a, &b, sizeof(ts_aabb)) == 0; }

/* Awake bodies on the box path at the last check_bounds. */
static int on_box_path;

/* After a step (or an edit): for every shape, the tight box at the body's
 * pose lies in its fat box (exactly: both come from the same float
 * operations), its tree leaf holds that fat box bit for bit, and a body
 * on the sphere path is one centred sphere (on the box path one centred box
 * in the simulation frame's axes) whose fat box the columns repeat.
 * Returns how many awake bodies were on the sphere path (on_box_path: on
 * the box path). */
static int check_bounds(ts_world_id id)
{
    ts_world *world = ts_world_lookup(id, "test");
    const ts_body_store *s = &world->records.store;
    assert_true(ts_tree_validate(&world->collision.broadphase.trees[TS_TREE_MOVABLE]));
    assert_true(ts_tree_validate(&world->collision.broadphase.trees[TS_TREE_STATIC]));
    int on_sphere_path = 0;
    on_box_path = 0;
    for (int32_t b = 0; b < world->records.body_ids.next_index; ++b) {
        const ts_body *body = world->records.bodies + b;
        if (!body->alive) {
            continue;
        }
        for (int32_t sh = body->first_shape; sh != -1; sh = world->records.shapes[sh].next) {
            const ts_shape *shape = world->records.shapes + sh;
            assert_true(shape->proxy >= 0);
            assert_true(ts_aabb_contains(shape->fat_aabb, ts_shape_compute_aabb(&world->records, sh)));
            const ts_dynamic_tree *tree = &world->collision.broadphase.trees[shape->tree];
            assert_true(same_box(shape->fat_aabb, ts_tree_get_fat_aabb(tree, shape->proxy)));
        }
        int32_t i = s->table.slot_of_id[b];
        if (s->box_hx[i] > 0.0f) {
            const ts_shape *shape = world->records.shapes + body->first_shape;
            assert_int_equal(shape->next, -1);
            assert_int_equal(shape->type, TS_SHAPE_BOX);
            assert_true(shape->sim_local.p.x == 0.0f && shape->sim_local.p.y == 0.0f && shape->sim_local.p.z == 0.0f);
            ts_quat q = shape->sim_local.q;
            assert_true(q.x == 0.0f && q.y == 0.0f && q.z == 0.0f && q.w == 1.0f);
            ts_vec3 h = shape->geometry.box.half_extents;
            assert_true(s->box_hx[i] == h.x && s->box_hy[i] == h.y && s->box_hz[i] == h.z);
            assert_true(s->sphere_radius[i] == 0.0f);
            ts_aabb columns = {{s->fat_lx[i], s->fat_ly[i], s->fat_lz[i]}, {s->fat_ux[i], s->fat_uy[i], s->fat_uz[i]}};
            assert_true(same_box(columns, shape->fat_aabb));
            on_box_path += i < s->table.end[TS_RANGE_AWAKE];
        }
        if (s->sphere_radius[i] > 0.0f) {
            const ts_shape *shape = world->records.shapes + body->first_shape;
            assert_int_equal(shape->next, -1);
            assert_int_equal(shape->type, TS_SHAPE_SPHERE);
            assert_true(shape->sim_local.p.x == 0.0f && shape->sim_local.p.y == 0.0f && shape->sim_local.p.z == 0.0f);
            assert_true(s->sphere_radius[i] == shape->geometry.sphere.radius);
            ts_aabb columns = {{s->fat_lx[i], s->fat_ly[i], s->fat_lz[i]}, {s->fat_ux[i], s->fat_uy[i], s->fat_uz[i]}};
            assert_true(same_box(columns, shape->fat_aabb));
            on_sphere_path += i < s->table.end[TS_RANGE_AWAKE];
        } else if (body->first_shape != -1 && world->records.shapes[body->first_shape].next == -1 &&
                   world->records.shapes[body->first_shape].type == TS_SHAPE_SPHERE) {
            /* one sphere off the sphere path: not exactly at the centre of
             * mass (its offset's rounding through the mass update) */
            ts_vec3 p = world->records.shapes[body->first_shape].sim_local.p;
            assert_false(p.x == 0.0f && p.y == 0.0f && p.z == 0.0f);
        }
    }
    return on_sphere_path;
}

/* Spinning, drifting bodies of every kind (no gravity, no contacts between
 * them: far apart), some fast enough to leave their fat bounds every few
 * steps; between steps the shapes and poses are edited so that bodies go on
 * and off the sphere path. After each step and edit every fat box holds
 * its shape and the columns match (check_bounds). */
static void test_fat_bounds_hold_shapes_through_edits(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    assert_ok(ts_world_set_gravity(world, (ts_vec3){0, 0, 0}));
    enum { COUNT = 6 };
    ts_body_id bodies[COUNT];
    for (int k = 0; k < COUNT; ++k) {
        bodies[k] = test_dynamic_body(world, (ts_vec3){10.0f * (float)k, 0, 0});
        float speed = k % 2 == 0 ? 0.5f : 20.0f; /* slow: rarely leaves its fat box; fast: every few steps */
        assert_ok(ts_body_set_linear_velocity(bodies[k], (ts_vec3){0.1f * speed, speed, -0.3f * speed}));
        assert_ok(ts_body_set_angular_velocity(bodies[k], (ts_vec3){1.0f + (float)k, -2.0f, 0.5f}));
    }
    add_sphere(bodies[0], (ts_vec3){0, 0, 0}, 0.4f);          /* sphere path */
    add_sphere(bodies[1], (ts_vec3){0.3f, -0.2f, 0.1f}, 0.5f); /* one sphere off the origin: still centred */
    add_box(bodies[2], (ts_vec3){0, 0, 0}, (ts_vec3){0.5f, 0.2f, 0.3f});
    add_capsule(bodies[3], (ts_vec3){0.2f, 0, 0}, 0.3f, 0.6f);
    add_sphere(bodies[4], (ts_vec3){0.5f, 0, 0}, 0.3f);
    ts_shape_id box4 = add_box(bodies[4], (ts_vec3){-0.5f, 0, 0}, (ts_vec3){0.2f, 0.2f, 0.2f});
    ts_shape_id extra = TS_NULL_SHAPE_ID;
    add_sphere(bodies[5], (ts_vec3){0, 0, 0}, 0.25f);
    assert_int_equal(check_bounds(world), 3);

    for (int step = 0; step < 80; ++step) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
        int spheres = check_bounds(world);
        switch (step) {
        case 10: /* a box joins the sphere: off the path */
            extra = add_box(bodies[0], (ts_vec3){0.6f, 0, 0}, (ts_vec3){0.1f, 0.1f, 0.1f});
            assert_int_equal(check_bounds(world), spheres - 1);
            break;
        case 20: /* and leaves again; body 4 loses its box: its sphere is alone, off its old centre */
            assert_ok(ts_destroy_shape(extra));
            assert_int_equal(check_bounds(world), spheres + 1);
            break;
        case 25:
            assert_ok(ts_destroy_shape(box4));
            assert_int_equal(check_bounds(world), spheres + 1);
            break;
        case 30: /* a teleport */
            assert_ok(ts_body_set_transform(bodies[5], (ts_vec3){-40, 5, 5}, (ts_quat){0, 0, 0, 1}));
            check_bounds(world);
            break;
        case 40: /* kinematic and back */
            assert_ok(ts_body_set_type(bodies[1], TS_BODY_KINEMATIC));
            check_bounds(world);
            break;
        case 50:
            assert_ok(ts_body_set_type(bodies[1], TS_BODY_DYNAMIC));
            check_bounds(world);
            break;
        case 60: /* static: in the static tree, outside the awake range */
            assert_ok(ts_body_set_type(bodies[0], TS_BODY_STATIC));
            check_bounds(world);
            break;
        case 70:
            assert_ok(ts_body_set_type(bodies[0], TS_BODY_DYNAMIC));
            assert_ok(ts_body_set_linear_velocity(bodies[0], (ts_vec3){0, -30, 0}));
            check_bounds(world);
            break;
        default: break;
        }
    }
    assert_int_equal(check_bounds(world), 4); /* bodies 0, 1, 4 and 5 */
    assert_ok(ts_destroy_world(world));
}

/* A sphere on the fast path still finds its pairs: dropped onto a box
 * ground from 5 m, it comes to rest on it (centre 0.5 m above the ground's
 * top, within 0.02 m: the soft contact's resting penetration) after 3 s. */
static void test_sphere_path_finds_pairs(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_def ground_def = ts_default_body_def();
    ground_def.position = (ts_vec3){0, -1, 0};
    ts_body_id ground = ts_create_body(world, &ground_def);
    add_box(ground, (ts_vec3){0, 0, 0}, (ts_vec3){20, 1, 20});
    ts_body_id ball = test_dynamic_body(world, (ts_vec3){0, 5, 0});
    add_sphere(ball, (ts_vec3){0, 0, 0}, 0.5f);
    assert_int_equal(check_bounds(world), 1);
    for (int step = 0; step < 180; ++step) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
        check_bounds(world);
    }
    ts_vec3 p;
    assert_ok(ts_body_get_position(ball, &p));
    assert_near(p.y, 0.5, 0.02);
    assert_ok(ts_destroy_world(world));
}

/* The fast paths (four slots at a time where they can, one at a time at
 * the ends) give every fat box bit for bit as the rule written out here,
 * the scalar rule of shape_bounds and the list path: the tight box swept by
 * m = dt v stays if the old fat box holds it, else becomes the tight box
 * swept by 4 m grown by the margin. The tight box of a sphere is written
 * out (c +- r); a box's is ts_shape_compute_aabb (c +- |R| h with R of the
 * body's rotation times the shape's). 37 bodies in a row (runs of four and
 * a tail), every fifth one of the other kind (breaks the runs), velocities
 * from slow to fast, boxes of unequal sides spinning, no gravity, no
 * collisions (filtered), 60 steps. */
static ts_aabb swept_box(ts_aabb box, ts_vec3 m)
{
    ts_aabb moved = {ts_add(box.lower, m), ts_add(box.upper, m)};
    return ts_aabb_union(box, moved);
}

static ts_aabb tight_box(const ts_world *world, int32_t body)
{
    int32_t first = world->records.bodies[body].first_shape;
    const ts_shape *shape = world->records.shapes + first;
    if (shape->type != TS_SHAPE_SPHERE) {
        return ts_shape_compute_aabb(&world->records, first);
    }
    const ts_body_store *s = &world->records.store;
    int32_t i = s->table.slot_of_id[body];
    float r = shape->geometry.sphere.radius;
    ts_vec3 c = {s->px[i], s->py[i], s->pz[i]};
    return (ts_aabb){ts_sub(c, ts_v3(r, r, r)), ts_add(c, ts_v3(r, r, r))};
}

static void check_fast_path_rule(ts_shape_type kind)
{
    ts_world_id id = test_world(4, 1);
    assert_ok(ts_world_set_gravity(id, (ts_vec3){0, 0, 0}));
    enum { COUNT = 37 };
    ts_body_id bodies[COUNT];
    uint32_t seed = 12345u;
    for (int k = 0; k < COUNT; ++k) {
        bodies[k] = test_dynamic_body(id, (ts_vec3){3.0f * (float)k, 0, 0});
        ts_shape_def def = ts_default_shape_def();
        def.filter.category_bits = 2;
        def.filter.mask_bits = ~(uint64_t)2;
        bool sphere = (k % 5 == 4) != (kind == TS_SHAPE_SPHERE);
        if (sphere) {
            ts_sphere shape = {0.2f + 0.01f * (float)k};
            assert_false(ts_shape_id_is_null(ts_create_sphere_shape(bodies[k], &def, &shape)));
        } else {
            ts_box shape = {{0.2f + 0.02f * (float)k, 0.3f, 0.5f - 0.01f * (float)k}};
            assert_false(ts_shape_id_is_null(ts_create_box_shape(bodies[k], &def, &shape)));
        }
        float v[3];
        for (int a = 0; a < 3; ++a) {
            seed = seed * 1664525u + 1013904223u;
            v[a] = ((float)(seed >> 8) / 16777216.0f - 0.5f) * (k % 3 == 0 ? 40.0f : 2.0f);
        }
        assert_ok(ts_body_set_linear_velocity(bodies[k], (ts_vec3){v[0], v[1], v[2]}));
        assert_ok(ts_body_set_angular_velocity(bodies[k], (ts_vec3){0.5f * v[1], 3.0f, -0.2f * v[0]}));
    }
    ts_world *world = ts_world_lookup(id, "test");
    ts_aabb before[COUNT];
    int moved = 0;
    for (int step = 0; step <= 60; ++step) {
        int spheres = check_bounds(id);
        assert_int_equal(kind == TS_SHAPE_SPHERE ? spheres : on_box_path, COUNT - COUNT / 5);
        if (step == 60) {
            break;
        }
        for (int k = 0; k < COUNT; ++k) {
            before[k] = world->records.shapes[world->records.bodies[k].first_shape].fat_aabb;
        }
        assert_ok(ts_world_step(id, 1.0f / 60.0f));
        if (step == 0) {
            /* the first step also sweeps the shapes placed by hand before
             * its pair search (ts_broadphase_sweep_moved): the rule below
             * holds from the second step on */
            continue;
        }
        const ts_body_store *s = &world->records.store;
        for (int k = 0; k < COUNT; ++k) {
            const ts_shape *shape = world->records.shapes + world->records.bodies[k].first_shape;
            if (shape->type != kind) {
                continue;
            }
            int32_t i = s->table.slot_of_id[k];
            ts_aabb box = tight_box(world, k);
            ts_vec3 m = ts_scale(world->step_dt, ts_v3(s->vx[i], s->vy[i], s->vz[i]));
            ts_aabb expected = before[k];
            if (!ts_aabb_contains(expected, swept_box(box, m))) {
                expected = ts_aabb_enlarge(swept_box(box, ts_scale(4.0f, m)), TS_AABB_MARGIN);
                moved += 1;
            }
            assert_memory_equal(&expected, &shape->fat_aabb, sizeof(ts_aabb));
        }
    }
    assert_true(moved > 60); /* the fast ones left their fat boxes often */
    assert_ok(ts_destroy_world(id));
}

static void test_sphere_path_matches_the_rule(void **state)
{
    (void)state;
    check_fast_path_rule(TS_SHAPE_SPHERE);
}

static void test_box_path_matches_the_rule(void **state)
{
    (void)state;
    check_fast_path_rule(TS_SHAPE_BOX);
}

/* A sphere (radius 0.05) that rested for a step is given 500 m/s toward a
 * wall 5 m away between two steps: it reaches the wall within the next
 * step (8.3 m a step), so that step's pair search must already see the
 * wall. The velocity setter sweeps the body's fat bounds by the new
 * velocity over a step (ts_body_sweep_proxies); without it the sphere's
 * bounds were its resting ones and it went through. */
static void test_velocity_set_between_steps_sweeps_bounds(void **state)
{
    (void)state;
    ts_world_id id = test_world(4, 1);
    assert_ok(ts_world_set_gravity(id, (ts_vec3){0, 0, 0}));
    ts_body_def wall_def = ts_default_body_def();
    ts_body_id wall = ts_create_body(id, &wall_def);
    ts_shape_def shape = ts_default_shape_def();
    ts_box slab = {{0.05f, 2.0f, 2.0f}};
    assert_false(ts_shape_id_is_null(ts_create_box_shape(wall, &shape, &slab)));
    ts_body_id ball = test_dynamic_body(id, (ts_vec3){-5.0f, 0, 0});
    ts_sphere sphere = {0.05f};
    shape.density = 1000.0f;
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(ball, &shape, &sphere)));
    assert_ok(ts_world_step(id, 1.0f / 60.0f));
    assert_ok(ts_world_set_speed_limits(id, 1000.0f, TS_DEFAULT_MAX_ROTATION)); /* 500 m/s is beyond the default 400 */
    assert_ok(ts_body_set_linear_velocity(ball, (ts_vec3){500.0f, 0, 0}));
    for (int step = 0; step < 10; ++step) {
        assert_ok(ts_world_step(id, 1.0f / 60.0f));
        ts_vec3 p;
        assert_ok(ts_body_get_position(ball, &p));
        assert_true(p.x < -0.05f); /* never past the wall's near face */
    }
    assert_ok(ts_destroy_world(id));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fat_bounds_hold_shapes_through_edits),
        cmocka_unit_test(test_sphere_path_finds_pairs),
        cmocka_unit_test(test_sphere_path_matches_the_rule),
        cmocka_unit_test(test_box_path_matches_the_rule),
        cmocka_unit_test(test_velocity_set_between_steps_sweeps_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
