// The statistics panel: what the world's counters said at the shown frame,
// and how fast the page draws.

function row(name, value) {
  return `<tr><td>${name}</td><td>${value}</td></tr>`;
}

const number = (n) => (n === undefined ? '–' : n.toLocaleString('en-US'));

export function renderStats(table, frame, stats, header, meter, instances) {
  const time = header.dt > 0 ? (frame.step * header.dt).toFixed(2) : '–';
  const colorsUsed = stats.colors.filter((c) => c > 0).length;
  table.innerHTML = [
    row('step', `${number(frame.step)} (${time} s)`),
    row('step ms', stats.stepMs !== undefined && stats.stepMs > 0 ? stats.stepMs.toFixed(3) : '–'),
    row('bodies', number(stats.bodies)),
    row('awake', number(stats.awakeBodies)),
    row('islands', `${number(stats.awakeIslands)} / ${number(stats.islands)}`),
    row('contact pairs', number(stats.contactPairs)),
    row('touching', number(stats.touching)),
    row('points', number(stats.points)),
    row('colours', `${colorsUsed} (+${number(stats.overflow)} overflow)`),
    row('threads · SIMD', `${number(stats.threads)} · ${number(stats.simdWidth)}`),
    row('view fps', meter.fps > 0 ? meter.fps.toFixed(0) : '–'),
    row('update ms', meter.updateMs.toFixed(1)),
    row('instances', number(instances)),
  ].join('');
}
