// The viewer page: loading (drop, Open…, ?url=), the controls (play,
// pause, step, scrub, speed, colour, contacts), the statistics panel, and
// the animation loop that advances frames and draws. window.tessera exposes
// the same actions and what the page shows, for the browser test.

import { parseRecording, frameStats, RecordingError } from './recording.js';
import { Replay } from './replay.js';
import { View3D } from './view3d.js';
import { renderStats } from './stats.js';

const $ = (id) => document.getElementById(id);
const ui = {
  open: $('open'), file: $('file'), name: $('name'), first: $('first'), prev: $('prev'), play: $('play'),
  next: $('next'), last: $('last'), scrub: $('scrub'), frameLabel: $('frame-label'), speed: $('speed'),
  color: $('color'), contacts: $('contacts'), frameAll: $('frame-all'), message: $('message'),
  stats: $('stats'), statsTable: $('stats-table'), stage: $('stage'),
};

const view = new View3D($('view'));
// The frame on screen must be drawn again: which bodies are dots depends on
// the camera (moved, resized), and a pause redraws with every mesh.
let viewStale = false;
// The page draws only when something changed (a frame, the camera, a
// setting): an idle page costs nothing, which matters with a software renderer.
let needsRender = true;
view.controls.addEventListener('change', () => (viewStale = needsRender = true));

const player = {
  replay: null,
  name: '',
  frame: 0,
  playing: false,
  clock: 0, // seconds of recording time not yet turned into frames
  shown: { frame: -1, color: null, contacts: null }, // what the view holds
};

// Frames drawn per second, over the last second (shown in the panel).
const meter = { frames: 0, since: performance.now(), fps: 0, updateMs: 0 };

// While playing, the statistics panel follows every PANEL_INTERVAL_MS and
// the slider and frame label every BAR_INTERVAL_MS, not every frame: each
// change is a page layout and paint, 1-3 ms a frame on a software
// renderer, and numbers changing 30 times a second cannot be read anyway.
// Paused, they show the frame on screen.
const PANEL_INTERVAL_MS = 250;
const BAR_INTERVAL_MS = 100;
const panel = { shownAt: -Infinity, frame: -1, barAt: -Infinity, barFrame: -1 };

function setStatus(status) {
  document.body.dataset.status = status;
}

function showMessage(kind, text) {
  ui.message.hidden = text === null;
  ui.message.dataset.kind = kind;
  ui.message.textContent = text ?? '';
}

function setControls(enabled) {
  for (const b of [ui.first, ui.prev, ui.play, ui.next, ui.last, ui.scrub, ui.frameAll]) b.disabled = !enabled;
}

// ---- loading ----

function loadBuffer(buffer, name) {
  pause();
  try {
    const recording = parseRecording(buffer);
    const replay = new Replay(recording);
    player.replay = replay;
    player.name = name;
    player.frame = 0;
    player.shown = { frame: -1, color: null, contacts: null };
    view.load(replay);
    replay.seek(0);
    view.frameAll(replay.state);
    ui.scrub.max = String(replay.frameCount - 1);
    ui.name.textContent = name;
    ui.name.classList.remove('muted');
    ui.contacts.disabled = !recording.header.contacts;
    ui.contacts.parentElement.title = recording.header.contacts
      ? 'Contact points and normals' : 'This recording holds no contacts (record with --record-contacts)';
    ui.stats.hidden = false;
    setControls(true);
    showMessage(recording.warning ? 'warning' : 'info', recording.warning);
    setStatus('ready');
    showFrame();
  } catch (e) {
    player.replay = null;
    view.clear();
    needsRender = true;
    setControls(false);
    ui.stats.hidden = true;
    ui.name.textContent = name;
    const text = e instanceof RecordingError ? e.message : `Could not read the recording: ${e.message}`;
    showMessage('error', `${name}: ${text}`);
    setStatus('error');
  }
}

async function loadFile(file) {
  setStatus('loading');
  showMessage('info', `Reading ${file.name}…`);
  try {
    loadBuffer(await file.arrayBuffer(), file.name);
  } catch (e) {
    showMessage('error', `${file.name}: could not read the file (${e.message})`);
    setStatus('error');
  }
}

async function loadUrl(url) {
  setStatus('loading');
  showMessage('info', `Loading ${url}…`);
  const name = decodeURIComponent(url.split('/').pop() || url);
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    const hint = location.protocol === 'file:' ? ' (a page opened from a file may not fetch; drop the file instead)' : '';
    showMessage('error', `Could not load ${url}: ${e.message}${hint}`);
    setStatus('error');
    return;
  }
  if (!response.ok) {
    showMessage('error', `Could not load ${url}: HTTP ${response.status} ${response.statusText}`);
    setStatus('error');
    return;
  }
  loadBuffer(await response.arrayBuffer(), name);
}

// ---- playback ----

function seek(k) {
  if (!player.replay) return;
  player.frame = Math.max(0, Math.floor(Math.min(player.replay.frameCount - 1, k)) || 0);
  player.clock = 0;
  showFrame();
}

function play() {
  if (!player.replay) return;
  if (player.frame >= player.replay.frameCount - 1) seek(0);
  player.playing = true;
  player.clock = 0;
  ui.play.textContent = 'II';
}

function pause() {
  player.playing = false;
  ui.play.textContent = '▶';
  const k = player.shown.frame;
  if (view.sparedMeshes) viewStale = needsRender = true;
  if (player.replay && k >= 0 && panel.frame !== k) showPanel(k);
  if (player.replay && k >= 0 && panel.barFrame !== k) showPosition(k);
}

// Advances by the time since the last animation frame (or by one frame in
// "every frame" mode); stops at the end unless looping.
function advance(seconds, loop = false) {
  const replay = player.replay;
  let steps = 1;
  if (ui.speed.value !== 'every') {
    const dt = replay.recording.header.dt > 0 ? replay.recording.header.dt : 1 / 60;
    player.clock += Math.min(seconds, 0.25) * Number(ui.speed.value);
    steps = Math.floor(player.clock / dt);
    player.clock -= steps * dt;
  }
  if (steps === 0) return;
  let next = player.frame + steps;
  if (next >= replay.frameCount) {
    if (loop) next = 0;
    else next = replay.frameCount - 1, pause();
  }
  player.frame = next;
}

// Brings the view, the scrubber and the panel to player.frame.
function showFrame() {
  const replay = player.replay;
  if (!replay) return;
  const k = player.frame;
  const color = ui.color.value;
  const contacts = ui.contacts.checked && !ui.contacts.disabled;
  const start = performance.now();
  if (player.shown.frame !== k) replay.seek(k);
  if (player.shown.frame !== k || player.shown.color !== color || viewStale) {
    // While playing, a software renderer spares meshes (view3d.js: meshBudget).
    view.draw(replay.state, color, player.playing);
    viewStale = false;
  }
  if (player.shown.frame !== k || player.shown.contacts !== contacts) {
    view.setContacts(contacts ? replay.contacts(k) : null);
  }
  meter.updateMs = performance.now() - start;
  player.shown = { frame: k, color, contacts };
  needsRender = true;
  if (!player.playing || start - panel.barAt >= BAR_INTERVAL_MS) showPosition(k);
  if (!player.playing || start - panel.shownAt >= PANEL_INTERVAL_MS) showPanel(k);
}

// The slider and the frame label at frame k (see BAR_INTERVAL_MS).
function showPosition(k) {
  ui.scrub.value = String(k);
  ui.frameLabel.textContent = `frame ${k} / ${player.replay.frameCount - 1}`;
  panel.barAt = performance.now();
  panel.barFrame = k;
}

// The statistics panel for frame k (see PANEL_INTERVAL_MS).
function showPanel(k) {
  const replay = player.replay;
  const frame = replay.recording.frames[k];
  renderStats(ui.statsTable, frame, frameStats(replay.recording, frame), replay.recording.header, meter,
    view.instanceCount);
  panel.shownAt = performance.now();
  panel.frame = k;
}

let lastTime = performance.now();
let measuring = null;

function animate(now) {
  const seconds = (now - lastTime) / 1000;
  lastTime = now;
  if (player.replay && player.playing) advance(seconds, measuring !== null);
  if (player.replay && (player.shown.frame !== player.frame || viewStale)) showFrame();
  if (!needsRender) {
    meter.since = now;
    meter.frames = 0;
    return;
  }
  needsRender = false;
  view.render();
  meter.frames += 1;
  if (measuring) measuring.record(now);
  if (now - meter.since >= 1000) {
    meter.fps = (meter.frames * 1000) / (now - meter.since);
    meter.frames = 0;
    meter.since = now;
  }
}
view.renderer.setAnimationLoop(animate);

// ---- controls ----

ui.open.addEventListener('click', () => ui.file.click());
ui.file.addEventListener('change', () => {
  if (ui.file.files.length > 0) loadFile(ui.file.files[0]);
  ui.file.value = '';
});
ui.play.addEventListener('click', () => (player.playing ? pause() : play()));
ui.first.addEventListener('click', () => (pause(), seek(0)));
ui.last.addEventListener('click', () => (pause(), seek(Infinity)));
ui.prev.addEventListener('click', () => (pause(), seek(player.frame - 1)));
ui.next.addEventListener('click', () => (pause(), seek(player.frame + 1)));
ui.scrub.addEventListener('input', () => {
  const k = Number(ui.scrub.value); // before pause() puts the slider back on the frame shown
  pause();
  seek(k);
});
ui.color.addEventListener('change', showFrame);
ui.contacts.addEventListener('change', showFrame);
ui.speed.addEventListener('change', () => (player.clock = 0));
ui.frameAll.addEventListener('click', () => player.replay && (view.frameAll(player.replay.state), showFrame()));

window.addEventListener('keydown', (e) => {
  if (!player.replay || e.target instanceof HTMLInputElement && e.target.type !== 'range') return;
  const keys = {
    ' ': () => (player.playing ? pause() : play()),
    ArrowRight: () => (pause(), seek(player.frame + 1)),
    ArrowLeft: () => (pause(), seek(player.frame - 1)),
    Home: () => (pause(), seek(0)),
    End: () => (pause(), seek(Infinity)),
  };
  if (keys[e.key]) {
    e.preventDefault();
    keys[e.key]();
  }
});

// Drag and drop anywhere on the page.
window.addEventListener('dragover', (e) => {
  e.preventDefault();
  document.body.classList.add('dragging');
});
window.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
window.addEventListener('drop', (e) => {
  e.preventDefault();
  document.body.classList.remove('dragging');
  const file = e.dataTransfer && e.dataTransfer.files[0];
  if (file) loadFile(file);
});

// ---- the test's handle ----

// Plays every frame, looping, for `seconds` and reports what the page drew:
// animation frames per second and the mean time of a frame's update (poses,
// colours, contacts) in JavaScript.
function measureFps(seconds = 5) {
  return new Promise((resolve) => {
    const previousSpeed = ui.speed.value;
    ui.speed.value = 'every';
    play();
    const start = performance.now();
    let frames = 0;
    let updateMs = 0;
    measuring = {
      record(now) {
        frames += 1;
        updateMs += meter.updateMs;
        if (now - start >= seconds * 1000) {
          measuring = null;
          pause();
          ui.speed.value = previousSpeed;
          resolve({ fps: (frames * 1000) / (now - start), frames, updateMs: updateMs / frames,
            instances: view.instanceCount });
        }
      },
    };
  });
}

window.tessera = {
  get status() { return document.body.dataset.status; },
  get message() { return ui.message.hidden ? null : ui.message.textContent; },
  get messageKind() { return ui.message.hidden ? null : ui.message.dataset.kind; },
  get frameCount() { return player.replay ? player.replay.frameCount : 0; },
  get frame() { return player.frame; },
  get shownFrame() { return player.shown.frame; },
  // Nothing left to draw: the last change has been rendered.
  get idle() {
    return !needsRender && !player.playing && (!player.replay || (!viewStale && player.shown.frame === player.frame));
  },
  get playing() { return player.playing; },
  get fps() { return meter.fps; },
  get drawn() { return view.drawn; },
  // The kinds of instanced mesh built for the file (box, sphere2, hull:..., triangles:...).
  drawnKinds() { return view.groups.map((g) => g.key); },
  stats() { return player.replay ? frameStats(player.replay.recording, player.replay.recording.frames[player.frame]) : null; },
  // The pose (7 numbers) the view shows for a body slot, or null.
  pose(slot) {
    const r = player.replay;
    if (!r || slot >= r.slots || r.state.record[slot] < 0) return null;
    return Array.from(r.state.pose.subarray(slot * 7, slot * 7 + 7));
  },
  seek, play, pause, measureFps, loadUrl,
  setColor(mode) { ui.color.value = mode; showFrame(); },
  // Frames the moving bodies from a direction (and zoom), in a colour mode.
  view({ direction, zoom = 1, color } = {}) {
    if (color) ui.color.value = color;
    if (player.replay) view.frameAll(player.replay.state, direction, zoom);
    showFrame();
  },
  setContacts(on) { ui.contacts.checked = on; showFrame(); },
};

const url = new URLSearchParams(location.search).get('url');
if (url) loadUrl(url);
