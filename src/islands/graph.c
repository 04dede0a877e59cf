/* Persistent graph colouring of contacts and joints (see graph.h). */
#include "islands/graph.h"

#include "base/alloc.h"
#include "base/array.h"

#include <string.h>

void ts_graph_destroy(ts_constraint_graph *graph, const ts_allocator *allocator)
{
    for (int c = 0; c <= TS_GRAPH_COLOR_COUNT; ++c) {
        ts_graph_color *color = graph->colors + c;
        ts_array_free(allocator, (void **)&color->body_bits, &color->word_capacity, sizeof(uint64_t));
        ts_array_free(allocator, (void **)&color->contacts, &color->capacity, sizeof(int32_t));
        ts_array_free(allocator, (void **)&color->joints, &color->joint_capacity, sizeof(int32_t));
        color->count = 0;
        color->joint_count = 0;
    }
    ts_array_free(allocator, (void **)&graph->degrees, &graph->degree_capacity, sizeof(int32_t));
}

static bool bit_is_set(const ts_graph_color *color, int32_t body)
{
    int32_t word = body >> 6;
    return word < color->word_capacity && (color->body_bits[word] >> (body & 63) & 1u) != 0;
}

/* Grows the bitset (new words zero) to hold body. */
static bool reserve_bit(ts_graph_color *color, const ts_allocator *allocator, int32_t body)
{
    int32_t old = color->word_capacity;
    if ((body >> 6) < old) {
        return true;
    }
    if (!ts_array_reserve(allocator, (void **)&color->body_bits, &color->word_capacity, (body >> 6) + 1,
                          sizeof(uint64_t))) {
        return false;
    }
    memset(color->body_bits + old, 0, (size_t)(color->word_capacity - old) * sizeof(uint64_t));
    return true;
}

static void set_bit(ts_graph_color *color, int32_t body, bool value)
{
    uint64_t mask = (uint64_t)1 << (body & 63);
    color->body_bits[body >> 6] = value ? color->body_bits[body >> 6] | mask : color->body_bits[body >> 6] & ~mask;
}

static int choose_color(const ts_constraint_graph *graph, int32_t body_a, int32_t body_b)
{
    if (body_a >= 0 && body_b >= 0) {
        for (int c = 0; c < TS_GRAPH_COLOR_COUNT; ++c) {
            if (!bit_is_set(graph->colors + c, body_a) && !bit_is_set(graph->colors + c, body_b)) {
                return c;
            }
        }
    } else if (body_a >= 0 || body_b >= 0) {
        int32_t body = body_a >= 0 ? body_a : body_b;
        for (int c = TS_GRAPH_COLOR_COUNT - 1; c >= 0; --c) {
            if (!bit_is_set(graph->colors + c, body)) {
                return c;
            }
        }
    }
    return TS_OVERFLOW_COLOR;
}

/* The contact list or the joint list of a colour. */
typedef struct member_list {
    int32_t **items;
    int32_t *count;
    int32_t *capacity;
} member_list;

static member_list contact_list(ts_graph_color *color)
{
    return (member_list){&color->contacts, &color->count, &color->capacity};
}

static member_list joint_list(ts_graph_color *color)
{
    return (member_list){&color->joints, &color->joint_count, &color->joint_capacity};
}

static bool add_member(ts_constraint_graph *graph, const ts_allocator *allocator, bool joint, int32_t id,
                       int32_t body_a, int32_t body_b, int *color_out, int32_t *index_out)
{
    int c = choose_color(graph, body_a, body_b);
    ts_graph_color *color = graph->colors + c;
    member_list list = joint ? joint_list(color) : contact_list(color);
    graph->joint_revision += joint ? 1u : 0u;
    if (!ts_array_reserve(allocator, (void **)list.items, list.capacity, *list.count + 1, sizeof(int32_t))) {
        return false;
    }
    if (c != TS_OVERFLOW_COLOR) {
        if ((body_a >= 0 && !reserve_bit(color, allocator, body_a)) ||
            (body_b >= 0 && !reserve_bit(color, allocator, body_b))) {
            return false;
        }
        if (body_a >= 0) {
            set_bit(color, body_a, true);
        }
        if (body_b >= 0) {
            set_bit(color, body_b, true);
        }
    }
    (*list.items)[*list.count] = id;
    *color_out = c;
    *index_out = *list.count;
    *list.count += 1;
    return true;
}

bool ts_graph_reserve(ts_constraint_graph *graph, const ts_allocator *allocator, int32_t bodies, int32_t adds)
{
    for (int c = 0; c <= TS_OVERFLOW_COLOR; ++c) {
        ts_graph_color *color = graph->colors + c;
        int32_t room = color->count + adds;
        if (c != TS_OVERFLOW_COLOR) {
            if (bodies > 0 && !reserve_bit(color, allocator, bodies - 1)) {
                return false;
            }
            room = room < bodies ? room : bodies; /* each member sets a bit no other member of the colour has */
        }
        if (!ts_array_reserve(allocator, (void **)&color->contacts, &color->capacity, room, sizeof(int32_t))) {
            return false;
        }
    }
    return true;
}

bool ts_graph_add(ts_constraint_graph *graph, const ts_allocator *allocator, int32_t contact, int32_t body_a,
                  int32_t body_b, int *color_out, int32_t *index_out)
{
    return add_member(graph, allocator, false, contact, body_a, body_b, color_out, index_out);
}

bool ts_graph_add_joint(ts_constraint_graph *graph, const ts_allocator *allocator, int32_t joint, int32_t body_a,
                        int32_t body_b, int *color_out, int32_t *index_out)
{
    return add_member(graph, allocator, true, joint, body_a, body_b, color_out, index_out);
}

static int32_t remove_member(ts_constraint_graph *graph, bool joint, int c, int32_t index, int32_t body_a,
                             int32_t body_b)
{
    ts_graph_color *color = graph->colors + c;
    member_list list = joint ? joint_list(color) : contact_list(color);
    graph->joint_revision += joint ? 1u : 0u;
    if (c != TS_OVERFLOW_COLOR) {
        if (body_a >= 0) {
            set_bit(color, body_a, false);
        }
        if (body_b >= 0) {
            set_bit(color, body_b, false);
        }
    }
    int32_t last = *list.count - 1;
    int32_t moved = -1;
    if (index != last) {
        moved = (*list.items)[last];
        (*list.items)[index] = moved;
    }
    *list.count = last;
    return moved;
}

int32_t ts_graph_remove(ts_constraint_graph *graph, int c, int32_t index, int32_t body_a, int32_t body_b)
{
    return remove_member(graph, false, c, index, body_a, body_b);
}

int32_t ts_graph_remove_joint(ts_constraint_graph *graph, int c, int32_t index, int32_t body_a, int32_t body_b)
{
    return remove_member(graph, true, c, index, body_a, body_b);
}

/* Checks each body of a colour's members has its bit; returns how many bits they claim. */
static int32_t claim_bits(const ts_graph_color *color, const int32_t *ids, int32_t count, ts_graph_bodies_fn *bodies_of,
                          const void *context, bool *ok)
{
    int32_t claimed = 0;
    for (int32_t i = 0; i < count; ++i) {
        int32_t bodies[2];
        bodies_of(context, ids[i], bodies);
        for (int k = 0; k < 2; ++k) {
            if (bodies[k] < 0) {
                continue;
            }
            if (!bit_is_set(color, bodies[k])) {
                *ok = false;
            }
            claimed += 1;
        }
    }
    return claimed;
}

bool ts_graph_validate_with_joints(const ts_constraint_graph *graph, ts_graph_bodies_fn *bodies_of,
                                   ts_graph_bodies_fn *joint_bodies_of, const void *context)
{
    for (int c = 0; c < TS_GRAPH_COLOR_COUNT; ++c) {
        const ts_graph_color *color = graph->colors + c;
        int32_t bits = 0;
        for (int32_t w = 0; w < color->word_capacity; ++w) {
            bits += ts_popcount64(color->body_bits[w]);
        }
        /* Every body bit belongs to exactly one contact or joint of the colour. */
        bool ok = true;
        int32_t claimed = claim_bits(color, color->contacts, color->count, bodies_of, context, &ok);
        if (joint_bodies_of != NULL) {
            claimed += claim_bits(color, color->joints, color->joint_count, joint_bodies_of, context, &ok);
        } else if (color->joint_count > 0) {
            return false;
        }
        if (!ok || claimed != bits) {
            return false; /* a body is in two members of this colour, or a stale bit */
        }
    }
    return true;
}

bool ts_graph_validate(const ts_constraint_graph *graph, ts_graph_bodies_fn *bodies_of, const void *context)
{
    return ts_graph_validate_with_joints(graph, bodies_of, NULL, context);
}
