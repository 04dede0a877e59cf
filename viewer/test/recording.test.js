// The viewer's reader (src/recording.js, src/replay.js) on recordings
// written here byte by byte from docs/recording.md: a good file replays to
// the poses, sleep states and islands it holds, forwards and backwards; bad
// files (empty, not a recording, wrong version, cut short, damaged) give the
// message the page shows. No browser: node's test runner.
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseRecording, frameStats, RecordingError } from '../src/recording.js';
import { Replay } from '../src/replay.js';

// A little-endian byte writer.
class Writer {
  constructor() { this.bytes = []; }
  u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); this.bytes.push(...b); return this; }
  i32(v) { const b = Buffer.alloc(4); b.writeInt32LE(v); this.bytes.push(...b); return this; }
  f32(...vs) { for (const v of vs) { const b = Buffer.alloc(4); b.writeFloatLE(v); this.bytes.push(...b); } return this; }
  text(s) { this.bytes.push(...Buffer.from(s, 'latin1')); return this; }
  chunk(type, fill) {
    const inner = new Writer();
    fill(inner);
    this.text(type).u32(inner.bytes.length);
    this.bytes.push(...inner.bytes);
    return this;
  }
  buffer() { return new Uint8Array(this.bytes).buffer; }
}

const IDENTITY = [0, 0, 0, 0, 0, 0, 1];

function header(w, version = 1) {
  return w.text('TSRECORD').u32(version).u32(32).f32(1 / 60).u32(1).u32(0x000100).u32(0);
}

// stats: step ms, bodies, awake, islands, awake islands, pairs, touching, points, overflow, threads, width, 24 colours
function stats(w, awake) {
  w.u32(35).f32(0.5);
  for (const v of [2, awake, 1, awake > 0 ? 1 : 0, 1, 1, 4, 0, 2, 8]) w.i32(v);
  for (let c = 0; c < 24; ++c) w.i32(c === 0 ? 1 : 0);
}

// Frame with the ball (slot 1) awake at height y; optional island change, asleep entry, contact.
function frame(w, index, { y = 1, same = false, awake = true, island = null, asleepY = null, contact = false } = {}) {
  w.chunk('FRAM', (f) => {
    f.u32(index).u32(index).u32(same ? 1 : 0);
    stats(f, awake ? 1 : 0);
    f.u32(awake ? 1 : 0);
    if (awake && !same) f.u32(1);
    if (awake) f.f32(0, y, 0, 0, 0, 0, 1);
    if (island !== null) f.u32(1).u32(1).i32(island); else f.u32(0);
    if (asleepY !== null) f.u32(1).u32(1).f32(0, asleepY, 0, 0, 0, 0, 1); else f.u32(0);
    f.u32(0); // removed
    if (contact) f.u32(1).f32(0, 0, 0, 0, 1, 0); else f.u32(0);
  });
}

// Ground box (slot 0, static) and a ball (slot 1, dynamic, awake, island 5):
// the ball falls (frames 0, 1), lands (frame 2, island 7), sleeps (frame 3).
function goodRecording({ close = true } = {}) {
  const w = header(new Writer());
  w.chunk('BODY', (b) => {
    b.u32(2);
    b.u32(0).u32(0).i32(-1).u32(1).f32(0, -1, 0, 0, 0, 0, 1).u32(1).f32(...IDENTITY).f32(20, 1, 20);
    b.u32(1).u32(2 | 1 << 8).i32(5).u32(1).f32(0, 2, 0, 0, 0, 0, 1).u32(0).f32(...IDENTITY).f32(0.5, 0, 0);
  });
  frame(w, 0, { y: 2 });
  frame(w, 1, { y: 1.5, same: true });
  frame(w, 2, { y: 0.5, same: true, island: 7, contact: true });
  frame(w, 3, { awake: false, asleepY: 0.49 });
  if (close) w.chunk('END ', (e) => e.u32(4));
  return w;
}

test('a good recording replays forwards and backwards', () => {
  const rec = parseRecording(goodRecording().buffer());
  assert.equal(rec.frames.length, 4);
  assert.equal(rec.closed, true);
  assert.equal(rec.warning, null);
  assert.equal(rec.header.contacts, true);
  assert.equal(rec.bodyRecords.length, 2);
  assert.deepEqual(rec.bodyRecords[0].shapes[0].size, [20, 1, 20]);
  const replay = new Replay(rec);
  const y = () => replay.state.pose[7 + 1];
  replay.seek(1);
  assert.equal(y(), 1.5);
  assert.equal(replay.state.awake[1], 1);
  assert.equal(replay.state.island[1], 5);
  replay.seek(3);
  assert.equal(y(), Math.fround(0.49)); // the pose it fell asleep with
  assert.equal(replay.state.awake[1], 0);
  assert.equal(replay.state.island[1], 7);
  replay.seek(0); // backwards: from the snapshot of frame 0
  assert.equal(y(), 2);
  assert.equal(replay.state.island[1], 5);
  assert.equal(replay.state.awake[1], 1);
  assert.deepEqual(Array.from(replay.contacts(2)), [0, 0, 0, 0, 1, 0]);
  assert.equal(replay.contacts(1).length, 0);
  const s = frameStats(rec, rec.frames[0]);
  assert.equal(s.stepMs, 0.5);
  assert.equal(s.awakeBodies, 1);
  assert.equal(s.simdWidth, 8);
  assert.equal(s.colors.length, 24);
});

// Version 2: a hull (slot 0, 4 vertices) and a mesh (slot 1, one triangle)
// carry the points that draw them; a version-1 file's hull has none.
test('hulls and meshes carry their outlines (version 2)', () => {
  const tetra = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1];
  const w = header(new Writer(), 2);
  w.chunk('BODY', (b) => {
    b.u32(2);
    b.u32(0).u32(2 | 1 << 8).i32(0).u32(1).f32(0, 2, 0, 0, 0, 0, 1).u32(3).f32(...IDENTITY).f32(0, 0, 0);
    b.u32(4).f32(...tetra);
    b.u32(1).u32(0).i32(-1).u32(2).f32(0, 0, 0, 0, 0, 0, 1);
    b.u32(4).f32(...IDENTITY).f32(0, 0, 0).u32(3).f32(0, 0, 0, 0, 0, 1, 1, 0, 0);
    b.u32(1).f32(...IDENTITY).f32(0.5, 0.5, 0.5); // a box after the mesh: read from the right place
  });
  frame(w, 0, { y: 2 });
  const rec = parseRecording(w.buffer());
  assert.equal(rec.header.version, 2);
  assert.deepEqual(Array.from(rec.bodyRecords[0].shapes[0].outline), tetra);
  assert.equal(rec.bodyRecords[1].shapes[0].outline.length, 9);
  assert.deepEqual(rec.bodyRecords[1].shapes[1].size, [0.5, 0.5, 0.5]);
  assert.equal(rec.bodyRecords[1].shapes[1].outline, null);

  const cut = header(new Writer(), 2);
  cut.chunk('BODY', (b) => {
    b.u32(1).u32(0).u32(2).i32(0).u32(1).f32(0, 2, 0, 0, 0, 0, 1).u32(3).f32(...IDENTITY).f32(0, 0, 0);
    b.u32(1000).f32(...tetra); // says 1000 points, holds 4
  });
  assert.throws(() => parseRecording(cut.buffer()), /a shape outline runs past its chunk/);
});

test('a recording that was not closed plays with a warning', () => {
  const rec = parseRecording(goodRecording({ close: false }).buffer());
  assert.equal(rec.frames.length, 4);
  assert.match(rec.warning, /not closed/);
});

test('a recording cut inside a chunk keeps its whole frames', () => {
  const bytes = new Uint8Array(goodRecording().buffer());
  // Cut 20 bytes into the END chunk's predecessor (frame 3) : frames 0-2 remain.
  const end = bytes.length - 12; // END chunk: 8 header + 4
  const rec = parseRecording(bytes.slice(0, end - 20).buffer);
  assert.equal(rec.frames.length, 3);
  assert.match(rec.warning, /^Truncated recording: .*3 whole frames/);
});

test('bad files say what is wrong', () => {
  const cases = [
    [new ArrayBuffer(0), /empty/],
    [new TextEncoder().encode('hello, this is a text file\n').buffer, /Not a tessera recording/],
    [new TextEncoder().encode('TSREC').buffer, /Truncated recording: the file is 5 bytes/],
    [header(new Writer(), 7).buffer(), /Unsupported recording version 7: this viewer reads versions 1 to 2/],
    [header(new Writer()).buffer(), /holds no frame/],
    [new Uint8Array(goodRecording().buffer()).slice(0, 60).buffer, /Truncated recording: the file ends before its first whole frame/],
  ];
  for (const [buffer, message] of cases) {
    assert.throws(() => parseRecording(buffer), (e) => e instanceof RecordingError && message.test(e.message));
  }
});

test('a frame naming a body no BODY chunk defined ends the recording there', () => {
  const w = goodRecording({ close: false });
  w.chunk('FRAM', (f) => {
    f.u32(4).u32(4).u32(0);
    stats(f, 1);
    f.u32(1).u32(9).f32(0, 1, 0, 0, 0, 0, 1).u32(0).u32(0).u32(0).u32(0);
  });
  const rec = parseRecording(w.buffer());
  const replay = new Replay(rec);
  assert.equal(replay.frameCount, 4);
  assert.match(rec.warning, /slot 9.*showing the 4 frames before it/);
  replay.seek(3);
  assert.equal(replay.state.awake[1], 0);
});

test('a first frame that reuses a body list is damage', () => {
  const w = header(new Writer());
  w.chunk('BODY', (b) => b.u32(1).u32(1).u32(2 | 1 << 8).i32(0).u32(0).f32(...IDENTITY));
  frame(w, 0, { same: true });
  assert.throws(() => parseRecording(w.buffer()), /reuses a body list/);
});
