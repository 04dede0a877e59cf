/* How many threads a rank's world gets when the user names none: this
 * node's cores shared among the ranks on it that step worlds. */
#ifndef TESSERA_NODE_THREADS_H
#define TESSERA_NODE_THREADS_H

#include <stdbool.h>

/* Collective over MPI_COMM_WORLD. idle_rank0: rank 0 steps no world (the
 * sweep's dispatcher when there are other ranks), so it does not count. */
int node_threads(bool idle_rank0);

#endif
