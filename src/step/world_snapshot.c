/* The sections of a world snapshot (see world_snapshot.h and
 * docs/snapshots.md). The table below is the file's order: each section
 * is one layer's part, saved and loaded by that layer's functions, and
 * each load may read what the sections before it loaded. A new part of
 * the world adds one row (and bumps TS_SNAPSHOT_FORMAT_VERSION). */
#include "step/world_snapshot.h"

#include "base/math3.h"
#include "collide/collide_snapshot.h"
#include "collide/geometry_snapshot.h"
#include "collide/mass.h"
#include "collide/rolling_resistance.h"
#include "collide/shape_bounds.h"
#include "islands/islands_snapshot.h"
#include "islands/sleep.h"
#include "solver/solver_snapshot.h"
#include "step/sensor_snapshot.h"

#include "tessera/limits.h"
#include "tessera/motion_locks.h"

#include <stddef.h>
#include <string.h>

/* ---- the world's own fields ---- */

static void save_world(ts_writer *w, ts_world *world)
{
    ts_put_varint(w, (uint64_t)world->step_count);
    ts_put_f32(w, world->step_dt); /* the last step's: what a velocity set by hand sweeps the bounds over */
    ts_put_u8(w, world->enable_sleep ? 1 : 0);
    /* format 2 */
    ts_put_u8(w, world->planar ? 1 : 0);
    ts_put_f32(w, world->solver.max_linear_speed);
    ts_put_f32(w, world->solver.max_rotation);
}

static ts_load_status load_world(ts_reader *r, ts_world *world)
{
    world->step_count = ts_get_count(r, INT32_MAX, 0, "the step count");
    world->step_dt = ts_get_f32(r);
    if (!(world->step_dt >= 0.0f) || !ts_is_finite(world->step_dt)) {
        ts_reader_fail(r, "the last step's dt is %g", (double)world->step_dt);
    }
    world->enable_sleep = ts_get_bool(r, "the sleep flag");
    /* what format 1 held: no planar world, the default speed limits */
    world->planar = false;
    world->solver.max_linear_speed = TS_DEFAULT_MAX_LINEAR_SPEED;
    world->solver.max_rotation = TS_DEFAULT_MAX_ROTATION;
    if (r->version >= 2) {
        world->planar = ts_get_bool(r, "the planar flag");
        float speed = ts_get_f32(r), rotation = ts_get_f32(r);
        if (!r->failed && (!(speed > 0.0f && speed <= TS_MAX_SPEED) || !(rotation > 0.0f && rotation <= TS_MAX_ROTATION))) {
            ts_reader_fail(r, "the speed limits are %g m/s and %g rad per substep", (double)speed, (double)rotation);
        }
        world->solver.max_linear_speed = speed;
        world->solver.max_rotation = rotation;
    }
    return r->failed ? TS_LOAD_INVALID : TS_LOAD_OK;
}

/* ---- what a body's store columns follow from ---- */

static void put_bits(uint32_t *out, int column, float value) { memcpy(out + column, &value, 4); }

/* As api/body_mass.c (motion columns), islands/sleep.h (extent, threshold)
 * and ts_body_sync_bounds (bounds columns) write them; where the world
 * differs, the column is saved (records_snapshot.h). */
static void predict_body(const ts_records *records, int32_t body, uint32_t out[TS_BODY_COLUMNS])
{
    const ts_body *b = records->bodies + body;
    memset(out, 0, sizeof(uint32_t) * TS_BODY_COLUMNS);
    const ts_body_store *s = &records->store;
#define B_INDEX(field) ((int)(offsetof(ts_body_store, field) / sizeof(void *))) /* the column's place */
    enum { QW = B_INDEX(qw), INV_MASS = B_INDEX(inv_mass), INV_I = B_INDEX(inv_ix), I = B_INDEX(ix),
           DAMPING = B_INDEX(linear_damping), GRAVITY = B_INDEX(gravity_scale), EXTENT = B_INDEX(max_extent),
           THRESHOLD = B_INDEX(sleep_threshold), FIRST_SHAPE = B_INDEX(first_shape), RADIUS = B_INDEX(sphere_radius),
           BOX = B_INDEX(box_hx), FAT = B_INDEX(fat_lx), EDGES = B_INDEX(edges) };
#undef B_INDEX
    (void)s;
    put_bits(out, QW, 0.0f);
    if (b->type == TS_BODY_DYNAMIC) {
        ts_vec3 inertia = b->mass_data.principal_inertia;
        put_bits(out, INV_MASS, 1.0f / b->mass_data.mass);
        put_bits(out, INV_I, 1.0f / inertia.x);
        put_bits(out, INV_I + 1, 1.0f / inertia.y);
        put_bits(out, INV_I + 2, 1.0f / inertia.z);
        put_bits(out, I, inertia.x);
        put_bits(out, I + 1, inertia.y);
        put_bits(out, I + 2, inertia.z);
        put_bits(out, DAMPING, b->linear_damping);
        put_bits(out, DAMPING + 1, b->angular_damping);
        put_bits(out, GRAVITY, b->gravity_scale);
    }
    put_bits(out, EXTENT, ts_body_max_extent(records, body));
    put_bits(out, THRESHOLD, b->enable_sleep ? b->sleep_threshold : -1.0f);
    out[FIRST_SHAPE] = (uint32_t)b->first_shape;
    if (b->first_shape != -1) {
        const ts_shape *shape = records->shapes + b->first_shape;
        bool alone = shape->next == -1 && shape->proxy >= 0 && ts_shape_is_centred(shape);
        ts_quat q = shape->sim_local.q;
        bool fast = false;
        if (alone && shape->type == TS_SHAPE_SPHERE) {
            put_bits(out, RADIUS, shape->geometry.sphere.radius);
            fast = true;
        } else if (alone && shape->type == TS_SHAPE_BOX && q.x == 0.0f && q.y == 0.0f && q.z == 0.0f &&
                   q.w == 1.0f) {
            put_bits(out, BOX, shape->geometry.box.half_extents.x);
            put_bits(out, BOX + 1, shape->geometry.box.half_extents.y);
            put_bits(out, BOX + 2, shape->geometry.box.half_extents.z);
            fast = true;
        }
        if (fast) {
            ts_aabb f = shape->fat_aabb;
            float v[6] = {f.lower.x, f.lower.y, f.lower.z, f.upper.x, f.upper.y, f.upper.z};
            memcpy(out + FAT, v, sizeof v);
        }
    }
    out[EDGES] = (uint32_t)(b->contact_count + b->joint_count);
}

/* ---- the sections ---- */

static void save_bodies(ts_writer *w, ts_world *world) { ts_bodies_save(w, &world->records); }
static ts_load_status load_bodies(ts_reader *r, ts_world *world) { return ts_bodies_load(r, &world->records); }
static void save_shapes(ts_writer *w, ts_world *world) { ts_shapes_save(w, &world->records); }
/* A body's mass data as its shapes give it (api/body_mass.c computes it
 * so whenever they change; a shapeless dynamic body: 1 kg, a 0.5 m
 * sphere's inertia). The loader compares: a file whose mass data differs
 * (a crafted inertia of 1e-28, which no shapes give, made NaNs in the
 * next step: the fuzzer's find) is refused. */
static ts_mass_data mass_from_shapes(const ts_records *records, const ts_body *b)
{
    ts_mass_data none = {0.0f, {0, 0, 0}, {0, 0, 0}, {0, 0, 0, 1}};
    if (b->type != TS_BODY_DYNAMIC) {
        return none;
    }
    ts_mass_accumulator acc = {0};
    bool solid = false;
    for (int32_t sh = b->first_shape; sh != -1; sh = records->shapes[sh].next) {
        const ts_shape *shape = records->shapes + sh;
        if (!shape->is_sensor) {
            ts_mass_accumulate(&acc, ts_shape_compute_mass(shape), shape->local);
            solid = true;
        }
    }
    return solid ? ts_mass_finish(&acc) : (ts_mass_data){1.0f, {0, 0, 0}, {0.1f, 0.1f, 0.1f}, {0, 0, 0, 1}};
}

/* As api/body_mass.c's ts_mass_is_usable, which the API asks of every
 * shape's own mass (it may join a dynamic body later) and of every dynamic
 * body's: positive, at most TS_MAX_MASS and TS_MAX_MASS_INERTIA, with a
 * finite inverse (a sphere of radius 1e37 on a static body has an infinite
 * mass: the API refuses it, so the loader does). */
static bool usable(float value, float bound)
{
    return ts_is_finite(value) && value > 0.0f && value <= bound && ts_is_finite(1.0f / value);
}

static bool usable_mass(float mass, ts_vec3 inertia)
{
    return usable(mass, TS_MAX_MASS) && usable(inertia.x, TS_MAX_MASS_INERTIA) &&
           usable(inertia.y, TS_MAX_MASS_INERTIA) && usable(inertia.z, TS_MAX_MASS_INERTIA);
}

/* Every shape's own mass and every body's, once the geometry is loaded
 * (format 3: after the GEOM section; before it, with the shapes). Meshes
 * and heightfields have none (the API puts them on static and kinematic
 * bodies only: the shapes' load checks that). */
static ts_load_status check_masses(ts_reader *r, const ts_records *records)
{
    ts_load_status status = TS_LOAD_OK;
    for (int32_t i = 0; i < records->shape_ids.next_index && status == TS_LOAD_OK; ++i) {
        const ts_shape *shape = records->shapes + i;
        bool massless = shape->type == TS_SHAPE_MESH || shape->type == TS_SHAPE_HEIGHTFIELD;
        ts_shape_mass own = shape->alive && !massless ? ts_shape_compute_mass(shape) : (ts_shape_mass){0};
        if (shape->alive && !massless && !usable_mass(own.mass, own.inertia)) {
            ts_reader_fail(r, "shape %d's size and density give unusable mass properties (mass %g)", (int)i,
                           (double)own.mass);
            status = TS_LOAD_INVALID;
        }
    }
    for (int32_t i = 0; i < records->body_ids.next_index && status == TS_LOAD_OK; ++i) {
        const ts_body *b = records->bodies + i;
        ts_mass_data expected = b->alive ? mass_from_shapes(records, b) : b->mass_data;
        if (memcmp(&expected, &b->mass_data, sizeof expected) != 0) {
            ts_reader_fail(r, "body %d's mass data is not what its shapes give", (int)i);
            status = TS_LOAD_INVALID;
        } else if (b->alive && b->type == TS_BODY_DYNAMIC &&
                   !usable_mass(b->mass_data.mass, b->mass_data.principal_inertia)) {
            ts_reader_fail(r, "body %d's shapes give unusable mass properties (mass %g)", (int)i,
                           (double)b->mass_data.mass);
            status = TS_LOAD_INVALID;
        }
    }
    return status;
}

static ts_load_status load_shapes(ts_reader *r, ts_world *world)
{
    ts_load_status status = ts_shapes_load(r, &world->records);
    return status == TS_LOAD_OK && r->version < 3 ? check_masses(r, &world->records) : status;
}

static void save_geometry(ts_writer *w, ts_world *world) { ts_geometry_save(w, &world->records); }
static ts_load_status load_geometry(ts_reader *r, ts_world *world)
{
    ts_load_status status = ts_geometry_load(r, &world->records, &world->collision.geometry);
    return status == TS_LOAD_OK ? check_masses(r, &world->records) : status;
}

static void save_joints(ts_writer *w, ts_world *world) { ts_joints_save(w, &world->records); }
static ts_load_status load_joints(ts_reader *r, ts_world *world) { return ts_joints_load(r, &world->records); }
static void save_contacts(ts_writer *w, ts_world *world) { ts_contacts_save(w, &world->records); }
/* A contact's rolling resistance column is mixed from its shapes'
 * (collide/rolling_resistance.h; mixed again whenever a shape's changes):
 * not saved, mixed here. */
static ts_load_status load_contacts(ts_reader *r, ts_world *world)
{
    ts_load_status status = ts_contacts_load(r, &world->records);
    ts_records *records = &world->records;
    ts_contact_store *s = &records->contact_store;
    for (int32_t i = 0; i < s->table.count && status == TS_LOAD_OK; ++i) {
        s->rolling_resistance[i] = ts_contact_mix_rolling(records->shapes + s->shape_a[i], records->shapes + s->shape_b[i]);
    }
    return status;
}

static void save_store(ts_writer *w, ts_world *world) { ts_body_store_save(w, &world->records, predict_body); }
static ts_load_status load_store(ts_reader *r, ts_world *world)
{
    ts_load_status status = ts_body_store_load(r, &world->records, predict_body);
    if (status != TS_LOAD_OK) {
        return status;
    }
    /* the locks in effect: the body's own, and a planar world's on a dynamic body (api/motion_locks.c) */
    const ts_records *records = &world->records;
    for (int32_t b = 0; b < records->body_ids.next_index; ++b) {
        const ts_body *body = records->bodies + b;
        if (!body->alive) {
            continue;
        }
        uint32_t expected = body->motion_locks | (world->planar && body->type == TS_BODY_DYNAMIC ? TS_LOCK_PLANAR : 0u);
        uint32_t column = (uint32_t)records->store.locks[records->store.table.slot_of_id[b]];
        if (column != expected) {
            ts_reader_fail(r, "body %d's locks column is %u, its motion locks make %u", (int)b, (unsigned)column,
                           (unsigned)expected);
            return TS_LOAD_INVALID;
        }
    }
    return TS_LOAD_OK;
}

static void save_broadphase(ts_writer *w, ts_world *world)
{
    ts_broadphase_save(w, &world->records, &world->collision.broadphase);
}
static ts_load_status load_broadphase(ts_reader *r, ts_world *world)
{
    return ts_broadphase_load(r, &world->records, &world->collision.broadphase);
}

static void save_events(ts_writer *w, ts_world *world) { ts_contact_events_save(w, &world->collision.events); }
static ts_load_status load_events(ts_reader *r, ts_world *world)
{
    return ts_contact_events_load(r, &world->records, &world->collision.events);
}

static void save_sensors(ts_writer *w, ts_world *world) { ts_sensors_save(w, world); }
static ts_load_status load_sensors(ts_reader *r, ts_world *world) { return ts_sensors_load(r, world); }

static void save_islands(ts_writer *w, ts_world *world) { ts_islands_save(w, &world->records, &world->islands); }
static ts_load_status load_islands(ts_reader *r, ts_world *world)
{
    return ts_islands_load(r, &world->records, &world->islands);
}

static void save_graph(ts_writer *w, ts_world *world) { ts_graph_save(w, &world->records, &world->graph); }
static ts_load_status load_graph(ts_reader *r, ts_world *world)
{
    return ts_graph_load(r, &world->records, &world->graph);
}

static void save_solver(ts_writer *w, ts_world *world)
{
    ts_solver_save(w, &world->solver, &world->records, &world->graph, world->step_count);
}
static ts_load_status load_solver(ts_reader *r, ts_world *world)
{
    return ts_solver_load(r, &world->solver, &world->records, &world->graph, world->step_count);
}

/* ---- the reports' switches (format 4; their lists start empty after a
 * load; a file without the section loads with them off, as
 * ts_create_world leaves them) ---- */

static void save_reports(ts_writer *w, ts_world *world)
{
    const ts_contact_report *report = &world->solver.report;
    ts_put_u8(w, (uint8_t)((report->hits ? 1 : 0) | (report->impulses ? 2 : 0) | (world->moves.on ? 4 : 0)));
    ts_put_f32(w, report->hit_speed);
}

static ts_load_status load_reports(ts_reader *r, ts_world *world)
{
    uint8_t reports = ts_get_u8(r);
    float hit_speed = ts_get_f32(r);
    bool hits = (reports & 1) != 0;
    if (!r->failed && (reports > 7 || (hits ? !(hit_speed > 0.0f && ts_is_finite(hit_speed)) : hit_speed != 0.0f))) {
        ts_reader_fail(r, "the report switches are %u with a hit speed of %g m/s", (unsigned)reports,
                       (double)hit_speed);
    }
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    world->solver.report.hits = hits;
    world->solver.report.impulses = (reports & 2) != 0;
    world->solver.report.hit_speed = hit_speed;
    world->moves.on = (reports & 4) != 0;
    world->moves.count = 0;
    return TS_LOAD_OK;
}

typedef struct snapshot_section {
    uint32_t tag;
    const char *name;
    void (*save)(ts_writer *w, ts_world *world);
    ts_load_status (*load)(ts_reader *r, ts_world *world);
    uint32_t since; /* the format version that added it: an older file has none */
} snapshot_section;

/* The file's sections, in order. */
static const snapshot_section sections[] = {
    {TS_TAG('W', 'R', 'L', 'D'), "WRLD (world)", save_world, load_world, 1},
    {TS_TAG('B', 'O', 'D', 'Y'), "BODY (bodies)", save_bodies, load_bodies, 1},
    {TS_TAG('S', 'H', 'A', 'P'), "SHAP (shapes)", save_shapes, load_shapes, 1},
    {TS_TAG('G', 'E', 'O', 'M'), "GEOM (hulls, meshes, heightfields)", save_geometry, load_geometry, 3},
    {TS_TAG('J', 'O', 'N', 'T'), "JONT (joints)", save_joints, load_joints, 1},
    {TS_TAG('C', 'N', 'T', 'C'), "CNTC (contacts)", save_contacts, load_contacts, 1},
    {TS_TAG('B', 'S', 'T', 'O'), "BSTO (body store)", save_store, load_store, 1},
    {TS_TAG('B', 'P', 'H', 'S'), "BPHS (broadphase)", save_broadphase, load_broadphase, 1},
    {TS_TAG('E', 'V', 'N', 'T'), "EVNT (contact events)", save_events, load_events, 1},
    {TS_TAG('S', 'E', 'N', 'S'), "SENS (sensors)", save_sensors, load_sensors, 3},
    {TS_TAG('I', 'S', 'L', 'D'), "ISLD (islands)", save_islands, load_islands, 1},
    {TS_TAG('G', 'R', 'P', 'H'), "GRPH (graph colours)", save_graph, load_graph, 1},
    {TS_TAG('S', 'O', 'L', 'V'), "SOLV (solver)", save_solver, load_solver, 1},
    {TS_TAG('R', 'P', 'R', 'T'), "RPRT (report switches)", save_reports, load_reports, 4},
};
#define SECTION_COUNT ((int)(sizeof sections / sizeof sections[0]))

void ts_world_save_sections(ts_writer *w, ts_world *world)
{
    for (int k = 0; k < SECTION_COUNT; ++k) {
        size_t mark = ts_put_section_begin(w, sections[k].tag);
        sections[k].save(w, world);
        ts_put_section_end(w, mark);
    }
}

static void tag_text(uint32_t tag, char text[5])
{
    for (int k = 0; k < 4; ++k) {
        char c = (char)(tag >> (8 * k));
        text[k] = c >= 32 && c < 127 ? c : '?';
    }
    text[4] = '\0';
}

ts_result ts_world_load_sections(ts_reader *r, ts_world *world)
{
    r->section = "list";
    for (int k = 0; k < SECTION_COUNT; ++k) {
        if (sections[k].since > r->version) {
            continue;
        }
        uint32_t tag = 0;
        ts_reader payload;
        if (!ts_get_section(r, &tag, &payload)) {
            if (!r->failed) {
                ts_reader_fail(r, "section %s is missing (the file ends before it)", sections[k].name);
            }
            return TS_ERROR_INVALID_DATA;
        }
        if (tag != sections[k].tag) {
            char text[5];
            tag_text(tag, text);
            int known = -1;
            for (int j = 0; j < SECTION_COUNT; ++j) {
                known = sections[j].tag == tag ? j : known;
            }
            if (known < 0) {
                ts_reader_fail(r, "unknown section '%s' where %s belongs (written by a newer tessera with a feature "
                                  "this one lacks?)", text, sections[k].name);
            } else {
                ts_reader_fail(r, "section %s where %s belongs (out of order)", sections[known].name,
                               sections[k].name);
            }
            return TS_ERROR_INVALID_DATA;
        }
        payload.section = sections[k].name;
        ts_load_status status = sections[k].load(&payload, world);
        if (status == TS_LOAD_NO_MEMORY) {
            return TS_ERROR_OUT_OF_MEMORY;
        }
        if (status != TS_LOAD_OK || !ts_reader_finish(&payload, r)) {
            if (!payload.failed) {
                ts_reader_fail(&payload, "refused");
            }
            ts_reader_finish(&payload, r);
            return TS_ERROR_INVALID_DATA;
        }
    }
    if (r->at != r->size) {
        uint32_t tag = 0;
        ts_reader payload;
        char text[5] = "?";
        if (ts_get_section(r, &tag, &payload)) {
            tag_text(tag, text);
        }
        r->failed = false;
        ts_reader_fail(r, "unknown section '%s' after the last one (written by a newer tessera?)", text);
        return TS_ERROR_INVALID_DATA;
    }
    ts_load_status status = ts_collision_rebuild(&world->records, &world->collision);
    if (status == TS_LOAD_NO_MEMORY) {
        return TS_ERROR_OUT_OF_MEMORY;
    }
    if (status != TS_LOAD_OK) {
        ts_reader_fail(r, "two contacts of one shape pair");
        return TS_ERROR_INVALID_DATA;
    }
    return TS_OK;
}
