/* The quality checks of shared/scenes.md over final body states. A state
 * that is not finite fails every check. */
#include "scene_quality.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static float length3(scene_vec3 a)
{
    return sqrtf(a.x * a.x + a.y * a.y + a.z * a.z);
}

static scene_vec3 sub3(scene_vec3 a, scene_vec3 b)
{
    return (scene_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

/* q * v * conj(q) for a unit quaternion. */
static scene_vec3 rotate(scene_quat q, scene_vec3 v)
{
    scene_vec3 u = {q.x, q.y, q.z};
    scene_vec3 t = {2.0f * (u.y * v.z - u.z * v.y), 2.0f * (u.z * v.x - u.x * v.z), 2.0f * (u.x * v.y - u.y * v.x)};
    return (scene_vec3){v.x + q.w * t.x + (u.y * t.z - u.z * t.y), v.y + q.w * t.y + (u.z * t.x - u.x * t.z),
                        v.z + q.w * t.z + (u.x * t.y - u.y * t.x)};
}

static bool state_is_finite(const body_state *s)
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

/* Lowest centre, mean speed and finiteness over the dynamic bodies. */
typedef struct state_summary {
    float min_y;
    float max_abs_xz;
    double mean_speed;
    bool finite;
} state_summary;

static state_summary summarize(const quality_input *in)
{
    state_summary s = {INFINITY, 0.0f, 0.0, true};
    int n = 0;
    for (int i = in->desc->first_dynamic; i < in->desc->body_count; ++i) {
        const body_state *b = &in->states[i];
        if (in->desc->bodies[i].type != SCENE_DYNAMIC) {
            continue;
        }
        s.finite = s.finite && state_is_finite(b);
        s.min_y = fminf(s.min_y, b->p.y);
        s.max_abs_xz = fmaxf(s.max_abs_xz, fmaxf(fabsf(b->p.x), fabsf(b->p.z)));
        s.mean_speed += length3(b->v);
        ++n;
    }
    s.mean_speed = n > 0 ? s.mean_speed / n : 0.0;
    return s;
}

static void set_result(quality_result *r, bool pass, double figure, const char *name)
{
    r->evaluated = true;
    r->pass = pass;
    r->figure = figure;
    r->figure_name = name;
}

static void add_figure(quality_result *r, const char *name, double value)
{
    if (r->figure_count < QUALITY_MAX_FIGURES) {
        r->figure_names[r->figure_count] = name;
        r->figures[r->figure_count++] = value;
    }
}

void quality_free_fall(const quality_input *in, quality_result *r)
{
    const float t = (float)in->steps * in->dt;
    const scene_vec3 g = in->desc->gravity;
    float worst = 0.0f;
    bool finite = true;
    for (int i = 0; i < in->desc->body_count; ++i) {
        const scene_body *b = &in->desc->bodies[i];
        scene_vec3 exact = b->position;
        if (b->type == SCENE_DYNAMIC) {
            exact.x += b->linear_velocity.x * t + 0.5f * g.x * t * t;
            exact.y += b->linear_velocity.y * t + 0.5f * g.y * t * t;
            exact.z += b->linear_velocity.z * t + 0.5f * g.z * t * t;
        }
        finite = finite && state_is_finite(&in->states[i]);
        worst = fmaxf(worst, length3(sub3(in->states[i].p, exact)));
    }
    /* Semi-implicit Euler with a step h lags the parabola by g t h / 2; any
     * substep count keeps h <= dt, so g t dt bounds it with room to spare. */
    float bound = length3(g) * t * in->dt;
    set_result(r, finite && worst <= bound, worst, "max_position_error_m");
    snprintf(r->detail, sizeof(r->detail), "largest distance from the exact parabola %.4g m after %.2f s (pass <= %.3g m)",
             worst, t, bound);
}

void quality_track_reset(quality_track *t)
{
    *t = (quality_track){0, INFINITY, 0.0f, true};
}

void quality_track_step(quality_track *t, const scene_desc *desc, const scene_vec3 *positions)
{
    for (int i = desc->first_dynamic; i < desc->body_count; ++i) {
        if (desc->bodies[i].type != SCENE_DYNAMIC) {
            continue;
        }
        scene_vec3 p = positions[i];
        t->finite = t->finite && isfinite(p.x) && isfinite(p.y) && isfinite(p.z);
        t->min_y = fminf(t->min_y, p.y);
        t->max_plane_offset = fmaxf(t->max_plane_offset, fabsf(p.z - desc->bodies[i].position.z));
    }
    t->steps += 1;
}

/* The largest top-box displacement over the pyramids (consecutive groups of
 * group_size bodies, each group's last body its top). */
static float top_displacement(const quality_input *in, int *groups)
{
    const scene_desc *d = in->desc;
    int dynamic = d->body_count - d->first_dynamic;
    int size = d->group_size > 0 ? d->group_size : dynamic;
    float worst = 0.0f;
    *groups = 0;
    for (int first = d->first_dynamic; size > 0 && first + size <= d->body_count; first += size, ++*groups) {
        int top = first + size - 1;
        worst = fmaxf(worst, length3(sub3(in->states[top].p, d->bodies[top].position)));
    }
    return worst;
}

/* The base B of a pyramid of B (B + 1) / 2 boxes. */
static int pyramid_base(int boxes)
{
    int b = 0;
    while ((b + 1) * (b + 2) / 2 <= boxes) {
        ++b;
    }
    return b;
}

/* scenes.md's "stands" for single-plane pyramids: every box centre above
 * y = 0.4 and within 0.05 m of its pyramid's plane at every step, the top box
 * within max(0.1, 0.1 (B / 30)^2) m of its start (a soft contact's sag grows
 * as B^2), and the mean box speed at the end below 0.05 m/s. */
void quality_planar_pyramids(const quality_input *in, quality_result *r)
{
    const scene_desc *d = in->desc;
    int groups;
    float sag = top_displacement(in, &groups);
    int dynamic = d->body_count - d->first_dynamic;
    int base = pyramid_base(d->group_size > 0 ? d->group_size : dynamic);
    float ratio = (float)base / 30.0f;
    float bound = fmaxf(0.1f, 0.1f * ratio * ratio);
    state_summary s = summarize(in);
    quality_track end;
    quality_track_reset(&end);
    scene_vec3 *positions = malloc(sizeof(scene_vec3) * (size_t)(d->body_count > 0 ? d->body_count : 1));
    for (int i = 0; i < d->body_count; ++i) {
        positions[i] = in->states[i].p;
    }
    quality_track_step(&end, d, positions);
    free(positions);
    const quality_track *t = in->track != NULL && in->track->steps > 0 ? in->track : &end;
    float min_y = fminf(t->min_y, end.min_y);
    float plane = fmaxf(t->max_plane_offset, end.max_plane_offset);
    bool pass = s.finite && t->finite && min_y > 0.4f && plane < 0.05f && sag < bound && s.mean_speed < 0.05;
    set_result(r, pass, sag, "sag_m");
    add_figure(r, "sag_m", sag);
    add_figure(r, "max_plane_offset_m", plane);
    add_figure(r, "mean_speed_m_per_s", s.mean_speed);
    add_figure(r, "min_y_m", min_y);
    snprintf(r->detail, sizeof(r->detail),
             "top box moved %.4g m (largest of %d pyramids; pass < %.3g), largest |z| off its plane %.4g m "
             "(pass < 0.05), lowest centre %.4g (pass > 0.4) over %d steps, mean speed %.3g m/s (pass < 0.05)",
             sag, groups, bound, plane, min_y, t->steps, s.mean_speed);
}

/* pyramid_3d: after the run every box centre above y = 0.4 and the top box
 * within 0.1 m of its start. */
void quality_pyramid_3d(const quality_input *in, quality_result *r)
{
    int groups;
    float moved = top_displacement(in, &groups);
    state_summary s = summarize(in);
    set_result(r, s.finite && moved < 0.1f && s.min_y > 0.4f, moved, "top_displacement_m");
    add_figure(r, "top_displacement_m", moved);
    add_figure(r, "min_y_m", s.min_y);
    snprintf(r->detail, sizeof(r->detail),
             "top box moved %.4g m (pass < 0.1), lowest box centre y = %.4g (pass > 0.4) after %d steps", moved,
             s.min_y, in->steps);
}

void quality_wide_pyramid(const quality_input *in, quality_result *r)
{
    state_summary s = summarize(in);
    set_result(r, s.finite && s.min_y > 0.9f && s.mean_speed < 0.05, s.mean_speed, "mean_speed_m_per_s");
    add_figure(r, "mean_speed_m_per_s", s.mean_speed);
    add_figure(r, "min_y_m", s.min_y);
    snprintf(r->detail, sizeof(r->detail),
             "mean cube speed %.4g m/s (pass < 0.05), lowest cube centre y = %.4g (pass > 0.9) after %d steps",
             s.mean_speed, s.min_y, in->steps);
}

/* pile: nothing below the ground or non-finite, at most 10 bodies (0.25%
 * of 4,000) outside the bin, mean speed below 0.1 m/s. */
void quality_pile(const quality_input *in, quality_result *r)
{
    state_summary s = summarize(in);
    int outside = 0;
    for (int i = in->desc->first_dynamic; i < in->desc->body_count; ++i) {
        const body_state *b = &in->states[i];
        outside += in->desc->bodies[i].type == SCENE_DYNAMIC && (fabsf(b->p.x) >= 10.0f || fabsf(b->p.z) >= 10.0f);
    }
    bool pass = s.finite && s.min_y > 0.0f && outside <= 10 && s.mean_speed < 0.1;
    set_result(r, pass, s.mean_speed, "mean_speed_m_per_s");
    add_figure(r, "mean_speed_m_per_s", s.mean_speed);
    add_figure(r, "outside_count", outside);
    add_figure(r, "min_y_m", s.min_y);
    snprintf(r->detail, sizeof(r->detail),
             "mean body speed %.4g m/s (pass < 0.1), %d bodies outside the bin (pass <= 10), lowest y %.4g "
             "(pass > 0) after %d steps", s.mean_speed, outside, s.min_y, in->steps);
}

void quality_joint_grid(const quality_input *in, quality_result *r)
{
    float worst = 0.0f;
    bool finite = true;
    for (int j = 0; j < in->desc->joint_count; ++j) {
        const scene_joint *joint = &in->desc->joints[j];
        const body_state *a = &in->states[joint->body_a];
        const body_state *b = &in->states[joint->body_b];
        finite = finite && state_is_finite(a) && state_is_finite(b);
        scene_vec3 pa = rotate(a->q, joint->local_anchor_a);
        scene_vec3 pb = rotate(b->q, joint->local_anchor_b);
        scene_vec3 gap = sub3((scene_vec3){a->p.x + pa.x, a->p.y + pa.y, a->p.z + pa.z},
                              (scene_vec3){b->p.x + pb.x, b->p.y + pb.y, b->p.z + pb.z});
        worst = fmaxf(worst, length3(gap));
    }
    set_result(r, finite && worst < 0.1f, worst, "max_joint_gap_m");
    snprintf(r->detail, sizeof(r->detail), "largest joint anchor gap %.4g m over %d joints (pass < 0.1) after %d steps",
             worst, in->desc->joint_count, in->steps);
}

void quality_sleep_field(const quality_input *in, quality_result *r)
{
    double cost = in->ms_empty_step > 0.0 ? in->ms_step / in->ms_empty_step : 0.0;
    state_summary s = summarize(in);
    set_result(r, s.finite && in->awake_count == 0, cost, "sleep_cost_ratio");
    snprintf(r->detail, sizeof(r->detail),
             "step %.4g ms / empty world %.4g ms = %.3g (goal: near 1); %d dynamic bodies awake (pass: 0)",
             in->ms_step, in->ms_empty_step, cost, in->awake_count);
}
