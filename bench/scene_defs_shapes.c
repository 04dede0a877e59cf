/* The scenes of shared/scenes.md made of hulls and meshes: convex_pile and
 * mesh_terrain (see scene_defs.c for the others). */
#include "scene_defs.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* A draw of the convex_pile generator: state = state * 2147001325 +
 * 715136305 (wrapping), then ((state & 0xffff) / 65535) - 0.5. */
static float pile_draw(uint32_t *state)
{
    *state = *state * 2147001325u + 715136305u;
    return (float)(*state & 0xffffu) / 65535.0f - 0.5f;
}

void scene_convex_pile_points(scene_vec3 out[SCENE_PILE_POINTS], float radius)
{
    uint32_t state = 42u;
    for (int i = 0; i < SCENE_PILE_POINTS; ++i) {
        float x, y, z, length_sq;
        do {
            x = pile_draw(&state);
            y = pile_draw(&state);
            z = pile_draw(&state);
            length_sq = x * x + y * y + z * z;
        } while (length_sq > 0.25f);
        float inv = 1.0f / sqrtf(length_sq); /* normalised as Box3D's benchmark does: v * (1 / |v|) */
        out[i] = (scene_vec3){radius * (x * inv), radius * (y * inv), radius * (z * inv)};
    }
}

static scene_body hull_body(scene_vec3 at, int geometry, float density)
{
    scene_body body = scene_default_sphere(at, 1.0f, density);
    body.shape.type = SCENE_HULL;
    body.shape.radius = 0.0f;
    body.shape.geometry = geometry;
    return body;
}

/* convex_pile: L layers of 8 x 8 hulls of 32 points on a 2 m sphere
 * (density 1000) on a ground box of half-extents (250, 1, 250). */
void scene_define_convex_pile(const scene_params *p, scene_desc *d)
{
    scene_add_static_box(d, (scene_vec3){0.0f, -1.0f, 0.0f}, (scene_vec3){250.0f, 1.0f, 250.0f});
    d->first_dynamic = d->body_count;
    scene_vec3 points[SCENE_PILE_POINTS];
    scene_convex_pile_points(points, 2.0f);
    int hull = scene_add_geometry(d, points, SCENE_PILE_POINTS, NULL, 0);
    for (int l = 0; l < p->layers; ++l) {
        for (int k = 0; k < 8; ++k) {
            for (int i = 0; i < 8; ++i) {
                scene_vec3 at = {(float)(i - 4) * 4.0f, 2.0f + 4.0f * (float)l, (float)(k - 4) * 4.0f};
                scene_body body = hull_body(at, hull, 1000.0f);
                scene_add_body(d, &body);
            }
        }
    }
}

float scene_terrain_height(float x, float z) { return 2.0f * sinf(x / 5.0f) * cosf(z / 5.0f); }

/* mesh_terrain: the terrain mesh (101 x 101 vertices over [-50, 50]^2,
 * vertex (i, k) at index k 101 + i, each cell split along (i, k) -> (i + 1,
 * k + 1), counter-clockwise from above), then N bodies in a 20 x 20 lattice
 * of columns 4 m apart, layers 3 m apart from y = 8, cycling through a unit
 * box, a sphere of radius 0.5, a capsule of radius 0.3 and length 1 along
 * x, and the convex_pile hull at radius 0.6. */
void scene_define_mesh_terrain(const scene_params *p, scene_desc *d)
{
    const int n = SCENE_TERRAIN_SIDE;
    scene_vec3 *vertices = malloc(sizeof(scene_vec3) * (size_t)(n * n));
    int32_t *indices = malloc(sizeof(int32_t) * (size_t)(6 * (n - 1) * (n - 1)));
    if (vertices == NULL || indices == NULL) {
        abort();
    }
    for (int k = 0; k < n; ++k) {
        for (int i = 0; i < n; ++i) {
            float x = -50.0f + (float)i, z = -50.0f + (float)k;
            vertices[k * n + i] = (scene_vec3){x, scene_terrain_height(x, z), z};
        }
    }
    int t = 0;
    for (int k = 0; k + 1 < n; ++k) {
        for (int i = 0; i + 1 < n; ++i) {
            int32_t v00 = k * n + i, v10 = v00 + 1, v01 = v00 + n, v11 = v01 + 1;
            int32_t tris[6] = {v00, v01, v11, v00, v11, v10};
            for (int j = 0; j < 6; ++j) {
                indices[t++] = tris[j];
            }
        }
    }
    int terrain = scene_add_geometry(d, vertices, n * n, indices, 2 * (n - 1) * (n - 1));
    free(vertices);
    free(indices);
    scene_body ground = scene_default_box((scene_vec3){0.0f, 0.0f, 0.0f}, (scene_vec3){1.0f, 1.0f, 1.0f}, 1.0f);
    ground.type = SCENE_STATIC;
    ground.shape.type = SCENE_MESH;
    ground.shape.geometry = terrain;
    scene_add_body(d, &ground);

    d->first_dynamic = d->body_count;
    scene_vec3 points[SCENE_PILE_POINTS];
    scene_convex_pile_points(points, 0.6f);
    int hull = scene_add_geometry(d, points, SCENE_PILE_POINTS, NULL, 0);
    const scene_quat along_x = {0.0f, 0.0f, 0.70710678f, 0.70710678f}; /* y turned onto -x */
    for (int m = 0; m < p->count; ++m) {
        int i = m % 20, k = (m / 20) % 20, layer = m / 400;
        scene_vec3 at = {((float)i - 9.5f) * 4.0f, 8.0f + 3.0f * (float)layer, ((float)k - 9.5f) * 4.0f};
        scene_body body;
        switch (m % 4) {
        case 0: body = scene_default_box(at, (scene_vec3){0.5f, 0.5f, 0.5f}, 1.0f); break;
        case 1: body = scene_default_sphere(at, 0.5f, 1.0f); break;
        case 2:
            body = scene_default_sphere(at, 0.3f, 1.0f);
            body.shape.type = SCENE_CAPSULE;
            body.shape.half_height = 0.5f;
            body.rotation = along_x;
            break;
        default: body = hull_body(at, hull, 1.0f); break;
        }
        scene_add_body(d, &body);
    }
}
