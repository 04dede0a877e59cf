/* Contacts: one per shape pair whose fat bounds overlap. Creation and
 * destruction (with the body contact lists and the pair map), the
 * narrowphase stage that refreshes every manifold and matches its points to
 * last step's by feature id, and the begin / end touch events. */
#ifndef TS_CONTACT_H
#define TS_CONTACT_H

#include "base/core.h"

struct ts_world;

/* Makes the contact of two shapes (a pair not in the pair map). */
ts_result ts_contact_create(struct ts_world *world, int32_t shape_a, int32_t shape_b);

/* ts_contact_create for a batch, in three parts with the same result as
 * creating them one by one in the same order:
 *   ts_contacts_reserve(world, n)              room for n more (false: out of memory)
 *   id = ts_contact_register(world, a, b)      in order, one thread: id, pair map,
 *                                              body lists, store slot (not filled)
 *   ts_contacts_fill(world, ids, begin, end)   any threads: each contact's store
 *                                              slot, zeroed and filled; touches
 *                                              only those slots */
bool ts_contacts_reserve(struct ts_world *world, int32_t extra);
int32_t ts_contact_register(struct ts_world *world, int32_t shape_a, int32_t shape_b);
void ts_contacts_fill(struct ts_world *world, const int32_t *ids, int32_t begin, int32_t end);
/* ts_contacts_fill of the contacts in store slots [begin, end). */
void ts_contacts_fill_slots(struct ts_world *world, int32_t begin, int32_t end);

/* Destroys a contact; a touching one reports an end event. */
void ts_contact_destroy(struct ts_world *world, int32_t contact);

/* Destroys the parted contacts, in order, with the same result as
 * ts_contact_destroy one by one: the bookkeeping first, the store's column
 * copies afterwards in parallel (soa/soa_removal.h). Their end events were
 * reported by the caller (the columns are stale from the first removal on). */
void ts_contacts_destroy_parted(struct ts_world *world, const int32_t *doomed, int32_t count);

/* Destroys the contacts of one shape (shape >= 0) or of every shape of a body
 * (shape = -1). */
void ts_body_destroy_contacts(struct ts_world *world, int32_t body, int32_t shape);

/* Step stage "narrowphase" (worker 0, with parallel stages inside): every
 * awake contact's manifold in parallel, points matched to last step's by
 * feature id (they keep their accumulated impulses), touch flags updated,
 * each block listing its contacts that began, ended or parted. While the
 * other workers start on the contacts there were, worker 0 runs
 * register_new (may be NULL: ts_broadphase_register_pairs in a step), whose
 * new contacts must take the slots right after the awake range's unfilled
 * and touch nothing below; a second stage fills and updates those. Then,
 * on worker 0 in slot order, only the listed contacts: begin / end events,
 * graph colours, islands, and the parted contacts destroyed in one batch
 * whose store compaction runs in parallel. */
ts_result ts_contacts_narrowphase(struct ts_world *world, void (*register_new)(struct ts_world *));

/* End of step: sorts the collected events by shape pair and makes them the
 * published ones; the collection starts empty. */
ts_result ts_contact_events_publish(struct ts_world *world);

/* Adds a begin / end event of a shape pair to the collection (out of
 * memory: TS_ERROR_OUT_OF_MEMORY; a destroy call then drops the event). */
ts_result ts_contact_push_begin(struct ts_world *world, int32_t shape_a, int32_t shape_b);
ts_result ts_contact_push_end(struct ts_world *world, int32_t shape_a, int32_t shape_b);

/* The narrowphase's lists of slots with news: room for `slots` contacts
 * (and as many blocks). */
bool ts_contact_news_reserve(struct ts_world *world, int32_t slots);

/* Destroys the contacts between two bodies (a joint that forbids them was made). */
void ts_contacts_destroy_between(struct ts_world *world, int32_t body_a, int32_t body_b);

void ts_contacts_free(struct ts_world *world);

#endif
