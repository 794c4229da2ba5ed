/* global document, window, fetch, uPlot */
// The market page's price-history chart: reads GET /api/markets/{id}/history and draws the sim price,
// the venue's price (imported markets) and the trades with uPlot. The page works without it (the
// facts and the trades table are server-rendered); this only adds the picture.
(function () {
  const figure = document.getElementById('price-chart');
  if (!figure || typeof uPlot === 'undefined') return;
  const target = figure.querySelector('.chart-canvas');

  const cents = (v) => (v === null || v === undefined ? '—' : `${(v * 100).toFixed(1)}¢`);

  /**
   * uPlot wants one x array and aligned series. The x values are the grid points and the trade
   * times; prices are step functions, so each series holds its last value between its own points.
   */
  function align(history) {
    const rows = [
      ...history.points.map((p) => ({
        t: Date.parse(p.timestamp),
        sim: p.price_yes,
        ext: p.external_price_yes,
      })),
      ...history.trades.map((t) => ({
        t: Date.parse(t.timestamp),
        sim: t.price_after,
        trade: t.price_after,
      })),
    ].sort((a, b) => a.t - b.t);
    const xs = [];
    const sim = [];
    const ext = [];
    const trades = [];
    let lastExt = null;
    let lastX = -Infinity;
    for (const row of rows) {
      // Two rows at the same millisecond stay two points (uPlot needs strictly increasing x).
      const x = Math.max(row.t / 1000, lastX + 0.001);
      lastX = x;
      if (row.ext !== undefined && row.ext !== null) lastExt = row.ext;
      xs.push(x);
      sim.push(row.sim);
      ext.push(row.ext === undefined ? lastExt : row.ext);
      trades.push(row.trade === undefined ? null : row.trade);
    }
    const series = [{ label: 'Sim price', values: sim, stroke: '#1f5fbf', width: 2 }];
    if (history.has_external_price)
      series.push({ label: 'External price', values: ext, stroke: '#b45309', width: 2, dash: [6, 4] });
    series.push({ label: 'Trades', values: trades, stroke: '#1a1f2b', dots: true });
    return { xs, series };
  }

  function draw(history) {
    const { xs, series } = align(history);
    const stepped = uPlot.paths.stepped({ align: 1 });
    const opts = {
      width: Math.max(240, target.clientWidth),
      height: 300,
      scales: { x: { time: true }, y: { range: [0, 1] } },
      axes: [{}, { values: (_u, ticks) => ticks.map((v) => `${Math.round(v * 100)}¢`), size: 48 }],
      series: [
        {},
        ...series.map((s) =>
          s.dots
            ? {
                label: s.label,
                stroke: s.stroke,
                fill: '#ffffff',
                paths: () => null,
                points: { show: true, size: 9, width: 2, stroke: s.stroke, fill: '#ffffff' },
                value: (_u, v) => cents(v),
              }
            : {
                label: s.label,
                stroke: s.stroke,
                width: s.width,
                dash: s.dash,
                spanGaps: true,
                paths: stepped,
                points: { show: false },
                value: (_u, v) => cents(v),
              },
        ),
      ],
    };
    const plot = new uPlot(opts, [xs, ...series.map((s) => s.values)], target);
    window.addEventListener('resize', () =>
      plot.setSize({ width: Math.max(240, target.clientWidth), height: 300 }),
    );
    // What was drawn, for people using assistive technology and for the browser tests.
    figure.dataset.series = JSON.stringify(
      series.map((s) => ({
        label: s.label,
        points: s.values.filter((v) => v !== null && v !== undefined).length,
      })),
    );
    figure.dataset.state = 'drawn';
  }

  fetch(figure.dataset.historyUrl, { headers: { accept: 'application/json' } })
    .then((res) => {
      if (!res.ok) throw new Error(`history answered ${res.status}`);
      return res.json();
    })
    .then(draw)
    .catch((err) => {
      figure.dataset.state = 'failed';
      target.textContent = `The chart could not be drawn (${err.message}); the trades are listed below.`;
    });
})();
