/* Parsing a sweep description and decoding run numbers (sweep_desc.h). */
#include "sweep_desc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every key a description may give. The ranges of engine settings
 * (threads, substeps, width) are left to the engine: a value it refuses
 * makes a failed run, reported in the output like any other. */
typedef struct key_rule {
    const char *name;
    sweep_kind kind;
    double min, max;
} key_rule;

static const key_rule key_rules[] = {
    {"scene", SWEEP_NAME, 0, 0},
    {"small", SWEEP_BOOL, 0, 1},
    {"base", SWEEP_INT, 1, 1000000},
    {"grid", SWEEP_INT, 2, 1000000},
    {"height", SWEEP_INT, 1, 1000000},
    {"count", SWEEP_INT, 1, 1000000},
    {"side", SWEEP_INT, 1, 1000000},
    {"stacks", SWEEP_INT, 1, 1000000},
    {"steps", SWEEP_INT, 0, 10000000},
    {"threads", SWEEP_INT, -1e9, 1e9},
    {"width", SWEEP_INT, -1e9, 1e9},
    {"substeps", SWEEP_INT, -1e9, 1e9},
    {"contact_hertz", SWEEP_FLOAT, 0, 1e9}, /* > 0: checked apart (0 would mean "default" to the bench) */
    {"solver", SWEEP_NAME, 0, 0},
    {"seed", SWEEP_INT, 0, 4294967295.0},
    {"jitter", SWEEP_FLOAT, 0, 1e6},
    {"quality", SWEEP_BOOL, 0, 1},
    {"sleep", SWEEP_BOOL, 0, 1},
};
#define KEY_RULE_COUNT ((int)(sizeof(key_rules) / sizeof(key_rules[0])))

static const key_rule *find_rule(const char *key)
{
    for (int k = 0; k < KEY_RULE_COUNT; ++k) {
        if (strcmp(key_rules[k].name, key) == 0) {
            return &key_rules[k];
        }
    }
    return NULL;
}

static bool fail(char *error, size_t size, int line, const char *format, ...)
{
    char what[200];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof(what), format, args);
    va_end(args);
    snprintf(error, size, "line %d: %s", line, what);
    return false;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) {
        ++s;
    }
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) {
        s[--n] = '\0';
    }
    return s;
}

static bool parse_long(const char *text, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno != 0) {
        return false;
    }
    *out = v;
    return true;
}

/* Appends a value; the array doubles when count reaches a power of two. */
static bool push_value(sweep_list *list, sweep_value value)
{
    int n = list->count;
    if (n == 0 || (n & (n - 1)) == 0) {
        sweep_value *grown = realloc(list->values, sizeof(sweep_value) * (size_t)(n > 0 ? 2 * n : 1));
        if (grown == NULL) {
            return false;
        }
        list->values = grown;
    }
    list->values[list->count++] = value;
    return true;
}

/* One integer item: "7" or a range "2..5" (both ends included). */
static bool parse_int_item(sweep_list *list, const key_rule *rule, char *item, char *error, size_t size)
{
    long lo, hi;
    char *dots = strstr(item, "..");
    if (dots != NULL) {
        *dots = '\0';
        if (!parse_long(trim(item), &lo) || !parse_long(trim(dots + 2), &hi) || hi < lo) {
            return fail(error, size, list->line, "%s: a range is LOW..HIGH with integers LOW <= HIGH", rule->name);
        }
        if (hi - lo >= 100000) {
            return fail(error, size, list->line, "%s: the range %ld..%ld has more than 100000 values", rule->name, lo,
                        hi);
        }
    } else if (!parse_long(item, &lo)) {
        return fail(error, size, list->line, "%s needs integers, got '%s'", rule->name, item);
    } else {
        hi = lo;
    }
    if ((double)lo < rule->min || (double)hi > rule->max) {
        return fail(error, size, list->line, "%s must be in %.0f..%.0f, got %ld%s", rule->name, rule->min, rule->max,
                    (double)lo < rule->min ? lo : hi, dots != NULL ? " (in a range)" : "");
    }
    for (long v = lo; v <= hi; ++v) {
        if (!push_value(list, (sweep_value){.i = v})) {
            return fail(error, size, list->line, "out of memory");
        }
    }
    return true;
}

static bool parse_item(sweep_list *list, const key_rule *rule, char *item, char *error, size_t size)
{
    sweep_value v = {0};
    char *end = NULL;
    switch (rule->kind) {
    case SWEEP_INT:
        return parse_int_item(list, rule, item, error, size);
    case SWEEP_FLOAT:
        v.f = strtod(item, &end);
        if (end == item || *end != '\0' || !isfinite(v.f) || v.f < rule->min || v.f > rule->max ||
            (strcmp(rule->name, "contact_hertz") == 0 && v.f <= 0.0)) {
            return fail(error, size, list->line, "%s needs a finite number %s, got '%s'", rule->name,
                        strcmp(rule->name, "contact_hertz") == 0 ? "> 0" : ">= 0", item);
        }
        break;
    case SWEEP_BOOL:
        if (strcmp(item, "true") != 0 && strcmp(item, "false") != 0) {
            return fail(error, size, list->line, "%s is true or false, got '%s'", rule->name, item);
        }
        v.i = strcmp(item, "true") == 0;
        break;
    case SWEEP_NAME:
        if (strcmp(rule->name, "scene") == 0) {
            const scene_info *scene = scene_find(item);
            if (scene == NULL || scene->missing != NULL) {
                return fail(error, size, list->line, "scene '%s' %s (tessera-bench --list names them)", item,
                            scene == NULL ? "is not a scene" : "does not run on tessera yet");
            }
        } else if (tessera_solver_from_name(item) < 0) {
            return fail(error, size, list->line, "solver is soft_step or xpbd, got '%s'", item);
        }
        snprintf(v.name, sizeof(v.name), "%s", item);
        break;
    }
    return push_value(list, v) || fail(error, size, list->line, "out of memory");
}

static void free_block(sweep_block *b)
{
    for (int k = 0; k < b->list_count; ++k) {
        free(b->lists[k].values);
    }
    b->list_count = 0;
}

/* "key = v1, v2, ..." into a new list of block. */
static bool parse_entry(sweep_block *block, char *text, int line, char *error, size_t size)
{
    char *eq = strchr(text, '=');
    if (eq == NULL) {
        return fail(error, size, line, "expected 'key = value, ...' or '[sweep]', got '%s'", text);
    }
    *eq = '\0';
    char *key = trim(text);
    const key_rule *rule = find_rule(key);
    if (rule == NULL) {
        return fail(error, size, line,
                    "unknown key '%s' (keys: scene small base grid height count side stacks steps threads width "
                    "substeps contact_hertz solver seed jitter quality sleep)", key);
    }
    for (int k = 0; k < block->list_count; ++k) {
        if (strcmp(block->lists[k].key, key) == 0) {
            return fail(error, size, line, "%s is given twice in this block (first on line %d)", key,
                        block->lists[k].line);
        }
    }
    if (block->list_count == SWEEP_MAX_KEYS) {
        return fail(error, size, line, "more than %d keys in one block", SWEEP_MAX_KEYS);
    }
    sweep_list *list = &block->lists[block->list_count++];
    *list = (sweep_list){.kind = rule->kind, .line = line};
    snprintf(list->key, sizeof(list->key), "%s", key);
    char *rest = eq + 1;
    for (;;) {
        char *comma = strchr(rest, ',');
        if (comma != NULL) {
            *comma = '\0';
        }
        char *item = trim(rest);
        if (*item == '\0') {
            return fail(error, size, line, "%s has an empty value", key);
        }
        if (!parse_item(list, rule, item, error, size)) {
            return false;
        }
        if (comma == NULL) {
            return true;
        }
        rest = comma + 1;
    }
}

static const sweep_list *find_list(const sweep_block *b, const char *key)
{
    for (int k = 0; k < b->list_count; ++k) {
        if (strcmp(b->lists[k].key, key) == 0) {
            return &b->lists[k];
        }
    }
    return NULL;
}

/* Puts the global keys the block does not give in front of its own, checks
 * it has a scene and counts its runs. */
static bool finish_block(sweep_desc *d, sweep_block *b, char *error, size_t size)
{
    int inherited = 0;
    for (int k = 0; k < d->globals.list_count; ++k) {
        inherited += find_list(b, d->globals.lists[k].key) == NULL;
    }
    if (inherited + b->list_count > SWEEP_MAX_KEYS) {
        return fail(error, size, b->line, "more than %d keys in one block (with those before [sweep])",
                    SWEEP_MAX_KEYS);
    }
    /* Shift the block's own lists up, then copy the inherited ones in front. */
    memmove(&b->lists[inherited], &b->lists[0], sizeof(sweep_list) * (size_t)b->list_count);
    memset(&b->lists[0], 0, sizeof(sweep_list) * (size_t)inherited); /* empty keys: found by no search */
    b->list_count += inherited;
    for (int k = 0, at = 0; k < d->globals.list_count; ++k) {
        const sweep_list *g = &d->globals.lists[k];
        if (find_list(b, g->key) != NULL) {
            continue; /* the block gives it */
        }
        sweep_list *copy = &b->lists[at++];
        *copy = *g;
        copy->values = malloc(sizeof(sweep_value) * (size_t)g->count);
        if (copy->values == NULL) {
            copy->count = 0;
            return fail(error, size, b->line, "out of memory");
        }
        memcpy(copy->values, g->values, sizeof(sweep_value) * (size_t)g->count);
    }
    if (find_list(b, "scene") == NULL) {
        return fail(error, size, b->line, "this block names no scene (give 'scene = NAME' in it or before [sweep])");
    }
    b->first_run = d->run_count;
    b->run_count = 1;
    for (int k = 0; k < b->list_count; ++k) {
        b->run_count *= b->lists[k].count;
        if (d->run_count + b->run_count > SWEEP_MAX_RUNS) {
            return fail(error, size, b->line, "the sweep has more than %ld runs", SWEEP_MAX_RUNS);
        }
    }
    d->run_count += b->run_count;
    return true;
}

static bool parse_lines(char *text, sweep_desc *d, char *error, size_t size)
{
    sweep_block *current = &d->globals;
    int line = 0;
    for (char *next = text; next != NULL;) {
        char *start = next;
        next = strchr(start, '\n');
        if (next != NULL) {
            *next++ = '\0';
        }
        ++line;
        start[strcspn(start, "#;")] = '\0';
        char *s = trim(start);
        if (*s == '\0') {
            continue;
        }
        if (*s == '[') {
            if (strcmp(s, "[sweep]") != 0) {
                return fail(error, size, line, "unknown section '%s' (the only section is [sweep])", s);
            }
            if (d->block_count == SWEEP_MAX_BLOCKS) {
                return fail(error, size, line, "more than %d [sweep] blocks", SWEEP_MAX_BLOCKS);
            }
            current = &d->blocks[d->block_count++];
            current->line = line;
            continue;
        }
        if (!parse_entry(current, s, line, error, size)) {
            return false;
        }
    }
    return true;
}

bool sweep_parse(const char *text, sweep_desc *d, char *error, size_t size)
{
    memset(d, 0, sizeof(*d));
    char *copy = malloc(strlen(text) + 1);
    if (copy == NULL) {
        snprintf(error, size, "out of memory");
        return false;
    }
    strcpy(copy, text);
    bool ok = parse_lines(copy, d, error, size);
    free(copy);
    if (ok && d->block_count == 0) {
        /* No section: the keys form one block. */
        d->block_count = 1;
        d->blocks[0].line = 1;
    }
    for (int b = 0; ok && b < d->block_count; ++b) {
        ok = finish_block(d, &d->blocks[b], error, size);
    }
    if (!ok) {
        sweep_free(d);
    }
    return ok;
}

void sweep_free(sweep_desc *d)
{
    free_block(&d->globals);
    for (int b = 0; b < d->block_count; ++b) {
        free_block(&d->blocks[b]);
    }
    memset(d, 0, sizeof(*d));
}

/* ---- decoding a run ---- */

static void json_value(char *out, size_t size, const sweep_list *list, const sweep_value *v)
{
    size_t used = strlen(out);
    const char *sep = used > 0 ? "," : "";
    switch (list->kind) {
    case SWEEP_INT:
        snprintf(out + used, size - used, "%s\"%s\":%ld", sep, list->key, v->i);
        break;
    case SWEEP_FLOAT:
        snprintf(out + used, size - used, "%s\"%s\":%.9g", sep, list->key, v->f);
        break;
    case SWEEP_BOOL:
        snprintf(out + used, size - used, "%s\"%s\":%s", sep, list->key, v->i ? "true" : "false");
        break;
    case SWEEP_NAME:
        snprintf(out + used, size - used, "%s\"%s\":\"%s\"", sep, list->key, v->name);
        break;
    }
}

static void set_param(scene_params *p, const char *key, int v)
{
    if (strcmp(key, "base") == 0) p->base = v;
    if (strcmp(key, "grid") == 0) p->grid = v;
    if (strcmp(key, "height") == 0) p->height = v;
    if (strcmp(key, "count") == 0) p->count = v;
    if (strcmp(key, "side") == 0) p->side = v;
    if (strcmp(key, "stacks") == 0) p->stacks = v;
}

/* A run setting (not a scene parameter) from one chosen value. */
static void apply_setting(sweep_run *run, const char *key, const sweep_value *v)
{
    tessera_run_config *c = &run->config;
    if (strcmp(key, "steps") == 0) c->steps = (int)v->i;
    if (strcmp(key, "threads") == 0) c->settings.threads = (int)v->i, run->threads_given = true;
    if (strcmp(key, "width") == 0) c->settings.width = (int)v->i;
    if (strcmp(key, "substeps") == 0) c->settings.substeps = (int)v->i;
    if (strcmp(key, "contact_hertz") == 0) c->settings.contact_hertz = (float)v->f;
    if (strcmp(key, "solver") == 0) c->settings.solver = (ts_solver_type)tessera_solver_from_name(v->name);
    if (strcmp(key, "seed") == 0) run->seed = (uint32_t)v->i, run->perturb = true;
    if (strcmp(key, "jitter") == 0) run->jitter = (float)v->f, run->perturb = true;
    if (strcmp(key, "quality") == 0) c->quality = v->i != 0;
    if (strcmp(key, "sleep") == 0) c->sleep = v->i != 0;
}

void sweep_get_run(const sweep_desc *d, long index, sweep_run *run)
{
    const sweep_block *b = &d->blocks[0];
    for (int k = 0; k < d->block_count; ++k) {
        if (index >= d->blocks[k].first_run && index < d->blocks[k].first_run + d->blocks[k].run_count) {
            b = &d->blocks[k];
        }
    }
    /* The run's value of each list: a mixed-radix number, last list fastest. */
    const sweep_value *chosen[SWEEP_MAX_KEYS];
    long rest = index - b->first_run;
    for (int k = b->list_count - 1; k >= 0; --k) {
        chosen[k] = &b->lists[k].values[rest % b->lists[k].count];
        rest /= b->lists[k].count;
    }
    memset(run, 0, sizeof(*run));
    run->index = index;
    ts_world_def world = ts_default_world_def();
    run->config.settings = (tessera_settings){.threads = 0, .substeps = world.substeps,
                                              .contact_hertz = world.contact_hertz, .width = 0,
                                              .solver = TS_SOLVER_SOFT_STEP};
    run->jitter = 0.1f; /* m/s, when a seed is given without a jitter */
    bool small = false;
    for (int k = 0; k < b->list_count; ++k) {
        const char *key = b->lists[k].key;
        if (strcmp(key, "scene") == 0) run->scene = scene_find(chosen[k]->name);
        if (strcmp(key, "small") == 0) small = chosen[k]->i != 0;
        json_value(run->json, sizeof(run->json), &b->lists[k], chosen[k]);
    }
    run->params = small ? run->scene->small : run->scene->defaults;
    for (int k = 0; k < b->list_count; ++k) {
        set_param(&run->params, b->lists[k].key, (int)chosen[k]->i);
        apply_setting(run, b->lists[k].key, chosen[k]);
    }
}
