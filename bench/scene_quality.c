/* The quality checks of shared/scenes.md over final body states. A state
 * that is not finite fails every check. */
#include "scene_quality.h"

#include <math.h>
#include <stdio.h>

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

void quality_pyramids(const quality_input *in, quality_result *r)
{
    const scene_desc *d = in->desc;
    int dynamic = d->body_count - d->first_dynamic;
    int size = d->group_size > 0 ? d->group_size : dynamic;
    float worst = 0.0f;
    int groups = 0;
    for (int first = d->first_dynamic; size > 0 && first + size <= d->body_count; first += size, ++groups) {
        int top = first + size - 1;
        worst = fmaxf(worst, length3(sub3(in->states[top].p, d->bodies[top].position)));
    }
    state_summary s = summarize(in);
    set_result(r, s.finite && worst < 0.1f && s.min_y > 0.4f, worst, "top_displacement_m");
    snprintf(r->detail, sizeof(r->detail),
             "top box moved %.4g m (largest of %d pyramids; pass < 0.1), lowest box centre y = %.4g (pass > 0.4) "
             "after %d steps", worst, groups, s.min_y, in->steps);
}

void quality_wide_pyramid(const quality_input *in, quality_result *r)
{
    state_summary s = summarize(in);
    set_result(r, s.finite && s.min_y > 0.9f && s.mean_speed < 0.05, s.mean_speed, "mean_speed_m_per_s");
    snprintf(r->detail, sizeof(r->detail),
             "mean cube speed %.4g m/s (pass < 0.05), lowest cube centre y = %.4g (pass > 0.9) after %d steps",
             s.mean_speed, s.min_y, in->steps);
}

void quality_pile(const quality_input *in, quality_result *r)
{
    state_summary s = summarize(in);
    bool inside = s.max_abs_xz < 10.0f && s.min_y > 0.0f;
    set_result(r, s.finite && inside && s.mean_speed < 0.1, s.mean_speed, "mean_speed_m_per_s");
    snprintf(r->detail, sizeof(r->detail),
             "mean body speed %.4g m/s (pass < 0.1), largest |x|,|z| %.4g (pass < 10), lowest y %.4g (pass > 0) "
             "after %d steps", s.mean_speed, s.max_abs_xz, s.min_y, in->steps);
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
