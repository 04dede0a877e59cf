/* Ray casts against analytic answers (tessera/query.h): rays at many angles
 * into spheres, boxes and capsules at random poses, checked against an
 * independent reference (the first zero of the shape's exact signed
 * distance along the ray, in double precision); rays grazing box edges and
 * corners; the inside rule; compounds; filters; any / each / all. */
#include "test_common.h"

/* ==== an independent reference in double ==== */

typedef struct dvec {
    double x, y, z;
} dvec;

static dvec dv(ts_vec3 v) { return (dvec){v.x, v.y, v.z}; }
static dvec dadd(dvec a, dvec b) { return (dvec){a.x + b.x, a.y + b.y, a.z + b.z}; }
static dvec dsub(dvec a, dvec b) { return (dvec){a.x - b.x, a.y - b.y, a.z - b.z}; }
static dvec dscale(double s, dvec a) { return (dvec){s * a.x, s * a.y, s * a.z}; }
static double ddot(dvec a, dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double dlen(dvec a) { return sqrt(ddot(a, a)); }

/* v turned by the inverse of q (world -> shape frame), in double. */
static dvec inv_rotate(ts_quat q, dvec v)
{
    dvec u = {-q.x, -q.y, -q.z};
    double w = q.w;
    dvec t = {2 * (u.y * v.z - u.z * v.y), 2 * (u.z * v.x - u.x * v.z), 2 * (u.x * v.y - u.y * v.x)};
    dvec c = {u.y * t.z - u.z * t.y, u.z * t.x - u.x * t.z, u.x * t.y - u.y * t.x};
    return dadd(dadd(v, dscale(w, t)), c);
}

typedef struct ref_shape {
    ts_shape_type type;
    dvec center;
    ts_quat rotation;
    dvec half; /* box */
    double radius, half_height;
} ref_shape;

/* Exact signed distance of a world point to the shape. */
static double sdf(const ref_shape *s, dvec p)
{
    dvec l = inv_rotate(s->rotation, dsub(p, s->center));
    switch (s->type) {
    case TS_SHAPE_SPHERE: return dlen(l) - s->radius;
    case TS_SHAPE_CAPSULE: {
        double y = l.y < -s->half_height ? -s->half_height : (l.y > s->half_height ? s->half_height : l.y);
        return dlen((dvec){l.x, l.y - y, l.z}) - s->radius;
    }
    default: {
        dvec q = {fabs(l.x) - s->half.x, fabs(l.y) - s->half.y, fabs(l.z) - s->half.z};
        dvec o = {q.x > 0 ? q.x : 0, q.y > 0 ? q.y : 0, q.z > 0 ? q.z : 0};
        double inside = fmax(q.x, fmax(q.y, q.z));
        return dlen(o) + (inside < 0 ? inside : 0);
    }
    }
}

/* First t in [0, length] where the ray enters the shape (marching at 1 mm,
 * then bisection), or -1; *margin gets the smallest distance along the ray
 * before it (how clear a miss or how far from grazing). */
static double reference_ray(const ref_shape *s, dvec o, dvec d, double length, double *margin)
{
    double step = 1.0e-3, prev = 0.0;
    *margin = INFINITY;
    if (sdf(s, o) <= 0.0) {
        return -1.0;
    }
    for (double t = step; t <= length + step; t += step) {
        double tt = t > length ? length : t;
        double f = sdf(s, dadd(o, dscale(tt, d)));
        if (f <= 0.0) {
            double lo = prev, hi = tt;
            for (int i = 0; i < 80; ++i) {
                double mid = 0.5 * (lo + hi);
                *(sdf(s, dadd(o, dscale(mid, d))) > 0.0 ? &lo : &hi) = mid;
            }
            return hi;
        }
        *margin = f < *margin ? f : *margin;
        prev = tt;
    }
    return -1.0;
}

/* Outward normal by central differences of the distance. */
static dvec reference_normal(const ref_shape *s, dvec p)
{
    double e = 1.0e-6;
    dvec n = {sdf(s, dadd(p, (dvec){e, 0, 0})) - sdf(s, dsub(p, (dvec){e, 0, 0})),
              sdf(s, dadd(p, (dvec){0, e, 0})) - sdf(s, dsub(p, (dvec){0, e, 0})),
              sdf(s, dadd(p, (dvec){0, 0, e})) - sdf(s, dsub(p, (dvec){0, 0, e}))};
    return dscale(1.0 / dlen(n), n);
}

/* ==== helpers ==== */

static float frand(uint32_t *state, float lo, float hi)
{
    return lo + (hi - lo) * (float)(next_random(state) >> 8) * (1.0f / 16777216.0f);
}

static ts_vec3 random_unit(uint32_t *state)
{
    for (;;) {
        ts_vec3 v = {frand(state, -1, 1), frand(state, -1, 1), frand(state, -1, 1)};
        float l = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
        if (l > 0.1f && l <= 1.0f) {
            return (ts_vec3){v.x / l, v.y / l, v.z / l};
        }
    }
}

static ts_quat random_rotation(uint32_t *state)
{
    ts_vec3 axis = random_unit(state);
    float angle = frand(state, 0.0f, 6.2831853f);
    return (ts_quat){axis.x * sinf(0.5f * angle), axis.y * sinf(0.5f * angle), axis.z * sinf(0.5f * angle),
                     cosf(0.5f * angle)};
}

static ts_world_id empty_world(void)
{
    ts_world_def def = ts_default_world_def();
    def.threads = 1;
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    return world;
}

/* A static body at (p, q) with one shape of s's type and size. */
static ts_shape_id add_shape(ts_world_id world, const ref_shape *s, ts_vec3 p, ts_quat q, ts_body_type type)
{
    ts_body_def bd = ts_default_body_def();
    bd.type = type;
    bd.position = p;
    bd.rotation = q;
    ts_body_id body = ts_create_body(world, &bd);
    ts_shape_def sd = ts_default_shape_def();
    switch (s->type) {
    case TS_SHAPE_SPHERE: return ts_create_sphere_shape(body, &sd, &(ts_sphere){(float)s->radius});
    case TS_SHAPE_CAPSULE:
        return ts_create_capsule_shape(body, &sd, &(ts_capsule){(float)s->half_height, (float)s->radius});
    default:
        return ts_create_box_shape(body, &sd,
                                   &(ts_box){{(float)s->half.x, (float)s->half.y, (float)s->half.z}});
    }
}

static ts_cast_hit cast(ts_world_id world, ts_vec3 o, ts_vec3 d, float length)
{
    ts_cast_hit hit;
    assert_ok(ts_world_cast_ray(world, o, d, length, NULL, &hit));
    return hit;
}

/* ==== rays at many angles ==== */

/* 300 rays per shape type, each shape at a random pose: half aimed at a
 * random point of the shape's inner half (hits), half at random points
 * around it (hits and misses). Every ray whose reference is not within
 * 1e-3 m of grazing must agree on hit or miss; a hit's fraction is within
 * 1e-5 of the reference (the bound: float rounding of coordinates
 * of size ~10 m over a 20 m ray is ~1e-6 of it) and its normal within 1e-3
 * of the distance gradient. */
static void check_random_rays(ts_shape_type type)
{
    uint32_t state = 12345u + (uint32_t)type;
    int hits = 0, misses = 0;
    for (int shape_case = 0; shape_case < 10; ++shape_case) {
        ts_world_id world = empty_world();
        ref_shape s = {.type = type, .radius = frand(&state, 0.3f, 1.5f), .half_height = frand(&state, 0.1f, 1.5f),
                       .half = {frand(&state, 0.2f, 1.5f), frand(&state, 0.2f, 1.5f), frand(&state, 0.2f, 1.5f)}};
        ts_vec3 p = {frand(&state, -5, 5), frand(&state, -5, 5), frand(&state, -5, 5)};
        ts_quat q = random_rotation(&state);
        ts_shape_id id = add_shape(world, &s, p, q, TS_BODY_STATIC);
        s.center = dv(p);
        s.rotation = q;
        for (int i = 0; i < 30; ++i) {
            ts_vec3 dir = random_unit(&state);
            ts_vec3 o = {p.x - 8.0f * dir.x, p.y - 8.0f * dir.y, p.z - 8.0f * dir.z};
            float spread = i % 2 == 0 ? 0.2f : 2.0f;
            ts_vec3 target = {p.x + frand(&state, -spread, spread), p.y + frand(&state, -spread, spread),
                              p.z + frand(&state, -spread, spread)};
            ts_vec3 d = {target.x - o.x, target.y - o.y, target.z - o.z};
            float length = 20.0f;
            double dl = dlen(dv(d));
            dvec dd = dscale(1.0 / dl, dv(d));
            double margin;
            double t_ref = reference_ray(&s, dv(o), dd, length, &margin);
            ts_cast_hit hit = cast(world, o, d, length);
            if (t_ref < 0.0) {
                if (margin > 1.0e-3) {
                    assert_false(hit.hit);
                    misses += 1;
                }
                continue;
            }
            assert_true(hit.hit);
            assert_true(hit.shape.index1 == id.index1);
            assert_near(hit.fraction, t_ref / length, 1.0e-5);
            dvec n = reference_normal(&s, dadd(dv(o), dscale(t_ref, dd)));
            assert_near(hit.normal.x, n.x, 1.0e-3);
            assert_near(hit.normal.y, n.y, 1.0e-3);
            assert_near(hit.normal.z, n.z, 1.0e-3);
            /* the point is the ray's at that fraction */
            assert_near(hit.point.x, o.x + t_ref * dd.x, 1.0e-4);
            hits += 1;
        }
        ts_destroy_world(world);
    }
    assert_true(hits > 150 && misses > 20);
}

static void test_sphere_rays(void **state)
{
    (void)state;
    check_random_rays(TS_SHAPE_SPHERE);
}

static void test_box_rays(void **state)
{
    (void)state;
    check_random_rays(TS_SHAPE_BOX);
}

static void test_capsule_rays(void **state)
{
    (void)state;
    check_random_rays(TS_SHAPE_CAPSULE);
}

/* ==== grazing edges and corners ==== */

/* A unit cube (half extent 1) at the origin, static: its box in the tree is
 * the cube itself, bit for bit, so grazing rays test the closed-set rule
 * exactly. A ray along a face plane or an edge line hits where it reaches
 * the cube's side; one a millionth above misses; a ray through a corner
 * alone hits there; ties of faces at an edge or corner take the lowest axis. */
static void test_grazing_box(void **state)
{
    (void)state;
    ts_world_id world = empty_world();
    ref_shape s = {.type = TS_SHAPE_BOX, .half = {1, 1, 1}};
    add_shape(world, &s, (ts_vec3){0, 0, 0}, TS_QUAT_IDENTITY, TS_BODY_STATIC);

    /* along the top face's plane y = 1: enters through x = -1 at t = 4 */
    ts_cast_hit hit = cast(world, (ts_vec3){-5, 1, 0}, (ts_vec3){1, 0, 0}, 10.0f);
    assert_true(hit.hit);
    assert_near(hit.fraction, 0.4, 1e-7);
    assert_near(hit.normal.x, -1.0, 0.0);
    /* along the edge y = 1, z = 1 */
    hit = cast(world, (ts_vec3){-5, 1, 1}, (ts_vec3){1, 0, 0}, 10.0f);
    assert_true(hit.hit);
    assert_near(hit.fraction, 0.4, 1e-7);
    /* along the edge line from the other side, the far corner edge (y = -1, z = -1) */
    hit = cast(world, (ts_vec3){5, -1, -1}, (ts_vec3){-1, 0, 0}, 10.0f);
    assert_true(hit.hit);
    assert_near(hit.fraction, 0.4, 1e-7);
    assert_near(hit.normal.x, 1.0, 0.0);
    /* a millionth above the face plane, or beside the edge: misses */
    hit = cast(world, (ts_vec3){-5, 1.000001f, 0}, (ts_vec3){1, 0, 0}, 10.0f);
    assert_false(hit.hit);
    hit = cast(world, (ts_vec3){-5, 1, 1.000001f}, (ts_vec3){1, 0, 0}, 10.0f);
    assert_false(hit.hit);
    /* a diagonal ray into the corner (-1, -1, -1): t = sqrt(3), the three
     * faces tie and the x face is reported */
    hit = cast(world, (ts_vec3){-2, -2, -2}, (ts_vec3){1, 1, 1}, 10.0f);
    assert_true(hit.hit);
    assert_near(hit.fraction, sqrt(3.0) / 10.0, 1e-6);
    assert_near(hit.normal.x, -1.0, 0.0);
    assert_near(hit.normal.y, 0.0, 0.0);
    /* a ray that touches the cube at the corner (-1, 1, 1) only */
    hit = cast(world, (ts_vec3){-2, 1, 0}, (ts_vec3){1, 0, 1}, 10.0f);
    assert_true(hit.hit);
    assert_near(hit.fraction, sqrt(2.0) / 10.0, 1e-6);
    assert_near(hit.point.x, -1.0, 1e-6);
    assert_near(hit.point.z, 1.0, 1e-6);
    /* the same ray shifted a millionth up passes the corner */
    hit = cast(world, (ts_vec3){-2, 1.000001f, 0}, (ts_vec3){1, 0, 1}, 10.0f);
    assert_false(hit.hit);
    /* ending exactly at the face: hits at fraction 1; a millionth short: misses */
    hit = cast(world, (ts_vec3){-5, 0, 0}, (ts_vec3){1, 0, 0}, 4.0f);
    assert_true(hit.hit);
    assert_near(hit.fraction, 1.0, 0.0);
    hit = cast(world, (ts_vec3){-5, 0, 0}, (ts_vec3){1, 0, 0}, 3.999f);
    assert_false(hit.hit);
    ts_destroy_world(world);
}

/* A rotated box (45 degrees about z): its vertical edge at x = -sqrt(2) is
 * grazed by rays in the plane; a ray 1e-4 m inside the edge hits near it, one
 * 1e-4 m outside misses. A sphere and a capsule grazed at 1e-4 of their radius. */
static void test_grazing_round_and_rotated(void **state)
{
    (void)state;
    ts_world_id world = empty_world();
    ref_shape box = {.type = TS_SHAPE_BOX, .half = {1, 1, 1}};
    ts_quat q = {0.0f, 0.0f, sinf(0.5f * 0.78539816f), cosf(0.5f * 0.78539816f)};
    add_shape(world, &box, (ts_vec3){0, 0, 0}, q, TS_BODY_STATIC);
    float edge = sqrtf(2.0f);
    /* rays along +y at x = -edge +- 1e-4 (the edge is the corner of the
     * diamond the box's cross-section makes) */
    ts_cast_hit hit = cast(world, (ts_vec3){-edge + 1e-4f, -5, 0}, (ts_vec3){0, 1, 0}, 10.0f);
    assert_true(hit.hit);
    assert_near(hit.fraction, (5.0 - 1e-4) / 10.0, 2e-5);
    hit = cast(world, (ts_vec3){-edge - 1e-4f, -5, 0}, (ts_vec3){0, 1, 0}, 10.0f);
    assert_false(hit.hit);
    ts_destroy_world(world);

    world = empty_world();
    ref_shape sphere = {.type = TS_SHAPE_SPHERE, .radius = 1.0};
    add_shape(world, &sphere, (ts_vec3){0, 0, 0}, TS_QUAT_IDENTITY, TS_BODY_STATIC);
    /* impact parameter b = 1 - 1e-4: t = 5 - sqrt(1 - b^2) */
    hit = cast(world, (ts_vec3){-5, 1.0f - 1e-4f, 0}, (ts_vec3){1, 0, 0}, 10.0f);
    assert_true(hit.hit);
    double b = 1.0f - 1e-4f;
    assert_near(hit.fraction, (5.0 - sqrt(1.0 - b * b)) / 10.0, 1e-5);
    hit = cast(world, (ts_vec3){-5, 1.0f + 1e-4f, 0}, (ts_vec3){1, 0, 0}, 10.0f);
    assert_false(hit.hit);
    ts_destroy_world(world);

    world = empty_world();
    ref_shape capsule = {.type = TS_SHAPE_CAPSULE, .radius = 0.5, .half_height = 1.0};
    add_shape(world, &capsule, (ts_vec3){0, 0, 0}, TS_QUAT_IDENTITY, TS_BODY_STATIC);
    /* along its side at distance r - 1e-4, and past its cap's top */
    hit = cast(world, (ts_vec3){-5, 0.3f, 0.5f - 1e-4f}, (ts_vec3){1, 0, 0}, 10.0f);
    assert_true(hit.hit);
    double z = 0.5f - 1e-4f;
    assert_near(hit.fraction, (5.0 - sqrt(0.25 - z * z)) / 10.0, 1e-5);
    hit = cast(world, (ts_vec3){-5, 0.3f, 0.5f + 1e-4f}, (ts_vec3){1, 0, 0}, 10.0f);
    assert_false(hit.hit);
    hit = cast(world, (ts_vec3){0, 5, 0}, (ts_vec3){0, -1, 0}, 10.0f); /* down the axis onto the top cap */
    assert_true(hit.hit);
    assert_near(hit.fraction, (5.0 - 1.5) / 10.0, 1e-6);
    assert_near(hit.normal.y, 1.0, 1e-6);
    hit = cast(world, (ts_vec3){0, 1.5f + 1e-4f, 0}, (ts_vec3){1, 0, 0}, 10.0f); /* over the cap's top */
    assert_false(hit.hit);
    ts_destroy_world(world);
}

/* ==== the inside rule ==== */

/* A ray starting inside a shape does not hit it and reports the next
 * shape it enters; from the surface it hits at fraction 0 going in and
 * nothing going out. For each type. */
static void test_inside_rule(void **state)
{
    (void)state;
    ref_shape shapes[3] = {{.type = TS_SHAPE_SPHERE, .radius = 1.0},
                           {.type = TS_SHAPE_BOX, .half = {1, 1, 1}},
                           {.type = TS_SHAPE_CAPSULE, .radius = 1.0, .half_height = 0.5}};
    for (int k = 0; k < 3; ++k) {
        ts_world_id world = empty_world();
        ts_shape_id first = add_shape(world, shapes + k, (ts_vec3){0, 0, 0}, TS_QUAT_IDENTITY, TS_BODY_STATIC);
        ts_shape_id second = add_shape(world, shapes + k, (ts_vec3){5, 0, 0}, TS_QUAT_IDENTITY, TS_BODY_STATIC);
        /* from the centre of the first: the second's near side at x = 4 */
        ts_cast_hit hit = cast(world, (ts_vec3){0, 0, 0}, (ts_vec3){1, 0, 0}, 10.0f);
        assert_true(hit.hit);
        assert_int_equal(hit.shape.index1, second.index1);
        assert_near(hit.fraction, 0.4, 1e-6);
        /* from the first's surface outwards (x = 1 is its surface for every type) */
        hit = cast(world, (ts_vec3){-1, 0, 0}, (ts_vec3){-1, 0, 0}, 3.0f);
        assert_false(hit.hit);
        /* from the surface inwards: fraction 0 */
        hit = cast(world, (ts_vec3){-1, 0, 0}, (ts_vec3){1, 0, 0}, 3.0f);
        assert_true(hit.hit);
        assert_int_equal(hit.shape.index1, first.index1);
        assert_near(hit.fraction, 0.0, 0.0);
        assert_near(hit.normal.x, -1.0, 1e-6);
        ts_destroy_world(world);
    }
}

/* ==== compounds, moving bodies, filters, any / each / all ==== */

/* A dynamic compound body (a sphere and a box beside it) after falling for
 * 30 steps: rays find each of its shapes where the body's transform puts
 * them, and report the body. */
static void test_compound_after_steps(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    def.threads = 1;
    ts_world_id world = ts_create_world(&def);
    ts_body_def bd = ts_default_body_def();
    bd.type = TS_BODY_DYNAMIC;
    bd.position = (ts_vec3){0, 20, 0};
    ts_body_id body = ts_create_body(world, &bd);
    ts_shape_def sd = ts_default_shape_def();
    sd.local_position = (ts_vec3){-1, 0, 0};
    ts_shape_id sphere = ts_create_sphere_shape(body, &sd, &(ts_sphere){0.5f});
    sd.local_position = (ts_vec3){1, 0, 0};
    ts_shape_id box = ts_create_box_shape(body, &sd, &(ts_box){{0.5f, 0.5f, 0.5f}});
    for (int i = 0; i < 30; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    ts_transform t;
    assert_ok(ts_body_get_transform(body, &t));
    assert_true(t.p.y < 19.0f);
    /* straight down onto each shape's top: sphere top at y + 0.5, box top at y + 0.5 */
    ts_cast_hit hit = cast(world, (ts_vec3){t.p.x - 1.0f, 30, t.p.z}, (ts_vec3){0, -1, 0}, 20.0f);
    assert_true(hit.hit);
    assert_int_equal(hit.shape.index1, sphere.index1);
    assert_int_equal(hit.body.index1, body.index1);
    assert_near(hit.point.y, t.p.y + 0.5, 1e-4);
    hit = cast(world, (ts_vec3){t.p.x + 1.0f, 30, t.p.z}, (ts_vec3){0, -1, 0}, 20.0f);
    assert_true(hit.hit);
    assert_int_equal(hit.shape.index1, box.index1);
    assert_near(hit.point.y, t.p.y + 0.5, 1e-4);
    assert_near(hit.normal.y, 1.0, 1e-5);
    ts_destroy_world(world);
}

static bool reject_first(ts_shape_id shape, void *context)
{
    return shape.index1 != ((const ts_shape_id *)context)->index1;
}

static int each_count;
static bool count_each(const ts_cast_hit *hit, void *context)
{
    (void)context;
    assert_true(hit->hit);
    each_count += 1;
    return true;
}

/* Five unit spheres on the x axis at x = 2, 4, ..., 10, categories 1, 2, 1,
 * 2, 1; the fifth a sensor. Filters by mask and by callback; any, each and
 * all (sorted; a too-small buffer returns TS_ERROR_CAPACITY with the count
 * and the nearest hits). */
static void test_filters_and_all_hits(void **state)
{
    (void)state;
    ts_world_id world = empty_world();
    ts_shape_id ids[5];
    for (int i = 0; i < 5; ++i) {
        ts_body_def bd = ts_default_body_def();
        bd.position = (ts_vec3){2.0f * (float)(i + 1), 0, 0};
        ts_body_id body = ts_create_body(world, &bd);
        ts_shape_def sd = ts_default_shape_def();
        sd.filter.category_bits = i % 2 == 0 ? 1u : 2u;
        sd.is_sensor = i == 4;
        ids[i] = ts_create_sphere_shape(body, &sd, &(ts_sphere){0.5f});
        assert_false(ts_shape_id_is_null(ids[i]));
    }
    ts_vec3 o = {0, 0, 0}, d = {1, 0, 0};
    ts_cast_hit hit = cast(world, o, d, 20.0f);
    assert_int_equal(hit.shape.index1, ids[0].index1);
    /* mask 2: the second sphere */
    ts_query_filter filter = ts_default_query_filter();
    filter.mask_bits = 2u;
    assert_ok(ts_world_cast_ray(world, o, d, 20.0f, &filter, &hit));
    assert_int_equal(hit.shape.index1, ids[1].index1);
    assert_near(hit.fraction, 3.5 / 20.0, 1e-6);
    /* a callback that rejects the first */
    filter = ts_default_query_filter();
    filter.fn = reject_first;
    filter.context = &ids[0];
    assert_ok(ts_world_cast_ray(world, o, d, 20.0f, &filter, &hit));
    assert_int_equal(hit.shape.index1, ids[1].index1);
    /* any: some sphere of the four */
    assert_ok(ts_world_cast_ray_any(world, o, d, 20.0f, NULL, &hit));
    assert_true(hit.hit && hit.shape.index1 != ids[4].index1);
    /* each: four (the sensor is never reported) */
    each_count = 0;
    assert_ok(ts_world_cast_ray_each(world, o, d, 20.0f, NULL, count_each, NULL));
    assert_int_equal(each_count, 4);
    /* all, sorted by fraction */
    ts_cast_hit hits[4];
    int count = -1;
    assert_ok(ts_world_cast_ray_all(world, o, d, 20.0f, NULL, hits, 4, &count));
    assert_int_equal(count, 4);
    for (int i = 0; i < 4; ++i) {
        assert_int_equal(hits[i].shape.index1, ids[i].index1);
        assert_near(hits[i].fraction, (2.0 * (i + 1) - 0.5) / 20.0, 1e-6);
    }
    /* counting only */
    assert_ok(ts_world_cast_ray_all(world, o, d, 20.0f, NULL, NULL, 0, &count));
    assert_int_equal(count, 4);
    /* too small: the two nearest, the count needed, and an error */
    ts_cast_hit two[2];
    assert_int_equal(ts_world_cast_ray_all(world, o, d, 20.0f, NULL, two, 2, &count), TS_ERROR_CAPACITY);
    assert_int_equal(count, 4);
    assert_int_equal(two[0].shape.index1, ids[0].index1);
    assert_int_equal(two[1].shape.index1, ids[1].index1);
    assert_non_null(strstr(ts_last_error(), "capacity"));
    ts_destroy_world(world);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sphere_rays),
        cmocka_unit_test(test_box_rays),
        cmocka_unit_test(test_capsule_rays),
        cmocka_unit_test(test_grazing_box),
        cmocka_unit_test(test_grazing_round_and_rotated),
        cmocka_unit_test(test_inside_rule),
        cmocka_unit_test(test_compound_after_steps),
        cmocka_unit_test(test_filters_and_all_hits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
