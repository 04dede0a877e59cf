// Colours of the viewer, as linear RGB triples ready for instance colour
// arrays (three.js converts from sRGB when a colour is set by hex or HSL).
// Every colour comes in a few shades; a body's shade follows its slot, so
// that neighbours of one colour (one island, all awake) still show apart.

import * as THREE from 'three';

const PALETTE_SIZE = 97; // prime, so that neighbouring ids rarely share a colour
const SHADES = 5;

function hash(id) {
  // Multiplicative hash, so that ids in a row are not palette neighbours.
  return Math.imul(id + 1, 2654435761) >>> 0;
}

// SHADES lightnesses around the colour's own, as linear RGB triples, each
// with its sRGB bytes (.srgb) for the dot image.
function shades(h, s, l) {
  const c = new THREE.Color();
  const out = [];
  for (let k = 0; k < SHADES; ++k) {
    c.setHSL(h, s, l + 0.045 * (k - (SHADES - 1) / 2));
    const rgb = [c.r, c.g, c.b];
    const hex = c.getHex(); // sRGB
    rgb.srgb = [(hex >> 16) & 255, (hex >> 8) & 255, hex & 255];
    out.push(rgb);
  }
  return out;
}

function shadesOf(hex) {
  const hsl = new THREE.Color(hex).getHSL({});
  return shades(hsl.h, hsl.s, hsl.l);
}

export class ColorPalette {
  constructor() {
    this.colors = [];
    for (let i = 0; i < PALETTE_SIZE; ++i) {
      // Golden-ratio hue steps spread consecutive palette entries around the wheel.
      this.colors.push(shades((i * 0.618033988749895) % 1, 0.5, 0.56));
    }
    this.static = shadesOf(0x9aa0a8);
    this.noIsland = shadesOf(0x707070);
    this.awake = shadesOf(0xf0a030);
    this.asleep = shadesOf(0x4f6f9f);
  }

  // The shade index of a body slot.
  shade(slot) {
    return (hash(slot) >>> 8) % SHADES;
  }

  // The colour of an id (body slot or island), the same every time, in a shade.
  pick(id, shade) {
    return this.colors[hash(id) % PALETTE_SIZE][shade];
  }
}
