/* One rank's part of a split world (docs/distributed.md): a whole tessera
 * world holding every static body, the dynamic bodies this rank owns (centre
 * in its slab) and ghosts of its neighbours' bodies within the margin of a
 * boundary. Ghosts are full dynamic bodies (or kinematic proxies) whose
 * state the owner overwrites after every step; what the ghost's own step
 * made of it is thrown away. No MPI here: split_exchange.c moves the records. */
#ifndef TESSERA_SPLIT_WORLD_H
#define TESSERA_SPLIT_WORLD_H

#include "build_tessera.h"
#include "split_slab.h"

#include <stddef.h>

typedef enum split_role {
    SPLIT_ABSENT = 0,
    SPLIT_STATIC, /* every rank holds every static body */
    SPLIT_OWNED,
    SPLIT_GHOST,
} split_role;

/* A growable list of records (grows while the world warms up, then stays). */
typedef struct split_buffer {
    split_record *records;
    int count, capacity;
} split_buffer;

bool split_buffer_push(split_buffer *b, const split_record *r);
void split_buffer_free(split_buffer *b);

typedef struct split_counters {
    int owned, ghosts;         /* after the last reconcile */
    long migrated_in, migrated_out;
    long created, destroyed;   /* ghost bodies made and dropped */
    long conflicts;            /* records for a body this rank owns: must stay 0 */
} split_counters;

typedef struct split_world {
    ts_world_id world;
    const scene_desc *desc;
    split_slab slab;
    bool kinematic_ghosts; /* ghosts as kinematic proxies instead of dynamic copies */
    ts_body_id *local;     /* per description body: its body here, or the null id */
    unsigned char *role;   /* per description body: split_role */
    unsigned *seen;        /* per description body: stamp of the reconcile that last confirmed it */
    unsigned stamp;
    split_counters counters;
} split_world;

/* Builds the world: every static body and the owned dynamic bodies, in
 * description order (with one rank, the very world tessera-bench builds). */
bool split_world_create(split_world *w, const scene_desc *desc, const split_slab *slab,
                        const tessera_settings *settings, bool kinematic_ghosts, char *error, size_t size);
void split_world_destroy(split_world *w);

/* The records of the owned bodies each neighbour needs (ascending
 * description order). Returns false when memory runs out. */
bool split_world_pack(const split_world *w, split_buffer *to_left, split_buffer *to_right);

/* After an exchange: owned bodies that left the slab become ghosts (or go),
 * received records update or create ghosts and hand over the bodies that
 * entered the slab, and ghosts no neighbour sent any more go. Records are
 * applied left's first, each in ascending order, so every rank does the
 * same operations in the same order on every run. */
bool split_world_reconcile(split_world *w, const split_buffer *from_left, const split_buffer *from_right, char *error,
                           size_t size);

/* The current state of a body held here. */
split_record split_world_read(const split_world *w, int gid);

/* Every owned body's record, ascending (for the final gather). */
bool split_world_owned(const split_world *w, split_buffer *out);

#endif
