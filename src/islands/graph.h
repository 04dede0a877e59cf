/* The constraint graph's colouring: constraints split into colours such that
 * no dynamic body appears twice in one colour, so the constraints of a colour
 * can be solved in any order, on any thread and SIMD lane.
 *
 * Colours are persistent: a contact takes a colour when it starts touching
 * and keeps it until it stops. Each colour has a bitset over body ids; a
 * contact takes the first colour where neither of its dynamic bodies' bits is
 * set. Static and kinematic bodies take no bit (their velocity is not
 * changed by a contact). As in Box2D v3 / Box3D, there are 24 colours; contacts
 * of two dynamic bodies search them from the first, contacts with a static or
 * kinematic body from the last, so those are solved last (the ground then has
 * the final word in a stack). What fits nowhere goes to the overflow set,
 * solved serially. */
#ifndef TS_GRAPH_H
#define TS_GRAPH_H

#include "base/core.h"

#include <stdbool.h>

#define TS_GRAPH_COLOR_COUNT TS_COLOR_COUNT
#define TS_OVERFLOW_COLOR TS_GRAPH_COLOR_COUNT

typedef struct ts_graph_color {
    uint64_t *body_bits; /* bit b: dynamic body id index b is in this colour (unused for overflow) */
    int32_t word_capacity;
    int32_t *contacts; /* contact ids in this colour */
    int32_t count;
    int32_t capacity;
    int32_t *joints; /* joint ids in this colour (they share the body bits with the contacts) */
    int32_t joint_count;
    int32_t joint_capacity;
} ts_graph_color;

typedef struct ts_constraint_graph {
    ts_graph_color colors[TS_GRAPH_COLOR_COUNT + 1]; /* the last is the overflow set */
    uint32_t joint_revision; /* bumped when a joint is added or removed (the joint bundles' layout follows it) */
    int32_t *degrees;        /* a step's new pairs per body id index, zero between reserves (graph_bound.h) */
    int32_t degree_capacity;
} ts_constraint_graph;

void ts_graph_destroy(ts_constraint_graph *graph, const ts_allocator *allocator);

/* Adds a contact between body_a and body_b (body id indices, or -1 for a
 * static or kinematic body). On success *color and *index say where it went. */
bool ts_graph_add(ts_constraint_graph *graph, const ts_allocator *allocator, int32_t contact, int32_t body_a,
                  int32_t body_b, int *color, int32_t *index);

/* Removes the contact at (color, index); returns the contact id that moved
 * into its place (its index is now `index`), or -1. */
int32_t ts_graph_remove(ts_constraint_graph *graph, int color, int32_t index, int32_t body_a, int32_t body_b);

/* The same for joints: a joint takes the first colour where neither of its
 * dynamic bodies has a bit, like a contact, so that a colour's contacts and
 * joints all touch different bodies and run in any order. */
bool ts_graph_add_joint(ts_constraint_graph *graph, const ts_allocator *allocator, int32_t joint, int32_t body_a,
                        int32_t body_b, int *color, int32_t *index);
int32_t ts_graph_remove_joint(ts_constraint_graph *graph, int color, int32_t index, int32_t body_a, int32_t body_b);

/* Before a step changes anything: room for `adds` more contacts in any
 * colours (a colour holds a body of its own per member, so at most
 * `bodies` members) and a bit for each of `bodies` body indices in every
 * colour, so that colouring them allocates nothing. False when out of
 * memory (only capacities changed). */
bool ts_graph_reserve(ts_constraint_graph *graph, const ts_allocator *allocator, int32_t bodies, int32_t adds);

/* The two coloured bodies of a contact (-1 for none), as given to ts_graph_add. */
typedef void ts_graph_bodies_fn(const void *context, int32_t contact, int32_t bodies[2]);

/* True when no dynamic body is in two contacts of one colour and the bitsets
 * hold exactly the contacts' bodies (for tests). */
bool ts_graph_validate(const ts_constraint_graph *graph, ts_graph_bodies_fn *bodies_of, const void *context);

/* The same, counting the joints' bodies too (joint_bodies_of gives them). */
bool ts_graph_validate_with_joints(const ts_constraint_graph *graph, ts_graph_bodies_fn *bodies_of,
                                   ts_graph_bodies_fn *joint_bodies_of, const void *context);

#endif
