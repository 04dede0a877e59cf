/* A rank's share of its node's cores (node_threads.h). */
#include "node_threads.h"

#include <mpi.h>

#include <unistd.h>

int node_threads(bool idle_rank0)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int local = 0, idle = idle_rank0 && rank == 0, idle_here = 0;
    MPI_Comm_size(node, &local);
    MPI_Allreduce(&idle, &idle_here, 1, MPI_INT, MPI_MAX, node);
    MPI_Comm_free(&node);
    int stepping = local - idle_here;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int share = stepping > 0 ? (int)(cores / stepping) : 1;
    return share > 0 ? share : 1;
}
