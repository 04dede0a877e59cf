/* The world from the API's side: the table of world slots that turns a
 * ts_world_id into a world (the struct is the step's: step/world_state.h), and
 * what creating and destroying a world share with the other API files. */
#ifndef TS_API_WORLD_H
#define TS_API_WORLD_H

#include "step/world_state.h"

/* The world of an id, or NULL after recording an error for `function`. */
ts_world *ts_world_lookup(ts_world_id id, const char *function);

/* The world of a body or shape id (world slot and generation), or NULL after
 * recording TS_ERROR_STALE_ID. */
ts_world *ts_world_lookup_slot(uint16_t world0, uint16_t world_generation, const char *function);

/* The cores OpenMP sees (at most TS_MAX_THREADS), or 1 without OpenMP:
 * what threads = 0 asks for. */
int ts_available_threads(void);

/* A world def's checks (the errors of ts_create_world), and the SIMD width
 * it asks for (def->simd_width, else TESSERA_SIMD, else the widest the CPU
 * runs; 0 with an error recorded when TESSERA_SIMD names no built width),
 * for the solver-only entry's contexts, which take a world def. */
ts_result ts_world_def_check(const ts_world_def *def, const char *function);
int ts_world_def_simd_width(int requested, const char *function);

/* Releases every body, shape, contact and joint array (the world struct itself stays). */
void ts_world_free_bodies_and_shapes(ts_world *world);

#endif
