/* Neighbour exchange and final gather of a split world (split_exchange.h). */
#include "split_exchange.h"

#include <mpi.h>

#include <stdlib.h>

static bool reserve(split_buffer *b, int count)
{
    if (count > b->capacity) {
        split_record *grown = realloc(b->records, sizeof(split_record) * (size_t)count);
        if (grown == NULL) {
            return false;
        }
        b->records = grown;
        b->capacity = count;
    }
    b->count = count;
    return true;
}

bool split_exchange(const split_slab *s, const split_buffer *to_left, const split_buffer *to_right,
                    split_buffer *from_left, split_buffer *from_right, split_traffic *t)
{
    int left = s->rank > 0 ? s->rank - 1 : MPI_PROC_NULL;
    int right = s->rank < s->ranks - 1 ? s->rank + 1 : MPI_PROC_NULL;
    const int record = (int)sizeof(split_record);
    /* Round 1, counts: rightward then leftward. A rank arrives here when its
     * step is done, so this round also absorbs the wait for a slower one. */
    double start = MPI_Wtime();
    int n_left = 0, n_right = 0;
    MPI_Sendrecv(&to_right->count, 1, MPI_INT, right, 1, &n_left, 1, MPI_INT, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&to_left->count, 1, MPI_INT, left, 2, &n_right, 1, MPI_INT, right, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    double counted = MPI_Wtime();
    if (!reserve(from_left, n_left) || !reserve(from_right, n_right)) {
        return false;
    }
    /* Round 2, the records themselves. */
    MPI_Sendrecv(to_right->records, to_right->count * record, MPI_BYTE, right, 3, from_left->records, n_left * record,
                 MPI_BYTE, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(to_left->records, to_left->count * record, MPI_BYTE, left, 4, from_right->records, n_right * record,
                 MPI_BYTE, right, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double done = MPI_Wtime();
    t->ms_wait += 1000.0 * (counted - start);
    t->ms_transfer += 1000.0 * (done - counted);
    t->bytes_sent += (double)(left != MPI_PROC_NULL) * (sizeof(int) + (double)to_left->count * record) +
                     (double)(right != MPI_PROC_NULL) * (sizeof(int) + (double)to_right->count * record);
    t->exchanges += 1;
    return true;
}

bool split_gather(const split_buffer *mine, split_buffer *all, int rank, int ranks)
{
    const int record = (int)sizeof(split_record);
    int bytes = mine->count * record;
    int *counts = rank == 0 ? calloc((size_t)ranks, sizeof(int)) : NULL;
    int *offsets = rank == 0 ? calloc((size_t)ranks, sizeof(int)) : NULL;
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    bool ok = true;
    if (rank == 0) {
        int total = 0;
        for (int r = 0; r < ranks; ++r) {
            offsets[r] = total;
            total += counts[r];
        }
        ok = reserve(all, total / record);
    }
    MPI_Gatherv(mine->records, bytes, MPI_BYTE, rank == 0 ? all->records : NULL, counts, offsets, MPI_BYTE, 0,
                MPI_COMM_WORLD);
    free(counts);
    free(offsets);
    return ok;
}
