// A minimal PNG decoder for the browser test's screenshots: 8-bit RGB or
// RGBA, not interlaced (what Chromium writes). Returns { width, height,
// rgba } with 4 bytes a pixel.
import zlib from 'node:zlib';

const paeth = (a, b, c) => {
  const p = a + b - c;
  const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
};

export function decodePng(buffer) {
  let at = 8;
  let width = 0, height = 0, channels = 0;
  const data = [];
  while (at < buffer.length) {
    const length = buffer.readUInt32BE(at);
    const type = buffer.toString('latin1', at + 4, at + 8);
    const body = buffer.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const depth = body[8], color = body[9], interlace = body[12];
      if (depth !== 8 || (color !== 2 && color !== 6) || interlace !== 0) {
        throw new Error(`unsupported PNG (depth ${depth}, colour type ${color}, interlace ${interlace})`);
      }
      channels = color === 6 ? 4 : 3;
    } else if (type === 'IDAT') {
      data.push(body);
    }
    at += 12 + length;
  }
  const raw = zlib.inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; ++y) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; ++x) {
      const a = x >= channels ? pixels[y * stride + x - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels] : 0;
      const predictor = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter];
      pixels[y * stride + x] = (line[x] + predictor) & 0xff;
    }
  }
  const rgba = Buffer.alloc(width * height * 4, 255);
  for (let i = 0; i < width * height; ++i) {
    for (let k = 0; k < channels; ++k) rgba[4 * i + k] = pixels[channels * i + k];
  }
  return { width, height, rgba };
}

// The share of pixels in the rectangle whose colour differs from rgb by more
// than tolerance in some channel.
export function shareDiffering(image, rect, rgb, tolerance) {
  let differing = 0, total = 0;
  for (let y = rect.y; y < rect.y + rect.height; ++y) {
    for (let x = rect.x; x < rect.x + rect.width; ++x) {
      const i = 4 * (y * image.width + x);
      const d = Math.max(Math.abs(image.rgba[i] - rgb[0]), Math.abs(image.rgba[i + 1] - rgb[1]),
        Math.abs(image.rgba[i + 2] - rgb[2]));
      differing += d > tolerance ? 1 : 0;
      total += 1;
    }
  }
  return differing / total;
}

// The share of pixels in the rectangle that differ between two images.
export function shareChanged(a, b, rect, tolerance) {
  let changed = 0, total = 0;
  for (let y = rect.y; y < rect.y + rect.height; ++y) {
    for (let x = rect.x; x < rect.x + rect.width; ++x) {
      const i = 4 * (y * a.width + x);
      const d = Math.max(Math.abs(a.rgba[i] - b.rgba[i]), Math.abs(a.rgba[i + 1] - b.rgba[i + 1]),
        Math.abs(a.rgba[i + 2] - b.rgba[i + 2]));
      changed += d > tolerance ? 1 : 0;
      total += 1;
    }
  }
  return changed / total;
}
