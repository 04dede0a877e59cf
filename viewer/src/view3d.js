// The 3D view: one three.js InstancedMesh per shape kind (spheres, boxes;
// capsules one per size; hulls one per outline, meshes and heightfields one
// per shape), static and moving bodies apart (static ones are
// see-through so that walls do not hide what they hold), instance matrices
// and colours written straight into the meshes' arrays each frame, contact
// points and normals on top, an orbit camera.

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { ConvexGeometry } from 'three/addons/geometries/ConvexGeometry.js';
import {
  BODY_STATIC, SHAPE_BOX, SHAPE_CAPSULE, SHAPE_HEIGHTFIELD, SHAPE_HULL, SHAPE_MESH, SHAPE_SPHERE,
} from './recording.js';
import { ColorPalette } from './colors.js';
import { Dots } from './dots.js';
import { seeThroughMaterial } from './see_through.js';

export const BACKGROUND = 0x1b1e24;
const NORMAL_LENGTH = 0.3; // metres: how long a contact normal is drawn
const DOT_RADIUS = 2.5; // pixels: a moving shape smaller than this on screen is drawn as a dot
// On a software renderer, while playing, at most this many meshes per shape
// kind: SwiftShader pays ~30 us per instance (16,969 boxes took 600 ms a
// frame), so beyond it the smaller bodies on screen are drawn as discs in
// the dot image. Paused, the frame is drawn again with every mesh.
const FAST_MESH_BUDGET = 400;
const DISC_SCALE = 0.75; // a disc's radius against the shape's bounding radius (a box: about its own size)
const BINS = 256; // radius classes, 16 per doubling from DOT_RADIUS
const FAST_PIXELS = 500000; // the most pixels the canvas has in "fast" mode (960 x 520)

// A group of instances drawn by one InstancedMesh.
class InstanceGroup {
  constructor(key, geometry, isStatic) {
    this.key = key;
    this.geometry = geometry;
    this.isStatic = isStatic;
    this.records = []; // BODY record id per instance
    this.locals = [];  // shape local transform (7 floats) per instance, or null
    this.scales = [];  // 3 per instance
    this.reaches = []; // bounding radius per instance
  }

  add(recordId, shape, scale, reach) {
    const l = shape.local;
    const identity = l[0] === 0 && l[1] === 0 && l[2] === 0 && l[3] === 0 && l[4] === 0 && l[5] === 0 && l[6] === 1;
    this.records.push(recordId);
    this.locals.push(identity ? null : l);
    this.scales.push(...scale);
    this.reaches.push(reach);
  }
}

// FNV-1a over the outline's bits: hulls built from the same points (a pile
// of identical rocks) share one geometry and one InstancedMesh.
function outlineKey(outline) {
  const words = new Uint32Array(outline.buffer, outline.byteOffset, outline.length);
  let h = 0x811c9dc5;
  for (let i = 0; i < words.length; ++i) h = Math.imul(h ^ words[i], 0x01000193);
  return `${words.length}:${(h >>> 0).toString(16)}`;
}

function outlineReach(outline) {
  let reach = 0;
  for (let i = 0; i < outline.length; i += 3) reach = Math.max(reach, Math.hypot(outline[i], outline[i + 1], outline[i + 2]));
  return reach;
}

// uid: unique per shape of the recording (meshes are never shared).
function shapeGeometry(shape, detail, uid) {
  const [a, b, c] = shape.size;
  switch (shape.type) {
    case SHAPE_BOX: return { key: 'box', scale: [a, b, c], reach: Math.hypot(a, b, c) };
    case SHAPE_SPHERE: return { key: `sphere${detail}`, scale: [a, a, a], reach: a };
    case SHAPE_CAPSULE:
      return { key: `capsule:${a}:${b}`, scale: [1, 1, 1], radius: a, halfHeight: b, reach: a + b };
    case SHAPE_HULL:
      if (shape.outline === null || shape.outline.length < 12) return null; // version 1: nothing to draw
      return { key: `hull:${outlineKey(shape.outline)}`, scale: [1, 1, 1], outline: shape.outline, reach: outlineReach(shape.outline) };
    case SHAPE_MESH:
    case SHAPE_HEIGHTFIELD:
      if (shape.outline === null || shape.outline.length < 9) return null;
      return { key: `triangles:${uid}`, scale: [1, 1, 1], outline: shape.outline, reach: outlineReach(shape.outline) };
    default: return null;
  }
}

function makeGeometry(key, info) {
  if (key === 'box') return new THREE.BoxGeometry(2, 2, 2);
  if (key.startsWith('sphere')) return new THREE.IcosahedronGeometry(1, Number(key.slice(6)));
  if (key.startsWith('hull:')) {
    const points = [];
    for (let i = 0; i < info.outline.length; i += 3) {
      points.push(new THREE.Vector3(info.outline[i], info.outline[i + 1], info.outline[i + 2]));
    }
    return new ConvexGeometry(points);
  }
  if (key.startsWith('triangles:')) { // flat-shaded triangles, as the file gives them
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(info.outline, 3));
    geometry.computeVertexNormals();
    return geometry;
  }
  return new THREE.CapsuleGeometry(info.radius, 2 * info.halfHeight, 4, 12);
}

// Writes the column-major matrix of pose (p, q) * local (pl, ql) * scale
// into m at offset o; the local transform is local[lo..lo + 6], none if lo < 0.
function writeMatrix(m, o, pose, po, local, lo, sx, sy, sz) {
  let px = pose[po], py = pose[po + 1], pz = pose[po + 2];
  let x = pose[po + 3], y = pose[po + 4], z = pose[po + 5], w = pose[po + 6];
  if (lo >= 0) {
    // p += rotate(q, pl): t = 2 (v x pl), p + pl + w t + v x t
    const lx = local[lo], ly = local[lo + 1], lz = local[lo + 2];
    const tx = 2 * (y * lz - z * ly), ty = 2 * (z * lx - x * lz), tz = 2 * (x * ly - y * lx);
    px += lx + w * tx + (y * tz - z * ty);
    py += ly + w * ty + (z * tx - x * tz);
    pz += lz + w * tz + (x * ty - y * tx);
    // q = q * ql (Hamilton product)
    const bx = local[lo + 3], by = local[lo + 4], bz = local[lo + 5], bw = local[lo + 6];
    const nx = w * bx + x * bw + y * bz - z * by;
    const ny = w * by - x * bz + y * bw + z * bx;
    const nz = w * bz + x * by - y * bx + z * bw;
    const nw = w * bw - x * bx - y * by - z * bz;
    x = nx, y = ny, z = nz, w = nw;
  }
  const xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
  m[o] = (1 - 2 * (yy + zz)) * sx; m[o + 1] = 2 * (xy + wz) * sx; m[o + 2] = 2 * (xz - wy) * sx; m[o + 3] = 0;
  m[o + 4] = 2 * (xy - wz) * sy; m[o + 5] = (1 - 2 * (xx + zz)) * sy; m[o + 6] = 2 * (yz + wx) * sy; m[o + 7] = 0;
  m[o + 8] = 2 * (xz + wy) * sz; m[o + 9] = 2 * (yz - wx) * sz; m[o + 10] = (1 - 2 * (xx + yy)) * sz; m[o + 11] = 0;
  m[o + 12] = px; m[o + 13] = py; m[o + 14] = pz; m[o + 15] = 1;
}

// Moving bodies big enough for a mesh, when there may be too many: index in
// the group, radius, x and y on the canvas (pixels) and clip w.
class Candidates {
  constructor() {
    this.count = 0;
    this.grow(0);
  }

  grow(n) {
    this.index = new Int32Array(n);
    this.radius = new Float32Array(n);
    this.x = new Float32Array(n);
    this.y = new Float32Array(n);
    this.w = new Float32Array(n);
  }

  // Empties the list, with room for n.
  clear(n) {
    this.count = 0;
    if (this.index.length < n) this.grow(n);
  }

  push(i, radius, x, y, w) {
    const k = this.count++;
    this.index[k] = i, this.radius[k] = radius, this.x[k] = x, this.y[k] = y, this.w[k] = w;
  }
}

// Whether WebGL runs on the CPU (SwiftShader, llvmpipe): as in headless
// Chromium, or a browser without a usable GPU.
function isSoftwareRenderer() {
  const gl = document.createElement('canvas').getContext('webgl2');
  if (!gl) return false;
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const name = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return /swiftshader|llvmpipe|software/i.test(name);
}

export class View3D {
  constructor(container) {
    this.container = container;
    // "fast" on a software renderer (unless ?quality=high): no antialiasing,
    // and at most FAST_PIXELS pixels, which it pays for one by one.
    const quality = new URLSearchParams(location.search).get('quality');
    this.fast = quality === 'fast' || (quality !== 'high' && isSoftwareRenderer());
    this.renderer = new THREE.WebGLRenderer({ antialias: !this.fast });
    this.meshBudget = this.fast ? FAST_MESH_BUDGET : Infinity;
    this.bins = new Int32Array(BINS);
    this.candidates = new Candidates();
    this.budgetOn = false; // the budget applies to this draw
    this.sparedMeshes = false;
    this.renderer.setClearColor(BACKGROUND);
    // Scaled up without filtering: the browser's compositor (software too,
    // without a GPU) spends ~1 ms a frame less on it than on a smooth
    // scaling, and the picture is drawn without antialiasing anyway.
    if (this.fast) this.renderer.domElement.style.imageRendering = 'pixelated';
    container.appendChild(this.renderer.domElement);
    this.scene = new THREE.Scene();
    this.camera = new THREE.PerspectiveCamera(40, 1, 0.1, 1000);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.enableDamping = false;
    this.hemisphere = new THREE.HemisphereLight(0xdde6ff, 0x40382e, 1.6);
    this.scene.add(this.hemisphere);
    this.sun = new THREE.DirectionalLight(0xffffff, 1.8);
    this.sun.position.set(0.5, 1, 0.7);
    this.scene.add(this.sun);
    this.palette = new ColorPalette();
    this.projectView = new THREE.Matrix4();
    this.groups = [];
    this.meshes = [];
    this.contactPoints = null;
    this.contactLines = null;
    this.bounds = null;
    new ResizeObserver(() => this.resize()).observe(container);
    this.resize();
  }

  resize() {
    const w = Math.max(1, this.container.clientWidth);
    const h = Math.max(1, this.container.clientHeight);
    const ratio = Math.min(window.devicePixelRatio || 1, 2);
    this.renderer.setPixelRatio(this.fast ? Math.min(ratio, Math.sqrt(FAST_PIXELS / (w * h))) : ratio);
    this.renderer.setSize(w, h, true);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.controls.dispatchEvent({ type: 'change' });
  }

  clear() {
    for (const mesh of this.meshes) {
      this.scene.remove(mesh);
      mesh.geometry.dispose();
      mesh.material.dispose();
      mesh.dispose();
    }
    for (const obj of [this.contactPoints, this.contactLines]) {
      if (obj) this.scene.remove(obj), obj.geometry.dispose(), obj.material.dispose();
    }
    if (this.dots) this.scene.remove(this.dots.quad), this.dots.dispose();
    this.dots = null;
    this.groups = [];
    this.meshes = [];
    this.contactPoints = this.contactLines = null;
  }

  // Builds the meshes for every BODY record of the replay's recording.
  load(replay) {
    this.clear();
    this.replay = replay;
    const records = replay.recording.bodyRecords;
    let sphereCount = 0;
    for (const r of records) for (const s of r.shapes) sphereCount += s.type === SHAPE_SPHERE ? 1 : 0;
    const detail = sphereCount > 20000 ? 1 : 2; // 80 or 320 triangles a sphere
    const byKey = new Map();
    for (const r of records) {
      const isStatic = r.type === BODY_STATIC;
      for (const [index, shape] of r.shapes.entries()) {
        const info = shapeGeometry(shape, detail, `${r.id}:${index}`);
        if (info === null) continue;
        const key = `${info.key}:${isStatic ? 's' : 'd'}`;
        if (!byKey.has(key)) byKey.set(key, new InstanceGroup(key, makeGeometry(info.key, info), isStatic));
        byKey.get(key).add(r.id, shape, info.scale, info.reach);
      }
    }
    this.groups = [...byKey.values()];
    for (const g of this.groups) {
      const material = g.isStatic
        ? seeThroughMaterial(this.hemisphere, this.sun, 0.28)
        : new THREE.MeshLambertMaterial({ color: 0xffffff });
      const mesh = new THREE.InstancedMesh(g.geometry, material, g.records.length);
      mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
      mesh.setColorAt(0, new THREE.Color(1, 1, 1)); // makes instanceColor
      mesh.instanceColor.setUsage(THREE.DynamicDrawUsage);
      mesh.frustumCulled = false; // the instances move: three's bounds would go stale
      mesh.renderOrder = g.isStatic ? 1 : 0;
      g.mesh = mesh;
      g.recordSlots = Int32Array.from(g.records, (id) => records[id].slot);
      g.recordIds = Int32Array.from(g.records);
      g.reach = Float32Array.from(g.reaches);
      g.hasLocal = Uint8Array.from(g.locals, (l) => (l === null ? 0 : 1));
      g.local = new Float32Array(7 * g.locals.length);
      g.locals.forEach((l, i) => l !== null && g.local.set(l, 7 * i));
      this.meshes.push(mesh);
      this.scene.add(mesh);
    }
    this.makeContactObjects();
    this.dots = new Dots();
    this.scene.add(this.dots.quad);
  }

  // What the last draw drew: mesh instances, dots, and dots before binning.
  get drawn() {
    let meshes = 0;
    for (const g of this.groups) meshes += g.mesh.count;
    return { meshes, dots: this.dots ? this.dots.shown : 0, offered: this.dots ? this.dots.count : 0 };
  }

  get instanceCount() {
    let n = 0;
    for (const g of this.groups) n += g.records.length;
    return n;
  }

  makeContactObjects() {
    const pointGeometry = new THREE.BufferGeometry();
    pointGeometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3), 3));
    this.contactPoints = new THREE.Points(pointGeometry,
      new THREE.PointsMaterial({ color: 0xff4040, size: 5, sizeAttenuation: false, depthTest: false }));
    const lineGeometry = new THREE.BufferGeometry();
    lineGeometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6), 3));
    this.contactLines = new THREE.LineSegments(lineGeometry,
      new THREE.LineBasicMaterial({ color: 0xffe060, depthTest: false }));
    for (const obj of [this.contactPoints, this.contactLines]) {
      obj.frustumCulled = false;
      obj.renderOrder = 2;
      obj.visible = false;
      this.scene.add(obj);
    }
  }

  // Draws the state: every shown instance gets its matrix and colour
  // (colour by mode: 'body', 'island' or 'sleep'; static bodies grey).
  // Moving bodies that cover less than DOT_RADIUS pixels on screen are drawn
  // as dots instead (see dots.js): a software renderer spends as much on an
  // instance as on thousands of pixels, and a 3-pixel box looks the same.
  // budget: a software renderer draws at most meshBudget meshes per shape
  // kind (while playing; paused, every body that is not a dot is a mesh).
  draw(state, mode, budget = false) {
    this.budgetOn = budget;
    this.sparedMeshes = false; // whether a body was drawn as a disc for the budget
    const p = this.palette;
    const camera = this.camera;
    camera.updateMatrixWorld();
    this.projectView.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    const width = this.renderer.domElement.width;
    const height = this.renderer.domElement.height;
    this.dots.begin(width, height);
    // The colour of a moving body by mode (static bodies are grey).
    const colorOf = (slot) => {
      const shade = p.shade(slot);
      if (mode === 'island') return state.island[slot] < 0 ? p.noIsland[shade] : p.pick(state.island[slot], shade);
      if (mode === 'sleep') return (state.awake[slot] ? p.awake : p.asleep)[shade];
      return p.pick(slot, 2);
    };
    for (const g of this.groups) {
      const shown = g.isStatic ? this.drawStatic(g, state) : this.drawMoving(g, state, colorOf, width, height);
      const mesh = g.mesh;
      mesh.count = shown;
      // An update range of 0 elements would upload the whole array (WebGL's
      // bufferSubData reads a length of 0 as "to the end").
      if (shown === 0) continue;
      mesh.instanceMatrix.clearUpdateRanges();
      mesh.instanceMatrix.addUpdateRange(0, 16 * shown);
      mesh.instanceMatrix.needsUpdate = true;
      mesh.instanceColor.clearUpdateRanges();
      mesh.instanceColor.addUpdateRange(0, 3 * shown);
      mesh.instanceColor.needsUpdate = true;
    }
    const pm = camera.projectionMatrix.elements;
    this.dots.commit((slot) => colorOf(slot).srgb, pm[10], pm[14]);
  }

  // Static bodies: every one a mesh, in grey. Returns the instances written.
  drawStatic(g, state) {
    const p = this.palette;
    const m = g.mesh.instanceMatrix.array;
    const c = g.mesh.instanceColor.array;
    const { recordSlots, recordIds, local, hasLocal, scales } = g;
    let shown = 0;
    for (let i = 0; i < recordIds.length; ++i) {
      const slot = recordSlots[i];
      if (state.record[slot] !== recordIds[i]) continue;
      const rgb = p.static[p.shade(slot)];
      writeMatrix(m, 16 * shown, state.pose, slot * 7, local, hasLocal[i] ? 7 * i : -1,
        scales[3 * i], scales[3 * i + 1], scales[3 * i + 2]);
      c[3 * shown] = rgb[0], c[3 * shown + 1] = rgb[1], c[3 * shown + 2] = rgb[2];
      shown += 1;
    }
    return shown;
  }

  // Moving bodies: each one projected (its shape's centre and bounding
  // radius); off screen it is skipped, under DOT_RADIUS pixels it becomes a
  // dot, else a mesh instance. One pass over typed arrays with the matrix
  // in locals and no allocation: at 100k bodies this loop is the page's
  // main cost in JavaScript. Returns the instances written.
  drawMoving(g, state, colorOf, width, height) {
    const { recordSlots, recordIds, local, hasLocal, reach } = g;
    const budgeted = this.budgetOn && recordIds.length > this.meshBudget;
    const bins = this.bins.fill(0);
    this.candidates.clear(recordIds.length);
    const record = state.record;
    const pose = state.pose;
    const dots = this.dots;
    const e = this.projectView.elements;
    // Rows of projection * view: x, y and w (clip w is the depth in front of the camera).
    const x0 = e[0], x1 = e[4], x2 = e[8], x3 = e[12];
    const y0 = e[1], y1 = e[5], y2 = e[9], y3 = e[13];
    const w0 = e[3], w1 = e[7], w2 = e[11], w3 = e[15];
    const halfW = 0.5 * width, halfH = 0.5 * height;
    // Pixels per metre at unit depth.
    const focal = height / (2 * Math.tan(THREE.MathUtils.degToRad(this.camera.fov) / 2));
    let shown = 0;
    for (let i = 0; i < recordIds.length; ++i) {
      const slot = recordSlots[i];
      if (record[slot] !== recordIds[i]) continue;
      const o = slot * 7;
      let cx = pose[o], cy = pose[o + 1], cz = pose[o + 2];
      // (Typed arrays only: a JavaScript array of null or offsets here made the loop 4x slower.)
      const lo = hasLocal[i] ? 7 * i : -1;
      if (lo >= 0) {
        // The shape's centre: + rotate(q, local position); t = 2 (v x l), l + w t + v x t.
        const qx = pose[o + 3], qy = pose[o + 4], qz = pose[o + 5], qw = pose[o + 6];
        const lx = local[lo], ly = local[lo + 1], lz = local[lo + 2];
        const tx = 2 * (qy * lz - qz * ly), ty = 2 * (qz * lx - qx * lz), tz = 2 * (qx * ly - qy * lx);
        cx += lx + qw * tx + (qy * tz - qz * ty);
        cy += ly + qw * ty + (qz * tx - qx * tz);
        cz += lz + qw * tz + (qx * ty - qy * tx);
      }
      const w = w0 * cx + w1 * cy + w2 * cz + w3;
      const r = reach[i];
      if (w < -r) continue; // wholly behind the camera
      if (w > r) { // wholly in front of the camera: on screen at (x, y), radius pixels
        const inv = 1 / w;
        const radius = r * focal * inv;
        const x = ((x0 * cx + x1 * cy + x2 * cz + x3) * inv + 1) * halfW;
        const y = (1 - (y0 * cx + y1 * cy + y2 * cz + y3) * inv) * halfH;
        if (x + radius < 0 || x - radius >= width || y + radius < 0 || y - radius >= height) continue;
        if (radius < DOT_RADIUS) {
          if (x >= 0 && x < width && y >= 0 && y < height) dots.offer(slot, x, y, w);
          continue;
        }
        if (budgeted) { // a mesh if among the largest on screen: decided below
          this.candidates.push(i, radius, x, y, w);
          bins[Math.min(BINS - 1, (Math.log2(radius / DOT_RADIUS) * 16) | 0)] += 1;
          continue;
        }
      }
      shown = this.writeInstance(g, i, shown, state, colorOf);
    }
    if (!budgeted) return shown;
    // The largest meshBudget candidates (whole bins, from the largest
    // radius down) are meshes, the others discs in the dot image.
    let bin = BINS - 1;
    for (let taken = bins[bin]; bin > 0 && shown + taken + bins[bin - 1] <= this.meshBudget;) taken += bins[--bin];
    if (shown + bins[bin] > this.meshBudget) bin += 1;
    const cand = this.candidates;
    for (let k = 0; k < cand.count; ++k) {
      const i = cand.index[k], radius = cand.radius[k];
      if ((Math.log2(radius / DOT_RADIUS) * 16) >= bin) {
        shown = this.writeInstance(g, i, shown, state, colorOf);
      } else {
        dots.offerDisc(recordSlots[i], cand.x[k], cand.y[k], cand.w[k], DISC_SCALE * radius);
        this.sparedMeshes = true;
      }
    }
    return shown;
  }

  // Writes instance i of group g (matrix and colour) at position shown; returns shown + 1.
  writeInstance(g, i, shown, state, colorOf) {
    const slot = g.recordSlots[i];
    const rgb = colorOf(slot);
    const lo = g.hasLocal[i] ? 7 * i : -1;
    const s = g.scales;
    writeMatrix(g.mesh.instanceMatrix.array, 16 * shown, state.pose, slot * 7, g.local, lo, s[3 * i], s[3 * i + 1], s[3 * i + 2]);
    const c = g.mesh.instanceColor.array;
    c[3 * shown] = rgb[0], c[3 * shown + 1] = rgb[1], c[3 * shown + 2] = rgb[2];
    return shown + 1;
  }

  // Shows contacts (a Float32Array of point, normal sixes), or hides them (null).
  setContacts(points) {
    const show = points !== null;
    this.contactPoints.visible = this.contactLines.visible = show;
    if (!show) return;
    const count = points.length / 6;
    const pos = new Float32Array(Math.max(1, count) * 3);
    const lines = new Float32Array(Math.max(1, count) * 6);
    for (let i = 0; i < count; ++i) {
      for (let k = 0; k < 3; ++k) {
        pos[3 * i + k] = points[6 * i + k];
        lines[6 * i + k] = points[6 * i + k];
        lines[6 * i + 3 + k] = points[6 * i + k] + NORMAL_LENGTH * points[6 * i + 3 + k];
      }
    }
    this.contactPoints.geometry.setAttribute('position', new THREE.BufferAttribute(pos, 3));
    this.contactPoints.geometry.setDrawRange(0, count);
    this.contactLines.geometry.setAttribute('position', new THREE.BufferAttribute(lines, 3));
    this.contactLines.geometry.setDrawRange(0, 2 * count);
  }

  // Points the camera at the moving bodies of the state (all bodies if none
  // move), looking along -direction; zoom > 1 comes closer.
  frameAll(state, direction = [0.45, 0.5, 1], zoom = 1) {
    const records = this.replay.recording.bodyRecords;
    const box = new THREE.Box3();
    const point = new THREE.Vector3();
    for (const pass of ['dynamic', 'all']) {
      for (let slot = 0; slot < state.record.length; ++slot) {
        const id = state.record[slot];
        if (id < 0 || (pass === 'dynamic' && records[id].type === BODY_STATIC)) continue;
        let reach = 0;
        for (const s of records[id].shapes) {
          const extent = s.outline ? (s.reach ??= outlineReach(s.outline)) : s.size[0] + s.size[1] + s.size[2];
          reach = Math.max(reach, extent + Math.hypot(s.local[0], s.local[1], s.local[2]));
        }
        point.fromArray(state.pose, slot * 7);
        box.expandByPoint(point.clone().addScalar(reach));
        box.expandByPoint(point.addScalar(-reach));
      }
      if (!box.isEmpty()) break;
    }
    if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
    // The nearest camera, looking along -direction at the box's centre, that
    // sees all 8 corners: a corner at v from the centre needs the distance
    // (v . direction) + |v . right| / tan(half fov x), and the same upwards.
    const center = box.getCenter(new THREE.Vector3());
    const look = new THREE.Vector3(...direction).normalize();
    const right = new THREE.Vector3().crossVectors(new THREE.Vector3(0, 1, 0), look).normalize();
    const up = new THREE.Vector3().crossVectors(look, right);
    const tanY = Math.tan(THREE.MathUtils.degToRad(this.camera.fov) / 2);
    const tanX = tanY * this.camera.aspect;
    let distance = 0.5;
    for (let corner = 0; corner < 8; ++corner) {
      const v = new THREE.Vector3(corner & 1 ? box.max.x : box.min.x, corner & 2 ? box.max.y : box.min.y,
        corner & 4 ? box.max.z : box.min.z).sub(center);
      const depth = v.dot(look);
      distance = Math.max(distance, depth + Math.abs(v.dot(right)) / tanX, depth + Math.abs(v.dot(up)) / tanY);
    }
    distance *= 1.06 / zoom;
    this.camera.position.copy(center).addScaledVector(look, distance);
    this.camera.near = Math.max(0.01, distance / 1000);
    this.camera.far = distance * 20 + 2000;
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(center);
    this.controls.update();
  }

  render() {
    this.renderer.render(this.scene, this.camera);
  }
}
