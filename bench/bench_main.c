/* tessera-bench: runs the standard scenes (shared/scenes.md) on tessera,
 * times their steps, takes their quality checks, and prints a table or one
 * JSON object per run; with --sweep, several settings side by side; with
 * --compare bullet, the Bullet peer on the same scenes and the ratio. */
#include "bench_compare.h"
#include "bench_report.h"
#include "bench_sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCENES 16

/* What the compare table needs of one scene, kept until the end. */
typedef struct compare_row {
    const scene_info *scene;
    bench_result *runs; /* the first setting's runs; NULL when tessera could not run it */
    int run_count;
    peer_summary peer;
} compare_row;

typedef struct bench_state {
    const bench_options *o;
    const bench_config *configs;
    int config_count;
    char peer[4200];
    bool table_started;
    int row_count;
    compare_row rows[MAX_SCENES];
} bench_state;

static bool tessera_can_run(const scene_info *scene, const bench_options *o)
{
    return scene->missing == NULL || o->force || o->collide_only;
}

static void print_details(const bench_result *r, int count)
{
    for (int i = 0; i < count; ++i) {
        if (r[i].step_errors > 0) {
            printf("  %s: %d steps returned an error; the first: %s\n", r[i].scene->name, r[i].step_errors,
                   r[i].error);
            break;
        }
    }
    if (r[0].quality.evaluated) {
        printf("  %s quality: %s: %s\n", r[0].scene->name, bench_quality_word(&r[0].quality), r[0].quality.detail);
    }
}

static void print_table(bench_state *st, const bench_result *results)
{
    const bench_options *o = st->o;
    if (!st->table_started) {
        bench_print_table_header(stdout);
        st->table_started = true;
    }
    double reference = bench_median_of_medians(results, o->runs);
    for (int c = 0; c < st->config_count; ++c) {
        bench_print_table_row(stdout, &results[c * o->runs], o->runs, st->config_count > 1 ? reference : 0.0);
    }
    print_details(results, o->runs);
}

/* Runs every setting runs times, interleaved (run outer, setting inner) so
 * that drift of the machine touches every setting alike. Returns false when
 * a world could not be built. */
static bool run_settings(bench_state *st, const scene_info *scene, const scene_params *params, bench_result *results)
{
    const bench_options *o = st->o;
    for (int r = 0; r < o->runs; ++r) {
        for (int c = 0; c < st->config_count; ++c) {
            bench_result *out = &results[c * o->runs + r];
            tessera_run_config run = st->configs[c].run;
            run.record_path = r == 0 && c == 0 ? run.record_path : NULL; /* --record: the first run only */
            if (!tessera_run(scene, params, &run, r, out)) {
                fprintf(stderr, "tessera-bench: %s (%s): %s\n", scene->name,
                        st->configs[c].label[0] ? st->configs[c].label : "default settings", out->error);
                return false;
            }
            if (o->json) {
                bench_print_json(stdout, out);
            }
        }
    }
    return true;
}

static int bench_scene(bench_state *st, const scene_info *scene)
{
    const bench_options *o = st->o;
    scene_params params = bench_scene_params(o, scene);
    bench_result *results = NULL;
    int failures = 0;
    if (tessera_can_run(scene, o)) {
        results = calloc((size_t)(st->config_count * o->runs), sizeof(bench_result));
        if (run_settings(st, scene, &params, results)) {
            if (!o->json) {
                print_table(st, results);
            }
        } else {
            free(results);
            results = NULL;
            failures = 1;
        }
    } else {
        fprintf(o->json ? stderr : stdout, "scene %s: unavailable (needs %s)\n", scene->name, scene->missing);
        failures = strcmp(o->scene, "all") != 0 && o->compare == NULL;
    }
    if (o->compare != NULL && st->row_count < MAX_SCENES) {
        compare_row *row = &st->rows[st->row_count++];
        *row = (compare_row){scene, results, results != NULL ? o->runs : 0, {0}};
        compare_run_peer(st->peer, scene, &params, o, o->json ? stdout : NULL, &row->peer);
        failures += !row->peer.ok;
    } else {
        free(results);
    }
    return failures;
}

static void print_compare(bench_state *st)
{
    FILE *out = st->o->json ? stderr : stdout;
    fprintf(out, "\ntessera vs Bullet %s (ms per step: median across runs of each run's median; "
                 "ratio = Bullet ms / tessera ms, above 1 means tessera is faster)\n",
            st->row_count > 0 && st->rows[0].peer.version[0] ? st->rows[0].peer.version : "");
    compare_print_header(out);
    for (int i = 0; i < st->row_count; ++i) {
        compare_print_row(out, st->rows[i].scene, st->rows[i].runs, st->rows[i].run_count, &st->rows[i].peer);
        free(st->rows[i].runs);
    }
}

int main(int argc, char **argv)
{
    bench_options o;
    static bench_config configs[BENCH_MAX_CONFIGS];
    static bench_state st;
    if (bench_parse_options(argc, argv, &o) != 0) {
        return 2;
    }
    if (o.help || o.list) {
        o.help ? bench_print_usage("tessera-bench") : bench_print_scene_list();
        return 0;
    }
    st = (bench_state){.o = &o, .configs = configs};
    if (o.compare != NULL && !compare_find_peer(st.peer, sizeof(st.peer))) {
        compare_print_missing(st.peer);
        return 3;
    }
    st.config_count = bench_expand_configs(&o, configs, BENCH_MAX_CONFIGS);
    if (st.config_count < 0) {
        return 2;
    }
    int failures = 0;
    for (const scene_info *s = scene_table; s->name != NULL; ++s) {
        bool huge_ok = !o.huge || scene_has_huge(s); /* --huge: only scenes with a huge variant */
        if ((strcmp(o.scene, "all") == 0 || strcmp(o.scene, s->name) == 0) && huge_ok) {
            failures += bench_scene(&st, s);
        }
    }
    if (o.compare != NULL) {
        print_compare(&st);
    }
    return failures ? 1 : 0;
}
