/* Contacts: one per shape pair whose fat bounds overlap. Creation and
 * destruction (with the body contact lists and the pair map), the
 * narrowphase stage that refreshes every manifold and matches its points to
 * last step's by feature id, and the begin / end touch events.
 *
 * A contact's colour and island links (islands/contact_graph.h) are not
 * this layer's: whoever destroys a contact takes it out of its colour and
 * islands first (the step for the parted ones, the API for the contacts of
 * a destroyed body, shape or joint). */
#ifndef TS_CONTACT_H
#define TS_CONTACT_H

#include "base/parallel.h"
#include "collide/collision.h"
#include "soa/records.h"

/* Makes the contact of two shapes (a pair not in the pair map). */
ts_result ts_contact_create(ts_records *records, ts_collision *collision, int32_t shape_a, int32_t shape_b);

/* ts_contact_create for a batch, in three parts with the same result as
 * creating them one by one in the same order:
 *   ts_contacts_reserve(n)               room for n more (false: out of memory)
 *   id = ts_contact_register(a, b)       in order, one thread: id, pair map,
 *                                        body lists, store slot (not filled)
 *   ts_contacts_fill(ids, begin, end)    any threads: each contact's store
 *                                        slot, zeroed and filled; touches
 *                                        only those slots */
bool ts_contacts_reserve(ts_records *records, ts_collision *collision, int32_t extra);
int32_t ts_contact_register(ts_records *records, ts_collision *collision, int32_t shape_a, int32_t shape_b);
void ts_contacts_fill(ts_records *records, const int32_t *ids, int32_t begin, int32_t end);
/* ts_contacts_fill of the contacts in store slots [begin, end). */
void ts_contacts_fill_slots(ts_records *records, int32_t begin, int32_t end);

/* Destroys a contact that has no colour and no island link; a touching one
 * reports an end event. */
void ts_contact_destroy(ts_records *records, ts_collision *collision, int32_t contact);

/* Destroys the parted contacts listed by the narrowphase
 * (collision->doomed_contacts), in order, with the same result as
 * ts_contact_destroy one by one: the bookkeeping first, the store's column
 * copies afterwards in parallel (soa/soa_removal.h). Their end events were
 * reported by the narrowphase (the columns are stale from the first
 * removal on). */
void ts_contacts_destroy_parted(ts_records *records, ts_collision *collision, ts_parallel *parallel);

/* Step stage "narrowphase" (worker 0, with parallel stages inside): every
 * awake contact's manifold in parallel, points matched to last step's by
 * feature id (they keep their accumulated impulses), touch flags updated,
 * each block listing its contacts that began, ended or parted. While the
 * other workers start on the contacts there were, worker 0 runs
 * register_new(register_context) (may be NULL; ts_broadphase_register_pairs
 * in a step), whose new contacts must take the slots right after the awake
 * range's unfilled and touch nothing below; a second stage fills and
 * updates those. Then, on worker 0 in slot order, only the listed contacts:
 * their begin / end events, and the lists the step acts on
 * (collision.h): those that began or stopped touching, and the ids of
 * those that parted. The contacts there were are listed while the others
 * run the second stage, and news(news_context) (may be NULL) is called
 * then with their part of the lists: it may act on what the second stage
 * does not read (not the bodies' slots); its error ends the narrowphase.
 * dt: the step's, for the speculative margin; width: the SIMD width of
 * the recycle kernel (1, 4, 8, 16: the same bits). */
typedef ts_result ts_news_fn(void *context);

/* The pass over every body that the narrowphase's first stage needs (the
 * recycle kernel's records of poses and velocities, when a contact is
 * awake) as the blocks of *pass (none: block_count 0), for the step to
 * run beside an earlier stage; the next ts_contacts_narrowphase, which
 * must follow with no pose and no contact changed, then skips it. False
 * when out of memory (nothing changed). */
bool ts_contacts_body_records(ts_records *records, ts_collision *collision, ts_stage_def *pass);

ts_result ts_contacts_narrowphase(ts_records *records, ts_collision *collision, ts_parallel *parallel, float dt,
                                  int width, void (*register_new)(void *), void *register_context, ts_news_fn *news,
                                  void *news_context);

/* Adds a begin / end event of a shape pair to the collection (out of
 * memory: TS_ERROR_OUT_OF_MEMORY; a destroy call then drops the event). */
ts_result ts_contact_push_begin(const ts_records *records, ts_contact_events_buffer *events, int32_t shape_a,
                                int32_t shape_b);
ts_result ts_contact_push_end(const ts_records *records, ts_contact_events_buffer *events, int32_t shape_a,
                              int32_t shape_b);

/* End of step: sorts the collected events by shape pair and makes them the
 * published ones; the collection starts empty. */
ts_result ts_contact_events_publish(ts_contact_events_buffer *events);

/* The narrowphase's lists of slots with news: room for `slots` contacts
 * (and as many blocks). */
bool ts_contact_news_reserve(const ts_allocator *allocator, ts_collision *collision, int32_t slots);

/* The narrowphase's copy of the bodies' poses (collision->recycle_bodies):
 * room for `bodies` body store slots. The step takes it before it changes
 * anything (false: out of memory). */
bool ts_contact_recycle_reserve(const ts_allocator *allocator, ts_collision *collision, int32_t bodies);

/* Frees the contact records, their store and pool, the pair map, the events
 * and the narrowphase's lists. */
void ts_contacts_free(ts_records *records, ts_collision *collision);

#endif
