import assert from 'node:assert/strict';
import { startNoaaStandIn, type NoaaPoint, type NoaaStandIn } from './noaa/index.js';

/** Wire bodies as parsed JSON: the tests read them field by field. */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

async function getJson(url: string): Promise<{ status: number; type: string | null; body: Json }> {
  const res = await fetch(url, { headers: { Accept: 'application/geo+json' } });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
}

describe('NOAA stand-in: points → forecast → periods, and the latest observation #emulator', () => {
  let noaa: NoaaStandIn;
  const nyc: NoaaPoint = {
    point: '40.7769,-73.874',
    office: 'OKX',
    gridX: 37,
    gridY: 38,
    utcOffset: '-05:00',
    days: [
      { date: '2026-12-07', high: 48, low: 37 },
      { date: '2026-12-08', high: 44, low: 30 },
    ],
    station: { id: 'KLGA', celsius: 6.1 },
  };

  before(async () => {
    noaa = await startNoaaStandIn([nyc]);
  });
  after(() => noaa.close());

  it('when a client follows the point to its forecast, then it reads day and night periods with the chosen temperatures', async () => {
    const point = await getJson(`${noaa.url}/points/${nyc.point}`);
    assert.equal(point.status, 200);
    assert.match(point.type!, /^application\/geo\+json/);
    assert.equal(point.body.type, 'Feature');
    assert.equal(point.body.properties.forecast, `${noaa.url}/gridpoints/OKX/37,38/forecast`);

    const forecast = await getJson(point.body.properties.forecast);
    assert.equal(forecast.status, 200);
    assert.deepEqual(
      forecast.body.properties.periods.map((p: Json) => [
        p.startTime,
        p.isDaytime,
        p.temperature,
        p.temperatureUnit,
      ]),
      [
        ['2026-12-07T06:00:00-05:00', true, 48, 'F'],
        ['2026-12-07T18:00:00-05:00', false, 37, 'F'],
        ['2026-12-08T06:00:00-05:00', true, 44, 'F'],
        ['2026-12-08T18:00:00-05:00', false, 30, 'F'],
      ],
    );
    assert.equal(forecast.body.properties.periods[1].endTime, '2026-12-08T06:00:00-05:00');

    const observed = await getJson(`${noaa.url}/stations/KLGA/observations/latest`);
    assert.deepEqual(observed.body.properties.temperature, {
      unitCode: 'wmoUnit:degC',
      value: 6.1,
      qualityControl: 'V',
    });
    assert.deepEqual(noaa.requests, [
      `/points/${nyc.point}`,
      '/gridpoints/OKX/37,38/forecast',
      '/stations/KLGA/observations/latest',
    ]);
  });

  it('when a client asks for a point or station the test did not set, then it gets NOAA’s 404 problem document', async () => {
    const point = await getJson(`${noaa.url}/points/0,0`);
    assert.equal(point.status, 404);
    assert.match(point.type!, /^application\/problem\+json/);
    assert.equal(point.body.title, 'Data Unavailable For Requested Point');
    assert.equal(point.body.status, 404);
    assert.equal((await getJson(`${noaa.url}/stations/KXXX/observations/latest`)).status, 404);
  });
});
