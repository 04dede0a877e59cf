/* One run of a sweep and its JSON line (sweep_run.h). */
#include "sweep_run.h"

#include "bench_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* scenes.md's generator (convex_pile): state = state * 2147001325 +
 * 715136305 (wrapping), a draw is (state & 0xffff) / 65535 in [0, 1]. */
static float draw(uint32_t *state)
{
    *state = *state * 2147001325u + 715136305u;
    return (float)(*state & 0xffffu) / 65535.0f;
}

void sweep_perturb(scene_desc *desc, uint32_t seed, float jitter)
{
    uint32_t state = seed;
    for (int i = 0; i < desc->body_count; ++i) {
        scene_body *b = &desc->bodies[i];
        if (b->type != SCENE_DYNAMIC) {
            continue;
        }
        b->linear_velocity.x += jitter * 2.0f * (draw(&state) - 0.5f);
        b->linear_velocity.y += jitter * 2.0f * (draw(&state) - 0.5f);
        b->linear_velocity.z += jitter * 2.0f * (draw(&state) - 0.5f);
    }
}

static void edit_scene(scene_desc *desc, void *context)
{
    const sweep_run *run = context;
    sweep_perturb(desc, run->seed, run->jitter);
}

char *sweep_execute(const sweep_run *run, int rank)
{
    tessera_run_config config = run->config;
    if (run->perturb) {
        config.edit_scene = edit_scene;
        config.edit_context = (void *)run;
    }
    bench_result *r = malloc(sizeof(*r));
    if (r == NULL) {
        return NULL;
    }
    bool built = tessera_run(run->scene, &run->params, &config, 0, r);
    char *bench = NULL, *text = NULL;
    size_t bench_length = 0, length = 0;
    FILE *out = open_memstream(&bench, &bench_length);
    if (out == NULL) {
        free(r);
        return NULL;
    }
    bench_print_json(out, r);
    fclose(out);
    /* bench_print_json ends the object with "}\n": take both off, add ours. */
    bench[bench_length >= 2 ? bench_length - 2 : 0] = '\0';
    out = open_memstream(&text, &length);
    if (out != NULL) {
        fprintf(out, "%s,\"sweep_run\":%ld,\"rank\":%d,\"ok\":%s", bench, run->index, rank,
                built && r->step_errors == 0 ? "true" : "false");
        if (run->perturb) {
            fprintf(out, ",\"seed\":%lu,\"jitter\":%.9g", (unsigned long)run->seed, (double)run->jitter);
        }
        fprintf(out, ",\"sweep\":{%s}}\n", run->json);
        fclose(out);
    }
    free(bench);
    free(r);
    return text;
}
