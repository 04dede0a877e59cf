/* Contacts in the world: pairs found by the broadphase match a brute-force
 * check, manifold points keep their feature ids (and impulses) from step to
 * step, and begin / end events come in a fixed, sorted order. No solver yet:
 * these scenes use zero gravity or let bodies pass through each other. */
#include "test_common.h"

#include "api/world.h"
#include "base/aabb.h"
#include "collide/broadphase.h"

static ts_body_id ground(ts_world_id world)
{
    ts_body_def def = ts_default_body_def();
    def.position = (ts_vec3){0, -1, 0};
    ts_body_id body = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    ts_box box = {{20, 1, 20}};
    assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &shape, &box)));
    return body;
}

static ts_body_id box_at(ts_world_id world, ts_vec3 p, ts_vec3 half)
{
    ts_body_id body = test_dynamic_body(world, p);
    ts_shape_def shape = ts_default_shape_def();
    ts_box box = {half};
    assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &shape, &box)));
    return body;
}

/* A unit box resting face down on the ground (zero gravity, so it stays):
 * 4 points at zero separation (within 1e-5 m: float rounding of the box
 * transform), and the same 4 feature ids for 100 steps. */
static void test_resting_box_keeps_feature_ids(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    assert_ok(ts_world_set_gravity(world, (ts_vec3){0, 0, 0}));
    ground(world);
    ts_body_id box = box_at(world, (ts_vec3){0, 0.5f, 0}, (ts_vec3){0.5f, 0.5f, 0.5f});
    ts_contact_data first;
    int count = 0;
    for (int step = 0; step < 100; ++step) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
        ts_contact_data c;
        assert_ok(ts_body_get_contacts(box, &c, 1, &count));
        assert_int_equal(count, 1);
        assert_int_equal(c.point_count, 4);
        for (int k = 0; k < 4; ++k) {
            assert_near(c.points[k].separation, 0.0, 1e-5);
        }
        if (step == 0) {
            first = c;
            /* Normal from the ground (shape a, created first) up to the box. */
            assert_near(c.normal.y, 1.0, 1e-6);
        }
        for (int k = 0; k < 4; ++k) {
            assert_int_equal(c.points[k].feature_id, first.points[k].feature_id);
        }
    }
    assert_ok(ts_destroy_world(world));
}

/* A box sliding at 1 m/s on a frictionless ground keeps its face on the
 * ground: the same 4 feature ids for 2 s, and the impulses the solver stores
 * are carried from step to step by id: their sum stays the weight impulse of
 * a substep, m g h = 1 kg 10 m/s^2 / 240 s, within 1% (the solver converges
 * from the warm start; without the carry each step would start from zero). */
static void test_sliding_box_carries_impulses_by_id(void **state)
{
    (void)state;
    ts_world_id id = test_world(4, 1);
    ts_body_id floor_body = ground(id);
    ts_shape_id floor_shape;
    int n;
    assert_ok(ts_body_get_shapes(floor_body, &floor_shape, 1, &n));
    assert_ok(ts_shape_set_friction(floor_shape, 0.0f));
    ts_body_id box = box_at(id, (ts_vec3){0, 0.5f, 0}, (ts_vec3){0.5f, 0.5f, 0.5f});
    ts_shape_id box_shape;
    assert_ok(ts_body_get_shapes(box, &box_shape, 1, &n));
    assert_ok(ts_shape_set_friction(box_shape, 0.0f));
    assert_ok(ts_body_set_linear_velocity(box, (ts_vec3){1, 0, 0}));
    for (int step = 0; step < 30; ++step) {
        assert_ok(ts_world_step(id, 1.0f / 60.0f));
    }
    ts_contact_data first;
    assert_ok(ts_body_get_contacts(box, &first, 1, &n));
    assert_int_equal(first.point_count, 4);
    for (int step = 0; step < 120; ++step) {
        assert_ok(ts_world_step(id, 1.0f / 60.0f));
        ts_contact_data c;
        assert_ok(ts_body_get_contacts(box, &c, 1, &n));
        assert_int_equal(c.point_count, 4);
        float total = 0.0f;
        for (int k = 0; k < 4; ++k) {
            assert_int_equal(c.points[k].feature_id, first.points[k].feature_id);
            total += c.points[k].normal_impulse;
        }
        assert_near(total, 10.0 / 240.0, 0.01 * 10.0 / 240.0);
    }
    ts_vec3 v;
    assert_ok(ts_body_get_linear_velocity(box, &v));
    assert_near(v.x, 1.0, 1e-3); /* no friction: it keeps sliding */
    assert_ok(ts_destroy_world(id));
}

static float uniform(uint32_t *s, float lo, float hi)
{
    return lo + (hi - lo) * (float)(next_random(s) & 0xffffff) / (float)0x1000000;
}

/* 600 shapes (boxes, spheres, capsules; a fifth static) at random poses
 * in a 12 m cube, zero gravity. After one step the contacts must be exactly
 * the pairs a brute-force O(n^2) check finds: fat bounds overlap, different
 * bodies, not both static. Then the shapes move for 30 steps and it must
 * still hold (contacts appear and disappear as bounds grow and part). */
static void test_pairs_match_brute_force(void **state)
{
    (void)state;
    ts_world_id id = test_world(4, 1);
    assert_ok(ts_world_set_gravity(id, (ts_vec3){0, 0, 0}));
    uint32_t seed = 7;
    const int n = 600;
    for (int i = 0; i < n; ++i) {
        ts_body_def def = ts_default_body_def();
        def.type = i % 5 == 0 ? TS_BODY_STATIC : TS_BODY_DYNAMIC;
        def.position = (ts_vec3){uniform(&seed, -6, 6), uniform(&seed, -6, 6), uniform(&seed, -6, 6)};
        ts_vec3 axis = ts_v3(uniform(&seed, -1, 1), uniform(&seed, -1, 1), uniform(&seed, 0.1f, 1));
        float len = sqrtf(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
        float angle = uniform(&seed, 0, 3.0f);
        def.rotation = (ts_quat){sinf(angle / 2) * axis.x / len, sinf(angle / 2) * axis.y / len,
                                 sinf(angle / 2) * axis.z / len, cosf(angle / 2)};
        if (def.type == TS_BODY_DYNAMIC) {
            def.linear_velocity = (ts_vec3){uniform(&seed, -2, 2), uniform(&seed, -2, 2), uniform(&seed, -2, 2)};
            def.angular_velocity = (ts_vec3){uniform(&seed, -2, 2), uniform(&seed, -2, 2), uniform(&seed, -2, 2)};
        }
        ts_body_id body = ts_create_body(id, &def);
        ts_shape_def shape = ts_default_shape_def();
        switch (i % 3) {
        case 0: {
            ts_box box = {{uniform(&seed, 0.1f, 0.6f), uniform(&seed, 0.1f, 0.6f), uniform(&seed, 0.1f, 0.6f)}};
            assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &shape, &box)));
            break;
        }
        case 1: {
            ts_sphere sphere = {uniform(&seed, 0.1f, 0.6f)};
            assert_false(ts_shape_id_is_null(ts_create_sphere_shape(body, &shape, &sphere)));
            break;
        }
        default: {
            ts_capsule capsule = {uniform(&seed, 0.0f, 0.5f), uniform(&seed, 0.1f, 0.4f)};
            assert_false(ts_shape_id_is_null(ts_create_capsule_shape(body, &shape, &capsule)));
            break;
        }
        }
    }
    ts_world *world = ts_world_lookup(id, "test");
    for (int round = 0; round < 31; ++round) {
        assert_ok(ts_world_step(id, 1.0f / 60.0f));
        /* Contacts are made at the start of a step from the bounds at the end
         * of the last one; compare after one more pair update so both sides
         * see the same bounds. */
        assert_ok(ts_broadphase_update_pairs(&world->records, &world->collision, &world->parallel));
        int expected = 0;
        for (int a = 0; a < n; ++a) {
            for (int b = a + 1; b < n; ++b) {
                const ts_shape *sa = world->records.shapes + a, *sb = world->records.shapes + b;
                bool dynamic = world->records.bodies[sa->body].type == TS_BODY_DYNAMIC ||
                               world->records.bodies[sb->body].type == TS_BODY_DYNAMIC;
                bool overlap = ts_aabb_overlaps(sa->fat_aabb, sb->fat_aabb);
                bool has_contact = ts_key_map_find(&world->collision.pairs, ts_pair_key(a, b)) >= 0;
                /* Parted pairs are destroyed by the next narrowphase; only
                 * require that every overlapping pair has its contact. */
                if (dynamic && overlap) {
                    ++expected;
                    if (!has_contact) {
                        fail_msg("round %d: shapes %d and %d overlap but have no contact", round, a, b);
                    }
                }
                if (!dynamic && has_contact) {
                    fail_msg("round %d: static shapes %d and %d have a contact", round, a, b);
                }
            }
        }
        int live = 0;
        for (int32_t i = 0; i < world->records.contact_store.table.count; ++i) {
            const ts_shape *sa = world->records.shapes + world->records.contact_store.shape_a[i];
            const ts_shape *sb = world->records.shapes + world->records.contact_store.shape_b[i];
            live += ts_aabb_overlaps(sa->fat_aabb, sb->fat_aabb);
        }
        assert_int_equal(live, expected);
        if (round == 0) {
            print_message("%d overlapping pairs of %d shapes\n", expected, n);
            assert_true(expected > 100); /* the scene does test something */
        }
    }
    assert_true(ts_tree_validate(&world->collision.broadphase.trees[TS_TREE_MOVABLE]));
    assert_ok(ts_destroy_world(id));
}

/* Three spheres dropped from different heights land on the ground one after
 * another: each begin event comes once, in the step the touch is seen, and
 * the events of a step are sorted by shape pair. Then the spheres are lifted
 * away by hand: each pair reports one end event. */
static void test_begin_and_end_events(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id floor_body = ground(world);
    ts_shape_id floor_shape;
    int n;
    assert_ok(ts_body_get_shapes(floor_body, &floor_shape, 1, &n));
    ts_shape_id spheres[3];
    ts_body_id bodies[3];
    for (int i = 0; i < 3; ++i) {
        bodies[i] = test_dynamic_body(world, (ts_vec3){3.0f * (float)i, 1.0f + 0.5f * (float)i, 0});
        ts_shape_def def = ts_default_shape_def();
        ts_sphere sphere = {0.5f};
        spheres[i] = ts_create_sphere_shape(bodies[i], &def, &sphere);
    }
    int begins[3] = {-1, -1, -1}, ends[3] = {-1, -1, -1};
    for (int step = 0; step < 122; ++step) {
        if (step == 120) {
            for (int i = 0; i < 3; ++i) {
                assert_ok(ts_body_set_position(bodies[i], (ts_vec3){3.0f * (float)i, 10.0f, 0}));
            }
        }
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
        ts_contact_events events;
        assert_ok(ts_world_get_contact_events(world, &events));
        for (int k = 0; k < events.begin_count; ++k) {
            assert_int_equal(events.begin[k].shape_a.index1, floor_shape.index1);
            if (k > 0) {
                assert_true(events.begin[k - 1].shape_b.index1 < events.begin[k].shape_b.index1);
            }
            for (int i = 0; i < 3; ++i) {
                if (events.begin[k].shape_b.index1 == spheres[i].index1) {
                    assert_int_equal(begins[i], -1);
                    begins[i] = step;
                }
            }
        }
        for (int k = 0; k < events.end_count; ++k) {
            if (k > 0) {
                assert_true(events.end[k - 1].shape_b.index1 < events.end[k].shape_b.index1);
            }
            for (int i = 0; i < 3; ++i) {
                if (events.end[k].shape_b.index1 == spheres[i].index1) {
                    assert_int_equal(ends[i], -1);
                    ends[i] = step;
                }
            }
        }
    }
    for (int i = 0; i < 3; ++i) {
        assert_true(begins[i] >= 0 && begins[i] < 120);
        assert_int_equal(ends[i], 120);
        if (i > 0) {
            assert_true(begins[i] > begins[i - 1]); /* higher spheres reach the ground later */
        }
    }
    assert_ok(ts_destroy_world(world));
}

/* Destroying a body that touches another reports an end event for the pair
 * after the next step, with the (now stale) shape id. */
static void test_destroy_reports_end(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    assert_ok(ts_world_set_gravity(world, (ts_vec3){0, 0, 0}));
    ground(world);
    ts_body_id box = box_at(world, (ts_vec3){0, 0.5f, 0}, (ts_vec3){0.5f, 0.5f, 0.5f});
    assert_ok(ts_world_step(world, 1.0f / 60.0f));
    ts_contact_events events;
    assert_ok(ts_world_get_contact_events(world, &events));
    assert_int_equal(events.begin_count, 1);
    ts_shape_id shape = events.begin[0].shape_b;
    assert_ok(ts_destroy_body(box));
    assert_ok(ts_world_step(world, 1.0f / 60.0f));
    assert_ok(ts_world_get_contact_events(world, &events));
    assert_int_equal(events.begin_count, 0);
    assert_int_equal(events.end_count, 1);
    assert_true(events.end[0].shape_b.index1 == shape.index1);
    assert_false(ts_shape_is_valid(events.end[0].shape_b));
    ts_world_counters counters;
    assert_ok(ts_world_get_counters(world, &counters));
    assert_int_equal(counters.contact_count, 0);
    assert_ok(ts_destroy_world(world));
}

/* A filter that excludes the ground ends the contact: the pair is dropped at
 * once and not found again. Filtering on category and mask bits. */
static void test_filter_drops_pair(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    assert_ok(ts_world_set_gravity(world, (ts_vec3){0, 0, 0}));
    ground(world);
    ts_body_id box = box_at(world, (ts_vec3){0, 0.5f, 0}, (ts_vec3){0.5f, 0.5f, 0.5f});
    assert_ok(ts_world_step(world, 1.0f / 60.0f));
    ts_shape_id shape;
    int n;
    assert_ok(ts_body_get_shapes(box, &shape, 1, &n));
    assert_ok(ts_shape_set_filter(shape, (ts_filter){2, ~(uint64_t)1})); /* ignores category 1: the ground */
    for (int i = 0; i < 3; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    ts_world_counters counters;
    assert_ok(ts_world_get_counters(world, &counters));
    assert_int_equal(counters.contact_count, 0);
    assert_ok(ts_shape_set_filter(shape, (ts_filter){1, ~(uint64_t)0}));
    assert_ok(ts_world_step(world, 1.0f / 60.0f));
    assert_ok(ts_world_get_counters(world, &counters));
    assert_int_equal(counters.contact_count, 1);
    assert_int_equal(counters.touching_count, 1);
    assert_ok(ts_destroy_world(world));
}

/* A body whose state would overflow (1e30 N on 1e-30 kg) never puts a NaN
 * into the broadphase: the tree stays valid and every fat bound finite. */
static void test_overflow_never_reaches_tree(void **state)
{
    (void)state;
    ts_world_id id = test_world(4, 1);
    ground(id);
    ts_body_id feather = test_box(id, TS_BODY_DYNAMIC, (ts_vec3){0, 3, 0}, TS_QUAT_IDENTITY,
                                  (ts_vec3){0.5f, 0.5f, 0.5f}, 1e-30f);
    assert_ok(ts_body_apply_force_to_center(feather, (ts_vec3){0, -1e30f, 0}));
    ts_result stepped = ts_world_step(id, 1.0f);
    assert_true(stepped == TS_OK || stepped == TS_ERROR_NOT_FINITE);
    ts_world *world = ts_world_lookup(id, "test");
    assert_true(ts_tree_validate(&world->collision.broadphase.trees[TS_TREE_MOVABLE]));
    for (int32_t i = 0; i < world->records.shape_ids.next_index; ++i) {
        assert_true(ts_aabb_is_valid(world->records.shapes[i].fat_aabb));
        const ts_aabb *fat = &world->records.shapes[i].fat_aabb;
        assert_true(isfinite(fat->lower.y) && isfinite(fat->upper.y));
    }
    assert_ok(ts_destroy_world(id));
}

/* FNV-1a over the bytes of every contact column in slot order. */
static uint64_t hash_contacts(const ts_world *world)
{
    const ts_contact_store *s = &world->records.contact_store;
    uint64_t h = 1469598103934665603ull;
    for (int c = 0; c < TS_CONTACT_COLUMNS; ++c) {
        const unsigned char *bytes = s->columns[c];
        size_t n = (size_t)s->table.count * s->table.layout.widths[c] * 4;
        for (size_t i = 0; i < n; ++i) {
            h = (h ^ bytes[i]) * 1099511628211ull;
        }
    }
    return h;
}

/* A 6 x 6 x 6 block of spinning, drifting boxes (no gravity) that start face
 * to face: about 2,000 contacts, above the threshold where the narrowphase
 * runs on several threads. After 30 steps every contact column (normals,
 * anchors, separations, feature ids, impulses) and every event must be
 * bitwise the same for 1, 2, 3 and 4 threads. */
static uint64_t run_block(int threads)
{
    ts_world_id id = test_world(4, threads);
    assert_ok(ts_world_set_gravity(id, (ts_vec3){0, 0, 0}));
    for (int n = 0; n < 216; ++n) {
        ts_body_def def = ts_default_body_def();
        def.type = TS_BODY_DYNAMIC;
        def.position = (ts_vec3){(float)(n % 6), (float)((n / 6) % 6), (float)(n / 36)};
        def.linear_velocity = (ts_vec3){0.1f * (float)(n % 5) - 0.2f, 0.05f * (float)(n % 3), 0.0f};
        def.angular_velocity = (ts_vec3){0.3f * (float)(n % 7), 0.2f, -0.1f * (float)(n % 4)};
        ts_body_id body = ts_create_body(id, &def);
        ts_shape_def shape = ts_default_shape_def();
        ts_box box = {{0.5f, 0.5f, 0.5f}};
        assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &shape, &box)));
    }
    uint64_t events = 1469598103934665603ull;
    for (int step = 0; step < 30; ++step) {
        assert_ok(ts_world_step(id, 1.0f / 60.0f));
        ts_contact_events e;
        assert_ok(ts_world_get_contact_events(id, &e));
        for (int k = 0; k < e.begin_count; ++k) {
            events = (events ^ (uint64_t)e.begin[k].shape_a.index1 << 20 ^ (uint64_t)e.begin[k].shape_b.index1) * 1099511628211ull;
        }
        for (int k = 0; k < e.end_count; ++k) {
            events = (events ^ (uint64_t)e.end[k].shape_a.index1 << 21 ^ (uint64_t)e.end[k].shape_b.index1) * 1099511628211ull;
        }
    }
    ts_world *world = ts_world_lookup(id, "test");
    assert_true(world->records.contact_store.table.count > 1024);
    uint64_t h = hash_contacts(world) ^ events;
    assert_ok(ts_destroy_world(id));
    return h;
}

static void test_contacts_bitwise_identical_across_threads(void **state)
{
    (void)state;
    uint64_t reference = run_block(1);
    for (int threads = 2; threads <= 4; ++threads) {
        assert_true(run_block(threads) == reference);
    }
}

/* Every live body's store column `edges` is the length of its contact and
 * joint lists (the soft step integrates a body with none through all
 * substeps at once, integrate.h: a wrong count would let a body fall
 * through what it rests on). */
static void check_edges(ts_world_id id)
{
    ts_world *world = ts_world_lookup(id, "test");
    for (int32_t b = 0; b < world->records.body_ids.next_index; ++b) {
        const ts_body *body = world->records.bodies + b;
        if (body->alive) {
            assert_int_equal(world->records.store.edges[world->records.store.table.slot_of_id[b]],
                             body->contact_count + body->joint_count);
        }
    }
}

/* What it checks: the counts stay right while contacts begin and end,
 * joints are made and destroyed, bodies and shapes are destroyed and
 * bodies fall asleep and wake (their slots move), after every step and
 * edit. A column of 16 boxes falls on the ground and settles (sleeping
 * on), two of them joined; then edits. */
static void test_body_edge_counts(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id ground = test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, (ts_quat){0, 0, 0, 1},
                                 (ts_vec3){20, 1, 20}, 1.0f);
    (void)ground;
    enum { COUNT = 16 };
    ts_body_id boxes[COUNT];
    for (int k = 0; k < COUNT; ++k) {
        boxes[k] = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0.1f * (float)(k % 3), 0.5f + 1.2f * (float)k, 0},
                            (ts_quat){0, 0, 0, 1}, (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
    }
    ts_ball_joint_def def = ts_default_ball_joint_def();
    def.base.body_a = boxes[3];
    def.base.body_b = boxes[4];
    def.base.local_frame_a.p = (ts_vec3){0, 0.6f, 0};
    def.base.local_frame_b.p = (ts_vec3){0, -0.6f, 0};
    ts_joint_id joint = ts_create_ball_joint(world, &def);
    assert_false(ts_joint_id_is_null(joint));
    check_edges(world);
    for (int step = 0; step < 240; ++step) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
        check_edges(world);
        switch (step) {
        case 60: assert_ok(ts_destroy_body(boxes[7])); break;
        case 80: assert_ok(ts_destroy_joint(joint)); break;
        case 100: {
            ts_shape_id shape;
            int count = 0;
            assert_ok(ts_body_get_shapes(boxes[10], &shape, 1, &count));
            assert_ok(ts_destroy_shape(shape));
            break;
        }
        case 200: /* everything asleep by now; a push wakes the column */
            assert_ok(ts_body_set_linear_velocity(boxes[0], (ts_vec3){2, 0, 0}));
            break;
        default: break;
        }
        check_edges(world);
    }
    assert_ok(ts_destroy_world(world));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resting_box_keeps_feature_ids),
        cmocka_unit_test(test_sliding_box_carries_impulses_by_id),
        cmocka_unit_test(test_pairs_match_brute_force),
        cmocka_unit_test(test_begin_and_end_events),
        cmocka_unit_test(test_destroy_reports_end),
        cmocka_unit_test(test_filter_drops_pair),
        cmocka_unit_test(test_overflow_never_reaches_tree),
        cmocka_unit_test(test_contacts_bitwise_identical_across_threads),
        cmocka_unit_test(test_body_edge_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
