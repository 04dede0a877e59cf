// SPDX-License-Identifier: MIT
/* tessera from C++17: the C API as it is, an owning wrapper for the world,
 * std::vector for bulk reads, and the header's constants (TS_QUAT_IDENTITY,
 * TS_NULL_BODY_ID), which C++ builds without compound literals. Built with
 * -Wall -Wextra -pedantic -Werror (examples/CMakeLists.txt). Drops a
 * stack of three boxes and prints where they rest. */
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "tessera/tessera.h"

namespace {

// Owns a world: destroyed when it goes out of scope.
class World {
public:
    explicit World(const ts_world_def &def) : id_(ts_create_world(&def))
    {
        if (ts_world_id_is_null(id_)) {
            throw std::runtime_error(ts_last_error());
        }
    }
    ~World() { ts_destroy_world(id_); }
    World(const World &) = delete;
    World &operator=(const World &) = delete;

    ts_world_id id() const { return id_; }

    ts_body_id add_box(ts_body_type type, ts_vec3 position, ts_vec3 half_extents)
    {
        ts_body_def def = ts_default_body_def();
        def.type = type;
        def.position = position;
        def.rotation = TS_QUAT_IDENTITY;
        ts_body_id body = ts_create_body(id_, &def);
        ts_shape_def shape_def = ts_default_shape_def();
        ts_box box = {half_extents};
        if (ts_shape_id_is_null(ts_create_box_shape(body, &shape_def, &box))) {
            throw std::runtime_error(ts_last_error());
        }
        return body;
    }

    void step(float dt)
    {
        if (ts_world_step(id_, dt) != TS_OK) {
            throw std::runtime_error(ts_last_error());
        }
    }

    std::vector<ts_transform> transforms(const std::vector<ts_body_id> &bodies) const
    {
        std::vector<ts_transform> out(bodies.size());
        if (ts_world_get_body_transforms(id_, bodies.data(), static_cast<int>(bodies.size()), out.data()) != TS_OK) {
            throw std::runtime_error(ts_last_error());
        }
        return out;
    }

private:
    ts_world_id id_;
};

} // namespace

int main()
{
    if (ts_version_number() != TS_VERSION_NUMBER) {
        std::fprintf(stderr, "header %s, library %s\n", TS_VERSION_STRING, ts_version());
        return 1;
    }
    try {
        World world(ts_default_world_def());
        world.add_box(TS_BODY_STATIC, ts_vec3{0.0f, -0.5f, 0.0f}, ts_vec3{10.0f, 0.5f, 10.0f});
        std::vector<ts_body_id> stack;
        for (int i = 0; i < 3; ++i) {
            stack.push_back(world.add_box(TS_BODY_DYNAMIC, ts_vec3{0.0f, 0.5f + 1.1f * i, 0.0f},
                                          ts_vec3{0.5f, 0.5f, 0.5f}));
        }
        ts_body_id none = TS_NULL_BODY_ID;
        if (!ts_body_id_is_null(none) || ts_body_is_valid(none)) {
            return 1;
        }
        for (int i = 0; i < 120; ++i) {
            world.step(1.0f / 60.0f);
        }
        std::vector<ts_transform> poses = world.transforms(stack);
        for (std::size_t i = 0; i < poses.size(); ++i) {
            std::printf("box %zu rests at y = %.3f m\n", i, poses[i].p.y);
        }
        // The top box sits on two others: its centre near 2.5 m.
        return poses.back().p.y > 2.4f && poses.back().p.y < 2.6f ? 0 : 1;
    } catch (const std::exception &error) {
        std::fprintf(stderr, "tessera (%s): %s\n", ts_version(), error.what());
        return 1;
    }
}
