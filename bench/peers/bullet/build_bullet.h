/* Turns a scene description (scene_desc.h) into a Bullet 3 world with
 * Bullet's defaults: btDbvtBroadphase, btSequentialImpulseConstraintSolver
 * (10 iterations), default collision configuration and margins. How each
 * description field maps, and what cannot match tessera exactly, is written
 * in build_bullet.cpp. */
#ifndef BENCH_BUILD_BULLET_H
#define BENCH_BUILD_BULLET_H

#include "scene_desc.h"
#include "timed_world.h"

#include <memory>
#include <vector>

struct bullet_scene {
    std::unique_ptr<btDefaultCollisionConfiguration> configuration;
    std::unique_ptr<btCollisionDispatcher> dispatcher;
    std::unique_ptr<btDbvtBroadphase> broadphase;
    std::unique_ptr<btSequentialImpulseConstraintSolver> solver;
    std::unique_ptr<timed_world> world;
    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    std::vector<std::unique_ptr<btRigidBody>> bodies; /* in description order */
    std::vector<std::unique_ptr<btTypedConstraint>> joints;

    bullet_scene() = default;
    bullet_scene(const bullet_scene &) = delete;
    bullet_scene &operator=(const bullet_scene &) = delete;
    ~bullet_scene(); /* removes everything from the world before freeing it */
};

/* An empty world with desc's gravity, then every body and joint of desc. */
void bullet_build(const scene_desc *desc, bullet_scene *scene);
/* Whether bullet_build makes every shape of the scene (not hulls and meshes yet). */
bool bullet_supports(const scene_desc *desc);

/* Dynamic bodies that are not asleep. */
int bullet_awake_count(const bullet_scene *scene);

/* Contact points over every manifold of the last step. */
int bullet_contact_points(const bullet_scene *scene);

#endif
