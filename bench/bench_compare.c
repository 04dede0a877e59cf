/* --compare bullet (bench_compare.h). The peer's JSON lines are read by key
 * with a small scanner: both ends are ours and the keys read are flat. */
#include "bench_compare.h"

#include "bench_report.h"
#include "bench_timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PEER_NAME "tessera-bench-bullet"

bool compare_find_peer(char *path, size_t size)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        snprintf(path, size, "./" PEER_NAME);
    } else {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        *slash = '\0';
        snprintf(path, size, "%s/" PEER_NAME, self);
    }
    return access(path, X_OK) == 0;
}

void compare_print_missing(const char *path)
{
    fprintf(stderr,
            "tessera-bench: Bullet is missing: there is no %s.\n"
            "  The Bullet peer is built only when Bullet 3 is found at configure time: install Debian's\n"
            "  libbullet-dev (apt-get install libbullet-dev), then re-run cmake and rebuild.\n",
            path);
}

/* The text after "key": in line, or NULL. */
static const char *json_value(const char *line, const char *key)
{
    char pattern[64];
    snprintf(pattern, sizeof(pattern), "\"%s\":", key);
    const char *at = strstr(line, pattern);
    return at != NULL ? at + strlen(pattern) : NULL;
}

static double json_double(const char *line, const char *key)
{
    const char *v = json_value(line, key);
    return v != NULL ? strtod(v, NULL) : 0.0;
}

static void json_copy_string(const char *line, const char *key, char *out, size_t size)
{
    const char *v = json_value(line, key);
    out[0] = '\0';
    if (v != NULL && *v == '"') {
        snprintf(out, size, "%.*s", (int)strcspn(v + 1, "\""), v + 1);
    }
}

static void read_peer_line(const char *line, peer_summary *out, double *medians)
{
    if (out->runs >= 64 || json_value(line, "ms_median") == NULL) {
        return;
    }
    medians[out->runs++] = json_double(line, "ms_median");
    out->bodies = (int)json_double(line, "bodies");
    const char *pass = json_value(line, "quality_pass");
    int quality = pass == NULL || strncmp(pass, "null", 4) == 0 ? -1 : strncmp(pass, "true", 4) == 0;
    out->quality = out->runs == 1 || quality < out->quality ? quality : out->quality;
    out->quality_figure = json_double(line, "quality_figure");
    json_copy_string(line, "quality_figure_name", out->quality_figure_name, sizeof(out->quality_figure_name));
    json_copy_string(line, "version", out->version, sizeof(out->version));
}

void compare_run_peer(const char *peer, const scene_info *scene, const scene_params *params, const bench_options *o,
                      FILE *echo, peer_summary *out)
{
    char args[160], command[4096 + 512];
    bench_params_arguments(scene, params, args, sizeof(args));
    snprintf(command, sizeof(command), "'%s' --json --scene %s %s --runs %d%s%s", peer, scene->name, args, o->runs,
             o->no_quality ? " --no-quality" : "", o->steps > 0 ? " --steps " : "");
    if (o->steps > 0) {
        snprintf(command + strlen(command), sizeof(command) - strlen(command), "%d", o->steps);
    }
    memset(out, 0, sizeof(*out));
    FILE *pipe = popen(command, "r");
    if (pipe == NULL) {
        fprintf(stderr, "tessera-bench: could not run %s\n", peer);
        return;
    }
    double medians[64];
    char line[8192];
    while (fgets(line, sizeof(line), pipe) != NULL) {
        if (echo != NULL) {
            fputs(line, echo);
        }
        read_peer_line(line, out, medians);
    }
    int status = pclose(pipe);
    out->ok = status == 0 && out->runs > 0;
    if (out->ok) {
        out->min_median = medians[0];
        for (int i = 1; i < out->runs; ++i) {
            out->min_median = medians[i] < out->min_median ? medians[i] : out->min_median;
        }
        out->median_median = bench_median(medians, out->runs);
    } else {
        fprintf(stderr, "tessera-bench: %s failed on %s (exit status %d)\n", peer, scene->name, status);
    }
}

void compare_print_header(FILE *out)
{
    fprintf(out, "%-14s %8s %3s %12s %12s %9s  %-36s %s\n", "scene", "bodies", "thr", "tessera ms", "Bullet ms",
            "ratio", "tessera quality", "Bullet quality");
}

static void format_quality(char *buffer, size_t size, int state, double figure, const char *name)
{
    if (state < 0) {
        snprintf(buffer, size, "-");
    } else {
        snprintf(buffer, size, "%s (%s %.3g)", state ? "pass" : "FAIL", name, figure);
    }
}

void compare_print_row(FILE *out, const scene_info *scene, const bench_result *runs, int count,
                       const peer_summary *peer)
{
    char tessera_ms[24] = "unavailable", bullet_ms[24] = "failed", ratio[24] = "-", tq[80] = "-", bq[80] = "-";
    double t = count > 0 ? bench_median_of_medians(runs, count) : 0.0;
    if (count > 0) {
        snprintf(tessera_ms, sizeof(tessera_ms), "%.3f", t);
        int state = -1;
        for (int i = 0; i < count; ++i) {
            int s = runs[i].quality.evaluated ? runs[i].quality.pass : -1;
            state = i == 0 || s < state ? s : state;
        }
        format_quality(tq, sizeof(tq), state, runs[0].quality.figure, runs[0].quality.figure_name);
    }
    if (peer->ok) {
        snprintf(bullet_ms, sizeof(bullet_ms), "%.3f", peer->median_median);
        format_quality(bq, sizeof(bq), peer->quality, peer->quality_figure, peer->quality_figure_name);
    }
    if (count > 0 && peer->ok && t > 0.0) {
        snprintf(ratio, sizeof(ratio), "%.2fx", peer->median_median / t);
    }
    char threads[16] = "-";
    if (count > 0) {
        snprintf(threads, sizeof(threads), "%d", runs[0].threads);
    }
    fprintf(out, "%-14s %8d %3s %12s %12s %9s  %-36s %s\n", scene->name, count > 0 ? runs[0].bodies : peer->bodies,
            threads, tessera_ms, bullet_ms, ratio, tq, bq);
}
