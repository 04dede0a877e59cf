/* tessera-sweep: many independent worlds over MPI ranks.
 *
 *   mpirun -np 3 tessera-sweep sweep.ini --out runs.jsonl
 *
 * Every rank parses the same description (rank 0 reads the file and
 * broadcasts it), so a run is named by its number alone. Rank 0 hands out
 * run numbers one at a time to whichever worker asks (dynamic load
 * balancing: a long run holds up one worker, not a share of the sweep) and
 * writes the JSON lines in run order as they complete; it only sleeps and
 * answers, so W workers want -np W+1. With one rank (no mpirun, or -np 1)
 * rank 0 runs every run itself. Each worker steps its world on OpenMP
 * threads: the description's `threads`, else its share of the node's cores.
 * A run's result does not depend on where it ran: the world is bitwise the
 * same for every thread count and SIMD width, and a run shares nothing with
 * the others. */
#include "node_threads.h"
#include "sweep_desc.h"
#include "sweep_run.h"

#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TAG_RESULT = 1, TAG_WORK = 2 };

typedef struct sweep_options {
    const char *description;
    const char *out;
    bool dry_run;
} sweep_options;

static void usage(void)
{
    fprintf(stderr,
            "usage: [mpirun -np N] tessera-sweep DESCRIPTION [--out FILE] [--dry-run]\n"
            "\n"
            "Runs every combination a sweep description (INI, see docs/distributed.md) lists, spread\n"
            "over the MPI ranks: rank 0 hands out runs, ranks 1..N-1 run them (one rank: it runs them\n"
            "all). Writes one JSON line per run, in run order, to FILE (default: standard output):\n"
            "tessera-bench's keys plus sweep_run, rank, ok and the run's values. A run that fails is\n"
            "reported with \"ok\": false. --dry-run prints the runs and runs nothing.\n");
}

static int parse_options(int argc, char **argv, sweep_options *o)
{
    memset(o, 0, sizeof(*o));
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            o->out = argv[++i];
        } else if (strcmp(argv[i], "--dry-run") == 0) {
            o->dry_run = true;
        } else if (argv[i][0] != '-' && o->description == NULL) {
            o->description = argv[i];
        } else {
            return 2;
        }
    }
    return o->description != NULL ? 0 : 2;
}

/* Rank 0 reads the file; every rank gets its text (NULL: unreadable). */
static char *broadcast_text(const char *path, int rank, char *error, size_t size)
{
    long length = -1;
    char *text = NULL;
    if (rank == 0) {
        FILE *f = fopen(path, "rb");
        if (f != NULL && fseek(f, 0, SEEK_END) == 0 && (length = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
            text = malloc((size_t)length + 1);
            if (text == NULL || fread(text, 1, (size_t)length, f) != (size_t)length) {
                length = -1;
            }
        }
        if (f != NULL) {
            fclose(f);
        }
    }
    MPI_Bcast(&length, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (length < 0) {
        snprintf(error, size, "cannot read %s", path);
        free(text);
        return NULL;
    }
    if (rank != 0) {
        text = malloc((size_t)length + 1);
    }
    MPI_Bcast(text, (int)length, MPI_CHAR, 0, MPI_COMM_WORLD);
    text[length] = '\0';
    return text;
}

static char *run_one(const sweep_desc *d, long index, int rank, int threads)
{
    sweep_run run;
    sweep_get_run(d, index, &run);
    if (!run.threads_given) {
        run.config.settings.threads = threads;
    }
    char *line = sweep_execute(&run, rank);
    if (line == NULL) {
        size_t size = 160;
        line = malloc(size);
        snprintf(line, size, "{\"sweep_run\":%ld,\"rank\":%d,\"ok\":false,\"error\":\"out of memory\"}\n", index,
                 rank);
    }
    return line;
}

/* ---- rank 0: hand out runs, write lines in run order ---- */

typedef struct line_writer {
    FILE *out;
    char **lines; /* finished lines not yet written */
    long next;    /* the next run number to write */
    long count, failed;
} line_writer;

static void writer_put(line_writer *w, long index, char *line)
{
    w->lines[index] = line;
    w->failed += strstr(line, "\"ok\":false") != NULL;
    while (w->next < w->count && w->lines[w->next] != NULL) {
        fputs(w->lines[w->next], w->out);
        free(w->lines[w->next]);
        w->lines[w->next++] = NULL;
    }
    fflush(w->out);
}

static void sleep_briefly(void)
{
    struct timespec t = {0, 200000}; /* 0.2 ms: answers fast, costs no core */
    nanosleep(&t, NULL);
}

static void master(line_writer *w, int size)
{
    long next = 0;
    int active = size - 1;
    while (active > 0) {
        int ready = 0;
        MPI_Status status;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &ready, &status);
        if (!ready) {
            sleep_briefly();
            continue;
        }
        int bytes = 0;
        MPI_Get_count(&status, MPI_BYTE, &bytes);
        char *message = malloc((size_t)bytes + 1);
        MPI_Recv(message, bytes, MPI_BYTE, status.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int64_t done;
        memcpy(&done, message, sizeof(done));
        if (done >= 0) {
            message[bytes] = '\0';
            char *line = malloc((size_t)bytes - sizeof(done) + 1);
            memcpy(line, message + sizeof(done), (size_t)bytes - sizeof(done) + 1);
            writer_put(w, (long)done, line);
        }
        free(message);
        int64_t assign = next < w->count ? next++ : -1;
        active -= assign < 0;
        MPI_Send(&assign, 1, MPI_INT64_T, status.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
    }
}

/* ---- ranks 1..N-1: ask, run, answer ---- */

static void worker(const sweep_desc *d, int rank, int threads)
{
    int64_t index = -1;
    char *line = NULL;
    for (;;) {
        size_t length = line != NULL ? strlen(line) : 0;
        char *message = malloc(sizeof(index) + length);
        memcpy(message, &index, sizeof(index));
        if (line != NULL) {
            memcpy(message + sizeof(index), line, length);
        }
        MPI_Send(message, (int)(sizeof(index) + length), MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
        free(message);
        free(line);
        MPI_Recv(&index, 1, MPI_INT64_T, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (index < 0) {
            return;
        }
        line = run_one(d, (long)index, rank, threads);
    }
}

static void dry_run(const sweep_desc *d)
{
    for (long i = 0; i < d->run_count; ++i) {
        sweep_run run;
        sweep_get_run(d, i, &run);
        printf("%ld %s\n", i, run.json);
    }
}

static int sweep(const sweep_options *o, const sweep_desc *d, int rank, int size)
{
    int threads = node_threads(size > 1);
    if (rank != 0) {
        worker(d, rank, threads);
        return 0;
    }
    line_writer w = {.out = stdout, .count = d->run_count};
    if (o->out != NULL && (w.out = fopen(o->out, "w")) == NULL) {
        fprintf(stderr, "tessera-sweep: cannot write %s\n", o->out);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    w.lines = calloc((size_t)d->run_count, sizeof(char *));
    double start = MPI_Wtime();
    if (size == 1) {
        for (long i = 0; i < d->run_count; ++i) {
            writer_put(&w, i, run_one(d, i, rank, threads));
        }
    } else {
        master(&w, size);
    }
    fprintf(stderr, "tessera-sweep: %ld runs (%ld failed) on %d worker%s in %.2f s\n", d->run_count, w.failed,
            size > 1 ? size - 1 : 1, size > 2 ? "s" : "", MPI_Wtime() - start);
    if (w.out != stdout) {
        fclose(w.out);
    }
    free(w.lines);
    return 0;
}

int main(int argc, char **argv)
{
    /* Funneled: the world's OpenMP threads never call MPI, only this one does. */
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sweep_options o;
    int status = parse_options(argc, argv, &o);
    char error[256] = "";
    char *text = status == 0 ? broadcast_text(o.description, rank, error, sizeof(error)) : NULL;
    sweep_desc d;
    if (status != 0) {
        if (rank == 0) {
            usage();
        }
    } else if (text == NULL || !sweep_parse(text, &d, error, sizeof(error))) {
        if (rank == 0) {
            fprintf(stderr, "tessera-sweep: %s: %s\n", o.description, error);
        }
        status = 2;
    } else {
        if (o.dry_run) {
            if (rank == 0) {
                dry_run(&d);
            }
        } else {
            status = sweep(&o, &d, rank, size);
        }
        sweep_free(&d);
    }
    free(text);
    MPI_Finalize();
    return status;
}
