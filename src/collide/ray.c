/* Preparing rays and shapes for the ray tests (ray.h), and one shape's test
 * at width 1 (the single-ray queries). */
#include "collide/ray.h"

#include "collide/collide_math.h"
#include "collide/ray_lanes.h"
#include "collide/ray_shapes.h"

bool ts_ray_prepare(ts_vec3 origin, ts_vec3 direction, float length, ts_ray *ray)
{
    float length_sq = ts_dot(direction, direction);
    if (!(length_sq > 0.0f) || !ts_is_finite(length_sq)) {
        return false;
    }
    float inv_length = 1.0f / sqrtf(length_sq);
    ts_vec3 d = ts_scale(inv_length, direction);
    float dv[3] = {d.x, d.y, d.z}, inv[3];
    uint32_t parallel = 0;
    for (int k = 0; k < 3; ++k) {
        if (fabsf(dv[k]) < TS_RAY_PARALLEL) {
            dv[k] = 0.0f;
            inv[k] = 0.0f;
            parallel |= 1u << k;
        } else {
            inv[k] = 1.0f / dv[k];
        }
    }
    *ray = (ts_ray){origin, {dv[0], dv[1], dv[2]}, {inv[0], inv[1], inv[2]}, length, parallel};
    return true;
}

ts_transform ts_shape_world_transform(const ts_records *records, const ts_shape *shape)
{
    const ts_body_store *s = &records->store;
    int32_t i = s->table.slot_of_id[shape->body];
    ts_transform body = {{s->px[i], s->py[i], s->pz[i]}, {s->qx[i], s->qy[i], s->qz[i], s->qw[i]}};
    const ts_transform *l = &shape->sim_local;
    bool identity = l->p.x == 0.0f && l->p.y == 0.0f && l->p.z == 0.0f && l->q.x == 0.0f && l->q.y == 0.0f &&
                    l->q.z == 0.0f && l->q.w == 1.0f;
    return identity ? body : ts_transform_mul(body, *l);
}

void ts_ray_target_of(const ts_records *records, int32_t shape, ts_aabb tree_box, ts_ray_target *target)
{
    const ts_shape *s = records->shapes + shape;
    ts_transform xf = ts_shape_world_transform(records, s);
    tsn_mat3 r = tsn_mat3_from_quat(xf.q);
    *target = (ts_ray_target){
        .center = xf.p,
        .axis = {r.col[0], r.col[1], r.col[2]},
        .box = tree_box,
        .data = ts_ray_shape_data(s),
        .shape = shape,
        .type = s->type,
    };
    switch (s->type) {
    case TS_SHAPE_SPHERE: target->size[0] = s->geometry.sphere.radius; break;
    case TS_SHAPE_BOX: target->half_extents = s->geometry.box.half_extents; break;
    case TS_SHAPE_CAPSULE:
        target->size[0] = s->geometry.capsule.half_height;
        target->size[1] = s->geometry.capsule.radius;
        break;
    default: break;
    }
}

/* A vector as one lane (this file is built at width 1). */
static ts_wv3 lane(ts_vec3 v) { return (ts_wv3){v.x, v.y, v.z}; }

bool ts_ray_test_target(const ts_ray *ray, const ts_ray_target *target, float *t, ts_vec3 *normal)
{
    ts_ray_lanes r = ts_ray_lanes_of(ray);
    ts_ray_axes axes = {{lane(target->axis[0]), lane(target->axis[1]), lane(target->axis[2])}};
    ts_wv3 c = lane(target->center);
    ts_wv3 n = {0.0f, 0.0f, 0.0f};
    float hit = INFINITY;
    switch (target->type) {
    case TS_SHAPE_SPHERE: hit = ts_ray_sphere_lanes(&r, c, target->size[0], &n); break;
    case TS_SHAPE_BOX: hit = ts_ray_box_lanes(&r, c, &axes, lane(target->half_extents), &n); break;
    case TS_SHAPE_CAPSULE: hit = ts_ray_capsule_lanes(&r, c, &axes, target->size[0], target->size[1], &n); break;
    default: /* hulls, meshes, heightfields: their own inside rule, no proxy-box rule (ray_shapes.h) */
        return target->data != NULL &&
               ts_ray_test_local(ray, target->type, target->data, target->center, target->axis, t, normal);
    }
    if (!(hit <= ray->length)) {
        return false;
    }
    float enter;
    if (!ts_ray_slab(ray, &r, lane(target->box.lower), lane(target->box.upper), r.length, &enter) ||
        !(enter <= hit)) {
        return false;
    }
    *t = hit;
    *normal = (ts_vec3){n.x, n.y, n.z};
    return true;
}
