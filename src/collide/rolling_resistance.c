/* Rolling resistance of contacts (see rolling_resistance.h). */
#include "collide/rolling_resistance.h"

#include "collide/hull.h"

float ts_shape_rolling_radius(const ts_shape *shape)
{
    switch (shape->type) {
    case TS_SHAPE_SPHERE: return shape->geometry.sphere.radius;
    case TS_SHAPE_CAPSULE: return shape->geometry.capsule.radius;
    case TS_SHAPE_BOX: {
        ts_vec3 e = shape->geometry.box.half_extents;
        float least = e.x < e.y ? e.x : e.y;
        return least < e.z ? least : e.z;
    }
    case TS_SHAPE_HULL: return shape->geometry.hull.data->inner_radius;
    default: return 0.0f; /* meshes, heightfields */
    }
}

float ts_contact_mix_rolling(const ts_shape *a, const ts_shape *b)
{
    if (a->rolling_resistance == 0.0f && b->rolling_resistance == 0.0f) {
        return 0.0f;
    }
    float ra = ts_shape_rolling_radius(a), rb = ts_shape_rolling_radius(b);
    float coefficient = a->rolling_resistance > b->rolling_resistance ? a->rolling_resistance : b->rolling_resistance;
    float radius = ra > 0.0f && (rb <= 0.0f || ra < rb) ? ra : rb; /* the smaller one that rolls */
    return coefficient * radius;
}
