/* JSON lines and the table of tessera-bench and its peers (bench_report.h). */
#include "bench_report.h"

#include "bench_timing.h"
#include "sysinfo.h"

#include <math.h>
#include <stdlib.h>

void bench_add_stage(bench_result *r, const char *name, double ms)
{
    if (r->stage_count < BENCH_MAX_STAGES) {
        r->stages[r->stage_count++] = (bench_value){name, ms};
    }
}

void bench_add_extra(bench_result *r, const char *name, double value)
{
    if (r->extra_count < BENCH_MAX_EXTRAS) {
        r->extras[r->extra_count++] = (bench_value){name, value};
    }
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s != NULL && *s != '\0'; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(out, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(out, "\\u%04x", c);
        } else {
            fputc(c, out);
        }
    }
    fputc('"', out);
}

/* A JSON number, or null when it is not finite. */
static void json_number(FILE *out, double v)
{
    if (isfinite(v)) {
        fprintf(out, "%.6g", v);
    } else {
        fputs("null", out);
    }
}

static void json_values(FILE *out, const char *key, const bench_value *values, int count)
{
    fprintf(out, ",\"%s\":{", key);
    for (int i = 0; i < count; ++i) {
        fprintf(out, "%s\"%s\":", i ? "," : "", values[i].name);
        json_number(out, values[i].value);
    }
    fputc('}', out);
}

static void json_header(FILE *out, const bench_result *r)
{
    fputs("{\"engine\":", out);
    json_string(out, r->engine);
    fputs(",\"version\":", out);
    json_string(out, r->version);
    fputs(",\"git\":", out);
    json_string(out, bench_git());
    fputs(",\"compiler\":", out);
    json_string(out, r->compiler);
    fputs(",\"cpu\":", out);
    json_string(out, bench_cpu());
    fputs(",\"simd\":", out);
    json_string(out, r->simd);
    fprintf(out, ",\"width\":%d,\"threads\":%d,\"solver\":", r->width, r->threads);
    json_string(out, r->solver);
    fprintf(out, ",\"substeps\":%d,\"iterations\":%d,\"collide_only\":%s", r->substeps, r->iterations,
            r->collide_only ? "true" : "false");
    if (r->contact_hertz > 0.0f) {
        fprintf(out, ",\"contact_hertz\":%g", (double)r->contact_hertz);
    }
}

static void json_scene(FILE *out, const bench_result *r)
{
    fputs(",\"scene\":", out);
    json_string(out, r->scene->name);
    fputs(",\"params\":{", out);
    int first = 1;
    for (unsigned bit = 1; bit <= SCENE_PARAM_STACKS; bit <<= 1) {
        if (r->scene->params_used & bit) {
            fprintf(out, "%s\"%s\":%d", first ? "" : ",", scene_param_name(bit), scene_param_value(&r->params, bit));
            first = 0;
        }
    }
    fprintf(out, "},\"run\":%d,\"warmup_steps\":%d,\"steps\":%d,\"total_steps\":%d", r->run, r->warmup_steps,
            r->steps, r->total_steps);
    fprintf(out, ",\"bodies\":%d,\"dynamic_bodies\":%d,\"joints\":%d", r->bodies, r->dynamic_bodies, r->joints);
    fprintf(out, ",\"contact_pairs\":%d,\"touching\":%d,\"contact_points\":%d,\"colors\":[", r->contact_pairs,
            r->touching, r->contact_points);
    for (int c = 0; c < r->color_count; ++c) {
        fprintf(out, "%s%d", c ? "," : "", r->colors[c]);
    }
    fprintf(out, "],\"overflow\":%d", r->overflow);
}

static void json_times(FILE *out, const bench_result *r)
{
    fputs(",\"ms_mean\":", out);
    json_number(out, r->ms_mean);
    fputs(",\"ms_median\":", out);
    json_number(out, r->ms_median);
    fputs(",\"ms_max\":", out);
    json_number(out, r->ms_max);
    fputs(",\"ns_per_body_step\":", out);
    json_number(out, r->dynamic_bodies > 0 ? 1.0e6 * r->ms_mean / r->dynamic_bodies : 0.0);
    json_values(out, "stages", r->stages, r->stage_count);
    json_values(out, "extra", r->extras, r->extra_count);
}

static void json_quality(FILE *out, const bench_result *r)
{
    const quality_result *q = &r->quality;
    fprintf(out, ",\"quality_pass\":%s,\"quality_figure\":", q->evaluated ? (q->pass ? "true" : "false") : "null");
    if (q->evaluated) {
        json_number(out, q->figure);
    } else {
        fputs("null", out);
    }
    fputs(",\"quality_figure_name\":", out);
    json_string(out, q->figure_name ? q->figure_name : "");
    fputs(",\"quality_figures\":{", out);
    for (int i = 0; q->evaluated && i < q->figure_count; ++i) {
        fprintf(out, "%s\"%s\":", i > 0 ? "," : "", q->figure_names[i]);
        json_number(out, q->figures[i]);
    }
    fputs("},\"quality_detail\":", out);
    json_string(out, q->evaluated ? q->detail : "not evaluated");
    fprintf(out, ",\"state_hash\":\"%016llx\",\"step_errors\":%d,\"error\":", (unsigned long long)r->state_hash,
            r->step_errors);
    json_string(out, r->error);
}

void bench_print_json(FILE *out, const bench_result *r)
{
    json_header(out, r);
    json_scene(out, r);
    json_times(out, r);
    json_quality(out, r);
    fputs("}\n", out);
    fflush(out);
}

const char *bench_quality_word(const quality_result *q)
{
    return !q->evaluated ? "-" : q->pass ? "pass" : "FAIL";
}

double bench_median_of_medians(const bench_result *runs, int count)
{
    double m[64];
    int n = count < 64 ? count : 64;
    for (int i = 0; i < n; ++i) {
        m[i] = runs[i].ms_median;
    }
    return bench_median(m, n);
}

void bench_print_table_header(FILE *out)
{
    fprintf(out, "%-14s %-8s %3s %5s %3s %8s %8s %9s %19s %9s %7s  %s\n", "scene", "engine", "thr", "width", "sub",
            "bodies", "points", "mean ms", "median ms (min/med)", "max ms", "speedup", "quality (figure)");
}

void bench_print_table_row(FILE *out, const bench_result *runs, int count, double reference_ms)
{
    const bench_result *r = &runs[0];
    double min_median = r->ms_median, mean = 0.0, max = 0.0;
    bool pass = true, evaluated = true;
    for (int i = 0; i < count; ++i) {
        min_median = runs[i].ms_median < min_median ? runs[i].ms_median : min_median;
        mean += runs[i].ms_mean / count;
        max = runs[i].ms_max > max ? runs[i].ms_max : max;
        pass = pass && runs[i].quality.pass;
        evaluated = evaluated && runs[i].quality.evaluated;
    }
    double median = bench_median_of_medians(runs, count);
    char medians[32], speedup[16];
    snprintf(medians, sizeof(medians), "%.3f / %.3f", min_median, median);
    snprintf(speedup, sizeof(speedup), "-");
    if (reference_ms > 0.0 && median > 0.0) {
        snprintf(speedup, sizeof(speedup), "%.2fx", reference_ms / median);
    }
    quality_result q = r->quality;
    q.pass = pass;
    q.evaluated = evaluated;
    fprintf(out, "%-14s %-8s %3d %5d %3d %8d %8d %9.3f %19s %9.3f %7s  %s", r->scene->name, r->engine, r->threads,
            r->width, r->substeps, r->bodies, r->contact_points, mean, medians, max, speedup, bench_quality_word(&q));
    if (evaluated) {
        fprintf(out, " (%s %.4g)", q.figure_name, q.figure);
    }
    fprintf(out, "%s\n", r->step_errors ? "  step errors!" : "");
}
