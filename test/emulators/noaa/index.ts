import express, { type Request, type Response } from 'express';
import type { Server } from 'node:http';
import { listen } from '../listen.js';

// NOAA stand-in: a loopback test double of the three api.weather.gov endpoints the weather skills
// read, with the forecast the test chooses (nothing drifts, nothing is random):
//   GET /points/{lat},{lon}                      → properties.forecast (the grid's forecast URL)
//   GET /gridpoints/{office}/{x},{y}/forecast    → properties.periods (day and night periods)
//   GET /stations/{id}/observations/latest       → properties.temperature {unitCode, value} in °C
// Shapes as api.weather.gov answers them (GeoJSON Features, `application/geo+json`); an unknown
// point or station is NOAA's 404 problem document. No production module may import this.

export interface NoaaDay {
  /** Local date of the point, YYYY-MM-DD. */
  date: string;
  /** Daytime period's temperature (°F): the day's high. */
  high: number;
  /** Night period's temperature (°F): the night's low. */
  low: number;
}

export interface NoaaPoint {
  /** "lat,lon" exactly as the client formats it in the URL, e.g. "40.7769,-73.874". */
  point: string;
  office: string;
  gridX: number;
  gridY: number;
  /** Offset of the local times in the periods, e.g. "-05:00". */
  utcOffset: string;
  days: NoaaDay[];
  /** Station id and its latest observed temperature (°C), if the test wants one. */
  station?: { id: string; celsius: number | null };
}

export interface NoaaStandIn {
  url: string;
  /** Paths asked so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** NOAA's problem document (application/problem+json). */
function problem(res: Response, status: number, title: string, detail: string, req: Request): void {
  res
    .status(status)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        correlationId: 'stand-in',
        title,
        type: 'https://api.weather.gov/problems/NotFound',
        status,
        detail,
        instance: `https://api.weather.gov/requests/${encodeURIComponent(req.path)}`,
      }),
    );
}

const geo = (res: Response, body: unknown) => res.type('application/geo+json').send(JSON.stringify(body));

/** Day (06:00–18:00) and night (18:00–06:00) periods of each day, in the point's local time. */
function periods(p: NoaaPoint) {
  let n = 0;
  return p.days.flatMap((d) => {
    const next = new Date(`${d.date}T00:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    const tomorrow = next.toISOString().slice(0, 10);
    const period = (name: string, start: string, end: string, isDaytime: boolean, temperature: number) => ({
      number: ++n,
      name,
      startTime: `${start}${p.utcOffset}`,
      endTime: `${end}${p.utcOffset}`,
      isDaytime,
      temperature,
      temperatureUnit: 'F',
      temperatureTrend: '',
      probabilityOfPrecipitation: { unitCode: 'wmoUnit:percent', value: 10 },
      windSpeed: '5 to 10 mph',
      windDirection: 'NW',
      icon: `https://api.weather.gov/icons/land/${isDaytime ? 'day' : 'night'}/few?size=medium`,
      shortForecast: 'Mostly Clear',
      detailedForecast: `Mostly clear, with a ${isDaytime ? 'high near' : 'low around'} ${temperature}.`,
    });
    return [
      period(`${d.date} day`, `${d.date}T06:00:00`, `${d.date}T18:00:00`, true, d.high),
      period(`${d.date} night`, `${d.date}T18:00:00`, `${tomorrow}T06:00:00`, false, d.low),
    ];
  });
}

/** Starts the stand-in on a free loopback port with `points` (the test may change them in place). */
export async function startNoaaStandIn(points: NoaaPoint[], host = '127.0.0.1'): Promise<NoaaStandIn> {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const requests: string[] = [];
  let base = '';
  app.use((req, _res, next) => {
    requests.push(req.path);
    next();
  });

  app.get('/points/:point', (req, res) => {
    const p = points.find((x) => x.point === req.params.point);
    if (!p)
      return problem(
        res,
        404,
        'Data Unavailable For Requested Point',
        `Unable to provide data for requested point ${req.params.point}`,
        req,
      );
    const grid = `${base}/gridpoints/${p.office}/${p.gridX},${p.gridY}`;
    geo(res, {
      id: `${base}/points/${p.point}`,
      type: 'Feature',
      geometry: { type: 'Point', coordinates: p.point.split(',').map(Number).reverse() },
      properties: {
        '@id': `${base}/points/${p.point}`,
        '@type': 'wx:Point',
        cwa: p.office,
        gridId: p.office,
        gridX: p.gridX,
        gridY: p.gridY,
        forecastOffice: `${base}/offices/${p.office}`,
        forecast: `${grid}/forecast`,
        forecastHourly: `${grid}/forecast/hourly`,
        forecastGridData: grid,
        observationStations: `${grid}/stations`,
      },
    });
  });

  app.get('/gridpoints/:office/:xy/forecast', (req, res) => {
    const p = points.find((x) => x.office === req.params.office && `${x.gridX},${x.gridY}` === req.params.xy);
    if (!p)
      return problem(res, 404, 'Not Found', `Grid ${req.params.office}/${req.params.xy} is unknown`, req);
    const now = new Date().toISOString();
    geo(res, {
      type: 'Feature',
      properties: {
        units: 'us',
        forecastGenerator: 'BaselineForecastGenerator',
        generatedAt: now,
        updateTime: now,
        periods: periods(p),
      },
    });
  });

  app.get('/stations/:id/observations/latest', (req, res) => {
    const p = points.find((x) => x.station?.id === req.params.id);
    if (!p) return problem(res, 404, 'Not Found', `Station ${req.params.id} is unknown`, req);
    geo(res, {
      type: 'Feature',
      properties: {
        station: `${base}/stations/${p.station!.id}`,
        timestamp: new Date().toISOString(),
        temperature: { unitCode: 'wmoUnit:degC', value: p.station!.celsius, qualityControl: 'V' },
      },
    });
  });

  const { server, url } = await listen(app, host);
  base = url;
  return {
    url,
    requests,
    close: () => closeServer(server),
  };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
