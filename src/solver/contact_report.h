/* What the soft step reports of each touching contact when the world asks
 * (tessera/contact_report.h): one entry per contact id, written by the
 * step's store pass for the contacts it solved and stamped with the step,
 * so that entries of contacts not solved in the last step (asleep, no
 * longer touching, destroyed) are told apart by their stamp. Nothing here
 * is touched by a step while reporting is off. */
#ifndef TS_SOLVER_CONTACT_REPORT_H
#define TS_SOLVER_CONTACT_REPORT_H

#include "base/core.h"
#include "soa/records.h"
#include "tessera/types.h"

typedef struct ts_contact_report_entry {
    int32_t step;            /* the world's step count when written */
    int32_t hit_point;       /* the manifold point of the fastest pushing approach, -1 none */
    float hit_speed;         /* its approach speed, m/s (0 none) */
    float normal_impulse;    /* over the whole step, all points, N s */
    ts_vec3 tangent_impulse; /* friction over the whole step, world, N s */
} ts_contact_report_entry;

/* The reporting settings and entries of a world's solver. */
typedef struct ts_contact_report {
    bool impulses;    /* totals of each step's impulses */
    bool hits;        /* hit events */
    float hit_speed;  /* the approach speed a hit needs, m/s */
    ts_contact_report_entry *entries; /* by contact id */
    int32_t capacity;
} ts_contact_report;

/* Before a step of a world that reports: room for an entry per contact id
 * and, when the world reports impulses, bytes_needed of totals (the
 * bundles' ts_contact_total_lanes) in *totals. False when out of memory. */
bool ts_contact_report_reserve(ts_contact_report *r, const ts_records *records, void **totals, int32_t *total_bytes,
                               int32_t bytes_needed);

#endif
