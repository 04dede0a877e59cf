// The built viewer (dist/index.html) in a real browser: Debian's Chromium,
// headless, driven by playwright-core, on recordings that tessera-bench
// makes here. Checks what a person would: the page reads as many frames as
// the file holds, the screenshot shows the scene where it should be, scrubbing
// reaches the last frame and shows its step, the pile falls and settles (first
// frame to last, last second), contacts appear when switched on, bad files get a
// message. Also writes the README's screenshots to test-output/. (How fast
// the page plays is scripts/measure_fps.js, not a test: the machine is shared.)
//
// Needs: TESSERA_BENCH (default ../build/bench/tessera-bench), CHROMIUM
// (default /usr/bin/chromium), and `npm run build` done.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { decodePng, shareDiffering, shareChanged } from './png.js';
import { walkRecording } from './tsr_walk.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const viewerDir = path.resolve(here, '..');
const dist = path.join(viewerDir, 'dist');
const outDir = path.join(viewerDir, 'test-output');
const bench = path.resolve(viewerDir, process.env.TESSERA_BENCH || '../build/bench/tessera-bench');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const BACKGROUND = [0x1b, 0x1e, 0x24]; // src/view3d.js BACKGROUND
const VIEWPORT = { width: 1280, height: 720 };

// The flags this machine's headless Chromium needs (no sandbox as root, no
// network traffic of its own: the network is closed).
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let work, server, base, browser;
const files = {};

function record(name, args) {
  const file = path.join(work, name);
  execFileSync(bench, [...args, '--record', file], { stdio: ['ignore', 'ignore', 'inherit'] });
  return file;
}

test.before(async () => {
  assert.ok(fs.existsSync(path.join(dist, 'index.html')), 'dist/index.html is missing: run npm run build');
  assert.ok(fs.existsSync(bench), `tessera-bench not found at ${bench} (set TESSERA_BENCH)`);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-viewer-'));
  fs.mkdirSync(outDir, { recursive: true });
  files.pyramid = record('pyramid_small.tsr', ['--scene', 'large_pyramid', '--small', '--no-quality', '--steps', '30']);
  files.pile = record('pile.tsr', ['--scene', 'pile', '--small', '--record-contacts']);
  files.large = record('large_pyramid.tsr', ['--scene', 'large_pyramid', '--no-quality', '--steps', '60']);
  files.terrain = record('terrain.tsr', ['--scene', 'mesh_terrain', '--small', '--no-quality', '--steps', '5']);
  // Bad files: cut in the middle of a frame, cut inside the header, another
  // version, and not a recording at all.
  const pile = fs.readFileSync(files.pile);
  files.cut = path.join(work, 'cut.tsr');
  fs.writeFileSync(files.cut, pile.subarray(0, Math.floor(pile.length / 2)));
  files.header = path.join(work, 'header.tsr');
  fs.writeFileSync(files.header, pile.subarray(0, 20));
  const other = Buffer.from(fs.readFileSync(files.pyramid));
  other.writeUInt32LE(7, 8);
  files.version = path.join(work, 'version7.tsr');
  fs.writeFileSync(files.version, other);
  files.text = path.join(work, 'notes.tsr');
  fs.writeFileSync(files.text, 'these are notes, not a recording\n');

  server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const name = decodeURIComponent(url.pathname).replace(/^\/+/, '') || 'index.html';
    const file = name.startsWith('rec/') ? path.join(work, path.basename(name)) : path.join(dist, path.basename(name));
    fs.readFile(file, (error, data) => {
      res.writeHead(error ? 404 : 200, { 'content-type': file.endsWith('.html') ? 'text/html' : 'application/octet-stream' });
      res.end(error ? 'not found' : data);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
});

test.after(async () => {
  if (browser) await browser.close();
  if (server) server.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function openPage(query = '') {
  const page = await browser.newPage({ viewport: VIEWPORT });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/index.html${query}`);
  page.errors = errors;
  return page;
}

// Waits until the page has read its file (or failed to).
async function settled(page) {
  await page.waitForFunction(() => window.tessera && !['empty', 'loading'].includes(window.tessera.status),
    null, { timeout: 60000 });
  return page.evaluate(() => ({ status: tessera.status, message: tessera.message, kind: tessera.messageKind,
    frames: tessera.frameCount }));
}

// A screenshot once the page has rendered its last change, and a few
// animation frames later (the software renderer presents with a delay).
async function shot(page, name) {
  await page.waitForFunction(() => tessera.idle);
  await page.evaluate(() => new Promise((r) => {
    let n = 0;
    const next = () => (++n === 4 ? r() : requestAnimationFrame(next));
    requestAnimationFrame(next);
  }));
  const file = path.join(outDir, name);
  await page.screenshot({ path: file });
  return decodePng(fs.readFileSync(file));
}

// The middle of the 3D view (the bar takes the top 40 pixels; the panel the right edge).
const CENTER = { x: 400, y: 220, width: 400, height: 380 };

test('small pyramid: every frame read, the scene drawn, scrubbed to the end', async () => {
  const file = walkRecording(files.pyramid);
  const page = await openPage();
  // The empty page: the region is background but for the hint's two lines
  // of text (so the check below can fail).
  await page.waitForFunction(() => window.tessera && tessera.status === 'empty');
  const empty = await shot(page, 'empty.png');
  assert.ok(shareDiffering(empty, CENTER, BACKGROUND, 24) < 0.05);

  await page.evaluate((url) => tessera.loadUrl(url), '/rec/pyramid_small.tsr');
  const state = await settled(page);
  assert.equal(state.status, 'ready', state.message);
  assert.equal(state.message, null);
  // Frames: frame 0 (the start), 1 warm-up step and 30 timed steps; the END chunk says the same.
  assert.equal(file.end, 32);
  assert.equal(state.frames, file.end);
  assert.equal(state.frames, file.frames.length);

  // The 210 boxes fill a good part of the middle (the pyramid is framed there).
  const first = await shot(page, 'pyramid_first.png');
  const covered = shareDiffering(first, CENTER, BACKGROUND, 24);
  assert.ok(covered > 0.15, `only ${covered} of the middle differs from the background`);

  // Scrub to the last frame with the keyboard (End), as a person would.
  await page.keyboard.press('End');
  await page.waitForFunction((n) => tessera.frame === n - 1, state.frames);
  const last = file.frames[file.frames.length - 1];
  const label = await page.textContent('#frame-label');
  assert.equal(label, `frame ${state.frames - 1} / ${state.frames - 1}`);
  const stats = await page.evaluate(() => tessera.stats());
  assert.equal(stats.awakeBodies, last.awake);
  const panel = await page.textContent('#stats');
  assert.match(panel, new RegExp(`step${last.step} \\(`));
  // The pyramid stands: the last frame looks like the first (a soft pyramid sags by millimetres).
  const end = await shot(page, 'pyramid_last.png');
  assert.ok(shareDiffering(end, CENTER, BACKGROUND, 24) > 0.15);
  assert.ok(shareChanged(first, end, CENTER, 24) < 0.05);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('pile: the bodies fall and settle; contacts show when on', async () => {
  const file = walkRecording(files.pile);
  const page = await openPage('?url=rec/pile.tsr');
  const state = await settled(page);
  assert.equal(state.status, 'ready', state.message);
  assert.equal(state.frames, file.end);
  assert.equal(state.frames, 601);
  const first = await shot(page, 'pile_first.png');
  await page.fill('#scrub', String(state.frames - 1)); // the slider, dragged to its end
  await page.waitForFunction((n) => tessera.frame === n - 1, state.frames);
  const last = await shot(page, 'pile_last.png');
  // The lattice of 200 bodies falls into a heap: much of the picture changes.
  const fell = shareChanged(first, last, CENTER, 24);
  assert.ok(fell > 0.05, `only ${fell} of the middle changed from the first frame to the last`);
  // ...and settles: over the last second (60 frames) far less of the picture
  // changes than over the whole run, under a tenth (seen: 0.009 against
  // 0.74; the bodies' mean motion is 1.7 m in the first second and 2.5 cm
  // in the last, where a few spheres still roll).
  await page.fill('#scrub', String(state.frames - 61));
  await page.waitForFunction((n) => tessera.frame === n - 61, state.frames);
  const secondLast = await shot(page, 'pile_second_last.png');
  const lastSecond = shareChanged(secondLast, last, CENTER, 24);
  assert.ok(lastSecond < fell / 10, `${lastSecond} of the middle changed in the last second, ${fell} in all`);
  await page.fill('#scrub', String(state.frames - 1));
  await page.waitForFunction((n) => tessera.frame === n - 1, state.frames);
  assert.equal((await page.evaluate(() => tessera.stats())).bodies, 205);

  // Contact points are drawn red (0xff4040, some 0xd84450 once shaded and
  // blended) on top of everything: switched on, many more pixels are red.
  const red = (image) => countColor(image, [0xd8, 0x48, 0x50], 40);
  await page.check('#contacts');
  const withContacts = await shot(page, 'pile_contacts.png');
  assert.ok(red(withContacts) > red(last) + 500, `${red(last)} red pixels without contacts, ${red(withContacts)} with`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Hulls and the terrain mesh are drawn from the outlines the file holds
// (format version 2): the page builds a mesh for the hulls and one for the
// terrain, and the middle of the view is mostly terrain and bodies (a
// version-1 file drew the boxes, spheres and capsules alone over the
// background).
test('mesh_terrain: the terrain mesh and the hulls are drawn', async () => {
  const page = await openPage('?url=rec/terrain.tsr');
  const state = await settled(page);
  assert.equal(state.status, 'ready', state.message);
  const image = await shot(page, 'terrain.png');
  const covered = shareDiffering(image, CENTER, BACKGROUND, 24);
  assert.ok(covered > 0.5, `only ${covered} of the middle differs from the background`);
  const kinds = await page.evaluate(() => tessera.drawnKinds());
  assert.ok(kinds.some((k) => k.startsWith('hull:')), `no hull drawn: ${kinds}`);
  assert.ok(kinds.some((k) => k.startsWith('triangles:')), `no mesh drawn: ${kinds}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

function countColor(image, rgb, tolerance) {
  let n = 0;
  for (let i = 0; i < image.width * image.height; ++i) {
    const d = Math.max(Math.abs(image.rgba[4 * i] - rgb[0]), Math.abs(image.rgba[4 * i + 1] - rgb[1]),
      Math.abs(image.rgba[4 * i + 2] - rgb[2]));
    n += d <= tolerance ? 1 : 0;
  }
  return n;
}

test('bad files: the page says what is wrong', async () => {
  const cut = walkRecording(files.cut);
  const cases = [
    ['cut.tsr', 'ready', 'warning', /Truncated recording: the file ends inside a chunk .* showing the (\d+) whole frames/],
    ['header.tsr', 'error', 'error', /Truncated recording: the file is 20 bytes, shorter than its 32-byte header/],
    ['version7.tsr', 'error', 'error', /Unsupported recording version 7: this viewer reads versions 1 to 2/],
    ['notes.tsr', 'error', 'error', /Not a tessera recording/],
    ['missing.tsr', 'error', 'error', /Could not load .*missing\.tsr: HTTP 404/],
  ];
  // One page loads them one after another, as a person trying files would.
  const page = await openPage();
  await page.waitForFunction(() => window.tessera && tessera.status === 'empty');
  for (const [name, status, kind, message] of cases) {
    await page.evaluate((url) => tessera.loadUrl(url), `rec/${name}`);
    const state = await settled(page);
    assert.equal(state.status, status, `${name}: ${state.message}`);
    assert.equal(state.kind, kind, name);
    assert.match(state.message, message);
    if (name === 'cut.tsr') {
      assert.ok(cut.truncated);
      assert.equal(state.frames, cut.frames.length);
      assert.equal(Number(state.message.match(message)[1]), cut.frames.length);
    }
    assert.equal(await page.isVisible('#message'), true);
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('from a file:// page: Open… and drag-and-drop', async () => {
  const page = await browser.newPage({ viewport: VIEWPORT });
  await page.goto(pathToFileURL(path.join(dist, 'index.html')).href);
  await page.waitForFunction(() => window.tessera && tessera.status === 'empty');
  await page.setInputFiles('#file', files.pyramid);
  let state = await settled(page);
  assert.equal(state.status, 'ready', state.message);
  assert.equal(state.frames, walkRecording(files.pyramid).end);

  // Drop a file that is not a recording on the page.
  const bytes = Array.from(fs.readFileSync(files.text));
  await page.evaluate((data) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([new Uint8Array(data)], 'notes.tsr'));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, bytes);
  await page.waitForFunction(() => tessera.status === 'error');
  state = await settled(page);
  assert.match(state.message, /^notes\.tsr: Not a tessera recording/);
  await page.close();
});

test('README screenshots: large_pyramid and the settled pile', async () => {
  // ?quality=high: antialiased and full size, although Chromium renders here without a GPU.
  const page = await openPage('?url=rec/large_pyramid.tsr&quality=high');
  let state = await settled(page);
  assert.equal(state.status, 'ready', state.message);
  await page.keyboard.press('End');
  await page.evaluate(() => tessera.view({ direction: [0.3, 0.4, 1], color: 'island' }));
  const pyramid = await shot(page, 'large_pyramid.png');
  assert.ok(shareDiffering(pyramid, CENTER, BACKGROUND, 24) > 0.15);
  await page.close();

  const pile = await openPage('?url=rec/pile.tsr&quality=high');
  state = await settled(pile);
  assert.equal(state.status, 'ready', state.message);
  await pile.keyboard.press('End');
  await pile.evaluate(() => tessera.view({ direction: [0.35, 1.1, 1], color: 'body', zoom: 1.3 }));
  const settledPile = await shot(pile, 'pile.png');
  assert.ok(shareDiffering(settledPile, CENTER, BACKGROUND, 24) > 0.15);
  await pile.close();
  const into = process.env.TESSERA_VIEWER_SCREENSHOTS;
  if (into) {
    for (const name of ['large_pyramid.png', 'pile.png']) fs.copyFileSync(path.join(outDir, name), path.join(into, name));
  }
});
