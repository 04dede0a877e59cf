/* bullet_run (run_bullet.h). One stepSimulation(dt, 1, dt) call per step:
 * exactly one internal step of dt, no interpolation. */
#include "run_bullet.h"

#include "bench_report.h"
#include "build_bullet.h"

#define STATE_HASH_CORE_ONLY
#include "state_hash.h"

#include <cstdio>
#include <cstring>
#include <vector>

static const float dt = 1.0f / 60.0f;

static void step_once(bullet_scene *scene, bench_result *r)
{
    scene->world->stepSimulation(dt, 1, dt);
    r->total_steps += 1;
}

static void start_result(const scene_info *scene, const scene_params *params, const bullet_run_config &c, int run,
                         bench_result *r)
{
    std::memset(r, 0, sizeof(*r));
    static char version[16];
    std::snprintf(version, sizeof(version), "%d.%02d", btGetVersion() / 100, btGetVersion() % 100);
    r->engine = "bullet";
    r->version = version;
    r->compiler = BENCH_COMPILER;
#ifdef BT_USE_SSE
    r->simd = "sse (Bullet's vector math)";
#else
    r->simd = "scalar";
#endif
    r->width = 1;
    r->solver = "sequential_impulse";
    r->threads = 1;
    r->substeps = 1;
    r->scene = scene;
    r->params = *params;
    r->run = run;
    r->warmup_steps = scene->warmup_steps;
    r->steps = c.steps > 0 ? c.steps : scene->timed_steps;
}

static void time_steps(bullet_scene *scene, bench_result *r)
{
    for (int i = 0; i < r->warmup_steps; ++i) {
        step_once(scene, r);
    }
    scene->world->reset();
    std::vector<double> times((size_t)r->steps);
    for (int i = 0; i < r->steps; ++i) {
        double start = bench_now_ms();
        step_once(scene, r);
        times[(size_t)i] = bench_now_ms() - start;
        r->ms_mean += times[(size_t)i] / r->steps;
        r->ms_max = times[(size_t)i] > r->ms_max ? times[(size_t)i] : r->ms_max;
    }
    r->ms_median = bench_median(times.data(), r->steps);
    const timed_stages &s = scene->world->stages;
    const double n = r->steps;
    bench_add_stage(r, "step", r->ms_mean);
    bench_add_stage(r, "update_aabbs", s.update_aabbs / n);
    bench_add_stage(r, "broadphase_pairs", s.broadphase_pairs / n);
    bench_add_stage(r, "narrowphase", (s.collide - s.update_aabbs - s.broadphase_pairs) / n);
    bench_add_stage(r, "islands", s.islands / n);
    bench_add_stage(r, "solve", s.solve / n);
    bench_add_stage(r, "integrate", s.integrate / n);
    bench_add_stage(r, "sleep", s.sleep / n);
}

static void read_counters(const bullet_scene *scene, bench_result *r)
{
    r->contact_points = bullet_contact_points(scene);
    r->contact_pairs = scene->broadphase->getOverlappingPairCache()->getNumOverlappingPairs();
    btCollisionDispatcher *dispatcher = scene->dispatcher.get();
    for (int i = 0; i < dispatcher->getNumManifolds(); ++i) {
        r->touching += dispatcher->getManifoldByIndexInternal(i)->getNumContacts() > 0;
    }
}

static std::vector<body_state> read_states(const bullet_scene *scene)
{
    std::vector<body_state> states;
    for (const auto &body : scene->bodies) {
        const btTransform &t = body->getWorldTransform();
        btVector3 p = t.getOrigin(), v = body->getLinearVelocity(), w = body->getAngularVelocity();
        btQuaternion q = t.getRotation();
        states.push_back(body_state{{(float)p.x(), (float)p.y(), (float)p.z()},
                                    {(float)q.x(), (float)q.y(), (float)q.z(), (float)q.w()},
                                    {(float)v.x(), (float)v.y(), (float)v.z()},
                                    {(float)w.x(), (float)w.y(), (float)w.z()}});
    }
    return states;
}

static uint64_t hash_states(const std::vector<body_state> &states)
{
    uint64_t hash = STATE_HASH_SEED;
    for (const body_state &s : states) {
        float p[3] = {s.p.x, s.p.y, s.p.z}, q[4] = {s.q.x, s.q.y, s.q.z, s.q.w};
        float v[3] = {s.v.x, s.v.y, s.v.z}, w[3] = {s.w.x, s.w.y, s.w.z};
        hash = state_hash_body(hash, p, q, v, w);
    }
    return hash;
}

/* Median step time of an empty Bullet world, the scene's ground only
 * (sleep_field's reference). */
static double empty_world_ms(const scene_desc *desc, int steps)
{
    scene_desc empty;
    scene_desc_static_part(desc, &empty);
    bullet_scene scene;
    bullet_build(&empty, &scene);
    scene_desc_free(&empty);
    std::vector<double> times((size_t)steps);
    for (int i = 0; i < steps; ++i) {
        double start = bench_now_ms();
        scene.world->stepSimulation(dt, 1, dt);
        times[(size_t)i] = bench_now_ms() - start;
    }
    return bench_median(times.data(), steps);
}

static void take_quality(bullet_scene *scene, const scene_desc *desc, bench_result *r)
{
    while (r->total_steps < r->scene->quality_steps) {
        step_once(scene, r);
    }
    std::vector<body_state> states = read_states(scene);
    quality_input in = {};
    in.desc = desc;
    in.states = states.data();
    in.steps = r->total_steps;
    in.dt = dt;
    in.awake_count = bullet_awake_count(scene);
    in.ms_step = r->ms_median;
    in.ms_empty_step = r->scene->empty_world_reference ? empty_world_ms(desc, r->steps) : 0.0;
    r->scene->quality(&in, &r->quality);
}

void bullet_run(const scene_info *scene_info_, const scene_params *params, const bullet_run_config &c, int run,
                bench_result *r)
{
    start_result(scene_info_, params, c, run, r);
    scene_desc desc;
    scene_describe(scene_info_, params, &desc);
    r->bodies = desc.body_count;
    r->dynamic_bodies = scene_dynamic_count(&desc);
    r->joints = desc.joint_count;
    if (!bullet_supports(&desc)) {
        snprintf(r->error, sizeof(r->error), "hull and mesh shapes are not built for Bullet yet");
        scene_desc_free(&desc);
        return;
    }
    {
        bullet_scene scene;
        bullet_build(&desc, &scene);
        r->iterations = scene.world->getSolverInfo().m_numIterations;
        time_steps(&scene, r);
        read_counters(&scene, r);
        if (c.quality) {
            take_quality(&scene, &desc, r);
        }
        r->state_hash = hash_states(read_states(&scene));
    }
    scene_desc_free(&desc);
}
