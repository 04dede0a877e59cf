/* tessera-split: one world split in slabs along x, one slab per MPI rank
 * (the first step of docs/distributed.md).
 *
 *   mpirun -np 2 tessera-split --count 1000 --json
 *
 * Every step: each rank steps its own tessera world (its owned bodies, the
 * static bodies, ghosts of its neighbours' bodies near the boundary), then
 * sends its neighbours the state of its owned bodies within the margin of
 * their boundary, and takes theirs: ghosts are overwritten (or made, or
 * dropped) and bodies whose centre crossed into the slab change owner. At
 * the end rank 0 gathers every body, takes the scene's quality check and
 * the state hash, and prints tessera-bench's JSON keys with the split's own
 * figures (time per stage, bytes exchanged per step, ghosts, migrations).
 * Scenes with joints are refused: a joint across a boundary needs the
 * coupled solve of the design, which this first step does not have. */
#include "bench_report.h"
#include "bench_sweep.h"
#include "bench_timing.h"
#include "node_threads.h"
#include "split_exchange.h"
#include "split_world.h"
#include "state_hash.h"

#include <mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct split_options {
    bench_options bench; /* scene, parameters, steps, threads, solver, --json, --no-quality */
    float margin;        /* 0: split_default_margin */
    bool kinematic;      /* --ghosts kinematic */
} split_options;

/* What each rank measured, summed over the steps (gathered on rank 0). */
typedef struct rank_figures {
    double ms_compute, ms_pack, ms_wait, ms_transfer, ms_reconcile, ms_vote;
    double bytes_sent, ghost_steps, owned_steps; /* ghosts, owned bodies summed over steps */
    double owned, migrated_in, conflicts, contact_pairs, touching, points;
} rank_figures;

static void usage(void)
{
    fprintf(stderr,
            "usage: mpirun -np N tessera-split [--scene NAME] [scene parameters as tessera-bench's]\n"
            "       [--steps S] [--threads T] [--substeps S] [--contact-hertz F] [--solver soft_step|xpbd]\n"
            "       [--width W] [--margin M] [--ghosts dynamic|kinematic] [--no-quality] [--json]\n"
            "\n"
            "Steps one world split in N slabs of equal width along x over its dynamic bodies' initial\n"
            "extent, one per rank, exchanging ghosts after every step (docs/distributed.md). Default\n"
            "scene pile; scenes with joints are refused. --steps defaults to the step of the scene's\n"
            "quality check. --margin: how far from a boundary bodies are ghosts on the other side\n"
            "(default: twice the largest body's bounding radius + 0.25 m). --ghosts kinematic makes\n"
            "ghosts kinematic proxies instead of dynamic copies (for comparison).\n");
}

/* Takes --margin and --ghosts out, then tessera-bench's parser reads the
 * rest (with --scene pile first, so that a later --scene wins). */
static int parse_options(int argc, char **argv, split_options *o)
{
    memset(o, 0, sizeof(*o));
    char **rest = calloc((size_t)argc + 2, sizeof(char *));
    int n = 0;
    rest[n++] = argv[0];
    rest[n++] = "--scene";
    rest[n++] = "pile";
    int status = 0;
    for (int i = 1; i < argc && status == 0; ++i) {
        if (strcmp(argv[i], "--margin") == 0 && i + 1 < argc) {
            char *end = NULL;
            o->margin = strtof(argv[++i], &end);
            status = *end == '\0' && o->margin > 0.0f && o->margin < 1.0e4f ? 0 : 2;
        } else if (strcmp(argv[i], "--ghosts") == 0 && i + 1 < argc) {
            o->kinematic = strcmp(argv[++i], "kinematic") == 0;
            status = o->kinematic || strcmp(argv[i], "dynamic") == 0 ? 0 : 2;
        } else {
            rest[n++] = argv[i];
        }
    }
    if (status == 0) {
        status = bench_parse_options(n, rest, &o->bench);
    }
    if (status == 0 && strcmp(o->bench.scene, "all") == 0) {
        fprintf(stderr, "tessera-split runs one scene, not all\n");
        status = 2;
    }
    free(rest);
    return status != 0 || o->bench.help ? 2 : 0;
}

/* ---- the step loop ---- */

typedef struct split_run {
    split_world world;
    split_buffer to_left, to_right, from_left, from_right;
    split_traffic traffic;
    rank_figures figures;
    double *step_ms; /* wall time of each step, exchange included */
    char error[160];  /* as bench_result's */
} split_run;

static bool exchange(split_run *s)
{
    if (s->world.slab.ranks == 1) {
        return true; /* one slab: nothing to send, nothing can leave it */
    }
    double start = bench_now_ms();
    bool ok = split_world_pack(&s->world, &s->to_left, &s->to_right);
    double packed = bench_now_ms();
    ok = ok && split_exchange(&s->world.slab, &s->to_left, &s->to_right, &s->from_left, &s->from_right, &s->traffic);
    double exchanged = bench_now_ms();
    if (!ok) {
        snprintf(s->error, sizeof(s->error), "out of memory");
    }
    ok = ok && split_world_reconcile(&s->world, &s->from_left, &s->from_right, s->error, sizeof(s->error));
    s->figures.ms_pack += packed - start;
    s->figures.ms_reconcile += bench_now_ms() - exchanged;
    return ok;
}

/* Steps every rank in lock step; a rank that fails stops them all after
 * that step (a collective vote each step, one int). */
static bool run_steps(split_run *s, int steps, int *steps_done)
{
    for (int i = 0; i < steps; ++i) {
        double start = bench_now_ms();
        ts_result result = ts_world_step(s->world.world, BENCH_DT);
        double stepped = bench_now_ms();
        if (result != TS_OK) {
            snprintf(s->error, sizeof(s->error), "rank %d, step %d: %s", s->world.slab.rank, i + 1, ts_last_error());
        }
        bool ok = result == TS_OK && exchange(s);
        double voting = bench_now_ms();
        int failed = !ok, any = 0;
        MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        s->figures.ms_vote += bench_now_ms() - voting;
        s->figures.ms_compute += stepped - start;
        s->figures.ghost_steps += s->world.counters.ghosts;
        s->figures.owned_steps += s->world.counters.owned;
        s->step_ms[i] = bench_now_ms() - start;
        *steps_done = i + 1;
        if (any) {
            return false;
        }
    }
    return true;
}

/* ---- rank 0: the whole world's final state, its check and its line ---- */

static void fill_states(const split_world *w, const split_buffer *all, body_state *states, char *error, size_t size)
{
    const scene_desc *d = w->desc;
    int *times = calloc((size_t)d->body_count, sizeof(int));
    for (int i = 0; i < all->count; ++i) {
        const split_record *r = &all->records[i];
        times[r->gid] += 1;
        states[r->gid] = (body_state){{r->p[0], r->p[1], r->p[2]}, {r->q[0], r->q[1], r->q[2], r->q[3]},
                                      {r->v[0], r->v[1], r->v[2]}, {r->w[0], r->w[1], r->w[2]}};
    }
    for (int gid = 0; gid < d->body_count; ++gid) {
        if (d->bodies[gid].type == SCENE_STATIC) {
            split_record r = split_world_read(w, gid);
            states[gid] = (body_state){{r.p[0], r.p[1], r.p[2]}, {r.q[0], r.q[1], r.q[2], r.q[3]},
                                       {r.v[0], r.v[1], r.v[2]}, {r.w[0], r.w[1], r.w[2]}};
        } else if (times[gid] != 1 && error[0] == '\0') {
            snprintf(error, size, "body %d is owned by %d ranks at the end (must be 1)", gid, times[gid]);
        }
    }
    free(times);
}

/* The bench's hash (state_hash.h), over the gathered states in description order. */
static uint64_t hash_states(const body_state *states, int count)
{
    uint64_t hash = STATE_HASH_SEED;
    for (int i = 0; i < count; ++i) {
        const body_state *s = &states[i];
        float p[3] = {s->p.x, s->p.y, s->p.z}, q[4] = {s->q.x, s->q.y, s->q.z, s->q.w};
        float v[3] = {s->v.x, s->v.y, s->v.z}, w[3] = {s->w.x, s->w.y, s->w.z};
        hash = state_hash_body(hash, p, q, v, w);
    }
    return hash;
}

typedef struct split_report {
    const split_options *options;
    const scene_info *scene;
    scene_params params;
    tessera_settings settings;
    int ranks, steps_done, quality_steps;
    float margin;
    const rank_figures *per_rank; /* [ranks] */
} split_report;

static void sum_ranks(const split_report *rep, rank_figures *sum, double *slowest_compute)
{
    memset(sum, 0, sizeof(*sum));
    *slowest_compute = 0.0;
    for (int r = 0; r < rep->ranks; ++r) {
        const rank_figures *f = &rep->per_rank[r];
        double *to = (double *)sum;
        const double *from = (const double *)f;
        for (size_t k = 0; k < sizeof(rank_figures) / sizeof(double); ++k) {
            to[k] += from[k];
        }
        *slowest_compute = fmax(*slowest_compute, f->ms_compute);
    }
}

/* The deepest overlap between two spheres of the final state (m): a direct
 * sign that bodies on either side of a boundary push each other apart (a
 * resting soft contact overlaps by millimetres; a missing ghost lets two
 * spheres sink into each other). Spheres only: their overlap is exact and
 * cheap; boxes would need the narrowphase. */
static double deepest_sphere_overlap(const scene_desc *d, const body_state *states)
{
    double deepest = 0.0;
    for (int i = 0; i < d->body_count; ++i) {
        const scene_body *a = &d->bodies[i];
        if (a->type != SCENE_DYNAMIC || a->shape.type != SCENE_SPHERE) {
            continue;
        }
        for (int j = i + 1; j < d->body_count; ++j) {
            const scene_body *b = &d->bodies[j];
            if (b->type != SCENE_DYNAMIC || b->shape.type != SCENE_SPHERE) {
                continue;
            }
            double dx = states[i].p.x - states[j].p.x, dy = states[i].p.y - states[j].p.y;
            double dz = states[i].p.z - states[j].p.z, reach = a->shape.radius + b->shape.radius;
            double d2 = dx * dx + dy * dy + dz * dz;
            if (d2 < reach * reach) {
                deepest = fmax(deepest, reach - sqrt(d2));
            }
        }
    }
    return deepest;
}

static void print_line(const split_report *rep, bench_result *r, const body_state *states, const scene_desc *d)
{
    rank_figures sum;
    double slowest;
    sum_ranks(rep, &sum, &slowest);
    double steps = rep->steps_done > 0 ? rep->steps_done : 1, ranks = rep->ranks;
    r->contact_pairs = (int)sum.contact_pairs;
    r->touching = (int)sum.touching;
    r->contact_points = (int)sum.points;
    bench_add_stage(r, "compute", sum.ms_compute / ranks / steps);
    bench_add_stage(r, "compute_slowest_rank", slowest / steps);
    bench_add_stage(r, "pack", sum.ms_pack / ranks / steps);
    bench_add_stage(r, "exchange_wait", sum.ms_wait / ranks / steps);
    bench_add_stage(r, "exchange_transfer", sum.ms_transfer / ranks / steps);
    bench_add_stage(r, "reconcile", sum.ms_reconcile / ranks / steps);
    bench_add_stage(r, "vote", sum.ms_vote / ranks / steps);
    bench_add_extra(r, "ranks", ranks);
    bench_add_extra(r, "margin_m", rep->margin);
    bench_add_extra(r, "bytes_per_step", sum.bytes_sent / steps);
    bench_add_extra(r, "ghosts_per_rank", sum.ghost_steps / ranks / steps);
    bench_add_extra(r, "migrations", sum.migrated_in);
    bench_add_extra(r, "kinematic_ghosts", rep->options->kinematic);
    bench_add_extra(r, "conflicts", sum.conflicts);
    /* Mean height, and how many left the pile's bin (|x| or |z| >= 10 m:
     * scenes.md allows 10 of 4,000; the bench's check allows none). */
    double com_y = 0.0;
    int dynamic = 0, outside = 0;
    for (int i = 0; i < d->body_count; ++i) {
        if (d->bodies[i].type == SCENE_DYNAMIC) {
            com_y += states[i].p.y;
            dynamic += 1;
            outside += fabsf(states[i].p.x) >= 10.0f || fabsf(states[i].p.z) >= 10.0f;
        }
    }
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    bench_print_json(out, r);
    fclose(out);
    text[length >= 2 ? length - 2 : 0] = '\0'; /* the object goes on */
    printf("%s,\"ranks\":%d,\"mean_body_y\":%.6g,\"deepest_sphere_overlap\":%.6g,\"outside_bin\":%d,\"owned\":[", text,
           rep->ranks, dynamic ? com_y / dynamic : 0.0, deepest_sphere_overlap(d, states), outside);
    for (int k = 0; k < rep->ranks; ++k) {
        printf("%s%d", k ? "," : "", (int)rep->per_rank[k].owned);
    }
    printf("],\"owned_mean\":[");
    for (int k = 0; k < rep->ranks; ++k) {
        printf("%s%.1f", k ? "," : "", rep->per_rank[k].owned_steps / steps);
    }
    printf("],\"ghosts_mean\":[");
    for (int k = 0; k < rep->ranks; ++k) {
        printf("%s%.1f", k ? "," : "", rep->per_rank[k].ghost_steps / steps);
    }
    printf("]}\n");
    free(text);
}

static void print_table(const split_report *rep, const bench_result *r)
{
    rank_figures sum;
    double slowest;
    sum_ranks(rep, &sum, &slowest);
    double steps = rep->steps_done > 0 ? rep->steps_done : 1, ranks = rep->ranks;
    printf("%s %d ranks x %d threads, margin %.2f m, %s ghosts, %d steps\n", r->scene->name, rep->ranks, r->threads,
           (double)rep->margin, rep->options->kinematic ? "kinematic" : "dynamic", rep->steps_done);
    printf("  ms per step %.3f (median %.3f): compute %.3f (slowest rank %.3f), pack %.3f, exchange %.3f "
           "(wait %.3f), reconcile %.3f, vote %.3f\n",
           r->ms_mean, r->ms_median, sum.ms_compute / ranks / steps, slowest / steps, sum.ms_pack / ranks / steps,
           (sum.ms_wait + sum.ms_transfer) / ranks / steps, sum.ms_wait / ranks / steps,
           sum.ms_reconcile / ranks / steps, sum.ms_vote / ranks / steps);
    printf("  bytes exchanged per step %.0f, ghosts per rank %.1f, migrations %.0f\n", sum.bytes_sent / steps,
           sum.ghost_steps / ranks / steps, sum.migrated_in);
    printf("  quality: %s (%s)\n  state_hash %016llx%s%s\n", bench_quality_word(&r->quality),
           r->quality.evaluated ? r->quality.detail : "not evaluated",
           (unsigned long long)r->state_hash, r->error[0] ? "\n  error: " : "", r->error);
}

static void report(const split_report *rep, const split_world *w, const split_buffer *all, const split_run *s)
{
    const scene_desc *d = w->desc;
    bench_result *r = calloc(1, sizeof(*r));
    *r = (bench_result){.engine = "tessera", .version = TS_VERSION_STRING, .compiler = BENCH_COMPILER,
                        .simd = tessera_simd_path(w->world), .solver = tessera_solver_name(rep->settings.solver),
                        .width = tessera_width(w->world), .substeps = rep->settings.substeps,
                        .contact_hertz = rep->settings.contact_hertz, .iterations = 1, .scene = rep->scene,
                        .params = rep->params, .steps = rep->steps_done, .total_steps = rep->steps_done,
                        .bodies = d->body_count, .dynamic_bodies = scene_dynamic_count(d)};
    ts_world_counters counters;
    ts_world_get_counters(w->world, &counters);
    r->threads = counters.thread_count;
    snprintf(r->error, sizeof(r->error), "%s", s->error);
    body_state *states = calloc((size_t)d->body_count + 1, sizeof(body_state));
    fill_states(w, all, states, r->error, sizeof(r->error));
    double *times = malloc(sizeof(double) * (size_t)(rep->steps_done + 1));
    for (int i = 0; i < rep->steps_done; ++i) {
        r->ms_mean += s->step_ms[i] / rep->steps_done;
        r->ms_max = fmax(r->ms_max, s->step_ms[i]);
        times[i] = s->step_ms[i];
    }
    r->ms_median = bench_median(times, rep->steps_done);
    free(times);
    r->step_errors = r->error[0] != '\0';
    if (!rep->options->bench.no_quality && rep->steps_done >= rep->quality_steps && r->error[0] == '\0') {
        quality_input in = {.desc = d, .states = states, .steps = rep->steps_done, .dt = BENCH_DT, .awake_count = -1};
        rep->scene->quality(&in, &r->quality);
    }
    r->state_hash = hash_states(states, d->body_count);
    if (rep->options->bench.json) {
        print_line(rep, r, states, d);
    } else {
        print_table(rep, r);
    }
    free(states);
    free(r);
}

/* ---- setup ---- */

static bool check_scene(const scene_desc *d, const split_slab *slab, float x_min, float x_max, char *error,
                        size_t size)
{
    if (d->joint_count > 0) {
        snprintf(error, size, "the scene has %d joints: a split world takes scenes without joints", d->joint_count);
        return false;
    }
    float width = split_slab_min_width(x_min, x_max, slab->ranks);
    if (!(width > slab->margin)) {
        snprintf(error, size,
                 "%d slabs over x in [%g, %g] are %.3g m wide, not wider than the ghost margin %.3g m: "
                 "use fewer ranks or a smaller --margin",
                 slab->ranks, (double)x_min, (double)x_max, (double)width, (double)slab->margin);
        return false;
    }
    return true;
}

static int split(const split_options *o, int rank, int ranks)
{
    const scene_info *scene = scene_find(o->bench.scene);
    scene_params params = bench_scene_params(&o->bench, scene);
    bench_config config;
    if (bench_expand_configs(&o->bench, &config, 1) != 1) {
        return 2;
    }
    tessera_settings settings = config.run.settings;
    if (o->bench.threads < 0) {
        settings.threads = node_threads(false);
    }
    scene_desc desc;
    scene_describe(scene, &params, &desc);
    float x_min, x_max;
    split_scene_extent(&desc, &x_min, &x_max);
    split_slab slab;
    float margin = o->margin > 0.0f ? o->margin : split_default_margin(&desc);
    split_slab_init(&slab, rank, ranks, x_min, x_max, margin);
    split_run *s = calloc(1, sizeof(*s));
    int steps = o->bench.steps > 0 ? o->bench.steps : (scene->quality_steps > 0 ? scene->quality_steps
                                                                                 : scene->warmup_steps + scene->timed_steps);
    s->step_ms = calloc((size_t)steps, sizeof(double));
    bool ok = check_scene(&desc, &slab, x_min, x_max, s->error, sizeof(s->error)) &&
              split_world_create(&s->world, &desc, &slab, &settings, o->kinematic, s->error, sizeof(s->error)) &&
              exchange(s);
    int failed = !ok, any = 0, steps_done = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    s->figures = (rank_figures){0};
    s->traffic = (split_traffic){0};
    if (!any) {
        MPI_Barrier(MPI_COMM_WORLD);
        ok = run_steps(s, steps, &steps_done);
    } else if (ok) {
        snprintf(s->error, sizeof(s->error), "another rank failed to set up");
    }
    if (any && rank == 0 && s->error[0] != '\0') {
        fprintf(stderr, "tessera-split: %s\n", s->error);
    }
    int status = any ? 1 : 0;
    if (!any) {
        ts_world_counters counters;
        ts_world_get_counters(s->world.world, &counters);
        rank_figures *f = &s->figures;
        f->ms_wait = s->traffic.ms_wait;
        f->ms_transfer = s->traffic.ms_transfer;
        f->bytes_sent = s->traffic.bytes_sent;
        f->owned = s->world.counters.owned;
        f->migrated_in = (double)s->world.counters.migrated_in;
        f->conflicts = (double)s->world.counters.conflicts;
        f->contact_pairs = counters.contact_count;
        f->touching = counters.touching_count;
        f->points = counters.point_count;
        rank_figures *all_figures = rank == 0 ? calloc((size_t)ranks, sizeof(rank_figures)) : NULL;
        MPI_Gather(f, (int)(sizeof(rank_figures) / sizeof(double)), MPI_DOUBLE, all_figures,
                   (int)(sizeof(rank_figures) / sizeof(double)), MPI_DOUBLE, 0, MPI_COMM_WORLD);
        split_buffer mine = {0}, all = {0};
        if (!split_world_owned(&s->world, &mine) || !split_gather(&mine, &all, rank, ranks)) {
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 0) {
            split_report rep = {.options = o, .scene = scene, .params = params, .settings = settings, .ranks = ranks,
                                .steps_done = steps_done, .quality_steps = scene->quality_steps, .margin = margin,
                                .per_rank = all_figures};
            report(&rep, &s->world, &all, s);
        }
        status = ok ? 0 : 1;
        free(all_figures);
        split_buffer_free(&mine);
        split_buffer_free(&all);
    }
    split_world_destroy(&s->world);
    split_buffer_free(&s->to_left);
    split_buffer_free(&s->to_right);
    split_buffer_free(&s->from_left);
    split_buffer_free(&s->from_right);
    free(s->step_ms);
    free(s);
    scene_desc_free(&desc);
    return status;
}

int main(int argc, char **argv)
{
    /* Funneled: the world's OpenMP threads never call MPI, only this one does. */
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    split_options o;
    int status = parse_options(argc, argv, &o);
    if (status != 0) {
        if (rank == 0) {
            usage();
        }
    } else {
        status = split(&o, rank, ranks);
    }
    MPI_Finalize();
    return status;
}
