/* scene_desc -> Bullet 3 world (build_bullet.h).
 *
 * How the description maps, and where Bullet cannot match tessera exactly:
 * - World: Bullet's defaults (btDefaultCollisionConfiguration, btDbvtBroadphase,
 *   btSequentialImpulseConstraintSolver with 10 iterations, split impulse off,
 *   warm starting on), gravity from the description.
 * - Shapes: btBoxShape(half extents), btSphereShape(radius),
 *   btCapsuleShape(radius, 2 half_height): Bullet's capsule also lies along
 *   local y and takes the distance between its sphere centres, so it is the
 *   same capsule. Bullet's default collision margin (0.04 m) is kept: a box's
 *   margin lies inside its half extents (same size, but GJK/EPA paths see edges
 *   rounded by 0.04 m; box-box pairs use btBoxBoxDetector on the exact box),
 *   a sphere or capsule is all margin (exact). Identical shapes are shared.
 * - Mass: density * volume (scene_shape_volume), inertia from the shape
 *   (calculateLocalInertia: exact for boxes and spheres).
 * - Friction: Bullet multiplies the two bodies' frictions; setting each to
 *   sqrt(friction) makes the product sqrt(f_a f_b), the geometric mean that
 *   scenes.md asks for, for any pair. Restitution likewise (all 0 here).
 *   Rolling friction 0 and damping 0, Bullet's defaults.
 * - Sleeping: off (DISABLE_DEACTIVATION) unless the scene turns it on; then
 *   Bullet's own rule applies (below 0.8 m/s and 1 rad/s for 2 s), not
 *   tessera's thresholds.
 * - Filters: Bullet's group / mask are 32-bit ints, so the low 32 bits of
 *   category / mask are used, with the same test (both directions). Bodies
 *   with the default filter get Bullet's default groups (static bodies never
 *   pair with static bodies in either engine).
 * - Ball joints: btPoint2PointConstraint with the two local pivots; joints
 *   between two static bodies (joint_grid's row 0) constrain nothing and are
 *   left out. */
#include "build_bullet.h"

#include <cmath>
#include <cstdint>
#include <cstring>

static btVector3 vec(scene_vec3 v)
{
    return btVector3(v.x, v.y, v.z);
}

static bool same_geometry(const scene_shape &a, const scene_shape &b)
{
    return a.type == b.type && a.radius == b.radius && a.half_height == b.half_height &&
           a.half_extents.x == b.half_extents.x && a.half_extents.y == b.half_extents.y &&
           a.half_extents.z == b.half_extents.z;
}

static btCollisionShape *make_shape(const scene_shape &s)
{
    switch (s.type) {
    case SCENE_SPHERE:
        return new btSphereShape(s.radius);
    case SCENE_BOX:
        return new btBoxShape(vec(s.half_extents));
    case SCENE_CAPSULE:
        return new btCapsuleShape(s.radius, 2.0f * s.half_height);
    case SCENE_HULL:
    case SCENE_MESH:
        break; /* not built for Bullet: bullet_supports() refuses such scenes */
    }
    return nullptr;
}

bool bullet_supports(const scene_desc *desc)
{
    for (int i = 0; i < desc->body_count; ++i) {
        if (desc->bodies[i].shape.type == SCENE_HULL || desc->bodies[i].shape.type == SCENE_MESH) {
            return false;
        }
    }
    return true;
}

/* One Bullet shape per distinct geometry (scenes use a handful). */
struct shape_cache {
    std::vector<scene_shape> keys;
    std::vector<btCollisionShape *> shapes;

    btCollisionShape *get(bullet_scene *scene, const scene_shape &s)
    {
        for (size_t i = 0; i < keys.size(); ++i) {
            if (same_geometry(keys[i], s)) {
                return shapes[i];
            }
        }
        scene->shapes.emplace_back(make_shape(s));
        keys.push_back(s);
        shapes.push_back(scene->shapes.back().get());
        return shapes.back();
    }
};

static bool default_filter(const scene_shape &s)
{
    return s.category_bits == 1 && s.mask_bits == UINT64_MAX;
}

static void add_body(bullet_scene *scene, shape_cache *cache, const scene_body &b, bool sleep, bool planar)
{
    btCollisionShape *shape = cache->get(scene, b.shape);
    bool dynamic = b.type == SCENE_DYNAMIC;
    btScalar mass = dynamic ? b.shape.density * scene_shape_volume(&b.shape) : 0.0f;
    btVector3 inertia(0.0f, 0.0f, 0.0f);
    if (dynamic) {
        shape->calculateLocalInertia(mass, inertia);
    }
    btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, shape, inertia);
    info.m_startWorldTransform =
        btTransform(btQuaternion(b.rotation.x, b.rotation.y, b.rotation.z, b.rotation.w), vec(b.position));
    info.m_friction = std::sqrt(b.shape.friction);
    info.m_restitution = std::sqrt(b.shape.restitution);
    btRigidBody *body = new btRigidBody(info);
    scene->bodies.emplace_back(body);
    if (dynamic) {
        body->setLinearVelocity(vec(b.linear_velocity));
        body->setAngularVelocity(vec(b.angular_velocity));
        if (!sleep) {
            body->setActivationState(DISABLE_DEACTIVATION);
        }
        if (planar) { /* a 2D scene: in the x-y plane, turning about z */
            body->setLinearFactor(btVector3(1, 1, 0));
            body->setAngularFactor(btVector3(0, 0, 1));
        }
    }
    if (default_filter(b.shape)) {
        scene->world->addRigidBody(body);
    } else {
        int group = (int)(uint32_t)(b.shape.category_bits & 0xffffffffu);
        int mask = (int)(uint32_t)(b.shape.mask_bits & 0xffffffffu);
        scene->world->addRigidBody(body, group, mask);
    }
}

static void add_joint(bullet_scene *scene, const scene_desc *desc, const scene_joint &j)
{
    if (desc->bodies[j.body_a].type == SCENE_STATIC && desc->bodies[j.body_b].type == SCENE_STATIC) {
        return;
    }
    btRigidBody *a = scene->bodies[(size_t)j.body_a].get();
    btRigidBody *b = scene->bodies[(size_t)j.body_b].get();
    btPoint2PointConstraint *joint =
        new btPoint2PointConstraint(*a, *b, vec(j.local_anchor_a), vec(j.local_anchor_b));
    scene->joints.emplace_back(joint);
    scene->world->addConstraint(joint, true);
}

void bullet_build(const scene_desc *desc, bullet_scene *scene)
{
    scene->configuration.reset(new btDefaultCollisionConfiguration());
    scene->dispatcher.reset(new btCollisionDispatcher(scene->configuration.get()));
    scene->broadphase.reset(new btDbvtBroadphase());
    scene->solver.reset(new btSequentialImpulseConstraintSolver());
    scene->world.reset(new timed_world(scene->dispatcher.get(), scene->broadphase.get(), scene->solver.get(),
                                       scene->configuration.get()));
    scene->world->setGravity(vec(desc->gravity));
    shape_cache cache;
    scene->bodies.reserve((size_t)desc->body_count);
    for (int i = 0; i < desc->body_count; ++i) {
        add_body(scene, &cache, desc->bodies[i], desc->sleep, desc->planar);
    }
    for (int i = 0; i < desc->joint_count; ++i) {
        add_joint(scene, desc, desc->joints[i]);
    }
}

bullet_scene::~bullet_scene()
{
    if (world) {
        for (auto &joint : joints) {
            world->removeConstraint(joint.get());
        }
        for (auto &body : bodies) {
            world->removeRigidBody(body.get());
        }
    }
    joints.clear();
    bodies.clear();
    world.reset();
}

int bullet_awake_count(const bullet_scene *scene)
{
    int awake = 0;
    for (const auto &body : scene->bodies) {
        awake += !body->isStaticObject() && body->isActive();
    }
    return awake;
}

int bullet_contact_points(const bullet_scene *scene)
{
    int points = 0;
    btCollisionDispatcher *dispatcher = scene->dispatcher.get();
    for (int i = 0; i < dispatcher->getNumManifolds(); ++i) {
        points += dispatcher->getManifoldByIndexInternal(i)->getNumContacts();
    }
    return points;
}
