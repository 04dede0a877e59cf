/* Expanding --sweep into run settings (bench_sweep.h). */
#include "bench_sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int base_config(const bench_options *o, bench_config *c)
{
    memset(c, 0, sizeof(*c));
    tessera_settings *s = &c->run.settings;
    /* --compare: one thread unless told, like Bullet's default world. */
    s->threads = o->threads >= 0 ? o->threads : (o->compare != NULL ? 1 : 0);
    s->substeps = o->substeps > 0 ? o->substeps : ts_default_world_def().substeps;
    s->width = o->width >= 0 ? o->width : 0;
    s->contact_hertz = o->contact_hertz > 0.0f ? o->contact_hertz : ts_default_world_def().contact_hertz;
    int solver = tessera_solver_from_name(o->solver != NULL ? o->solver : "soft_step");
    if (solver < 0) {
        fprintf(stderr, "--solver must be soft_step or xpbd, got '%s'\n", o->solver);
        return -1;
    }
    s->solver = (ts_solver_type)solver;
    c->run.steps = o->steps;
    c->run.collide_only = o->collide_only;
    c->run.sleep = o->sleep;
    c->run.rolling_resistance = o->rolling_resistance;
    c->run.quality = !o->no_quality;
    c->run.record_path = o->record;
    c->run.record_contacts = o->record_contacts;
    return 0;
}

static int apply(bench_config *c, const char *key, const char *value)
{
    tessera_settings *s = &c->run.settings;
    char *end = NULL;
    long v = strtol(value, &end, 10);
    bool integer = end != value && *end == '\0' && v >= 0 && v <= 4096;
    if (strcmp(key, "solver") == 0) {
        int solver = tessera_solver_from_name(value);
        s->solver = (ts_solver_type)(solver < 0 ? 0 : solver);
        integer = solver >= 0;
    } else if (strcmp(key, "threads") == 0) {
        s->threads = (int)v;
    } else if (strcmp(key, "width") == 0) {
        s->width = (int)v;
    } else {
        s->substeps = (int)v;
        integer = integer && v >= 1;
    }
    if (!integer) {
        fprintf(stderr, "--sweep %s: bad value '%s'\n", key, value);
        return -1;
    }
    size_t used = strlen(c->label);
    snprintf(c->label + used, sizeof(c->label) - used, "%s%s=%s", used ? " " : "", key, value);
    return 0;
}

int bench_expand_configs(const bench_options *o, bench_config *configs, int capacity)
{
    if (base_config(o, &configs[0]) != 0) {
        return -1;
    }
    int count = 1;
    for (int k = 0; k < o->sweep_count; ++k) {
        const bench_sweep *sweep = &o->sweeps[k];
        if (count * sweep->count > capacity) {
            fprintf(stderr, "--sweep: more than %d combinations\n", capacity);
            return -1;
        }
        /* Each existing setting becomes sweep->count settings, in value order. */
        for (int i = count - 1; i >= 0; --i) {
            for (int v = sweep->count - 1; v >= 0; --v) {
                configs[i * sweep->count + v] = configs[i];
                if (apply(&configs[i * sweep->count + v], sweep->key, sweep->values[v]) != 0) {
                    return -1;
                }
            }
        }
        count *= sweep->count;
    }
    return count;
}
