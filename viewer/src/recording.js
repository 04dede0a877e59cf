// Reads a tessera recording (.tsr, docs/recording.md) from an ArrayBuffer:
// checks the header, walks the chunks, parses the BODY records, and indexes
// the frames (where each frame's data lies) without copying them. Pure
// JavaScript, no DOM: the viewer and the node tests both use it.

export const FORMAT_VERSION = 2; // the newest version read; 1 too (no shape outlines)
const OLDEST_VERSION = 1;
const MAGIC = 'TSRECORD';
const HEADER_SIZE = 32;

// Flags of a FRAM chunk.
const FRAME_SAME_BODIES = 1;

export const SHAPE_SPHERE = 0;
export const SHAPE_BOX = 1;
export const SHAPE_CAPSULE = 2;
export const SHAPE_HULL = 3;
export const SHAPE_MESH = 4;
export const SHAPE_HEIGHTFIELD = 5;

export const BODY_STATIC = 0;
export const BODY_KINEMATIC = 1;
export const BODY_DYNAMIC = 2;

// The statistics words of a frame, in file order (docs/recording.md).
export const STAT_NAMES = [
  'stepMs', 'bodies', 'awakeBodies', 'islands', 'awakeIslands', 'contactPairs',
  'touching', 'points', 'overflow', 'threads', 'simdWidth',
];
const COLOR_STATS_START = STAT_NAMES.length;

// An error the page shows as it is: it says what is wrong with the file.
export class RecordingError extends Error {}

function tag(view, at) {
  return String.fromCharCode(view.getUint8(at), view.getUint8(at + 1), view.getUint8(at + 2), view.getUint8(at + 3));
}

function readTransform(view, at) {
  const t = new Float32Array(7);
  for (let k = 0; k < 7; ++k) t[k] = view.getFloat32(at + 4 * k, true);
  return t;
}

function readHeader(view) {
  const size = view.byteLength;
  let magic = '';
  for (let i = 0; i < Math.min(8, size); ++i) magic += String.fromCharCode(view.getUint8(i));
  if (size === 0) throw new RecordingError('The file is empty: not a tessera recording.');
  if (magic !== MAGIC.slice(0, magic.length) || (size >= 8 && magic !== MAGIC)) {
    throw new RecordingError('Not a tessera recording: the file does not start with "TSRECORD".');
  }
  if (size < HEADER_SIZE) {
    throw new RecordingError(`Truncated recording: the file is ${size} bytes, shorter than its 32-byte header.`);
  }
  const version = view.getUint32(8, true);
  if (version < OLDEST_VERSION || version > FORMAT_VERSION) {
    throw new RecordingError(
      `Unsupported recording version ${version}: this viewer reads versions ${OLDEST_VERSION} to ${FORMAT_VERSION}.`);
  }
  const headerSize = view.getUint32(12, true);
  if (headerSize < HEADER_SIZE || headerSize > size) {
    throw new RecordingError(`Damaged recording: its header size (${headerSize}) is not possible.`);
  }
  const tessera = view.getUint32(24, true);
  return {
    version,
    headerSize,
    dt: view.getFloat32(16, true),
    contacts: (view.getUint32(20, true) & 1) !== 0,
    tesseraVersion: `${tessera >>> 16}.${(tessera >>> 8) & 0xff}.${tessera & 0xff}`,
  };
}

// A BODY chunk's records: { slot, type, awake, island, pose, shapes: [{ type, local, size, outline }] }.
// outline (version 2, hulls, meshes and heightfields): a Float32Array of
// points, 3 numbers each: a hull's vertices, or three corners a triangle.
function readBodies(view, at, end, version) {
  const count = view.getUint32(at, true);
  at += 4;
  const records = [];
  for (let i = 0; i < count; ++i) {
    if (at + 44 > end) throw new RecordingError('Damaged recording: a BODY record runs past its chunk.');
    const kind = view.getUint32(at + 4, true);
    const record = {
      slot: view.getUint32(at, true),
      type: kind & 0xff,
      awake: ((kind >>> 8) & 1) !== 0,
      island: view.getInt32(at + 8, true),
      pose: readTransform(view, at + 16),
      shapes: [],
    };
    const shapeCount = view.getUint32(at + 12, true);
    at += 44;
    if (at + 44 * shapeCount > end) throw new RecordingError('Damaged recording: a BODY record runs past its chunk.');
    for (let s = 0; s < shapeCount; ++s) {
      if (at + 44 > end) throw new RecordingError('Damaged recording: a BODY record runs past its chunk.');
      const shape = {
        type: view.getUint32(at, true),
        local: readTransform(view, at + 4),
        size: [view.getFloat32(at + 32, true), view.getFloat32(at + 36, true), view.getFloat32(at + 40, true)],
        outline: null,
      };
      at += 44;
      if (version >= 2 && shape.type >= SHAPE_HULL && shape.type <= SHAPE_HEIGHTFIELD) {
        if (at + 4 > end) throw new RecordingError('Damaged recording: a BODY record runs past its chunk.');
        const points = view.getUint32(at, true);
        if (points > (end - at - 4) / 12) throw new RecordingError('Damaged recording: a shape outline runs past its chunk.');
        shape.outline = new Float32Array(3 * points);
        for (let k = 0; k < 3 * points; ++k) shape.outline[k] = view.getFloat32(at + 4 + 4 * k, true);
        at += 4 + 12 * points;
      }
      record.shapes.push(shape);
    }
    records.push(record);
  }
  return records;
}

// Where a frame's parts lie (byte offsets into the buffer), checked against
// the chunk's size so that a damaged frame is found at load, not at play.
function indexFrame(view, at, end, previousList) {
  const need = (bytes) => {
    if (at + bytes > end) throw new RecordingError('Damaged recording: a frame runs past its chunk.');
  };
  need(16);
  const frame = {
    index: view.getUint32(at, true),
    step: view.getUint32(at + 4, true),
    flags: view.getUint32(at + 8, true),
  };
  const statCount = view.getUint32(at + 12, true);
  at += 16;
  need(4 * statCount);
  frame.statsAt = at;
  frame.statCount = statCount;
  at += 4 * statCount;
  need(4);
  frame.awakeCount = view.getUint32(at, true);
  at += 4;
  if (frame.flags & FRAME_SAME_BODIES) {
    if (previousList === null || previousList.count !== frame.awakeCount) {
      throw new RecordingError('Damaged recording: a frame reuses a body list that does not match.');
    }
    frame.listAt = previousList.at;
  } else {
    need(4 * frame.awakeCount);
    frame.listAt = at;
    at += 4 * frame.awakeCount;
  }
  need(28 * frame.awakeCount + 4);
  frame.posesAt = at;
  at += 28 * frame.awakeCount;
  const counted = (bytesEach) => {
    need(4);
    const count = view.getUint32(at, true);
    need(4 + bytesEach * count);
    const where = at + 4;
    at = where + bytesEach * count;
    return [count, where];
  };
  [frame.islandCount, frame.islandsAt] = counted(8);
  [frame.asleepCount, frame.asleepAt] = counted(32);
  [frame.removedCount, frame.removedAt] = counted(4);
  [frame.pointCount, frame.pointsAt] = counted(24);
  return frame;
}

// Parses a whole recording. Returns { header, frames, bodyRecords, closed,
// truncated, warning }; frames[i].bodies lists the BODY records that come
// before frame i (and after frame i - 1). Throws RecordingError when the
// file cannot be played at all.
export function parseRecording(buffer) {
  const view = new DataView(buffer);
  const header = readHeader(view);
  const frames = [];
  const bodyRecords = [];
  let pending = [];
  let list = null;
  let at = header.headerSize;
  let closed = false;
  let truncated = false;
  let damage = null;
  while (at < view.byteLength) {
    if (view.byteLength - at < 8 || view.getUint32(at + 4, true) > view.byteLength - at - 8) {
      truncated = true;
      break;
    }
    const type = tag(view, at);
    const size = view.getUint32(at + 4, true);
    const payload = at + 8;
    at = payload + size;
    try {
      if (type === 'BODY') {
        const records = readBodies(view, payload, payload + size, header.version);
        for (const r of records) r.id = bodyRecords.length + pending.length, pending.push(r);
      } else if (type === 'FRAM') {
        const frame = indexFrame(view, payload, payload + size, list);
        list = { at: frame.listAt, count: frame.awakeCount };
        frame.bodies = pending;
        bodyRecords.push(...pending);
        pending = [];
        frames.push(frame);
      } else if (type === 'END ') {
        closed = true;
      }
    } catch (e) {
      if (!(e instanceof RecordingError)) throw e;
      damage = `${e.message} (after frame ${frames.length})`;
      break;
    }
  }
  if (frames.length === 0) {
    if (damage) throw new RecordingError(damage);
    throw new RecordingError(truncated
      ? 'Truncated recording: the file ends before its first whole frame.'
      : 'The recording holds no frame.');
  }
  let warning = null;
  if (damage) {
    warning = `${damage}: showing the ${frames.length} frames before it.`;
  } else if (truncated) {
    warning = `Truncated recording: the file ends inside a chunk (the recording program died?); ` +
      `showing the ${frames.length} whole frames before it.`;
  } else if (!closed) {
    warning = `The recording was not closed (the recording program died?); showing its ${frames.length} frames.`;
  }
  return { buffer, view, header, frames, bodyRecords, closed, truncated: truncated || damage !== null, warning };
}

// The statistics of a frame as an object (colours: touching contacts per graph colour).
export function frameStats(recording, frame) {
  const { view } = recording;
  const stats = {};
  const known = Math.min(frame.statCount, STAT_NAMES.length);
  for (let i = 0; i < known; ++i) {
    const at = frame.statsAt + 4 * i;
    stats[STAT_NAMES[i]] = i === 0 ? view.getFloat32(at, true) : view.getInt32(at, true);
  }
  stats.colors = [];
  for (let i = COLOR_STATS_START; i < frame.statCount; ++i) {
    stats.colors.push(view.getInt32(frame.statsAt + 4 * i, true));
  }
  return stats;
}
