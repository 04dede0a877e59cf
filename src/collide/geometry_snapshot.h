/* Snapshots of the shapes' geometry blocks (format 3's GEOM section,
 * docs/snapshots.md): hulls, meshes and heightfields. A block is saved as
 * what made it (a hull's input points, a mesh's vertices and triangles in
 * the order the program gave them, a heightfield's grid) and rebuilt on
 * load by the code that built it: the builds are deterministic, so the
 * loaded hull, mesh tree and edge flags are the saved ones bit for bit,
 * and a loaded block is checked exactly as the create call checks its
 * definition (a crafted file cannot give the narrowphase a broken tree or
 * topology). Shapes that shared a hull share it again. */
#ifndef TS_COLLIDE_GEOMETRY_SNAPSHOT_H
#define TS_COLLIDE_GEOMETRY_SNAPSHOT_H

#include "collide/geometry_store.h"
#include "soa/records_snapshot.h"

/* The geometry of every live hull, mesh and heightfield shape, in shape
 * index order. */
void ts_geometry_save(ts_writer *w, const ts_records *records);

/* Builds each such shape's block into store (the shapes loaded before,
 * their geometry pointers NULL) and sets the shape's geometry. */
ts_load_status ts_geometry_load(ts_reader *r, ts_records *records, ts_geometry_store *store);

#endif
