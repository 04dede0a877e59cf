/* The messages of a split world: each rank swaps record lists with its left
 * and right neighbours after every step (two MPI_Sendrecv rounds: counts,
 * then records), and rank 0 gathers every owned body at the end. */
#ifndef TESSERA_SPLIT_EXCHANGE_H
#define TESSERA_SPLIT_EXCHANGE_H

#include "split_world.h"

/* What one rank spent on exchanges so far. */
typedef struct split_traffic {
    double bytes_sent;
    double ms_wait;     /* the count round: holds the time spent waiting for a slower neighbour */
    double ms_transfer; /* the record round */
    long exchanges;
} split_traffic;

/* Sends to_left / to_right to the neighbours of slab and receives theirs
 * (a missing neighbour sends nothing). Returns false when memory runs out. */
bool split_exchange(const split_slab *slab, const split_buffer *to_left, const split_buffer *to_right,
                    split_buffer *from_left, split_buffer *from_right, split_traffic *traffic);

/* Gathers every rank's records on rank 0 (into all, on rank 0 only). */
bool split_gather(const split_buffer *mine, split_buffer *all, int rank, int ranks);

#endif
