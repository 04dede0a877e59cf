/* tessera: a convex shape against a mesh or a heightfield: the triangles
 * near the shape, each collided on its own (collide_triangle.c), merged into
 * one manifold of at most four points.
 *
 * 1. The shape's bounds grown by the margin, taken into the mesh's frame,
 *    query the mesh's tree or the heightfield's cells.
 * 2. Each triangle is brought into the shape's frame (three points, where a
 *    hull would need all its vertices moved) and collided there; its
 *    contact is kept, up to TSN_MESH_MAX_CONTACTS of them (past that the
 *    shallowest make room for deeper ones).
 * 3. One normal for the pair: that of the deepest point's contact. The
 *    points of every contact whose normal is within 45 degrees of it join,
 *    their separation measured along it (s / cos, the gap along the common
 *    normal to their own plane); steeper contacts are left out (a body in a
 *    sharp crease is pushed out of its deeper side first). Points with the
 *    same id, or within a millimetre of each other, are one point (the
 *    deeper); then the four that span the most (manifold_reduce.c).
 * The solver keeps one normal per manifold, hence the single normal. */
#include "collide/collide_mesh.h"

#include "collide/collide_triangle.h"
#include "collide/heightfield.h"
#include "collide/narrowphase.h"

#define TSN_MESH_MAX_CONTACTS 32
/* Contacts within this cosine of the deepest one's normal join it (45 degrees). */
#define TSN_MESH_JOIN_COS 0.7071f
/* Points closer than this (m) are one. */
#define TSN_MESH_SAME_POINT_SQ 1.0e-6f

typedef struct mesh_query {
    ts_shape_type type;
    const void *geom;
    ts_box_hull box;        /* a box as a hull */
    ts_vec3 core0, core1;   /* sphere or capsule core */
    float radius;
    ts_transform to_shape;  /* mesh frame -> shape frame */
    ts_vec3 center;         /* the shape's reference point in its frame */
    float reach;            /* bounding sphere about it */
    float margin;
    tsn_triangle_contact contacts[TSN_MESH_MAX_CONTACTS];
    float depth[TSN_MESH_MAX_CONTACTS];
    int count;
} mesh_query;

static float contact_depth(const tsn_triangle_contact *c)
{
    float s = FLT_MAX;
    for (int i = 0; i < c->count; ++i) {
        s = tsn_minf(s, c->points[i].separation);
    }
    return s;
}

static bool visit_triangle(void *context, const ts_triangle *mesh_tri)
{
    mesh_query *q = context;
    ts_triangle tri = *mesh_tri;
    for (int k = 0; k < 3; ++k) {
        tri.v[k] = ts_transform_point(q->to_shape, mesh_tri->v[k]);
    }
    /* the plane of the triangle against the shape's bounding sphere */
    ts_vec3 n = ts_cross(ts_sub(tri.v[1], tri.v[0]), ts_sub(tri.v[2], tri.v[0]));
    float len = ts_length(n);
    if (!(len > 0.0f)) {
        return true;
    }
    float dist = ts_dot(n, ts_sub(q->center, tri.v[0])) / len;
    if (dist < 0.0f || dist > q->reach + q->margin) {
        return true;
    }
    tsn_triangle_contact c;
    switch (q->type) {
    case TS_SHAPE_SPHERE:
    case TS_SHAPE_CAPSULE: tsn_collide_triangle_round(q->core0, q->core1, q->radius, &tri, q->margin, &c); break;
    case TS_SHAPE_BOX: tsn_collide_triangle_hull(&q->box.hull, &tri, q->margin, &c); break;
    default: tsn_collide_triangle_hull(q->geom, &tri, q->margin, &c); break;
    }
    if (c.count == 0) {
        return true;
    }
    float depth = contact_depth(&c);
    int slot = q->count;
    if (slot == TSN_MESH_MAX_CONTACTS) {
        slot = 0; /* replace the shallowest, if this one is deeper */
        for (int i = 1; i < q->count; ++i) {
            if (q->depth[i] > q->depth[slot]) {
                slot = i;
            }
        }
        if (!(depth < q->depth[slot])) {
            return true;
        }
    } else {
        q->count += 1;
    }
    q->contacts[slot] = c;
    q->depth[slot] = depth;
    return true;
}

/* The shape's bounds in its own frame, its reference point and reach. */
static ts_aabb shape_setup(mesh_query *q)
{
    ts_vec3 zero = ts_v3(0.0f, 0.0f, 0.0f);
    q->center = zero;
    switch (q->type) {
    case TS_SHAPE_SPHERE: {
        float r = ((const ts_sphere *)q->geom)->radius;
        q->core0 = q->core1 = zero;
        q->radius = r;
        q->reach = r;
        return (ts_aabb){ts_v3(-r, -r, -r), ts_v3(r, r, r)};
    }
    case TS_SHAPE_CAPSULE: {
        const ts_capsule *c = q->geom;
        q->core0 = ts_v3(0.0f, -c->half_height, 0.0f);
        q->core1 = ts_v3(0.0f, c->half_height, 0.0f);
        q->radius = c->radius;
        q->reach = c->half_height + c->radius;
        float r = c->radius;
        return (ts_aabb){ts_v3(-r, -c->half_height - r, -r), ts_v3(r, c->half_height + r, r)};
    }
    case TS_SHAPE_BOX: {
        ts_vec3 h = ((const ts_box *)q->geom)->half_extents;
        ts_make_box_hull(h, &q->box);
        q->reach = ts_length(h);
        return (ts_aabb){ts_neg(h), h};
    }
    default: {
        const ts_hull_data *h = q->geom;
        q->center = h->centroid;
        q->reach = 0.0f;
        for (int i = 0; i < h->vertex_count; ++i) {
            q->reach = tsn_maxf(q->reach, ts_length_sq(ts_sub(h->vertices[i], h->centroid)));
        }
        q->reach = sqrtf(q->reach);
        return h->bounds;
    }
    }
}

/* A box of the shape frame seen in the mesh frame (its corners' bounds). */
static ts_aabb box_in_mesh(ts_aabb box, ts_transform to_mesh)
{
    ts_vec3 middle = ts_scale(0.5f, ts_add(box.lower, box.upper));
    ts_vec3 half = ts_scale(0.5f, ts_sub(box.upper, box.lower));
    ts_vec3 c = ts_transform_point(to_mesh, middle);
    ts_vec3 r0 = ts_rotate(to_mesh.q, ts_v3(1.0f, 0.0f, 0.0f));
    ts_vec3 r1 = ts_rotate(to_mesh.q, ts_v3(0.0f, 1.0f, 0.0f));
    ts_vec3 r2 = ts_rotate(to_mesh.q, ts_v3(0.0f, 0.0f, 1.0f));
    ts_vec3 e = ts_add(ts_add(ts_scale(half.x, ts_abs3(r0)), ts_scale(half.y, ts_abs3(r1))), ts_scale(half.z, ts_abs3(r2)));
    return (ts_aabb){ts_sub(c, e), ts_add(c, e)};
}

/* Joins the contacts into m (see the top of the file), in the shape's frame. */
static void merge(const mesh_query *q, float margin, ts_manifold *m, ts_vec3 *normal)
{
    m->point_count = 0;
    int deepest = 0;
    for (int i = 1; i < q->count; ++i) {
        if (q->depth[i] < q->depth[deepest]) {
            deepest = i;
        }
    }
    ts_vec3 n = q->contacts[deepest].normal;
    ts_manifold_point pts[TSN_MESH_MAX_CONTACTS * 4];
    int count = 0;
    for (int i = 0; i < q->count; ++i) {
        const tsn_triangle_contact *c = &q->contacts[i];
        float cosine = ts_dot(c->normal, n);
        if (cosine < TSN_MESH_JOIN_COS) {
            continue;
        }
        for (int k = 0; k < c->count; ++k) {
            ts_manifold_point p = c->points[k];
            if (i != deepest && cosine < 1.0f) {
                p.separation /= cosine;
            }
            if (!(p.separation < margin)) {
                continue;
            }
            int same = -1;
            for (int j = 0; j < count && same < 0; ++j) {
                if (pts[j].feature_id == p.feature_id ||
                    ts_length_sq(ts_sub(pts[j].point, p.point)) < TSN_MESH_SAME_POINT_SQ) {
                    same = j;
                }
            }
            if (same < 0) {
                pts[count++] = p;
            } else if (p.separation < pts[same].separation) {
                pts[same] = p;
            }
        }
    }
    /* the normal points from the triangles to the shape: reduce along it */
    m->point_count = count == 0 ? 0 : tsn_reduce_points(pts, count, n, m->points);
    *normal = n;
}

void ts_collide_convex_triangles(ts_shape_type type_a, const void *geom_a, ts_transform xfa, ts_shape_type type_b,
                                 const void *geom_b, ts_transform xfb, float margin, ts_manifold *m)
{
    m->point_count = 0;
    mesh_query q;
    q.type = type_a;
    q.geom = geom_a;
    q.margin = margin;
    q.count = 0;
    ts_aabb local = shape_setup(&q);
    local = (ts_aabb){ts_sub(local.lower, ts_v3(margin, margin, margin)), ts_add(local.upper, ts_v3(margin, margin, margin))};
    q.to_shape = ts_transform_inv_mul(xfa, xfb);
    ts_transform to_mesh = ts_transform_inv_mul(xfb, xfa);
    ts_aabb box = box_in_mesh(local, to_mesh);
    if (type_b == TS_SHAPE_MESH) {
        ts_mesh_query(geom_b, box, visit_triangle, &q);
    } else {
        ts_heightfield_query(geom_b, box, visit_triangle, &q);
    }
    if (q.count == 0) {
        return;
    }
    ts_vec3 n;
    merge(&q, margin, m, &n);
    /* to world; the normal from A (the shape) to B (the triangles) */
    m->normal = ts_neg(ts_rotate(xfa.q, n));
    for (int i = 0; i < m->point_count; ++i) {
        m->points[i].point = ts_transform_point(xfa, m->points[i].point);
    }
}
