// Plays a recording in the built viewer in Debian's headless Chromium and
// prints the frames per second the page measures (tessera.measureFps: every
// recorded frame in turn, looping, each one updated and drawn).
//
//   node scripts/measure_fps.js FILE.tsr [seconds] [rounds]
//
// e.g. 100,000 bodies (1,849 pyramids of 55 boxes):
//   ../build/bench/tessera-bench --scene many_pyramids --grid 43 --base 10 --steps 60 \
//       --no-quality --record many.tsr
//   node scripts/measure_fps.js many.tsr 5 3
// The viewport is 1280 x 720 (WIDTH, HEIGHT), the query string can be set
// with QUERY (e.g. QUERY=quality=high) and the built page's folder with
// DIST (default dist/, e.g. another build to compare); ZOOM=4 looks from 4
// times closer than "Frame all" (more bodies drawn as meshes). Chromium renders with
// SwiftShader (no GPU), so the figure is the CPU's, and on a shared machine
// it moves with the load: so the CPU time all of Chromium's processes spent
// per frame is printed too, in all and by process type (from /proc; 1000 /
// that is the rate one otherwise idle core would give).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const [file, seconds = '5', rounds = '1'] = process.argv.slice(2);

// CPU milliseconds used so far by the descendants of process pid (here:
// Chromium's processes, which playwright starts as children of this one),
// in all and by Chromium's process type (--type=renderer: the page's
// JavaScript and three.js; gpu-process: SwiftShader's drawing; browser: the
// compositor and the rest).
function treeCpuMs(pid) {
  const parent = new Map();
  const ticks = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(entry), Number(fields[1]));
      ticks.set(Number(entry), Number(fields[11]) + Number(fields[12])); // utime + stime
    } catch {
      // the process ended meanwhile
    }
  }
  const byType = { total: 0 };
  for (const [p, t] of ticks) {
    for (let q = parent.get(p) ?? 0; q > 1; q = parent.get(q) ?? 0) {
      if (q === pid) {
        let type = 'browser';
        try {
          const match = /--type=([a-z-]+)/.exec(fs.readFileSync(`/proc/${p}/cmdline`, 'utf8'));
          if (match) type = match[1];
        } catch {
          // ended
        }
        const ms = (t * 1000) / 100; // USER_HZ is 100 on Linux
        byType[type] = (byType[type] ?? 0) + ms;
        byType.total += ms;
        break;
      }
    }
  }
  return byType;
}
if (!file) {
  console.error('usage: node scripts/measure_fps.js FILE.tsr [seconds] [rounds]');
  process.exit(2);
}
const dist = process.env.DIST || path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const server = http.createServer((req, res) => {
  const name = new URL(req.url, 'http://localhost').pathname;
  const target = name === '/recording.tsr' ? path.resolve(file) : path.join(dist, 'index.html');
  fs.readFile(target, (error, data) => {
    res.writeHead(error ? 404 : 200);
    res.end(data);
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage({ viewport: { width: Number(process.env.WIDTH || 1280), height: Number(process.env.HEIGHT || 720) } });
  const query = process.env.QUERY ? `&${process.env.QUERY}` : '';
  await page.goto(`http://127.0.0.1:${server.address().port}/index.html?url=/recording.tsr${query}`);
  await page.waitForFunction(() => window.tessera && !['empty', 'loading'].includes(tessera.status), null,
    { timeout: 600000 });
  const state = await page.evaluate(() => ({ status: tessera.status, message: tessera.message, frames: tessera.frameCount }));
  if (state.status !== 'ready') throw new Error(state.message);
  if (process.env.ZOOM) await page.evaluate((zoom) => tessera.view({ zoom }), Number(process.env.ZOOM));
  await page.evaluate(() => tessera.measureFps(1)); // warm-up: the first frames compile the code
  for (let round = 0; round < Number(rounds); ++round) {
    const cpuBefore = treeCpuMs(process.pid);
    const r = await page.evaluate((s) => tessera.measureFps(s), Number(seconds));
    const cpuAfter = treeCpuMs(process.pid);
    const perFrame = (type) => ((cpuAfter[type] ?? 0) - (cpuBefore[type] ?? 0)) / r.frames;
    const split = Object.keys(cpuAfter).filter((t) => t !== 'total').sort()
      .map((t) => `${t} ${perFrame(t).toFixed(1)}`).join(', ');
    const drawn = await page.evaluate(() => tessera.drawn);
    console.log(`${path.basename(file)}: ${r.fps.toFixed(1)} fps over ${r.frames} frames, update ` +
      `${r.updateMs.toFixed(1)} ms a frame; ${r.instances} bodies' shapes: ${drawn.meshes} meshes, ` +
      `${drawn.dots} dots (of ${drawn.offered}); Chromium CPU ${perFrame('total').toFixed(1)} ms a frame ` +
      `(${split}); ` +
      `load ${os.loadavg()[0].toFixed(2)}`);
  }
} finally {
  await browser.close();
  server.close();
}
