/* Islands and sleeping: resting stacks fall asleep, touches and user calls
 * wake exactly the islands they reach, a destroyed box splits an island,
 * sleeping islands cost no narrowphase pairs, sleeping and waking allocate
 * nothing once warmed up, and runs where islands sleep and wake are bitwise
 * identical at every SIMD width and thread count. */
#include "test_common.h"

#include "islands/sleep.h"
#include "api/world.h"

#define DT (1.0f / 60.0f)

static const ts_vec3 unit_half = {0.5f, 0.5f, 0.5f};

static ts_body_id ground(ts_world_id world)
{
    return test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){50, 1, 50}, 1);
}

/* `n` unit boxes standing face to face at (x, ., z), bottom on y = 0. */
static void stack(ts_world_id world, float x, float z, int n, ts_body_id *boxes)
{
    for (int level = 0; level < n; ++level) {
        boxes[level] = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){x, 0.5f + (float)level, z}, TS_QUAT_IDENTITY,
                                unit_half, 1);
    }
}

static bool awake(ts_body_id body)
{
    bool a = false;
    assert_ok(ts_body_is_awake(body, &a));
    return a;
}

static int island_of(ts_body_id body)
{
    int island = -2;
    assert_ok(ts_body_get_island(body, &island));
    return island;
}

static ts_world_counters counters_of(ts_world_id world)
{
    ts_world_counters c;
    assert_ok(ts_world_get_counters(world, &c));
    return c;
}

static void check_islands(ts_world_id world)
{
    ts_world *w = ts_world_lookup(world, "test");
    assert_true(ts_island_validate(&w->records, &w->islands));
    assert_true(ts_body_store_validate(&w->records.store));
    assert_true(ts_soa_validate(&w->records.contact_store.table));
}

/* Steps until no island is awake; returns the steps taken, or -1 after
 * `limit`. */
static int step_until_asleep(ts_world_id world, int limit)
{
    for (int n = 1; n <= limit; ++n) {
        assert_ok(ts_world_step(world, DT));
        if (counters_of(world).awake_island_count == 0) {
            return n;
        }
    }
    return -1;
}

/* A 10-box stack settles at once (it starts face to face) and sleeps after
 * 0.5 s at rest: within 2 s (measured: 41 steps, 0.68 s). It has not moved
 * sideways (5 mm; measured 1.2 mm); the soft contacts let it sag 2.5 cm at the top, so its
 * heights are checked to 3 cm. */
static void test_stack_falls_asleep(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ground(world);
    ts_body_id boxes[10];
    stack(world, 0, 0, 10, boxes);
    int steps = step_until_asleep(world, 120);
    assert_true(steps > 0 && steps <= 120);
    for (int k = 0; k < 10; ++k) {
        ts_vec3 p, v;
        assert_ok(ts_body_get_position(boxes[k], &p));
        assert_ok(ts_body_get_linear_velocity(boxes[k], &v));
        assert_near(p.y, 0.5 + k, 0.03);
        assert_near(p.x, 0.0, 5e-3);
        assert_true(v.x == 0 && v.y == 0 && v.z == 0);
        assert_false(awake(boxes[k]));
        assert_int_equal(island_of(boxes[k]), island_of(boxes[0]));
    }
    ts_world_counters c = counters_of(world);
    assert_int_equal(c.island_count, 1);
    assert_int_equal(c.awake_island_count, 0);
    assert_int_equal(c.touching_count, 10);
    check_islands(world);
    /* Asleep, the next steps read no contact and move nothing. */
    for (int n = 0; n < 10; ++n) {
        assert_ok(ts_world_step(world, DT));
    }
    c = counters_of(world);
    assert_int_equal(c.narrowphase_pairs, 0);
    assert_int_equal(c.sleeping_contact_count, 10);
    assert_int_equal(c.awake_body_count, 0);
    for (int k = 0; k < TS_COLOR_COUNT; ++k) {
        assert_int_equal(c.color_counts[k], 0);
    }
    assert_ok(ts_destroy_world(world));
}

/* A ball dropped on a sleeping stack wakes it when it touches; the stack
 * stays standing (every box within 2 cm of its column, and within 4 cm of
 * its height: the soft contacts' 2.5 cm sag plus the ball's weight) and
 * everything sleeps again. */
static void test_ball_wakes_stack(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ground(world);
    ts_body_id boxes[10];
    stack(world, 0, 0, 10, boxes);
    assert_true(step_until_asleep(world, 120) > 0);

    ts_body_def def = ts_default_body_def();
    def.type = TS_BODY_DYNAMIC;
    def.position = (ts_vec3){0.1f, 12.0f, 0.0f};
    ts_body_id ball = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(ball, &shape, &(ts_sphere){0.4f})));
    bool woke = false;
    for (int n = 0; n < 120 && !woke; ++n) {
        assert_ok(ts_world_step(world, DT));
        woke = awake(boxes[0]);
        if (!woke) {
            assert_int_equal(counters_of(world).awake_body_count, 1); /* only the ball */
        }
    }
    assert_true(woke);
    for (int k = 0; k < 10; ++k) {
        assert_true(awake(boxes[k]));
    }
    check_islands(world);
    assert_int_equal(island_of(ball), island_of(boxes[9]));
    assert_true(step_until_asleep(world, 600) > 0);
    for (int k = 0; k < 10; ++k) {
        ts_vec3 p;
        assert_ok(ts_body_get_position(boxes[k], &p));
        assert_near(p.x, 0.0, 0.02);
        assert_near(p.z, 0.0, 0.02);
        assert_near(p.y, 0.5 + k, 0.04);
    }
    ts_vec3 p;
    assert_ok(ts_body_get_position(ball, &p));
    assert_near(p.y, 10.4, 0.06); /* resting on the top box (sagging stack) */
    check_islands(world);
    assert_ok(ts_destroy_world(world));
}

/* Two 4-box stacks 3 m apart joined by a 4 m plank on top form one island;
 * destroying the plank wakes both, the island splits in two, and each half
 * sleeps and wakes on its own. */
static void test_destroyed_bridge_splits_island(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ground(world);
    ts_body_id left[4], right[4];
    stack(world, -1.5f, 0, 4, left);
    stack(world, 1.5f, 0, 4, right);
    ts_body_id plank = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 4.5f, 0}, TS_QUAT_IDENTITY,
                                (ts_vec3){2.0f, 0.5f, 0.5f}, 1);
    assert_true(step_until_asleep(world, 240) > 0);
    assert_int_equal(island_of(left[0]), island_of(right[0]));
    assert_int_equal(counters_of(world).island_count, 1);

    assert_ok(ts_destroy_body(plank));
    assert_true(awake(left[0]) && awake(right[0]));
    check_islands(world);
    assert_true(step_until_asleep(world, 240) > 0);
    ts_world_counters c = counters_of(world);
    assert_int_equal(c.island_count, 2);
    assert_true(island_of(left[0]) != island_of(right[0]));
    for (int k = 0; k < 4; ++k) {
        assert_int_equal(island_of(left[k]), island_of(left[0]));
        assert_int_equal(island_of(right[k]), island_of(right[0]));
    }
    check_islands(world);

    /* A push on the left top wakes the left stack alone. */
    assert_ok(ts_body_apply_linear_impulse_to_center(left[3], (ts_vec3){0.2f, 0, 0}));
    for (int k = 0; k < 4; ++k) {
        assert_true(awake(left[k]));
        assert_false(awake(right[k]));
    }
    assert_int_equal(counters_of(world).awake_body_count, 4);
    assert_true(step_until_asleep(world, 240) > 0);
    check_islands(world);
    /* Switching sleep off wakes both (and no island released by the merges
     * and the split). */
    assert_ok(ts_world_enable_sleep(world, false));
    ts_world_counters c2 = counters_of(world);
    assert_int_equal(c2.awake_body_count, 8);
    assert_int_equal(c2.awake_island_count, 2);
    check_islands(world);
    assert_ok(ts_destroy_world(world));
}

/* Three stacks sleep; an impulse on one body wakes exactly its island (the
 * stack's four boxes), whose next steps alone reach the narrowphase: its
 * four contacts, none of the other stacks'. */
static void test_impulse_wakes_exactly_its_island(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ground(world);
    ts_body_id stacks[3][4];
    for (int s = 0; s < 3; ++s) {
        stack(world, 3.0f * (float)s, 0, 4, stacks[s]);
    }
    assert_true(step_until_asleep(world, 120) > 0);
    assert_int_equal(counters_of(world).island_count, 3);
    assert_ok(ts_body_apply_linear_impulse_to_center(stacks[1][2], (ts_vec3){0, 0, 0.01f}));
    ts_world_counters c = counters_of(world);
    assert_int_equal(c.awake_body_count, 4);
    assert_int_equal(c.awake_island_count, 1);
    for (int s = 0; s < 3; ++s) {
        for (int k = 0; k < 4; ++k) {
            assert_int_equal(awake(stacks[s][k]), s == 1);
        }
    }
    assert_ok(ts_world_step(world, DT));
    assert_int_equal(counters_of(world).narrowphase_pairs, 4);
    check_islands(world);
    assert_ok(ts_destroy_world(world));
}

/* The other ways to wake: velocity, transform, force, body type, shapes,
 * set_awake, destroying a touching body; and the switches that keep an
 * island awake (body and world). */
static void test_user_calls_wake(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id floor = ground(world);
    ts_body_id box[2];
    stack(world, 0, 0, 2, box);
    assert_true(step_until_asleep(world, 120) > 0);

    /* A shape added to the ground leaves the stack asleep; removing a
     * ground shape wakes what rests on the ground. */
    ts_shape_def far = ts_default_shape_def();
    far.local_position = (ts_vec3){20, 0, 0};
    ts_shape_id extra = ts_create_sphere_shape(floor, &far, &(ts_sphere){0.5f});
    assert_false(ts_shape_id_is_null(extra));
    assert_false(awake(box[0]));
    assert_ok(ts_destroy_shape(extra));
    assert_true(awake(box[0]));
    assert_ok(ts_body_set_awake(box[0], false));

    assert_ok(ts_body_set_linear_velocity(box[1], (ts_vec3){0, 0, 0}));
    assert_true(awake(box[0]));
    assert_ok(ts_body_set_awake(box[0], false));
    assert_false(awake(box[0]) || awake(box[1]));
    assert_ok(ts_body_apply_force_to_center(box[0], (ts_vec3){0, 1, 0}));
    assert_true(awake(box[1]));
    assert_ok(ts_body_set_awake(box[1], false));
    assert_ok(ts_body_set_transform(box[1], (ts_vec3){0, 1.5f, 0}, TS_QUAT_IDENTITY));
    assert_true(awake(box[0]));
    assert_ok(ts_body_set_awake(box[1], false));
    ts_shape_def shape = ts_default_shape_def();
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(box[1], &shape, &(ts_sphere){0.1f})));
    assert_true(awake(box[0]));
    assert_ok(ts_body_set_awake(box[1], false));
    assert_ok(ts_body_set_awake(box[1], true));
    assert_true(awake(box[0]));
    assert_ok(ts_body_set_awake(box[1], false));
    /* The ground under a sleeping stack is destroyed: the stack falls. */
    assert_ok(ts_destroy_body(floor));
    assert_true(awake(box[0]) && awake(box[1]));
    check_islands(world);
    for (int n = 0; n < 30; ++n) {
        assert_ok(ts_world_step(world, DT));
    }
    ts_vec3 p;
    assert_ok(ts_body_get_position(box[0], &p));
    assert_true(p.y < 0.0f);

    /* A body that may not sleep keeps its island awake; the world switch
     * off wakes everything and keeps it awake. */
    floor = ground(world);
    ts_body_id other[2];
    stack(world, 5, 0, 2, other);
    assert_ok(ts_body_enable_sleep(other[1], false));
    for (int n = 0; n < 90; ++n) {
        assert_ok(ts_world_step(world, DT));
    }
    assert_true(awake(other[0]));
    assert_ok(ts_body_enable_sleep(other[1], true));
    for (int n = 0; n < 60; ++n) {
        assert_ok(ts_world_step(world, DT));
    }
    assert_false(awake(other[0]));
    assert_ok(ts_world_enable_sleep(world, false));
    assert_true(awake(other[0]));
    assert_ok(ts_body_set_awake(other[0], false)); /* no effect with sleeping off */
    assert_true(awake(other[0]));
    for (int n = 0; n < 60; ++n) {
        assert_ok(ts_world_step(world, DT));
    }
    assert_true(awake(other[0]));
    assert_ok(ts_world_enable_sleep(world, true));
    assert_ok(ts_body_set_type(other[1], TS_BODY_KINEMATIC));
    assert_int_equal(island_of(other[1]), -1);
    assert_true(awake(other[0]));
    check_islands(world);
    assert_ok(ts_destroy_world(world));
}

/* A kinematic platform moving under a box keeps the box's island awake; a
 * still one lets it sleep, and setting its velocity wakes the box. */
static void test_kinematic_keeps_touching_awake(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id platform = test_box(world, TS_BODY_KINEMATIC, (ts_vec3){0, -0.5f, 0}, TS_QUAT_IDENTITY,
                                   (ts_vec3){10, 0.5f, 10}, 1);
    ts_body_id box = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 0.5f, 0}, TS_QUAT_IDENTITY, unit_half, 1);
    assert_true(step_until_asleep(world, 120) > 0);
    assert_ok(ts_body_set_linear_velocity(platform, (ts_vec3){0.5f, 0, 0}));
    assert_true(awake(box));
    for (int n = 0; n < 120; ++n) {
        assert_ok(ts_world_step(world, DT));
        assert_true(awake(box));
    }
    ts_vec3 p;
    assert_ok(ts_body_get_position(box, &p));
    assert_true(p.x > 0.5f); /* carried along by friction */
    assert_ok(ts_body_set_linear_velocity(platform, (ts_vec3){0, 0, 0}));
    assert_true(step_until_asleep(world, 120) > 0);
    check_islands(world);
    assert_ok(ts_destroy_world(world));
}

/* The link calls joints will use: two boxes 3 m apart linked by a
 * "constraint" share an island, sleep and wake together; unlinked, the
 * island splits in two when it next comes to rest. */
static void test_constraint_links(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ground(world);
    ts_body_id a = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 0.5f, 0}, TS_QUAT_IDENTITY, unit_half, 1);
    ts_body_id b = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){3, 0.5f, 0}, TS_QUAT_IDENTITY, unit_half, 1);
    assert_true(step_until_asleep(world, 120) > 0);
    ts_world *w = ts_world_lookup(world, "test");
    assert_ok(ts_link_constraint(&w->records, &w->islands, &w->graph, a.index1 - 1, b.index1 - 1, "test"));
    assert_true(awake(a) && awake(b));
    assert_int_equal(island_of(a), island_of(b));
    assert_true(step_until_asleep(world, 120) > 0);
    assert_ok(ts_body_set_linear_velocity(b, (ts_vec3){0.1f, 0, 0}));
    assert_true(awake(a));
    assert_ok(ts_unlink_constraint(&w->records, &w->islands, &w->graph, a.index1 - 1, b.index1 - 1, "test"));
    assert_int_equal(island_of(a), island_of(b)); /* split later, when at rest */
    assert_true(step_until_asleep(world, 240) > 0);
    assert_true(island_of(a) != island_of(b));
    assert_int_equal(counters_of(world).island_count, 2);
    check_islands(world);
    assert_ok(ts_destroy_world(world));
}

/* ---- random operations ---- */

static bool rests(const ts_world *w, int32_t body)
{
    const ts_body *b = w->records.bodies + body;
    return b->type == TS_BODY_STATIC || (b->island >= 0 && !ts_island_is_awake(&w->islands, b->island));
}

/* Where every contact is agrees with its bodies: a sleeping contact joins
 * two resting bodies, an awake one has a moving body; a coloured contact
 * touches and has no sleeping body; an awake touching contact between
 * moving bodies is coloured; a linked contact touches. Bodies of awake
 * islands are in the awake range, of sleeping islands in the sleeping one. */
static void check_ranges(ts_world_id world)
{
    check_islands(world);
    const ts_world *w = ts_world_lookup(world, "test");
    const ts_contact_store *cs = &w->records.contact_store;
    for (int32_t i = 0; i < cs->table.count; ++i) {
        int32_t id = cs->table.id_of_slot[i];
        const ts_contact *c = w->records.contacts + id;
        bool asleep = i >= cs->table.end[TS_CONTACT_RANGE_AWAKE];
        bool both_rest = rests(w, c->edges[0].body) && rests(w, c->edges[1].body);
        bool any_sleeps = (rests(w, c->edges[0].body) && w->records.bodies[c->edges[0].body].type != TS_BODY_STATIC) ||
                          (rests(w, c->edges[1].body) && w->records.bodies[c->edges[1].body].type != TS_BODY_STATIC);
        bool touching = (cs->flags[i] & TS_CONTACT_TOUCHING) != 0;
        if (asleep != both_rest) {
            fail_msg("contact %d: in the %s range, bodies %s", id, asleep ? "sleeping" : "awake",
                     both_rest ? "rest" : "move");
        }
        if (c->color >= 0 && (!touching || any_sleeps)) {
            fail_msg("contact %d: coloured but %s", id, touching ? "a body sleeps" : "not touching");
        }
        if (!asleep && touching && !any_sleeps && c->color < 0) {
            fail_msg("contact %d: awake and touching but not coloured", id);
        }
        if (c->linked && !touching) {
            fail_msg("contact %d: linked but not touching", id);
        }
    }
    const ts_body_store *s = &w->records.store;
    for (int32_t i = 0; i < s->table.count; ++i) {
        const ts_body *b = w->records.bodies + s->table.id_of_slot[i];
        ts_body_range range = ts_body_store_range_of(s, i);
        ts_body_range expected = b->type == TS_BODY_STATIC ? TS_RANGE_STATIC
                                 : rests(w, s->table.id_of_slot[i]) ? TS_RANGE_SLEEPING
                                                                    : TS_RANGE_AWAKE;
        if (range != expected) {
            fail_msg("body %d in range %d, expected %d", s->table.id_of_slot[i], (int)range, (int)expected);
        }
    }
}

/* A bin of boxes and balls, stepped 900 times with a random operation every
 * few steps (impulse, set_awake both ways, teleport, destroy, create, type
 * change, new shape); the ranges, colours and islands agree after every
 * step. */
static void test_random_operations(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ground(world);
    enum { MAX = 160 };
    ts_body_id bodies[MAX];
    int count = 0;
    uint32_t seed = 12345;
    int steps_with_sleepers = 0;
    for (int k = 0; k < 60; ++k) {
        float x = (float)(k % 5) * 1.1f - 2.2f, z = (float)((k / 5) % 4) * 1.1f - 1.65f, y = 0.5f + (float)(k / 20);
        bodies[count++] = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){x, y, z}, TS_QUAT_IDENTITY, unit_half, 1);
    }
    for (int n = 0; n < 900; ++n) {
        if (n % 7 == 0 && n > 60) {
            int pick = (int)(next_random(&seed) % (uint32_t)count);
            ts_body_id b = bodies[pick];
            uint32_t op = next_random(&seed) % 8;
            if (!ts_body_is_valid(b)) {
                op = 5;
            }
            switch (op) {
            case 0: assert_ok(ts_body_apply_linear_impulse_to_center(b, (ts_vec3){0.5f, 1.0f, 0})); break;
            case 1: assert_ok(ts_body_set_awake(b, false)); break;
            case 2: assert_ok(ts_body_set_awake(b, true)); break;
            case 3: assert_ok(ts_body_set_position(b, (ts_vec3){0, 4, 0})); break;
            case 4: assert_ok(ts_destroy_body(b)); break;
            case 5:
                if (count < MAX) {
                    float x = (float)(next_random(&seed) % 5) - 2.0f;
                    bodies[count++] = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){x, 6, 0}, TS_QUAT_IDENTITY, unit_half, 1);
                }
                break;
            case 6: {
                ts_body_type type;
                assert_ok(ts_body_get_type(b, &type));
                assert_ok(ts_body_set_type(b, type == TS_BODY_DYNAMIC ? TS_BODY_KINEMATIC : TS_BODY_DYNAMIC));
                break;
            }
            default: {
                ts_shape_def sd = ts_default_shape_def();
                sd.local_position = (ts_vec3){0, 0.6f, 0};
                assert_false(ts_shape_id_is_null(ts_create_sphere_shape(b, &sd, &(ts_sphere){0.2f})));
                break;
            }
            }
            check_ranges(world);
        }
        ts_result r = ts_world_step(world, DT);
        assert_true(r == TS_OK);
        check_ranges(world);
        ts_world_counters c = counters_of(world);
        steps_with_sleepers += c.awake_island_count < c.island_count;
    }
    printf("random operations: %d of 900 steps had sleeping islands\n", steps_with_sleepers);
    assert_true(steps_with_sleepers > 100);
    assert_ok(ts_destroy_world(world));
}

/* ---- allocation ---- */

/* A one-thread world with its ground whose allocations c counts. */
static ts_world_id counting_world(counting_allocator *c)
{
    ts_world_def def = ts_default_world_def();
    def.threads = 1;
    def.allocator = (ts_allocator){counting_alloc, counting_free, c};
    ts_world_id world = ts_create_world(&def);
    ground(world);
    return world;
}

/* After one sleep-wake-sleep cycle, a second cycle (wake by impulse, the
 * island splitting again after a removed box... ) allocates nothing. */
static void test_sleep_and_wake_allocate_nothing(void **state)
{
    (void)state;
    counting_allocator c = {0, 0, 0, -1};
    ts_world_id world = counting_world(&c);
    ts_body_id boxes[4][5];
    for (int s = 0; s < 4; ++s) {
        stack(world, 3.0f * (float)s, 0, 5, boxes[s]);
    }
    for (int cycle = 0; cycle < 2; ++cycle) {
        long before = c.allocations;
        assert_true(step_until_asleep(world, 240) > 0);
        for (int s = 0; s < 4; ++s) {
            assert_ok(ts_body_apply_linear_impulse_to_center(boxes[s][4], (ts_vec3){0.05f, 0, 0}));
        }
        assert_true(step_until_asleep(world, 240) > 0);
        if (cycle == 1) {
            assert_int_equal(c.allocations, before);
        }
    }
    assert_ok(ts_destroy_world(world));
    assert_int_equal(c.bytes_live, 0);
}

/* A touch that wakes sleeping islands mid-step colours their contacts
 * there, where nothing may allocate: every step's reserve holds room for
 * all the sleeping islands' contacts (islands/graph_bound.h). Four stacks
 * of 5 are built one after the other, each asleep before the next is made
 * (never two awake at once, so no earlier step coloured them all), then
 * four balls fall 3 m onto them and wake all four in one step. From the
 * step after the balls' contacts exist (fat bounds overlapping, no points
 * yet) through the touch and 60 steps after it, no step allocates. */
static void test_touch_wake_allocates_nothing(void **state)
{
    (void)state;
    counting_allocator c = {0, 0, 0, -1};
    ts_world_id world = counting_world(&c);
    ts_body_id boxes[4][5];
    for (int s = 0; s < 4; ++s) {
        stack(world, 3.0f * (float)s, 0, 5, boxes[s]);
        assert_true(step_until_asleep(world, 240) > 0);
    }
    ts_world_counters asleep = counters_of(world);
    ts_shape_def shape = ts_default_shape_def();
    for (int s = 0; s < 4; ++s) {
        ts_body_id ball = test_dynamic_body(world, (ts_vec3){3.0f * (float)s, 8.3f, 0}); /* 3 m above the top */
        assert_false(ts_shape_id_is_null(ts_create_sphere_shape(ball, &shape, &(ts_sphere){0.3f})));
    }
    /* Warm-up: the balls fall until their contacts with the top boxes are
     * made (a new contact may grow the contact store: not what this checks). */
    int steps = 0;
    while (counters_of(world).contact_count < asleep.contact_count + 4) {
        assert_ok(ts_world_step(world, DT));
        assert_true(++steps < 120);
    }
    assert_int_equal(counters_of(world).touching_count, asleep.touching_count); /* not touching yet */
    assert_int_equal(counters_of(world).awake_body_count, 4);                  /* the balls only */
    long before = c.allocations;
    int woke = -1, after = 0;
    for (int n = 0; n < 120 && after < 60; ++n) {
        assert_ok(ts_world_step(world, DT));
        int awake_bodies = counters_of(world).awake_body_count;
        if (woke < 0 && awake_bodies > 4) {
            woke = n;
            assert_int_equal(awake_bodies, 24); /* all four stacks in the one step */
            check_islands(world);
        }
        after += woke >= 0;
    }
    assert_true(woke >= 0);
    assert_int_equal(c.allocations, before);
    check_islands(world);
    assert_ok(ts_destroy_world(world));
    assert_int_equal(c.bytes_live, 0);
}

/* ---- determinism ---- */

/* 250 stacks of 5 (1,250 boxes: above the solver's parallel threshold), all
 * asleep by step 89; at step 90 a ball appears above every other stack and
 * wakes it when it lands; at step 200 one stack's bottom box is destroyed.
 * Every step's sleep counters and the final bodies go into the hash. */
static uint64_t sleep_wake_run(int width, int threads)
{
    ts_world_def def = ts_default_world_def();
    def.simd_width = width;
    def.threads = threads;
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    /* every step on every worker, even on an oversubscribed machine (parallel.h) */
    ts_world_lookup(world, "test")->parallel.adapt = false;
    ground(world);
    enum { STACKS = 250, LEVELS = 5 };
    static ts_body_id boxes[STACKS][LEVELS];
    for (int s = 0; s < STACKS; ++s) {
        stack(world, -45.0f + 3.0f * (float)(s % 30), -45.0f + 3.0f * (float)(s / 30), LEVELS, boxes[s]);
    }
    uint64_t h = TEST_FNV_START;
    for (int n = 0; n < 260; ++n) {
        if (n == 90) {
            ts_shape_def shape = ts_default_shape_def();
            for (int s = 0; s < STACKS; s += 2) {
                ts_body_def bd = ts_default_body_def();
                bd.type = TS_BODY_DYNAMIC;
                bd.position = (ts_vec3){-45.0f + 3.0f * (float)(s % 30) + 0.2f, 7.0f, -45.0f + 3.0f * (float)(s / 30)};
                ts_body_id ball = ts_create_body(world, &bd);
                assert_false(ts_shape_id_is_null(ts_create_sphere_shape(ball, &shape, &(ts_sphere){0.3f})));
            }
        }
        if (n == 200) {
            assert_ok(ts_destroy_body(boxes[7][0]));
        }
        assert_ok(ts_world_step(world, DT));
        ts_world_counters c = counters_of(world);
        if (n == 89) {
            assert_int_equal(c.awake_island_count, 0); /* all asleep before the balls */
        }
        if (n == 150) {
            assert_int_equal(c.awake_body_count, (STACKS / 2) * (LEVELS + 1)); /* the stacks hit, and their balls */
        }
        h = test_fnv(h, &c.awake_body_count, sizeof c.awake_body_count);
        h = test_fnv(h, &c.island_count, sizeof c.island_count);
        h = test_fnv(h, &c.narrowphase_pairs, sizeof c.narrowphase_pairs);
    }
    ts_world_counters c = counters_of(world);
    assert_true(c.awake_body_count > 0 && c.awake_body_count < c.body_count - 1); /* some asleep, some awake */
    for (int s = 0; s < STACKS; ++s) {
        for (int k = 0; k < LEVELS; ++k) {
            if (!ts_body_is_valid(boxes[s][k])) {
                continue;
            }
            ts_transform t;
            ts_vec3 v;
            assert_ok(ts_body_get_transform(boxes[s][k], &t));
            assert_ok(ts_body_get_linear_velocity(boxes[s][k], &v));
            h = test_fnv(h, &t, sizeof t);
            h = test_fnv(h, &v, sizeof v);
            int island = island_of(boxes[s][k]);
            bool a = awake(boxes[s][k]);
            h = test_fnv(h, &island, sizeof island);
            h = test_fnv(h, &a, sizeof a);
        }
    }
    check_islands(world);
    assert_ok(ts_destroy_world(world));
    return h;
}

/* Bitwise the same with sleeping and waking at widths 1, 4, 8, 16 (those
 * built) and on 2, 3, 4 and 8 threads. */
static void test_sleep_is_deterministic(void **state)
{
    (void)state;
    uint64_t reference = sleep_wake_run(1, 1);
    const int widths[] = {4, 8, 16};
    for (int k = 0; k < 3; ++k) {
        ts_world_def def = ts_default_world_def();
        def.simd_width = widths[k];
        ts_world_id probe = ts_create_world(&def);
        if (ts_world_id_is_null(probe)) {
            continue; /* width not built here */
        }
        ts_destroy_world(probe);
        uint64_t h = sleep_wake_run(widths[k], 1);
        if (h != reference) {
            fail_msg("width %d differs from width 1", widths[k]);
        }
    }
    /* The sanitizer jobs (test_short_run) run 2 and 3 threads of the four:
     * a race needs two workers and 3 splits the blocks unevenly, while 4
     * and 8 run the same stages on more workers (260 steps each: a third
     * of this test under ThreadSanitizer); the default build compares all
     * four. */
    const int threads[] = {2, 3, 4, 8};
    for (int k = 0; k < (test_short_run() ? 2 : 4); ++k) {
        if (sleep_wake_run(1, threads[k]) != reference) {
            fail_msg("%d threads differ from 1", threads[k]);
        }
    }
}

/* ---- bad input ---- */

static void test_bad_input(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = test_dynamic_body(world, (ts_vec3){0, 0, 0});
    ts_body_id stale = test_dynamic_body(world, (ts_vec3){0, 0, 0});
    assert_ok(ts_destroy_body(stale));
    bool a;
    int island;
    assert_int_equal(ts_body_is_awake(stale, &a), TS_ERROR_STALE_ID);
    assert_non_null(strstr(ts_last_error(), "ts_body_is_awake"));
    assert_int_equal(ts_body_is_awake(body, NULL), TS_ERROR_NULL_POINTER);
    assert_non_null(strstr(ts_last_error(), "awake"));
    assert_int_equal(ts_body_set_awake(stale, true), TS_ERROR_STALE_ID);
    assert_non_null(strstr(ts_last_error(), "ts_body_set_awake"));
    assert_int_equal(ts_body_set_awake(TS_NULL_BODY_ID, false), TS_ERROR_STALE_ID);
    assert_int_equal(ts_body_enable_sleep(stale, false), TS_ERROR_STALE_ID);
    assert_non_null(strstr(ts_last_error(), "ts_body_enable_sleep"));
    assert_int_equal(ts_body_get_island(stale, &island), TS_ERROR_STALE_ID);
    assert_non_null(strstr(ts_last_error(), "ts_body_get_island"));
    assert_int_equal(ts_body_get_island(body, NULL), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_world_enable_sleep(TS_NULL_WORLD_ID, true), TS_ERROR_STALE_ID);
    assert_non_null(strstr(ts_last_error(), "ts_world_enable_sleep"));

    ts_body_def def = ts_default_body_def();
    def.type = TS_BODY_DYNAMIC;
    def.sleep_threshold = -1.0f;
    assert_true(ts_body_id_is_null(ts_create_body(world, &def)));
    assert_non_null(strstr(ts_last_error(), "sleep_threshold"));
    def.sleep_threshold = NAN;
    assert_true(ts_body_id_is_null(ts_create_body(world, &def)));
    assert_non_null(strstr(ts_last_error(), "sleep_threshold"));

    /* Static bodies: awake, in no island, set_awake changes nothing. */
    ts_body_id floor = ground(world);
    assert_ok(ts_body_set_awake(floor, false));
    assert_ok(ts_body_is_awake(floor, &a));
    assert_true(a);
    assert_ok(ts_body_get_island(floor, &island));
    assert_int_equal(island, -1);
    ts_world_id gone = test_world(4, 1);
    assert_ok(ts_destroy_world(gone));
    assert_int_equal(ts_world_enable_sleep(gone, false), TS_ERROR_STALE_ID);
    assert_ok(ts_destroy_world(world));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stack_falls_asleep),
        cmocka_unit_test(test_ball_wakes_stack),
        cmocka_unit_test(test_destroyed_bridge_splits_island),
        cmocka_unit_test(test_impulse_wakes_exactly_its_island),
        cmocka_unit_test(test_user_calls_wake),
        cmocka_unit_test(test_kinematic_keeps_touching_awake),
        cmocka_unit_test(test_constraint_links),
        cmocka_unit_test(test_random_operations),
        cmocka_unit_test(test_sleep_and_wake_allocate_nothing),
        cmocka_unit_test(test_touch_wake_allocates_nothing),
        cmocka_unit_test(test_sleep_is_deterministic),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
