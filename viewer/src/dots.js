// Far-away bodies as dots: a moving body smaller than a few pixels on
// screen is not drawn as a mesh but written here into a low-resolution
// image, one texel per CELL x CELL pixel cell of the canvas, holding the
// colour and depth of the nearest such body whose centre falls in the cell
// (one texture of two 32-bit words a texel: SwiftShader pays for each
// texture read of each pixel, and two reads cost it ~1.5 ms a frame more).
// A few quads draw the image with those depths, so meshes and dots hide
// each other correctly: one per band of BAND cell rows, from its first
// used cell to its last, so that the empty corners of the canvas cost no
// pixel shading. A renderer without a GPU (SwiftShader, as in headless
// Chromium) pays a setup per instance and per point: 100,000 bodies as
// meshes or points cost it 50-100 ms a frame, as a few quads a few.

import * as THREE from 'three';

export const CELL = 3;
const BAND = 4; // cell rows per quad

const vertexShader = /* glsl */ `
  // position: the quads' corners in normalised device coordinates
  void main() {
    gl_Position = vec4(position.xy, 0.0, 1.0);
  }
`;

const fragmentShader = /* glsl */ `
  precision highp usampler2D;
  // Per cell: x = sRGB colour bytes r | g << 8 | b << 16, bit 24 set (0: no
  // dot); y = the bits of the window depth (0 near .. 1 far), a float.
  uniform usampler2D cells;
  uniform float cell;
  void main() {
    uvec2 v = texelFetch(cells, ivec2(gl_FragCoord.xy / cell), 0).xy;
    if (v.x == 0u) discard;
    vec3 rgb = vec3(uvec3(v.x, v.x >> 8, v.x >> 16) & 255u) / 255.0;
    gl_FragColor = vec4(rgb * 0.85, 1.0); // about as dark as a lit mesh
    gl_FragDepth = uintBitsToFloat(v.y);
  }
`;

export class Dots {
  constructor() {
    this.cellsX = 0;
    this.cellsY = 0;
    this.cellDot = new Int32Array(0); // slot of the nearest dot per cell, -1 none
    this.cellDepth = new Float32Array(0); // its clip w (distance along the view)
    this.count = 0; // dots offered this frame
    this.shown = 0; // cells drawn
    this.material = new THREE.ShaderMaterial({
      vertexShader,
      fragmentShader,
      uniforms: { cells: { value: null }, cell: { value: CELL } },
    });
    this.quad = new THREE.Mesh(new THREE.BufferGeometry(), this.material);
    this.quad.frustumCulled = false;
    this.quad.visible = false;
  }

  // Starts a frame on a canvas of width x height pixels.
  begin(width, height) {
    this.count = 0;
    this.width = width;
    this.height = height;
    const cellsX = Math.ceil(width / CELL);
    const cellsY = Math.ceil(height / CELL);
    if (cellsX !== this.cellsX || cellsY !== this.cellsY) this.resize(cellsX, cellsY);
    this.cellDot.fill(-1);
  }

  resize(cellsX, cellsY) {
    this.cellsX = cellsX;
    this.cellsY = cellsY;
    this.cellDot = new Int32Array(cellsX * cellsY);
    this.cellDepth = new Float32Array(cellsX * cellsY);
    if (this.texture) this.texture.dispose();
    // Two words a cell, seen as integers (colour) and as floats (depth).
    this.words = new Uint32Array(2 * cellsX * cellsY);
    this.floats = new Float32Array(this.words.buffer);
    this.texture = new THREE.DataTexture(this.words, cellsX, cellsY, THREE.RGIntegerFormat, THREE.UnsignedIntType);
    this.texture.internalFormat = 'RG32UI';
    this.texture.minFilter = this.texture.magFilter = THREE.NearestFilter;
    this.texture.generateMipmaps = false;
    // Two triangles (6 corners, x y z) per band.
    this.corners = new Float32Array(18 * Math.ceil(cellsY / BAND));
    const position = new THREE.BufferAttribute(this.corners, 3);
    position.setUsage(THREE.DynamicDrawUsage);
    this.quad.geometry.dispose();
    this.quad.geometry = new THREE.BufferGeometry();
    this.quad.geometry.setAttribute('position', position);
    this.material.uniforms.cells.value = this.texture;
  }

  // A dot: the body's slot (its colour is taken only if it is drawn), its
  // place on the canvas (x, y in pixels from the top left, inside it) and its
  // clip w (the distance in front of the camera).
  offer(slot, x, y, w) {
    this.count += 1;
    // Cells count from the bottom row, as gl_FragCoord does.
    const cell = (((this.height - y) / CELL) | 0) * this.cellsX + ((x / CELL) | 0);
    const held = this.cellDot[cell];
    if (held < 0 || w < this.cellDepth[cell]) {
      this.cellDot[cell] = slot;
      this.cellDepth[cell] = w;
    }
  }

  // A disc of radius r pixels at (x, y), all at clip w: a body too small
  // on screen to be worth a mesh where there are too many meshes. Its own
  // cell and every cell whose centre it covers.
  offerDisc(slot, x, y, w, r) {
    if (x >= 0 && x < this.width && y >= 0 && y < this.height) this.offer(slot, x, y, w);
    const { cellsX, cellDot, cellDepth } = this;
    const up = this.height - y; // from the bottom, as the cells count
    const left = Math.max(0, Math.floor((x - r) / CELL)), right = Math.min(cellsX - 1, Math.floor((x + r) / CELL));
    const low = Math.max(0, Math.floor((up - r) / CELL)), high = Math.min(this.cellsY - 1, Math.floor((up + r) / CELL));
    for (let row = low; row <= high; ++row) {
      const dy = (row + 0.5) * CELL - up;
      for (let column = left; column <= right; ++column) {
        const dx = (column + 0.5) * CELL - x;
        if (dx * dx + dy * dy > r * r) continue;
        const cell = row * cellsX + column;
        if (cellDot[cell] < 0 || w < cellDepth[cell]) {
          cellDot[cell] = slot;
          cellDepth[cell] = w;
        }
      }
    }
  }

  // Writes the image: each cell's dot coloured by colorOf(slot) (an sRGB
  // byte triple), its depth from the projection matrix's elements p10, p14
  // (window depth = (1 - p10 + p14 / w) / 2), and the quads over the cells used.
  commit(colorOf, p10, p14) {
    const { cellsX, cellsY, cellDot, cellDepth, words, floats, corners } = this;
    const toX = (c) => ((c * CELL) / this.width) * 2 - 1;
    const toY = (c) => ((c * CELL) / this.height) * 2 - 1;
    let shown = 0;
    let quads = 0;
    for (let band = 0; band < cellsY; band += BAND) {
      let x0 = cellsX, x1 = -1;
      for (let cell = band * cellsX, end = Math.min(cellsY, band + BAND) * cellsX; cell < end; ++cell) {
        const slot = cellDot[cell];
        if (slot < 0) {
          words[2 * cell] = 0;
          continue;
        }
        const rgb = colorOf(slot);
        words[2 * cell] = rgb[0] | (rgb[1] << 8) | (rgb[2] << 16) | (1 << 24);
        floats[2 * cell + 1] = 0.5 * (1 - p10 + p14 / cellDepth[cell]);
        const cx = cell % cellsX;
        if (cx < x0) x0 = cx;
        if (cx > x1) x1 = cx;
        shown += 1;
      }
      if (x1 < 0) continue;
      const left = toX(x0), right = toX(x1 + 1);
      const bottom = toY(band), top = toY(Math.min(cellsY, band + BAND));
      const o = 18 * quads; // z stays 0
      corners[o] = left, corners[o + 1] = bottom, corners[o + 3] = right, corners[o + 4] = bottom;
      corners[o + 6] = right, corners[o + 7] = top, corners[o + 9] = left, corners[o + 10] = bottom;
      corners[o + 12] = right, corners[o + 13] = top, corners[o + 15] = left, corners[o + 16] = top;
      quads += 1;
    }
    this.shown = shown;
    this.quad.visible = shown > 0;
    if (shown === 0) return;
    const position = this.quad.geometry.attributes.position;
    position.clearUpdateRanges();
    position.addUpdateRange(0, 18 * quads);
    position.needsUpdate = true;
    this.quad.geometry.setDrawRange(0, 6 * quads);
    this.texture.needsUpdate = true;
  }

  dispose() {
    this.quad.geometry.dispose();
    this.material.dispose();
    if (this.texture) this.texture.dispose();
  }
}
