/* scene_desc -> tessera world (build_tessera.h). The one place where the
 * bench maps description fields and run settings to tessera's API. */
#include "build_tessera.h"

#include "world_memory.h"

#include <stdio.h>
#include <string.h>

static ts_vec3 vec(scene_vec3 v)
{
    return (ts_vec3){v.x, v.y, v.z};
}

ts_world_id tessera_create_world(const scene_desc *desc, const tessera_settings *s, char *error, size_t size)
{
    ts_world_def def = ts_default_world_def();
    def.gravity = vec(desc->gravity);
    def.threads = s->threads;
    def.substeps = s->substeps;
    if (s->contact_hertz > 0.0f) {
        def.contact_hertz = s->contact_hertz;
    }
    def.solver = s->solver;
    def.planar = desc->planar;
    def.simd_width = s->width; /* 0: TESSERA_SIMD, else the widest the CPU runs */
    def.body_capacity = desc->body_count;
    def.shape_capacity = desc->body_count;
    def.allocator = world_memory_allocator(); /* bytes per body, allocations in timed steps */
    ts_world_id world = ts_create_world(&def);
    if (ts_world_id_is_null(world)) {
        snprintf(error, size, "%s", ts_last_error());
    }
    return world;
}

static ts_shape_id create_shape(const scene_desc *desc, ts_body_id body, const scene_shape *s)
{
    ts_shape_def def = ts_default_shape_def();
    def.density = s->density;
    def.friction = s->friction;
    def.restitution = s->restitution;
    def.rolling_resistance = s->rolling_resistance;
    def.filter = (ts_filter){s->category_bits, s->mask_bits};
    switch (s->type) {
    case SCENE_SPHERE:
        return ts_create_sphere_shape(body, &def, &(ts_sphere){s->radius});
    case SCENE_BOX:
        return ts_create_box_shape(body, &def, &(ts_box){vec(s->half_extents)});
    case SCENE_CAPSULE:
        return ts_create_capsule_shape(body, &def, &(ts_capsule){s->half_height, s->radius});
    case SCENE_HULL: {
        const scene_geometry *g = &desc->geometries[s->geometry];
        return ts_create_hull_shape(body, &def, &(ts_hull_def){(const ts_vec3 *)g->points, g->point_count});
    }
    case SCENE_MESH: {
        const scene_geometry *g = &desc->geometries[s->geometry];
        ts_mesh_def mesh = {(const ts_vec3 *)g->points, g->point_count, g->indices, g->triangle_count};
        return ts_create_mesh_shape(body, &def, &mesh);
    }
    }
    return TS_NULL_SHAPE_ID;
}

static ts_body_id create_body(const scene_desc *desc, ts_world_id world, const scene_body *b, bool sleep)
{
    ts_body_def def = ts_default_body_def();
    def.type = b->type == SCENE_DYNAMIC ? TS_BODY_DYNAMIC : TS_BODY_STATIC;
    def.position = vec(b->position);
    def.rotation = (ts_quat){b->rotation.x, b->rotation.y, b->rotation.z, b->rotation.w};
    def.linear_velocity = vec(b->linear_velocity);
    def.angular_velocity = vec(b->angular_velocity);
    def.enable_sleep = sleep;
    ts_body_id body = ts_create_body(world, &def);
    if (!ts_body_id_is_null(body) && ts_shape_id_is_null(create_shape(desc, body, &b->shape))) {
        return TS_NULL_BODY_ID;
    }
    return body;
}

bool tessera_build_scene(ts_world_id world, const scene_desc *desc, ts_body_id *bodies, char *error, size_t size)
{
    for (int i = 0; i < desc->body_count; ++i) {
        bodies[i] = create_body(desc, world, &desc->bodies[i], desc->sleep);
        if (ts_body_id_is_null(bodies[i])) {
            snprintf(error, size, "body %d: %s", i, ts_last_error());
            return false;
        }
    }
    for (int j = 0; j < desc->joint_count; ++j) {
        const scene_joint *sj = &desc->joints[j];
        if (desc->bodies[sj->body_a].type == SCENE_STATIC && desc->bodies[sj->body_b].type == SCENE_STATIC) {
            continue; /* constrains nothing (scene_defs.c); tessera refuses it */
        }
        ts_ball_joint_def def = ts_default_ball_joint_def();
        def.base.body_a = bodies[sj->body_a];
        def.base.body_b = bodies[sj->body_b];
        def.base.local_frame_a.p = vec(sj->local_anchor_a);
        def.base.local_frame_b.p = vec(sj->local_anchor_b);
        if (ts_joint_id_is_null(ts_create_ball_joint(world, &def))) {
            snprintf(error, size, "joint %d: %s", j, ts_last_error());
            return false;
        }
    }
    return true;
}

int tessera_width(ts_world_id world)
{
    ts_world_counters counters;
    return ts_world_get_counters(world, &counters) == TS_OK ? counters.simd_width : 0;
}

/* The instruction set behind a width, from the build options CMake passes
 * (BENCH_SIMD_PORTABLE: -DTESSERA_SIMD=OFF; BENCH_W16_NATIVE: width 16 also built for AVX-512, run where the CPU has it). */
const char *tessera_simd_path(ts_world_id world)
{
    int width = tessera_width(world);
    if (width <= 1) {
        return "scalar";
    }
#if defined(BENCH_SIMD_PORTABLE)
    return "simde-portable";
#elif defined(__x86_64__) || defined(__i386__)
    const char *w16 = "avx512f-names-on-avx2 (simde)";
#if defined(BENCH_W16_NATIVE) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
        w16 = "avx512 (f/dq/bw/vl)";
    }
#endif
    return width == 4 ? "sse4.1" : width == 8 ? "avx2" : w16;
#elif defined(__aarch64__) || defined(__ARM_NEON)
    return width == 4 ? "neon" : "neon (simde-emulated width)";
#else
    return "simde-portable";
#endif
}

const char *tessera_solver_name(ts_solver_type solver)
{
    return solver == TS_SOLVER_XPBD ? "xpbd" : "soft_step";
}

int tessera_solver_from_name(const char *name)
{
    if (strcmp(name, "soft_step") == 0) {
        return TS_SOLVER_SOFT_STEP;
    }
    if (strcmp(name, "xpbd") == 0) {
        return TS_SOLVER_XPBD;
    }
    return -1;
}
