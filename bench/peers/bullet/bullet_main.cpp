/* tessera-bench-bullet: the benchmark scenes on Bullet 3, built from the same
 * descriptions as tessera-bench's, printing the same table or JSON lines.
 * Bullet runs with its defaults (one thread, 10 iterations, one step per
 * stepSimulation call), so tessera-only settings are refused. Every scene
 * runs, including those tessera cannot run yet. */
#include "bench_cli.h"
#include "bench_report.h"
#include "run_bullet.h"

#include <cstdio>
#include <cstring>
#include <vector>

static bool refuse_tessera_settings(const bench_options &o)
{
    const char *given = o.threads > 1 ? "--threads" : o.substeps >= 0 ? "--substeps" : o.width > 1 ? "--width"
                        : o.solver != nullptr ? "--solver" : o.sweep_count > 0 ? "--sweep"
                        : o.compare != nullptr ? "--compare" : o.collide_only ? "--collide-only"
                        : o.record != nullptr ? "--record" : nullptr;
    if (given != nullptr) {
        std::fprintf(stderr, "tessera-bench-bullet: %s is a tessera setting; Bullet runs its defaults\n", given);
    }
    return given != nullptr;
}

static void bench_scene(const bench_options &o, const scene_info *scene)
{
    scene_params params = bench_scene_params(&o, scene);
    bullet_run_config config = {o.steps, !o.no_quality};
    std::vector<bench_result> runs((size_t)o.runs);
    for (int r = 0; r < o.runs; ++r) {
        bullet_run(scene, &params, config, r, &runs[(size_t)r]);
        if (o.json) {
            bench_print_json(stdout, &runs[(size_t)r]);
        }
    }
    if (!o.json) {
        bench_print_table_row(stdout, runs.data(), o.runs, 0.0);
        if (runs[0].quality.evaluated) {
            std::printf("  %s quality: %s: %s\n", scene->name, bench_quality_word(&runs[0].quality),
                        runs[0].quality.detail);
        }
    }
}

int main(int argc, char **argv)
{
    bench_options o;
    if (bench_parse_options(argc, argv, &o) != 0 || refuse_tessera_settings(o)) {
        return 2;
    }
    if (o.help || o.list) {
        o.help ? bench_print_usage("tessera-bench-bullet") : bench_print_scene_list();
        return 0;
    }
    if (!o.json) {
        bench_print_table_header(stdout);
    }
    for (const scene_info *s = scene_table; s->name != nullptr; ++s) {
        if (std::strcmp(o.scene, "all") == 0 || std::strcmp(o.scene, s->name) == 0) {
            bench_scene(o, s);
        }
    }
    return 0;
}
