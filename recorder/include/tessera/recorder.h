/** @file
 * tessera recorder: writes what a world does, frame by frame, to a replay
 * file (.tsr) that the browser viewer (viewer/) plays back.
 *
 * A companion library (target tessera_recorder) built on tessera's public
 * API only: it reads the world, never changes it. The file format is
 * docs/recording.md; every chunk is flushed as soon as it is written, so a
 * program that crashes leaves a file whose frames up to the crash play.
 *
 *   ts_recorder *rec = NULL;
 *   ts_recorder_def def = ts_default_recorder_def();
 *   if (ts_recorder_create(world, "run.tsr", &def, &rec) != TS_OK) puts(ts_recorder_last_error());
 *   ts_recorder_add_bodies(rec, bodies, body_count); // static ones too: the API cannot list them
 *   ts_recorder_frame(rec);                          // the start
 *   for (...) { ts_world_step(world, dt); ts_recorder_frame(rec); }
 *   ts_recorder_close(rec);
 *
 * Threading: a recorder is used like its world (one call at a time, never
 * while ts_world_step runs). Errors: calls return a ts_result and
 * ts_recorder_last_error() (thread local) says why; a failed call writes
 * nothing to the file. */
#ifndef TESSERA_RECORDER_H
#define TESSERA_RECORDER_H

#include "tessera/tessera.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The version of the file format this library writes (docs/recording.md). */
#define TS_RECORDING_VERSION 2

/** A recorder writing one replay file for one world (opaque). */
typedef struct ts_recorder ts_recorder;

/** How to record; start from ts_default_recorder_def(). */
typedef struct ts_recorder_def {
    /** Seconds between two frames, for the viewer's playback speed (the
     * recorder does not see the dt given to ts_world_step); > 0, default 1/60. */
    float dt;
    /** Also record the contact points and normals of awake bodies; default
     * false (they cost a few calls per contact per frame). */
    bool contacts;
    int internal_value; /**< set by ts_default_recorder_def(); do not touch */
} ts_recorder_def;

/** The defaults: dt 1/60 s, no contacts. A def not made by it fails
 * ts_recorder_create with TS_ERROR_UNINITIALIZED_DEF. */
ts_recorder_def ts_default_recorder_def(void);

/** Creates (truncates) the file at path and writes the header. def may be
 * NULL for the defaults. On success *recorder receives the new recorder;
 * on failure no file is left open and *recorder is unchanged.
 * TS_ERROR_NULL_POINTER (path or recorder), TS_ERROR_STALE_ID (the world),
 * TS_ERROR_UNINITIALIZED_DEF (def not from ts_default_recorder_def),
 * TS_ERROR_NOT_FINITE / TS_ERROR_OUT_OF_RANGE (def->dt not finite or <= 0),
 * TS_ERROR_INVALID_OPERATION (the file cannot be opened or written),
 * TS_ERROR_UNSUPPORTED (a big-endian host), TS_ERROR_OUT_OF_MEMORY. */
ts_result ts_recorder_create(ts_world_id world, const char *path, const ts_recorder_def *def,
                             ts_recorder **recorder);

/** Records the bodies' shapes, types and current poses. The public API has
 * no call that lists a world's bodies, so the program names them: static
 * bodies (the ground, walls) appear only when added here. Awake bodies the
 * recorder has not seen are added by ts_recorder_frame on their own.
 * Adding a body twice records it again (its shapes may have changed).
 * Every id is checked first; on failure nothing is written.
 * TS_ERROR_NULL_POINTER (recorder, or bodies with count > 0),
 * TS_ERROR_OUT_OF_RANGE (count < 0), TS_ERROR_STALE_ID (a null or
 * destroyed body; the message names its index), TS_ERROR_WRONG_WORLD (a
 * body of another world), TS_ERROR_INVALID_OPERATION (the recorder stopped
 * after a failed write, or this write failed), TS_ERROR_OUT_OF_MEMORY. */
ts_result ts_recorder_add_bodies(ts_recorder *recorder, const ts_body_id *bodies, int count);

/** Records one frame: every awake body's transform, island changes, the
 * bodies that fell asleep or were destroyed since the last frame, the
 * world's counters and the last step's time, and, if asked, the contacts.
 * Call it after ts_world_step (and once before the first step for the
 * start). TS_ERROR_NULL_POINTER (recorder), TS_ERROR_STALE_ID (its world
 * was destroyed), TS_ERROR_INVALID_OPERATION (the recorder stopped after a
 * failed write, or this write failed), TS_ERROR_OUT_OF_MEMORY; after a
 * failed frame the recorder stops and the file keeps the frames before it. */
ts_result ts_recorder_frame(ts_recorder *recorder);

/** Frames recorded so far (0 for NULL). */
int ts_recorder_frame_count(const ts_recorder *recorder);

/** Writes the end mark, closes the file and frees the recorder (NULL is
 * fine). Fails only when the file could not be written; the recorder is
 * freed either way. TS_ERROR_INVALID_OPERATION (writing the end mark or
 * closing the file failed). */
ts_result ts_recorder_close(ts_recorder *recorder);

/** The message of the last failed recorder call on this thread ("" if none). */
const char *ts_recorder_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
