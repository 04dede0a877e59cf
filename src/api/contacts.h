/* Contacts from the API's side: destroying a body, shape or joint destroys
 * contacts, each first taken out of its graph colour and its islands
 * (islands/contact_graph.h), then out of the collide layer's records
 * (collide/contact.h), in the order of the body's contact list. */
#ifndef TS_API_CONTACTS_H
#define TS_API_CONTACTS_H

#include "step/world_state.h"

/* Destroys the contacts of one shape (shape >= 0) or of every shape of a body
 * (shape = -1); touching ones report an end event. */
void ts_body_destroy_contacts(ts_world *world, int32_t body, int32_t shape);

/* Destroys the contacts between two bodies (a joint that forbids them was made). */
void ts_contacts_destroy_between(ts_world *world, int32_t body_a, int32_t body_b);

#endif
