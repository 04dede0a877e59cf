/* The quality checks of convex_pile and mesh_terrain (shared/scenes.md);
 * the others are in scene_quality.c. */
#include "scene_quality.h"

#include <math.h>
#include <stdio.h>

static bool finite_state(const body_state *s)
{
    const float f[13] = {s->p.x, s->p.y, s->p.z, s->q.x, s->q.y, s->q.z, s->q.w,
                         s->v.x, s->v.y, s->v.z, s->w.x, s->w.y, s->w.z};
    for (int i = 0; i < 13; ++i) {
        if (!isfinite(f[i])) {
            return false;
        }
    }
    return true;
}

static float speed(const body_state *s) { return sqrtf(s->v.x * s->v.x + s->v.y * s->v.y + s->v.z * s->v.z); }

/* convex_pile at step 500: every hull centre above y = 0, none non-finite,
 * mean speed below 0.5 m/s. */
void quality_convex_pile(const quality_input *in, quality_result *r)
{
    const scene_desc *d = in->desc;
    bool finite = true;
    float min_y = INFINITY;
    double mean = 0.0;
    int n = 0;
    for (int i = d->first_dynamic; i < d->body_count; ++i) {
        const body_state *b = &in->states[i];
        finite = finite && finite_state(b);
        min_y = fminf(min_y, b->p.y);
        mean += speed(b);
        ++n;
    }
    mean = n > 0 ? mean / n : 0.0;
    r->evaluated = true;
    r->pass = finite && min_y > 0.0f && mean < 0.5;
    r->figure = mean;
    r->figure_name = "mean_speed_m_per_s";
    r->figure_count = 2;
    r->figure_names[0] = "mean_speed_m_per_s";
    r->figures[0] = mean;
    r->figure_names[1] = "min_y_m";
    r->figures[1] = min_y;
    snprintf(r->detail, sizeof(r->detail),
             "mean hull speed %.4g m/s (pass < 0.5), lowest hull centre y = %.4g (pass > 0), %s, after %d steps",
             mean, min_y, finite ? "all finite" : "NOT FINITE", in->steps);
}

/* The terrain mesh's surface height at (x, z): the plane of the triangle
 * of cell (i, k) under the point (split along (i, k) -> (i + 1, k + 1)),
 * from the mesh's own vertices. NAN off the mesh. */
static float surface_height(const scene_geometry *g, float x, float z)
{
    const int n = SCENE_TERRAIN_SIDE;
    float fx = x + 50.0f, fz = z + 50.0f;
    if (!(fx >= 0.0f && fz >= 0.0f && fx <= (float)(n - 1) && fz <= (float)(n - 1))) {
        return NAN;
    }
    int i = (int)fx < n - 1 ? (int)fx : n - 2;
    int k = (int)fz < n - 1 ? (int)fz : n - 2;
    float u = fx - (float)i, w = fz - (float)k;
    float h00 = g->points[k * n + i].y, h10 = g->points[k * n + i + 1].y;
    float h01 = g->points[(k + 1) * n + i].y, h11 = g->points[(k + 1) * n + i + 1].y;
    /* w >= u: triangle (00, 01, 11); else (00, 11, 10) */
    return w >= u ? h00 + w * (h01 - h00) + u * (h11 - h01) : h00 + u * (h10 - h00) + w * (h11 - h10);
}

/* mesh_terrain at step 600: every body's centre above the terrain's surface
 * at its x, z (and over the terrain), none non-finite, mean speed below
 * 0.2 m/s. */
void quality_mesh_terrain(const quality_input *in, quality_result *r)
{
    const scene_desc *d = in->desc;
    const scene_geometry *terrain = d->geometry_count > 0 ? &d->geometries[0] : NULL;
    bool finite = true;
    float clearance = INFINITY; /* the least height of a centre above the surface */
    double mean = 0.0;
    int n = 0, below = 0;
    for (int i = d->first_dynamic; i < d->body_count; ++i) {
        const body_state *b = &in->states[i];
        finite = finite && finite_state(b);
        float h = terrain != NULL ? surface_height(terrain, b->p.x, b->p.z) : NAN;
        float above = isnan(h) ? -INFINITY : b->p.y - h;
        clearance = fminf(clearance, above);
        below += !(above > 0.0f);
        mean += speed(b);
        ++n;
    }
    mean = n > 0 ? mean / n : 0.0;
    r->evaluated = true;
    r->pass = finite && below == 0 && mean < 0.2;
    r->figure = mean;
    r->figure_name = "mean_speed_m_per_s";
    r->figure_count = 3;
    r->figure_names[0] = "mean_speed_m_per_s";
    r->figures[0] = mean;
    r->figure_names[1] = "min_clearance_m";
    r->figures[1] = clearance;
    r->figure_names[2] = "below_count";
    r->figures[2] = below;
    snprintf(r->detail, sizeof(r->detail),
             "mean body speed %.4g m/s (pass < 0.2), %d bodies under the terrain or off it (pass 0), least centre "
             "height above the surface %.4g m, %s, after %d steps",
             mean, below, clearance, finite ? "all finite" : "NOT FINITE", in->steps);
}
