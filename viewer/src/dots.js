// Far-away bodies as dots: one point sprite per body, its size in pixels
// the body's size on screen, shaded like a small ball. One draw of N
// vertices, where N instanced meshes would cost a software renderer (as in
// headless Chromium) a per-instance setup each.

import * as THREE from 'three';

const vertexShader = /* glsl */ `
  attribute float size;
  attribute vec3 color;
  varying vec3 vColor;
  void main() {
    vColor = color;
    gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
    gl_PointSize = size;
  }
`;

// A disc lit from the upper left: brighter towards (-0.4, 0.5), darker at the rim.
const fragmentShader = /* glsl */ `
  varying vec3 vColor;
  void main() {
    vec2 d = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(d, d);
    if (r2 > 1.0) discard;
    float light = 0.75 + 0.35 * dot(vec3(d.x, -d.y, sqrt(1.0 - r2)), normalize(vec3(-0.4, 0.5, 0.75))) - 0.2 * r2;
    gl_FragColor = vec4(vColor * light, 1.0);
    #include <colorspace_fragment>
  }
`;

// Dots are binned by screen cell: of the dots whose centres fall in one
// CELL x CELL pixel cell only the nearest is drawn, at least CELL pixels
// wide so that the cells it stands for stay covered. A software renderer
// pays per point drawn; 100,000 bodies framed on one screen cover far fewer
// cells (about 20,000 at 1280 x 720), and a dot behind a nearer one in its
// cell would hardly show.
export const CELL = 3;

export class Dots {
  constructor(capacity) {
    const n = Math.max(1, capacity);
    // What is offered, then what is drawn (each cell's nearest, in cell order).
    this.offered = { positions: new Float32Array(3 * n), slots: new Int32Array(n), sizes: new Float32Array(n) };
    this.positions = new Float32Array(3 * n);
    this.colors = new Float32Array(3 * n);
    this.sizes = new Float32Array(n);
    this.count = 0; // dots offered this frame
    this.shown = 0; // dots drawn after binning
    this.cellsX = 0;
    this.cellDot = new Int32Array(0);
    this.cellDepth = new Float32Array(0);
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(this.positions, 3).setUsage(THREE.DynamicDrawUsage));
    geometry.setAttribute('color', new THREE.BufferAttribute(this.colors, 3).setUsage(THREE.DynamicDrawUsage));
    geometry.setAttribute('size', new THREE.BufferAttribute(this.sizes, 1).setUsage(THREE.DynamicDrawUsage));
    this.points = new THREE.Points(geometry, new THREE.ShaderMaterial({ vertexShader, fragmentShader }));
    this.points.frustumCulled = false;
  }

  // Starts a frame on a canvas of width x height pixels.
  begin(width, height) {
    this.count = 0;
    this.cellsX = Math.ceil(width / CELL);
    const cells = this.cellsX * Math.ceil(height / CELL);
    if (this.cellDot.length !== cells) {
      this.cellDot = new Int32Array(cells);
      this.cellDepth = new Float32Array(cells);
    }
    this.cellDot.fill(-1);
  }

  // A dot: world centre (cx, cy, cz), the body's slot (for its colour, taken
  // only if it is drawn), diameter in pixels, its place on the canvas (x, y
  // in pixels, inside it) and its depth.
  offer(cx, cy, cz, slot, size, x, y, depth) {
    const i = this.count++;
    const o = this.offered;
    o.positions[3 * i] = cx;
    o.positions[3 * i + 1] = cy;
    o.positions[3 * i + 2] = cz;
    o.slots[i] = slot;
    o.sizes[i] = size;
    const cell = ((y / CELL) | 0) * this.cellsX + ((x / CELL) | 0);
    const held = this.cellDot[cell];
    if (held < 0 || depth < this.cellDepth[cell]) {
      this.cellDot[cell] = i;
      this.cellDepth[cell] = depth;
    }
  }

  // Keeps each cell's nearest dot, coloured by colorOf(slot), and uploads them.
  commit(colorOf) {
    let shown = 0;
    const { positions: op, slots: oslot, sizes: os } = this.offered;
    const p = this.positions, c = this.colors, s = this.sizes;
    const cellDot = this.cellDot;
    for (let cell = 0; cell < cellDot.length; ++cell) {
      const i = cellDot[cell];
      if (i < 0) continue;
      p[3 * shown] = op[3 * i], p[3 * shown + 1] = op[3 * i + 1], p[3 * shown + 2] = op[3 * i + 2];
      const rgb = colorOf(oslot[i]);
      c[3 * shown] = rgb[0], c[3 * shown + 1] = rgb[1], c[3 * shown + 2] = rgb[2];
      s[shown] = os[i];
      shown += 1;
    }
    this.shown = shown;
    const geometry = this.points.geometry;
    geometry.setDrawRange(0, shown);
    for (const [name, width] of [['position', 3], ['color', 3], ['size', 1]]) {
      const attribute = geometry.getAttribute(name);
      attribute.clearUpdateRanges();
      attribute.addUpdateRange(0, width * shown);
      attribute.needsUpdate = true;
    }
    this.points.visible = shown > 0;
  }
}
