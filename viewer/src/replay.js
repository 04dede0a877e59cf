// The state of every body at any frame of a parsed recording: which BODY
// record holds each slot, its pose, awake flag and island. Frames are
// deltas (only awake bodies are written), so the state at frame k is every
// frame up to k applied in order; a copy of the whole state every few
// frames (snapshots, made at load) keeps a jump back to at most a few
// frames of replay. Pure JavaScript, no DOM.

import { BODY_STATIC, RecordingError } from './recording.js';

// Snapshot memory budget: the interval grows for big recordings so that the
// copies stay under about this many bytes.
const SNAPSHOT_BUDGET = 256 * 1024 * 1024;
const MIN_INTERVAL = 8;

function slotCount(recording) {
  let max = -1;
  for (const r of recording.bodyRecords) max = Math.max(max, r.slot);
  return max + 1;
}

export class BodyState {
  constructor(slots) {
    this.record = new Int32Array(slots).fill(-1); // BODY record id per slot, -1 = none
    this.pose = new Float32Array(slots * 7);
    this.awake = new Uint8Array(slots);
    this.island = new Int32Array(slots).fill(-1);
  }

  copyFrom(other) {
    this.record.set(other.record);
    this.pose.set(other.pose);
    this.awake.set(other.awake);
    this.island.set(other.island);
  }

  clone() {
    const c = new BodyState(this.record.length);
    c.copyFrom(this);
    return c;
  }
}

export class Replay {
  constructor(recording) {
    this.recording = recording;
    this.slots = slotCount(recording);
    this.state = new BodyState(this.slots);
    this.frame = -1; // the frame this.state shows; -1 = nothing applied yet
    const stateBytes = this.slots * 37 + 64;
    const frames = recording.frames.length;
    this.interval = Math.max(MIN_INTERVAL, Math.ceil((frames * stateBytes) / SNAPSHOT_BUDGET));
    this.snapshots = [];
    this.build();
  }

  get frameCount() {
    return this.recording.frames.length;
  }

  // Applies every frame once (checking the slots it names), keeping a
  // snapshot every interval frames. A frame that names a slot no BODY record
  // defined ends the recording there, as a cut-off file would.
  build() {
    for (let k = 0; k < this.frameCount; ++k) {
      try {
        this.apply(k);
      } catch (e) {
        if (k === 0) throw new RecordingError(`Damaged recording: ${e.message}.`);
        const rec = this.recording;
        rec.frames.length = k;
        rec.truncated = true;
        rec.warning = `Damaged recording: ${e.message}; showing the ${k} frames before it.`;
        this.frame = -1; // the state is half-applied: the next seek starts from a snapshot
        break;
      }
      if (k % this.interval === 0) this.snapshots.push(this.state.clone());
    }
  }

  // Applies frame k onto the state (which must show frame k - 1).
  apply(k) {
    const rec = this.recording;
    const frame = rec.frames[k];
    const { view } = rec;
    const s = this.state;
    for (const body of frame.bodies) {
      s.record[body.slot] = body.id;
      s.pose.set(body.pose, body.slot * 7);
      s.awake[body.slot] = body.type !== BODY_STATIC && body.awake ? 1 : 0;
      s.island[body.slot] = body.island;
    }
    const slots = this.slots;
    const check = (slot) => {
      if (slot >= slots || s.record[slot] < 0) {
        throw new Error(`frame ${k} names body slot ${slot}, which no BODY record defined`);
      }
      return slot;
    };
    const poses = new Float32Array(rec.buffer, frame.posesAt, frame.awakeCount * 7);
    const list = new Uint32Array(rec.buffer, frame.listAt, frame.awakeCount);
    const { pose, awake, record } = s;
    // The awake list is mostly runs of consecutive slots (bodies made in a
    // row stay awake together): a run's poses are one block copy.
    for (let i = 0; i < list.length;) {
      const first = list[i];
      let end = i + 1;
      while (end < list.length && list[end] === first + (end - i)) ++end;
      for (let slot = first; slot < first + (end - i); ++slot) {
        if (slot >= slots || record[slot] < 0) check(slot);
        awake[slot] = 1;
      }
      if (end - i >= 8) {
        pose.set(poses.subarray(7 * i, 7 * end), 7 * first);
      } else {
        for (let k = 7 * i, to = 7 * first; k < 7 * end; ++k, ++to) pose[to] = poses[k];
      }
      i = end;
    }
    for (let i = 0; i < frame.islandCount; ++i) {
      const at = frame.islandsAt + 8 * i;
      s.island[check(view.getUint32(at, true))] = view.getInt32(at + 4, true);
    }
    for (let i = 0; i < frame.asleepCount; ++i) {
      const at = frame.asleepAt + 32 * i;
      const slot = check(view.getUint32(at, true));
      s.awake[slot] = 0;
      s.pose.set(new Float32Array(rec.buffer, at + 4, 7), slot * 7);
    }
    for (let i = 0; i < frame.removedCount; ++i) {
      s.record[check(view.getUint32(frame.removedAt + 4 * i, true))] = -1;
    }
    this.frame = k;
  }

  // Makes the state show frame k (clamped to the recording).
  seek(k) {
    k = Math.max(0, Math.floor(Math.min(this.frameCount - 1, k)) || 0);
    if (k === this.frame) return;
    if (this.frame < 0 || k < this.frame || k - this.frame > this.interval) {
      const base = Math.floor(k / this.interval);
      this.state.copyFrom(this.snapshots[base]);
      this.frame = base * this.interval;
    }
    while (this.frame < k) this.apply(this.frame + 1);
  }

  // The contact points of frame k: a Float32Array of (point, normal) sixes.
  contacts(k) {
    const frame = this.recording.frames[k];
    return new Float32Array(this.recording.buffer, frame.pointsAt, frame.pointCount * 6);
  }
}
