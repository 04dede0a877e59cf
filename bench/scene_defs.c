/* The benchmark scenes, exactly as shared/scenes.md defines them, as pure
 * functions of their parameters. Bodies are appended in the order scenes.md
 * gives, static bodies (ground, walls) first, so that every engine builds the
 * same bodies in the same order. No randomness. */
#include "scene_defs.h"

#include <math.h>

static const scene_vec3 unit_half = {0.5f, 0.5f, 0.5f};

static void add_box(scene_desc *d, float x, float y, float z, float half, float density)
{
    scene_body body = scene_default_box((scene_vec3){x, y, z}, (scene_vec3){half, half, half}, density);
    scene_add_body(d, &body);
}

/* free_fall (bench only): N unit boxes in columns of 50 x 50, 2 m apart,
 * then layers upward, each spinning at its own fixed rate, no ground, and
 * filtered to touch nothing: it times body integration (and the broadphase
 * keeping up with N falling proxies), with no pairs. */
void scene_define_free_fall(const scene_params *p, scene_desc *d)
{
    for (int n = 0; n < p->count; ++n) {
        int i = n % 50, k = (n / 50) % 50, layer = n / 2500;
        scene_vec3 at = {2.0f * (float)i - 49.0f, 2.0f + 2.0f * (float)layer, 2.0f * (float)k - 49.0f};
        scene_body body = scene_default_box(at, unit_half, 1.0f);
        body.angular_velocity = (scene_vec3){0.1f * (float)(n % 7), 0.2f * (float)(n % 5), 0.3f * (float)(n % 3)};
        body.shape.mask_bits = 0;
        scene_add_body(d, &body);
    }
}

/* One single-plane pyramid of base b, boxes of half-extent e, shifted by
 * offset_x (x) and at depth z; row r box j at
 * x = (r + 1) e + 2 (j - r) e + offset_x, y = (2 r + 1) e. The top box is last. */
static void add_plane_pyramid(scene_desc *d, int b, float e, float offset_x, float z)
{
    for (int r = 0; r < b; ++r) {
        for (int j = r; j < b; ++j) {
            float x = (float)(r + 1) * e + 2.0f * (float)(j - r) * e + offset_x;
            add_box(d, x, (float)(2 * r + 1) * e, z, e, 100.0f);
        }
    }
}

/* large_pyramid: B(B+1)/2 boxes (h = 0.5, density 100) at z = 0; ground (400, 1, 400). */
void scene_define_large_pyramid(const scene_params *p, scene_desc *d)
{
    const float h = 0.5f;
    scene_add_static_box(d, (scene_vec3){0.0f, -1.0f, 0.0f}, (scene_vec3){400.0f, 1.0f, 400.0f});
    d->first_dynamic = d->body_count;
    add_plane_pyramid(d, p->base, h, -(float)p->base * h, 0.0f);
}

/* large_pyramid_2d: large_pyramid in a planar world (2D: every box kept in
 * the x-y plane, turning about z alone), as Box2D's large_pyramid runs. */
void scene_define_large_pyramid_2d(const scene_params *p, scene_desc *d)
{
    scene_define_large_pyramid(p, d);
    d->planar = true;
}

/* pyramid_3d: layer k is a (B - k) x (B - k) grid of unit boxes at y = 0.5 + k. */
void scene_define_pyramid_3d(const scene_params *p, scene_desc *d)
{
    scene_add_static_box(d, (scene_vec3){0.0f, -1.0f, 0.0f}, (scene_vec3){200.0f, 1.0f, 200.0f});
    d->first_dynamic = d->body_count;
    for (int k = 0; k < p->base; ++k) {
        int n = p->base - k;
        float centre = 0.5f * (float)(n - 1);
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                add_box(d, (float)i - centre, 0.5f + (float)k, (float)j - centre, 0.5f, 1.0f);
            }
        }
    }
}

/* many_pyramids: G x G large_pyramids of base B on a ground of half-extent
 * E = e G (B + 1); pyramid (row p, column q) by scenes.md's formulas. */
void scene_define_many_pyramids(const scene_params *p, scene_desc *d)
{
    const float e = 0.5f;
    const int g = p->grid, b = p->base;
    const float big_e = e * (float)g * (float)(b + 1);
    const float spacing = 2.0f * (big_e - 2.0f * e) / (float)(g - 1);
    scene_add_static_box(d, (scene_vec3){0.0f, -1.0f, 0.0f}, (scene_vec3){big_e, 1.0f, big_e});
    d->first_dynamic = d->body_count;
    d->group_size = b * (b + 1) / 2;
    for (int row = 0; row < g; ++row) {
        float z = -big_e + 2.0f * e + (float)row * spacing;
        for (int col = 0; col < g; ++col) {
            float centre_x = -big_e + (float)col * (2.0f * e * (float)b + 2.0f * e) + 2.0f * e;
            add_plane_pyramid(d, b, e, centre_x - 0.5f, z);
        }
    }
}

/* wide_pyramid: layer i holds the 2 m cubes with j, k in
 * [floor(i/2), H - floor((i+1)/2)), 0.5 m gaps between layers; ground (50, 1, 50). */
void scene_define_wide_pyramid(const scene_params *p, scene_desc *d)
{
    const int h = p->height;
    scene_add_static_box(d, (scene_vec3){0.0f, -1.0f, 0.0f}, (scene_vec3){50.0f, 1.0f, 50.0f});
    d->first_dynamic = d->body_count;
    for (int i = 0; i < h; ++i) {
        float s = (i % 2) ? 1.0f : 0.0f;
        for (int j = i / 2; j < h - (i + 1) / 2; ++j) {
            for (int k = i / 2; k < h - (i + 1) / 2; ++k) {
                add_box(d, (float)(-h + 2 * j) + s, 1.0f + 2.5f * (float)i, (float)(-h + 2 * k) + s, 1.0f, 1.0f);
            }
        }
    }
}

/* pile: ground and four walls, then N bodies in a 10 x 10 lattice of columns
 * (x fastest, then z, then y): even n a unit box turned n * 0.37 rad about
 * normalize(1, 1, 1), odd n a sphere of radius 0.5. */
void scene_define_pile(const scene_params *p, scene_desc *d)
{
    scene_add_static_box(d, (scene_vec3){0.0f, -1.0f, 0.0f}, (scene_vec3){200.0f, 1.0f, 200.0f});
    scene_add_static_box(d, (scene_vec3){10.5f, 10.0f, 0.0f}, (scene_vec3){0.5f, 10.0f, 10.0f});
    scene_add_static_box(d, (scene_vec3){-10.5f, 10.0f, 0.0f}, (scene_vec3){0.5f, 10.0f, 10.0f});
    scene_add_static_box(d, (scene_vec3){0.0f, 10.0f, 10.5f}, (scene_vec3){10.0f, 10.0f, 0.5f});
    scene_add_static_box(d, (scene_vec3){0.0f, 10.0f, -10.5f}, (scene_vec3){10.0f, 10.0f, 0.5f});
    d->first_dynamic = d->body_count;
    const float axis = 0.57735027f; /* 1 / sqrt(3) */
    for (int n = 0; n < p->count; ++n) {
        int i = n % 10, k = (n / 10) % 10, layer = n / 100;
        scene_vec3 at = {((float)i - 4.5f) * 1.5f, 2.0f + 1.5f * (float)layer, ((float)k - 4.5f) * 1.5f};
        scene_body body = n % 2 == 0 ? scene_default_box(at, unit_half, 1.0f) : scene_default_sphere(at, 0.5f, 1.0f);
        if (n % 2 == 0) {
            float half = 0.5f * 0.37f * (float)n;
            float s = sinf(half);
            body.rotation = (scene_quat){s * axis, s * axis, s * axis, cosf(half)};
        }
        scene_add_body(d, &body);
    }
}

/* joint_grid: S x S spheres (radius 0.4) at (k, -i, 0), row 0 static, ball
 * joints to the body above and to the left neighbour, spheres filtered from
 * each other, no ground. Body index = k * S + i. Joints follow scenes.md
 * literally, so row 0 also has its S - 1 static-static joints (2 S (S - 1)
 * joints in all); builders may skip those, they constrain nothing. */
void scene_define_joint_grid(const scene_params *p, scene_desc *d)
{
    const int s = p->side;
    d->first_dynamic = 0;
    for (int k = 0; k < s; ++k) {
        for (int i = 0; i < s; ++i) {
            scene_body body = scene_default_sphere((scene_vec3){(float)k, -(float)i, 0.0f}, 0.4f, 1.0f);
            body.type = i == 0 ? SCENE_STATIC : SCENE_DYNAMIC;
            body.shape.category_bits = 2;
            body.shape.mask_bits = ~(uint64_t)2;
            int index = scene_add_body(d, &body);
            if (i > 0) {
                scene_add_joint(d, &(scene_joint){index - 1, index, {0.0f, -0.5f, 0.0f}, {0.0f, 0.5f, 0.0f}});
            }
            if (k > 0) {
                scene_add_joint(d, &(scene_joint){index - s, index, {0.5f, 0.0f, 0.0f}, {-0.5f, 0.0f, 0.0f}});
            }
        }
    }
}

/* sleep_field: K stacks of 10 unit boxes, stack k at x = (k mod 40) 3,
 * z = (k div 40) 3, sleeping on. The standard ground (half-extent 200)
 * holds K <= 2,680 (67 rows); past that it grows to hold every row (K =
 * 10,000: 250 rows, z up to 747 m), so that no stack falls off its edge. */
void scene_define_sleep_field(const scene_params *p, scene_desc *d)
{
    d->sleep = true;
    int rows = (p->stacks + 39) / 40;
    float reach = 3.0f * (float)rows + 3.0f;
    float half = reach > 200.0f ? reach : 200.0f;
    scene_add_static_box(d, (scene_vec3){0.0f, -1.0f, 0.0f}, (scene_vec3){half, 1.0f, half});
    d->first_dynamic = d->body_count;
    d->group_size = 10;
    for (int k = 0; k < p->stacks; ++k) {
        for (int level = 0; level < 10; ++level) {
            add_box(d, (float)(k % 40) * 3.0f, 0.5f + (float)level, (float)(k / 40) * 3.0f, 0.5f, 1.0f);
        }
    }
}
