// The browser test's own look at a recording, apart from the viewer's
// parser: walks the chunks by type and size only (docs/recording.md) and
// reads the few numbers the test compares with what the page shows.
import fs from 'node:fs';

export function walkRecording(path) {
  const b = fs.readFileSync(path);
  const frames = [];
  let end = null;
  let truncated = false;
  let at = b.readUInt32LE(12); // header size
  while (at < b.length) {
    if (b.length - at < 8 || b.readUInt32LE(at + 4) > b.length - at - 8) {
      truncated = true;
      break;
    }
    const type = b.toString('latin1', at, at + 4);
    const payload = at + 8;
    if (type === 'FRAM') {
      // frame index, step, flags, stat count, then stats: step ms, bodies, awake bodies, ...
      frames.push({ index: b.readUInt32LE(payload), step: b.readUInt32LE(payload + 4),
        awake: b.readInt32LE(payload + 16 + 8) });
    } else if (type === 'END ') {
      end = b.readUInt32LE(payload);
    }
    at = payload + b.readUInt32LE(at + 4);
  }
  return { frames, end, truncated, size: b.length };
}
